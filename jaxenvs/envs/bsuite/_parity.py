"""What the bsuite envs' parity specs share: bsuite's envs as `DmEnvReference`s, and the checks
every spec runs (`spec`, and `continuous` for the physics envs).

bsuite's envs are dm_env environments keeping their state in private attributes; each is
read into (and written from) a dict with the JAX state's field names (`_ref_catch`, ...,
built at the id's registered settings). Every spec compares transitions by state injection
under uniform random actions (next state, observation, reward, `terminated` as bsuite's
`last()`, and `truncated`: bsuite ends its episodes itself, never by truncation) and ends
with random-policy episode length and return (`statistics`). Each env's `parity.py` adds its
own: what the env is built from (arm rewards, chain bonuses, deep-sea action mappings for
every seed bsuite's sweeps use), its random parts by distribution, its resets; the physics
envs are compared in float32 (within their own rounding) and float64, and along whole
episodes in float64.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

import jaxenvs
from jaxenvs import parity as p
from jaxenvs.parity import Check, DmEnvReference, check_episode_statistics, check_resets
from jaxenvs.parity.stats import ATOL_F32_OBS, error_check

# ---------------------------------------------------------------------------------------------
# the references


def _bsuite_env(module: str, cls: str):
    return getattr(importlib.import_module(f"bsuite.environments.{module}"), cls)


def _reference(name: str, make: Callable[[int], Any], io: tuple, **kwargs: Any) -> DmEnvReference:
    # bsuite never truncates: every last step is a termination, and the JAX flag must stay false
    return DmEnvReference(
        make=make,
        read_state=io[0],
        write_state=io[1],
        discount_truncates=False,
        truncation_excludes_termination=False,
        name=name,
        **kwargs,
    )


def _private(
    module: str,
    cls: str,
    env_kwargs: dict,
    fields: tuple[str, ...] = (),
    time: str = "_timestep",
    floats: tuple[str, ...] = (),
    seeded: bool = True,
    **kwargs: Any,
) -> DmEnvReference:
    """bsuite's `bsuite.environments.<module>.<cls>(**env_kwargs)`, whose state is the private
    attributes `_<field>`: `fields` compared exactly (written back in the dtype bsuite keeps
    them in), `floats` to a tolerance, and the time, read from the attribute `time` (written
    back where it is `_timestep`). `seeded`: bsuite's constructor takes a seed."""
    bsuite_cls = _bsuite_env(module, cls)

    def read_state(env):
        out = {k: np.asarray(getattr(env, f"_{k}")).copy() for k in fields}
        return dict(out, **{k: float(getattr(env, f"_{k}")) for k in floats}, time=int(getattr(env, time)))

    def write_state(env, state):
        for k in fields:
            value = np.asarray(state[k], np.asarray(getattr(env, f"_{k}")).dtype).copy()
            setattr(env, f"_{k}", value if value.ndim else value.item())
        for k in floats:
            setattr(env, f"_{k}", float(state[k]))
        if time == "_timestep":
            env._timestep = int(state["time"])
        env._reset_next_step = False

    make = (lambda seed: bsuite_cls(seed=seed, **env_kwargs)) if seeded else (lambda seed: bsuite_cls(**env_kwargs))
    name = kwargs.pop("name", f"bsuite {cls}")
    return _reference(name, make, (read_state, write_state), exact_fields=("time", *fields), **kwargs)


def _ref_bandit(env_kwargs: dict) -> DmEnvReference:
    # time: 1 once the pull is made
    return _private("bandit", "SimpleBandit", env_kwargs, time="_reset_next_step", seeded=False)


def _ref_catch(env_kwargs: dict) -> DmEnvReference:
    return _private("catch", "Catch", env_kwargs, ("ball_x", "ball_y", "paddle_x", "paddle_y"), time="_ball_y")


def _ref_deep_sea(env_kwargs: dict) -> DmEnvReference:
    size, stochastic = env_kwargs["size"], {}
    if not env_kwargs.get("deterministic", True):  # the column drawn; noise on the corners' reward
        stochastic = dict(
            name="bsuite DeepSea (stochastic)",
            random_fields=("column",),
            obs_mask=lambda o: o.reshape(len(o), size, size).sum(axis=2),  # the row
            random_step=lambda before, after, reward: before["row"] == size - 1 and before["column"] in (0, size - 1),
            random_step_fields=("reward",),
        )
    return _private("deep_sea", "DeepSea", env_kwargs, ("row", "column", "bad_episode"), time="_row", **stochastic)


def _ref_discounting_chain(env_kwargs: dict) -> DmEnvReference:
    return _private("discounting_chain", "DiscountingChain", env_kwargs, ("context",), seeded=False)


def _ref_memory_chain(env_kwargs: dict) -> DmEnvReference:
    return _private("memory_chain", "MemoryChain", env_kwargs, ("context", "query"))


def _ref_umbrella_chain(env_kwargs: dict) -> DmEnvReference:
    chain_length = env_kwargs["chain_length"]
    return _private(
        "umbrella_chain",
        "UmbrellaChain",
        env_kwargs,
        ("need_umbrella", "has_umbrella"),
        obs_mask=lambda o: o.reshape(len(o), -1)[:, :3],  # distractors are fresh coins
        random_step=lambda before, after, reward: int(after["time"]) != chain_length,
        random_step_fields=("reward",),
    )


