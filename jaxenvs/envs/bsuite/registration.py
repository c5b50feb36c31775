"""Ids of the bsuite family, as data: entry points are `"module:attribute"` strings imported
only by `make`; nothing here imports bsuite or an env module.

Base ids (`Catch-bsuite`, ...) build each env with bsuite's constructor defaults; where bsuite
has none, or draws the env itself at random (`mapping_seed=None`), the value of one of
bsuite's sweep settings is fixed and named in `reference`.

Sweep ids `bsuite/<experiment>/<i>` are bsuite's `sweep.SWEEP`: `env_kwargs` is
`{"experiment": <experiment>, **bsuite.sweep.SETTINGS["<experiment>/<i>"]}`, built by
`jaxenvs.envs.bsuite.sweep:load` as `bsuite.load_from_id` builds it, and `params` carries
the experiment's `NUM_EPISODES` as `bsuite_num_episodes`. `_SWEEPS` below restates bsuite
0.3.6's `experiments/*/sweep.py` (tests compare it with the installed bsuite id by id).
"""

_NOISE_SCALES = (0.1, 0.3, 1.0, 3.0, 10.0)
_REWARD_SCALES = (0.001, 0.03, 1.0, 30.0, 1000.0)
_LOG_SPACED = (*range(1, 11), 12, 14, 17, 20, 25, *range(30, 105, 10))  # memory_len, umbrella_*
_MEMORY_SIZES = (*range(1, 11), 12, 14, 17, 20, 25, *range(30, 50, 10))
_DEEP_SEA_SIZES = tuple(range(10, 51, 2))


def _noise(**fixed):
    return [dict(noise_scale=s, seed=None, **fixed) for s in _NOISE_SCALES for _ in range(4)]


def _scale(**fixed):
    return [dict(reward_scale=s, seed=None, **fixed) for s in _REWARD_SCALES for _ in range(4)]


_SEEDLESS = [dict(seed=None) for _ in range(20)]

# experiment -> (NUM_EPISODES, SETTINGS), in bsuite's `sweep.SWEEP` order
_SWEEPS = {
    "bandit": (10_000, [dict(mapping_seed=n) for n in range(20)]),
    "bandit_noise": (10_000, [dict(noise_scale=s, seed=None, mapping_seed=n) for s in _NOISE_SCALES for n in range(4)]),
    "bandit_scale": (
        10_000,
        [dict(reward_scale=s, seed=None, mapping_seed=n) for s in _REWARD_SCALES for n in range(4)],
    ),
    "cartpole": (1_000, _SEEDLESS),
    "cartpole_noise": (1_000, _noise()),
    "cartpole_scale": (1_000, _scale()),
    "cartpole_swingup": (1_000, [dict(height_threshold=n / 20, x_reward_threshold=1 - n / 20) for n in range(20)]),
    "catch": (10_000, _SEEDLESS),
    "catch_noise": (10_000, _noise()),
    "catch_scale": (10_000, _scale()),
    "deep_sea": (10_000, [dict(size=n, mapping_seed=42) for n in _DEEP_SEA_SIZES]),
    "deep_sea_stochastic": (10_000, [dict(size=n, mapping_seed=42) for n in _DEEP_SEA_SIZES]),
    "discounting_chain": (1_000, [dict(mapping_seed=n) for n in range(20)]),
    "memory_len": (10_000, [dict(memory_length=n) for n in _LOG_SPACED]),
    "memory_size": (10_000, [dict(num_bits=n) for n in _MEMORY_SIZES]),
    "mnist": (10_000, _SEEDLESS),
    "mnist_noise": (10_000, _noise()),
    "mnist_scale": (10_000, _scale()),
    "mountain_car": (1_000, _SEEDLESS),
    "mountain_car_noise": (1_000, _noise()),
    "mountain_car_scale": (1_000, _scale()),
    "umbrella_distract": (10_000, [dict(n_distractor=n) for n in _LOG_SPACED]),
    "umbrella_length": (10_000, [dict(chain_length=n, n_distractor=20) for n in _LOG_SPACED]),
}

