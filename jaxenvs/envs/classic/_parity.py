"""gymnasium's classic-control envs as parity references: their state is a vector (a tuple for
MountainCar) in `unwrapped.state`, whose entries are the JAX state's fields in order; the
time comes from their `TimeLimit`."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from jaxenvs.parity import GymnasiumReference
from jaxenvs.parity.reference import elapsed_steps, set_elapsed_steps


def vector_reference(
    fields: tuple[str, ...], stored_dtype: Callable[[int], Any] = lambda time: np.float64, policy: Any = None
) -> Callable[[str], GymnasiumReference]:
    """A reference factory `env_id -> GymnasiumReference` for a vector-state gymnasium env.

    Args:
        fields: the JAX state's field of each entry of `unwrapped.state`, in order.
        stored_dtype: `time -> numpy dtype` the reference keeps its state in (`write_state`
            writes that dtype).
        policy: the reference's policy for per-step checks (`Reference.policy`), or None for
            uniform random actions.

    Returns:
        A function of the gymnasium id building the reference.
    """

    def read_state(env: Any) -> dict[str, Any]:
        vec = np.asarray(env.unwrapped.state, dtype=np.float64)
        out = {k: vec[i] for i, k in enumerate(fields)}
        out["time"] = np.int32(elapsed_steps(env))
        return out

    def write_state(env: Any, state: dict[str, Any]) -> None:
        dtype = stored_dtype(int(state["time"]))
        env.unwrapped.state = np.array([state[k] for k in fields], dtype=dtype)
        set_elapsed_steps(env, int(state["time"]))

    def build(env_id: str) -> GymnasiumReference:
        import gymnasium

        def make() -> Any:
            with warnings.catch_warnings():  # an old id (CartPole-v0) is checked on purpose
                warnings.filterwarnings("ignore", ".*The environment .* is out of date", DeprecationWarning)
                return gymnasium.make(env_id, disable_env_checker=True)  # its checker warns on injected states

        return GymnasiumReference(
            make=make,
            read_state=read_state,
            write_state=write_state,
            policy=policy,
            name=f"gymnasium {env_id}",
        )

    return build


def push_with_velocity(entry: int) -> Callable[[Any, np.random.Generator], int]:
    """A per-step policy that pumps energy in: push (action 2, else 0) the way `unwrapped.state[entry]`
    (a velocity) points, a uniformly random action a quarter of the time.

    Args:
        entry: the velocity's index in `unwrapped.state`.

    Returns:
        `(reference, rng) -> action`, a `Reference.policy`.
    """

    def policy(ref: Any, rng: np.random.Generator) -> int:
        if rng.random() < 0.25:
            return ref.env.action_space.sample()
        return 2 if ref.env.unwrapped.state[entry] >= 0 else 0

    return policy


def classic_checks(whole_episodes: bool = True):
    """The checks of a classic-control env: per step in float32 (each value within its own
    float32 rounding) and float64 (to 1e-9), the time limit, whole episodes in float64 (where
    the dynamics are not chaotic), the reset distribution, random-policy statistics.

    Args:
        whole_episodes: compare whole episodes too.

    Returns:
        A check function for a `ParitySpec`.
    """
    from jaxenvs import parity as p

    episodes = (p.episodes("f64"),) if whole_episodes else ()
    return p.chain(
        p.transitions("f32"), p.time_limit(), p.transitions("f64", seed_offset=1), *episodes, p.resets(), p.statistics()
    )