def _cartpole(module: str, cls: str, env_kwargs: dict) -> DmEnvReference:
    """bsuite's cart-pole `bsuite.<module>.<cls>(**env_kwargs)`: its `CartpoleState` under the JAX
    field names, the time counted from `time_elapsed`."""
    from bsuite.environments.cartpole import CartpoleState

    fields = ("x", "x_dot", "theta", "theta_dot", "time_elapsed")
    timescale = env_kwargs.get("timescale", 0.01)

    def read_state(env):
        out = {k: float(getattr(env._state, k)) for k in fields}
        return dict(out, time=int(round(out["time_elapsed"] / timescale)))

    def write_state(env, state):
        env._state = CartpoleState(**{k: float(state[k]) for k in fields})
        env._reset_next_step = False

    make = lambda seed: getattr(importlib.import_module(f"bsuite.{module}"), cls)(seed=seed, **env_kwargs)  # noqa: E731
    return _reference(f"bsuite {cls}", make, (read_state, write_state), angle_fields=("theta",))


_ref_cartpole = functools.partial(_cartpole, "environments.cartpole", "Cartpole")
_ref_cartpole_swingup = functools.partial(_cartpole, "experiments.cartpole_swingup.cartpole_swingup", "CartpoleSwingup")


def _ref_mountain_car(env_kwargs: dict) -> DmEnvReference:
    return _private("mountain_car", "MountainCar", env_kwargs, floats=("position", "velocity"))


# ---------------------------------------------------------------------------------------------
# what the specs share


def settings(env_id: str) -> dict[str, Any]:
    """An id's registered bsuite settings: the constructor arguments of its reference.

    Args:
        env_id: a registered bsuite id.

    Returns:
        A copy of its `env_kwargs`.
    """
    return dict(jaxenvs.spec(env_id).env_kwargs)


# per step by state injection: every state field and flag exactly, rewards to float32 resolution
STEP = p.transitions("atol", atol=0.0, reward_atol=ATOL_F32_OBS)


def rewards_by_mapping_seed(label: str, module: str, cls: str, ours: Callable[[int], np.ndarray]) -> p.CheckFn:
    """What bsuite's `<module>.<cls>` draws from its `mapping_seed` (its `_rewards`), ours
    against it, for every mapping_seed bsuite's sweeps use (0..19).

    Args:
        label: The check's name, before " (mapping_seed 0..19)".
        module: bsuite's module, in `bsuite.environments`.
        cls: bsuite's env class.
        ours: `mapping_seed -> our rewards`.

    Returns:
        A check function (to 1e-7).
    """

    def check(ctx: p.Context) -> list[Check]:
        theirs = [_bsuite_env(module, cls)(mapping_seed=s)._rewards for s in range(20)]
        mine = [ours(s) for s in range(20)]
        return [error_check(f"{label} (mapping_seed 0..19)", np.stack(mine), np.stack(theirs), 1e-7)]

    return check


def statistics(longest: int | Callable[[p.Context], int]) -> p.CheckFn:
    """Random-policy episode length and return (`check_episode_statistics`).

    Args:
        longest: the most steps an episode takes (or `Context -> it`): bsuite ends its
            episodes itself, so the JAX time limit is set past it.

    Returns:
        A check function, 200 episodes a side at scale 1 (at least 20).
    """

    def check(ctx: p.Context) -> list[Check]:
        cut = (longest(ctx) if callable(longest) else longest) + 1
        params = ctx.params.replace(max_steps_in_episode=cut)
        return check_episode_statistics(ctx.env, params, ctx.reference, ctx.size(200, 20), ctx.seed, max_steps=cut)

    return check


def spec(
    reference: Callable[[dict], DmEnvReference], *checks: p.CheckFn, longest: int | Callable[[p.Context], int]
) -> p.ParitySpec:
    """A bsuite env's `ParitySpec`: its `checks`, then `statistics(longest)`, against bsuite.

    Args:
        reference: `settings -> DmEnvReference` (one of this module's `_ref_*`), built at the
            id's registered settings.
        *checks: the env's checks, in order.
        longest: as `statistics`.

    Returns:
        The spec (`library="bsuite"`).
    """
    checks = p.chain(*checks, statistics(longest))
    return p.ParitySpec(checks=checks, reference=lambda env_id: reference(settings(env_id)), library="bsuite")


def _drawn_resets(ctx: p.Context) -> list[Check]:
    """The reset distribution (KS per coordinate) of the state fields the reference draws."""
    n = ctx.size(2000, 200)
    drawn, _ = ctx.reference.sample_resets(n, ctx.seed)
    fields = [k for k in drawn if k not in ("time", "time_elapsed") and np.ptp(drawn[k]) > 0]
    outcome = lambda s, o: np.stack([s[k] for k in fields], axis=1)  # noqa: E731
    return check_resets(ctx.env, ctx.params, ctx.reference, n, ctx.seed, outcome=outcome)


def continuous(
    reference: Callable[[dict], DmEnvReference], longest: int, *extra: p.CheckFn, whole_episodes: bool = True
) -> p.ParitySpec:
    """The spec of a physics env: per step in float32 (within its own rounding) and in float64,
    whole episodes in float64, the reset distribution, random-policy statistics.

    Args:
        reference: as `spec`.
        longest: as `statistics`.
        *extra: checks run after the float32 steps.
        whole_episodes: compare whole episodes too.

    Returns:
        The spec.
    """
    f32 = p.transitions("f32", atol=0.0, reward_atol=ATOL_F32_OBS)
    f64 = p.transitions("f64", seed_offset=1, reward_atol=ATOL_F32_OBS)
    episodes = [p.episodes("f64", at_one=10, least=3)] if whole_episodes else []
    return spec(reference, f32, *extra, f64, *episodes, _drawn_resets, longest=longest)