_M = "jaxenvs.envs.bsuite."


def _base(env_id: str, env: str, reference: str, *, env_kwargs=None, peers=None) -> dict:
    """A base id: env `folder:Class` built with `env_kwargs`, bsuite's env `reference`, its parity spec (beside
    the env; the sweep ids are settings of the base ids, compared in tests) and benchmark peers."""
    return dict(
        id=env_id,
        entry_point=_M + env,
        env_kwargs=env_kwargs or {},
        reference="bsuite " + reference,
        family="bsuite",
        parity=_M + env.split(":")[0] + ".parity:SPEC",
        peers=peers or {},
    )


# Peers: gymnax's bsuite ports, and (`loop`) bsuite's own env stepped in a loop.
BASE: list[dict] = [
    _base(
        "SimpleBandit-bsuite",
        "bandit:SimpleBandit",
        "bandit (SimpleBandit, mapping_seed 0 as bandit/0)",
        env_kwargs={"mapping_seed": 0},
        peers={"gymnax": "SimpleBandit-bsuite"},
    ),
    _base(
        "Catch-bsuite",
        "catch:Catch",
        "catch (Catch)",
        peers={"gymnax": "Catch-bsuite", "loop": ("bsuite", "catch", {})},
    ),
    _base(
        "DeepSea-bsuite",
        "deep_sea:DeepSea",
        "deep_sea (DeepSea, size 10, mapping_seed 42 as deep_sea/0)",
        env_kwargs={"size": 10, "mapping_seed": 42},
        peers={
            "gymnax": ("DeepSea-bsuite", {"size": 10}),
            "loop": ("bsuite", "deep_sea", {"size": 10, "mapping_seed": 42}),
        },
    ),
    _base(
        "DeepSeaStochastic-bsuite",
        "deep_sea:DeepSea",
        "deep_sea_stochastic (DeepSea, size 10, mapping_seed 42)",
        env_kwargs={"size": 10, "deterministic": False, "mapping_seed": 42},
    ),
    _base(
        "DiscountingChain-bsuite",
        "discounting_chain:DiscountingChain",
        "discounting_chain (DiscountingChain, mapping_seed 0)",
        env_kwargs={"mapping_seed": 0},
        peers={"gymnax": "DiscountingChain-bsuite"},
    ),
    _base(
        "MemoryChain-bsuite",
        "memory_chain:MemoryChain",
        "memory_len (MemoryChain, memory_length 5 as memory_len/4)",
        env_kwargs={"memory_length": 5, "num_bits": 1},
        peers={"gymnax": "MemoryChain-bsuite"},
    ),
    _base(
        "UmbrellaChain-bsuite",
        "umbrella_chain:UmbrellaChain",
        "umbrella_length (UmbrellaChain, 20 steps, 20 distractors)",
        env_kwargs={"chain_length": 20, "n_distractor": 20},
        peers={"gymnax": "UmbrellaChain-bsuite"},
    ),
    _base("MNISTBandit-bsuite", "mnist:MNISTBandit", "mnist (MNISTBandit; data from $JAXENVS_MNIST_DIR or the cache)"),
    _base("CartPole-bsuite", "cartpole:CartPole", "cartpole (Cartpole)"),
    _base("CartPoleSwingup-bsuite", "cartpole_swingup:CartPoleSwingup", "cartpole_swingup (CartpoleSwingup)"),
    _base("MountainCar-bsuite", "mountain_car:MountainCar", "mountain_car (MountainCar)"),
]

SWEEP: list[dict] = [
    dict(
        id=f"bsuite/{experiment}/{i}",
        entry_point=_M + "sweep:load",
        env_kwargs={"experiment": experiment, **setting},
        params={"bsuite_num_episodes": num_episodes},
        reference=f'bsuite.load_from_id("{experiment}/{i}")',
        family="bsuite",
    )
    for experiment, (num_episodes, settings) in _SWEEPS.items()
    for i, setting in enumerate(settings)
]

REGISTRATIONS: list[dict] = BASE + SWEEP
