"""MountainCar: drive an underpowered car up a hill by rocking it back and forth.

Reference: gymnasium `MountainCar-v0` (200 steps), `gymnasium/envs/classic_control/mountain_car.py`.
Same constants (force 0.001, gravity 0.0025, speed limit 0.07, positions [-1.2, 0.6], goal at
0.5), the same update order: velocity changes by `(action - 1) * force - gravity * cos(3 x)`
and is clipped, then the position moves by the new velocity and is clipped, and the velocity
is zeroed when the car rests against the left wall moving left. Reward -1 on every step;
termination when `position >= goal_position` and `velocity >= goal_velocity` (default 0).
Reset: position uniform in [-0.6, -0.4], velocity 0. Observation `[position, velocity]`,
float32.

Differs: the dynamics compute in float32 unless `jax_enable_x64` is on (then float64, as the
reference, matching it to rounding). Invalid action: inside jit an action outside {0, 1, 2}
is clipped to the nearest one.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params, float_dtype
from jaxenvs.params import positive, real


@struct.dataclass
class MountainCarState(EnvState):
    """The car: gymnasium's `state` vector, one field per entry in its order.

    Both fields are float32 scalars (float64 under `jax_enable_x64`).

    Attributes:
        position: The car's position along the valley, in [`min_position`, `max_position`].
        velocity: The car's velocity (position units per step), in [-`max_speed`, `max_speed`].
    """

    position: jax.Array
    velocity: jax.Array


@struct.dataclass
class MountainCarParams(EnvParams):
    """MountainCar's constants, with gymnasium's names and defaults.

    Attributes:
        min_position: The left wall (below `max_position`).
        max_position: The right end of the valley (above `min_position`).
        max_speed: The bound of the velocity's magnitude (> 0).
        goal_position: The position at or beyond which the episode terminates.
        goal_velocity: The least velocity the goal also needs (gymnasium's `goal_velocity`).
        force: The engine's push per step of actions 0 and 2 (>= 0).
        gravity: The pull down the slope, times `cos(3 position)`.
        max_steps_in_episode: The time limit (200 for `MountainCar-v0`).
    """

    min_position: float = real(-1.2, high="max_position", high_open=True)
    max_position: float = real(0.6, low="min_position", low_open=True)
    max_speed: float = positive(0.07)
    goal_position: float = real(0.5)
    goal_velocity: float = real(0.0)
    force: float = real(0.001, low=0.0, per_episode=True)
    gravity: float = real(0.0025, per_episode=True)
    max_steps_in_episode: int = 200


def dynamics(state: MountainCarState, action: jax.Array, params: MountainCarParams) -> MountainCarState:
    """One step of the car (gymnasium's `step` physics, same operation order).

    Args:
        state: The state before the step.
        action: 0 pushes left, 1 not at all, 2 right (clipped into [0, 2]).
        params: The constants.

    Returns:
        The state after the step, in `state`'s float dtype (its `time` unchanged).
    """
    dtype = state.position.dtype
    position, velocity = state.position, state.velocity
    push = (jnp.clip(action, 0, 2) - 1).astype(dtype)
    velocity = velocity + (push * params.force + jnp.cos(3 * position) * (-params.gravity))
    # gymnasium clips the velocity before moving, then the position
    velocity = jnp.clip(velocity, -params.max_speed, params.max_speed)
    position = jnp.clip(position + velocity, params.min_position, params.max_position)
    # an inelastic left wall: the car stops there
    velocity = jnp.where((position == params.min_position) & (velocity < 0), 0.0, velocity)
    return state.replace(position=position.astype(dtype), velocity=velocity.astype(dtype))


def is_terminal(state: MountainCarState, params: MountainCarParams) -> jax.Array:
    """Whether the car has reached the goal.

    Args:
        state: The state reached.
        params: The goal, `goal_position` and `goal_velocity`.

    Returns:
        A bool scalar: `position >= goal_position` and `velocity >= goal_velocity`.
    """
    return (state.position >= params.goal_position) & (state.velocity >= params.goal_velocity)


def get_obs(state: MountainCarState) -> jax.Array:
    """The observation of a state, as the reference returns it (MountainCarContinuous's too).

    Args:
        state: The state.

    Returns:
        `float32[2]`: `[position, velocity]`.
    """
    return jnp.stack([state.position, state.velocity]).astype(jnp.float32)


def reset_position(key: jax.Array, dtype) -> jax.Array:
    """The reference's reset position: uniform in [-0.6, -0.4] (MountainCarContinuous's too).

    Args:
        key: A JAX PRNG key.
        dtype: The float dtype of the position.

    Returns:
        The position, a scalar of `dtype`.
    """
    return jax.random.uniform(key, (), dtype=dtype, minval=-0.6, maxval=-0.4)


def reset_state(key: jax.Array, state_type: type[MountainCarState] = MountainCarState) -> MountainCarState:
    """The reference's reset state (MountainCarContinuous's too): `reset_position`, velocity 0.

    Args:
        key: A JAX PRNG key.
        state_type: The state class to build (MountainCarContinuous passes its own).

    Returns:
        The state at time 0, its floats in `float_dtype()`.
    """
    dtype = float_dtype()
    return state_type(time=jnp.zeros((), jnp.int32), position=reset_position(key, dtype), velocity=jnp.zeros((), dtype))


def observation_box(params) -> spaces.Box:
    """The observation space of both mountain cars.

    Args:
        params: Their params (`min_position`, `max_position`, `max_speed`).

    Returns:
        A float32 `Box` of shape (2,) from `[min_position, -max_speed]` to
        `[max_position, max_speed]`.
    """
    low = np.array([params.min_position, -params.max_speed], dtype=np.float32)
    high = np.array([params.max_position, params.max_speed], dtype=np.float32)
    return spaces.Box(low, high, shape=(2,), dtype=jnp.float32)


class MountainCar(Environment[MountainCarState, MountainCarParams]):
    """gymnasium's `MountainCar-v0` (see the module docstring for what differs).

    Observation `float32[2]`, `[position, velocity]`; actions `Discrete(3)`: push left, no
    push, push right.
    """

    def observe(self, state, params):
        """`float32[2]`: `[position, velocity]` (`get_obs`)."""
        return get_obs(state)

    def is_terminal(self, state, params):
        """Whether the car reached the goal (the module's `is_terminal`)."""
        return is_terminal(state, params)

    def reset_env(self, key, params):
        state = reset_state(key)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        state = dynamics(state, action, params)
        state = state.replace(time=state.time + 1)
        terminated = is_terminal(state, params)
        return self.observe(state, params), state, jnp.full((), -1.0), terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        return observation_box(params)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(3)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.classic.mountain_car.render import render

        return render(state, params)
