"""Parity of the classic-control envs against gymnasium's `classic_control`.

Per env: per-step state injection in float32 and float64 (every field, observation, reward,
flags), whole episodes in float64 where the dynamics are not chaotic, the reset distribution
(KS per coordinate), and random-policy episode statistics (3 standard errors).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.parity import _gymnasium as gym_utils
from jaxenvs.parity.harness import (
    ParityResult,
    Reference,
    Timer,
    check_episode_statistics,
    check_episodes,
    check_reset_distribution,
    check_transitions,
)

# Targets from the foundation issue: float64 per-step <= 1e-9, whole episodes <= 1e-6.
ATOL_F64_STEP = 1e-9
ATOL_F64_EPISODE = 1e-6
ATOL_F32_STEP = 1e-5


def _vector_reference(env_id: str, fields: tuple[str, ...], jax_state_cls_path: str) -> Reference:
    """A gymnasium env whose `unwrapped.state` is a vector with the given field order."""

    def get_state(env: Any) -> dict[str, Any]:
        vec = np.asarray(env.unwrapped.state, dtype=np.float64)
        out = {k: vec[i] for i, k in enumerate(fields)}
        out["time"] = np.int32(gym_utils.elapsed_steps(env))
        return out

    def set_state(env: Any, state: dict[str, Any]) -> None:
        env.unwrapped.state = np.array([state[k] for k in fields], dtype=np.float64)
        gym_utils.set_elapsed_steps(env, int(state["time"]))

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        module, _, cls = jax_state_cls_path.partition(":")
        state_cls = getattr(__import__(module, fromlist=[cls]), cls)
        dtype = jnp.result_type(float)
        values = {k: jnp.asarray(state[k], dtype) for k in fields}
        return state_cls(time=jnp.asarray(state["time"], jnp.int32), **values)

    return Reference(
        make=lambda: gym_utils.make(env_id),
        get_state=get_state,
        set_state=set_state,
        to_jax=to_jax,
        name=f"gymnasium {env_id}",
    )


REFERENCES = {
    "CartPole-v1": lambda: _vector_reference(
        "CartPole-v1", ("x", "x_dot", "theta", "theta_dot"), "jaxenvs.envs.classic.cartpole:CartPoleState"
    ),
    "CartPole-v0": lambda: _vector_reference(
        "CartPole-v0", ("x", "x_dot", "theta", "theta_dot"), "jaxenvs.envs.classic.cartpole:CartPoleState"
    ),
}

# Whole-episode comparisons only where the dynamics do not amplify rounding chaotically.
WHOLE_EPISODES = {"CartPole-v1", "CartPole-v0"}

IDS = tuple(REFERENCES)


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    ref = REFERENCES[env_id]()
    result = ParityResult(env_id, ref.name)
    n_steps = max(50, int(2000 * scale))
    n_samples = max(200, int(2000 * scale))
    n_episodes = max(20, int(200 * scale))
    with Timer() as timer:
        env, params = jaxenvs.make(env_id, autoreset=False)
        result.checks += check_transitions(env, params, ref, n_steps, ATOL_F32_STEP, seed, label="f32 step")
        with jax.enable_x64(True):
            env, params = jaxenvs.make(env_id, autoreset=False)
            result.checks += check_transitions(env, params, ref, n_steps, ATOL_F64_STEP, seed + 1, label="f64 step")
            if env_id in WHOLE_EPISODES:
                result.checks += check_episodes(env, params, ref, max(5, int(20 * scale)), ATOL_F64_EPISODE, seed)
        result.checks += check_reset_distribution(env, params, ref, n_samples, seed)
        result.checks += check_episode_statistics(env, params, ref.make, n_episodes, seed)
    result.seconds = timer.seconds
    return result
