"""Build a bsuite experiment from its settings, as `bsuite.load(experiment, settings)` does.

`load(experiment, **settings)` takes the settings of bsuite's `sweep.SETTINGS[id]` unchanged
(the registration of every `bsuite/<experiment>/<i>` id passes exactly them) and builds what
the experiment's `load` builds in bsuite: the base env with the experiment's fixed
arguments (memory_len: one bit; memory_size: memory length 2; umbrella_distract: chain
length 20; deep_sea_stochastic: `deterministic=False`), wrapped in `RewardNoise` or
`RewardScale` for the `*_noise` and `*_scale` experiments.

`seed`: bsuite seeds each env's numpy generator with it (None in most sweeps); here the
randomness of reset and step comes from the JAX keys, so `seed` is accepted and not used.
Seeds that fix the *env itself* (`mapping_seed`) are used exactly as bsuite uses them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _bandit(mapping_seed=None, num_actions=11, seed=None):
    from jaxenvs.envs.bsuite.bandit import SimpleBandit

    return SimpleBandit(mapping_seed=mapping_seed, num_actions=num_actions)


def _catch(seed=None, **kwargs):
    from jaxenvs.envs.bsuite.catch import Catch

    return Catch(**kwargs)


def _cartpole(seed=None, **kwargs):
    from jaxenvs.envs.bsuite.cartpole import CartPole

    return CartPole(**kwargs)


def _cartpole_swingup(seed=None, **kwargs):
    from jaxenvs.envs.bsuite.cartpole_swingup import CartPoleSwingup

    return CartPoleSwingup(**kwargs)


def _deep_sea(size, seed=None, **kwargs):
    from jaxenvs.envs.bsuite.deep_sea import DeepSea

    return DeepSea(size=size, **kwargs)


def _deep_sea_stochastic(size, mapping_seed=0):
    return _deep_sea(size=size, deterministic=False, mapping_seed=mapping_seed)


def _discounting_chain(mapping_seed=None):
    from jaxenvs.envs.bsuite.discounting_chain import DiscountingChain

    return DiscountingChain(mapping_seed=mapping_seed)


def _memory_chain(memory_length, num_bits=1, seed=None):
    from jaxenvs.envs.bsuite.memory_chain import MemoryChain

    return MemoryChain(memory_length=memory_length, num_bits=num_bits)


def _mnist(seed=None, **kwargs):
    from jaxenvs.envs.bsuite.mnist import MNISTBandit

    return MNISTBandit(**kwargs)


def _mountain_car(seed=None, **kwargs):
    from jaxenvs.envs.bsuite.mountain_car import MountainCar

    return MountainCar(**kwargs)


def _umbrella_chain(chain_length, n_distractor=0, seed=None):
    from jaxenvs.envs.bsuite.umbrella_chain import UmbrellaChain

    return UmbrellaChain(chain_length=chain_length, n_distractor=n_distractor)


def _noisy(base: Callable[..., Any]) -> Callable[..., Any]:
    def load(noise_scale, seed=None, **kwargs):
        from jaxenvs.envs.bsuite.wrappers import RewardNoise

        return RewardNoise(base(**kwargs), noise_scale=noise_scale)

    return load


def _scaled(base: Callable[..., Any]) -> Callable[..., Any]:
    def load(reward_scale, seed=None, **kwargs):
        from jaxenvs.envs.bsuite.wrappers import RewardScale

        return RewardScale(base(**kwargs), reward_scale=reward_scale)

    return load


# bsuite's `EXPERIMENT_NAME_TO_ENVIRONMENT`, experiment by experiment.
EXPERIMENTS: dict[str, Callable[..., Any]] = {
    "bandit": _bandit,
    "bandit_noise": _noisy(_bandit),
    "bandit_scale": _scaled(_bandit),
    "cartpole": _cartpole,
    "cartpole_noise": _noisy(_cartpole),
    "cartpole_scale": _scaled(_cartpole),
    "cartpole_swingup": _cartpole_swingup,
    "catch": _catch,
    "catch_noise": _noisy(_catch),
    "catch_scale": _scaled(_catch),
    "deep_sea": _deep_sea,
    "deep_sea_stochastic": _deep_sea_stochastic,
    "discounting_chain": _discounting_chain,
    "memory_len": lambda memory_length, seed=0: _memory_chain(memory_length=memory_length, num_bits=1),
    "memory_size": lambda num_bits, seed=0: _memory_chain(memory_length=2, num_bits=num_bits),
    "mnist": _mnist,
    "mnist_noise": _noisy(_mnist),
    "mnist_scale": _scaled(_mnist),
    "mountain_car": _mountain_car,
    "mountain_car_noise": _noisy(_mountain_car),
    "mountain_car_scale": _scaled(_mountain_car),
    "umbrella_distract": lambda n_distractor, seed=0: _umbrella_chain(chain_length=20, n_distractor=n_distractor),
    "umbrella_length": _umbrella_chain,
}


def load(experiment: str, **settings: Any):
    """The env of a bsuite experiment, as `bsuite.load(experiment, settings)` builds it.

    For example `load("catch_noise", noise_scale=0.1, seed=None)`.

    Args:
        experiment: bsuite's experiment name, a key of `EXPERIMENTS` (e.g. "catch",
            "deep_sea_stochastic", "mnist_scale").
        **settings: The experiment's settings, as in bsuite's `sweep.SETTINGS[id]`; `seed` is
            accepted and not used.

    Returns:
        The raw env (`jaxenvs.make` adds auto-reset), wrapped in `RewardNoise` or `RewardScale`
        for the `*_noise` and `*_scale` experiments.

    Raises:
        KeyError: For an unknown experiment (the message lists the known ones).
    """
    try:
        build = EXPERIMENTS[experiment]
    except KeyError:
        raise KeyError(f"unknown bsuite experiment {experiment!r}; known: {', '.join(EXPERIMENTS)}") from None
    return build(**settings)
