"""Parity of the classic-control envs against gymnasium's `classic_control`.

Per env: per-step state injection in float32 (each value bounded by its own float32 rounding,
measured by the same step in float64) and float64 (to 1e-9; every field, observation, reward,
flags), whole episodes in float64 where the dynamics are not chaotic, the reset distribution
(KS per coordinate), and random-policy episode statistics (`checks.mean_check`).

Each gymnasium env keeps its state as a vector (`unwrapped.state`; MountainCar's is a tuple)
whose entries map to the JAX state's fields in order; the time comes from its `TimeLimit`.
Acrobot's reference state is the 4-vector with `torque_noise_max = 0` (its default).

Whole episodes: CartPole, MountainCar, MountainCarContinuous and Pendulum. Not Acrobot: its
double pendulum is chaotic, so float64 rounding differences (~1e-16 per step) grow until
whole trajectories part after a few hundred steps; it is checked per step only (<= 1e-9).

MountainCarContinuous and Pendulum take float32 actions from gymnasium's Box; both
implementations are given the very same float32 values (the reference's sampled actions).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

import jaxenvs
from jaxenvs.parity.checks import (
    ATOL_F64_EPISODE,
    ATOL_F64_STEP,
    ParityResult,
    Sizes,
    Timer,
)
from jaxenvs.parity.harness import check_episode_statistics, check_episodes, check_resets, check_transitions
from jaxenvs.parity.reference import GymnasiumReference, elapsed_steps, set_elapsed_steps


def _vector_reference(
    env_id: str, fields: tuple[str, ...], stored_dtype: Any = lambda time: np.float64, policy: Any = None
) -> GymnasiumReference:
    """A gymnasium env whose `unwrapped.state` is a vector with the given field order.

    stored_dtype: `time -> numpy dtype` the reference keeps its state in (used by `write_state`).
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

    import gymnasium  # noqa: F401  (a missing reference makes the result "skipped")

    return GymnasiumReference(
        make=lambda: gymnasium.make(env_id, disable_env_checker=True),  # its checker warns on injected states
        read_state=read_state,
        write_state=write_state,
        policy=policy,
        name=f"gymnasium {env_id}",
    )


# Per-step checks drive the reference with a policy that reaches the rare branches too: the
# goal and the left wall (MountainCar), clipped forces and the unclipped-action reward
# (MountainCarContinuous), clipped torque and speed (Pendulum), the goal line (Acrobot).
# Each mixes in uniform random actions; the episode statistics stay uniform random.
def _pump_mountain_car(ref: Any, rng: np.random.Generator) -> Any:
    if rng.random() < 0.25:
        return ref.env.action_space.sample()
    return 2 if ref.env.unwrapped.state[1] >= 0 else 0


def _pump_mountain_car_continuous(ref: Any, rng: np.random.Generator) -> Any:
    direction = 1.0 if ref.env.unwrapped.state[1] >= 0 else -1.0
    return np.array([direction * rng.uniform(0.0, 1.5)], dtype=np.float32)  # |a| > 1 at times


def _pump_pendulum(ref: Any, rng: np.random.Generator) -> Any:
    if rng.random() < 0.5:
        return np.array([rng.uniform(-3.0, 3.0)], dtype=np.float32)  # beyond the torque limit
    return np.array([2.5 if ref.env.unwrapped.state[1] >= 0 else -2.5], dtype=np.float32)


def _pump_acrobot(ref: Any, rng: np.random.Generator) -> Any:
    if rng.random() < 0.25:
        return ref.env.action_space.sample()
    return 2 if ref.env.unwrapped.state[3] >= 0 else 0


_CART = ("x", "x_dot", "theta", "theta_dot")
REFERENCES = {
    "CartPole-v1": lambda: _vector_reference("CartPole-v1", _CART),
    "CartPole-v0": lambda: _vector_reference("CartPole-v0", _CART),
    "Acrobot-v1": lambda: _vector_reference(
        "Acrobot-v1",
        ("theta1", "theta2", "dtheta1", "dtheta2"),
        # float32 after a reset (the reference casts its draw), float64 after a step
        stored_dtype=lambda time: np.float32 if time == 0 else np.float64,
        policy=_pump_acrobot,
    ),
    "MountainCar-v0": lambda: _vector_reference("MountainCar-v0", ("position", "velocity"), policy=_pump_mountain_car),
    "MountainCarContinuous-v0": lambda: _vector_reference(
        "MountainCarContinuous-v0",
        ("position", "velocity"),
        # float64 after a reset, float32 after every step
        stored_dtype=lambda time: np.float64 if time == 0 else np.float32,
        policy=_pump_mountain_car_continuous,
    ),
    "Pendulum-v1": lambda: _vector_reference("Pendulum-v1", ("theta", "theta_dot"), policy=_pump_pendulum),
}

# Whole-episode comparisons only where the dynamics do not amplify rounding chaotically
# (Acrobot does: per-step only).
WHOLE_EPISODES = {"CartPole-v1", "CartPole-v0", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"}


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    ref = REFERENCES[env_id]()
    result = ParityResult(env_id, jaxenvs.spec(env_id).reference or ref.name)
    sizes = Sizes.at(scale)
    with Timer() as timer:
        env, params = jaxenvs.make(env_id, autoreset=False)
        result.checks += check_transitions(
            env, params, ref, sizes.steps, seed=seed, label="f32 step", float32_bound=True
        )
        with jax.enable_x64(True):
            env, params = jaxenvs.make(env_id, autoreset=False)
            result.checks += check_transitions(env, params, ref, sizes.steps, ATOL_F64_STEP, seed + 1, label="f64 step")
            if env_id in WHOLE_EPISODES:
                result.checks += check_episodes(
                    env, params, ref, num_episodes=max(5, int(20 * scale)), atol=ATOL_F64_EPISODE, seed=seed
                )
        result.checks += check_resets(env, params, ref, sizes.samples, seed)
        result.checks += check_episode_statistics(env, params, ref, sizes.episodes, seed)
    result.seconds = timer.seconds
    return result
