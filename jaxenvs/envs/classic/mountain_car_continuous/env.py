"""MountainCarContinuous: MountainCar with a continuous force and a reward for reaching the goal.

Reference: gymnasium `MountainCarContinuous-v0` (999 steps),
`gymnasium/envs/classic_control/continuous_mountain_car.py`. Action: a float32 Box [-1, 1] of
shape (1,). The force is the action clipped to [-1, 1] times `power` (0.0015); gravity 0.0025;
velocity clipped to +-0.07, then the position moves and is clipped to [-1.2, 0.6], and the
velocity is zeroed against the left wall. Termination when `position >= 0.45` and
`velocity >= goal_velocity` (default 0). Reward `-0.1 * action**2` from the UNCLIPPED action,
plus 100 on the terminating step. Reset: position uniform in [-0.6, -0.4], velocity 0.
Observation `[position, velocity]`, float32.

Precision, reproduced on purpose: the reference stores its state as float32 after every step
(its reset state stays float64), and numpy then computes the step in float32 where a float32
value meets a Python float (NEP 50): the force term always, the velocity and position updates
and the comparisons with the limits after the first step. Under `jax_enable_x64` this env
keeps float64 state fields but rounds to float32 at exactly those points, choosing the
first-step (float64) arithmetic when `state.time == 0`; it then matches the reference to the
bit. Without x64 everything is float32.

Invalid action: the force clips any action to [-1, 1] (the reference's behaviour); the reward
still charges the unclipped action. Inside jit a NaN action is 0, and the reward charges at
most `CHARGED_ACTION_LIMIT` (1e6) in magnitude, so inf or a huge action gives a finite reward.

Differentiable: nothing stops gradients (gymnax 1.x's `with_transition_gradients` is always
on here); `jax.grad` of a trajectory (`make(id, autoreset=False)`, a `lax.scan` of `step`)
with respect to the actions and the params' float fields (`power`, `gravity`, ..., pytree
leaves) is exact, tested against finite differences. The return depends on the physics only
through the goal bonus, a step function (gradient 0): its gradient is the action cost's,
`-0.2 * action`. At the limits it is the clipped function's: the force's gradient is 0 in an
action beyond [-1, 1], the velocity's at +-`max_speed`, the position's at the walls. The
float32 roundings pass the gradient as is.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, defaults_params
from jaxenvs.envs.classic.mountain_car.env import MountainCarState, get_obs, observation_box, reset_state
from jaxenvs.params import positive, real

# the largest action magnitude the reward charges (an invalid action inside jit)
CHARGED_ACTION_LIMIT = 1e6


@struct.dataclass
class MountainCarContinuousState(MountainCarState):
    """The car: `MountainCarState`'s fields, `position` and `velocity`.

    Both are float32 scalars; under `jax_enable_x64` float64 scalars which, after a step, hold
    the float32 values the reference stores (its reset state stays float64; see the module
    docstring).
    """


@struct.dataclass
class MountainCarContinuousParams(EnvParams):
    """MountainCarContinuous's constants, with gymnasium's names and defaults.

    Attributes:
        min_action: The action space's lower bound, and the force's clip (below `max_action`).
        max_action: The action space's upper bound, and the force's clip (above `min_action`).
        min_position: The left wall (below `max_position`).
        max_position: The right end of the valley (above `min_position`).
        max_speed: The bound of the velocity's magnitude (> 0).
        goal_position: The position at or beyond which the episode terminates.
        goal_velocity: The least velocity the goal also needs (gymnasium's `goal_velocity`).
        power: The force per unit of (clipped) action (>= 0).
        gravity: The pull down the slope, times `cos(3 position)`.
        max_steps_in_episode: The time limit (999 for `MountainCarContinuous-v0`).
    """

    min_action: float = real(-1.0, high="max_action", high_open=True)
    max_action: float = real(1.0, low="min_action", low_open=True)
    min_position: float = real(-1.2, high="max_position", high_open=True)
    max_position: float = real(0.6, low="min_position", low_open=True)
    max_speed: float = positive(0.07)
    goal_position: float = real(0.45)
    goal_velocity: float = real(0.0)
    power: float = real(0.0015, low=0.0, per_episode=True)
    gravity: float = real(0.0025, per_episode=True)
    max_steps_in_episode: int = 999


def _to_float32(x: jax.Array) -> jax.Array:
    """`x` rounded to float32, kept in its dtype.

    `reduce_precision`, not a float32 round trip: XLA's GPU compiler drops a float64 -> float32
    -> float64 conversion pair as excess precision (the f64 parity checks failed on an H200).
    Values below float32's smallest normal go to zero, where a cast keeps float32's subnormals.
    """
    if x.dtype == jnp.float32:
        return x
    return jax.lax.reduce_precision(x, exponent_bits=8, mantissa_bits=23)


def _as_reference(x, f32_state: jax.Array, dtype) -> jax.Array:
    """`x` at the precision of the reference's arithmetic: float32 once its state is float32."""
    x = jnp.asarray(x, dtype)
    return jnp.where(f32_state, _to_float32(x), x)


def dynamics(
    state: MountainCarContinuousState, action: jax.Array, params: MountainCarContinuousParams
) -> tuple[MountainCarContinuousState, tuple[jax.Array, jax.Array]]:
    """One step of the car with gymnasium's arithmetic (see the module docstring).

    Args:
        state: The state before the step (`state.time == 0` selects the reference's
            first-step, float64 arithmetic).
        action: `float32[1]`, the force before clipping (NaN taken as 0).
        params: The constants.

    Returns:
        `(next_state, (position, velocity))`: the next state as the reference stores it
        (float32 values, its `time` unchanged), and the position and velocity it tests for the
        goal, before that store.
    """
    dtype = state.position.dtype
    position, velocity = state.position, state.velocity
    f32_state = state.time > 0  # the reference's reset state is float64, later ones float32

    def rnd(x):
        return _as_reference(x, f32_state, dtype)

    a = spaces.clip_action(jnp.asarray(action, jnp.float32)[0].astype(dtype), -jnp.inf, jnp.inf)
    clipped = (a > params.max_action) | (a < params.min_action)
    force = jnp.clip(a, params.min_action, params.max_action)
    gravity_term = params.gravity * jnp.cos(rnd(3 * position))
    # an in-range force stays a float32 scalar in the reference, so its term is float32;
    # a clipped one is a Python float and its term float64
    power = _to_float32(jnp.asarray(params.power, dtype))
    term32 = _to_float32(_to_float32(force * power) - _to_float32(gravity_term))
    term = jnp.where(clipped, force * params.power - gravity_term, term32)
    velocity = rnd(velocity + rnd(term))
    velocity = jnp.where(velocity > rnd(params.max_speed), rnd(params.max_speed), velocity)
    velocity = jnp.where(velocity < rnd(-params.max_speed), rnd(-params.max_speed), velocity)
    position = rnd(position + velocity)
    position = jnp.where(position > rnd(params.max_position), params.max_position, position)
    position = jnp.where(position < rnd(params.min_position), params.min_position, position)
    # an inelastic left wall: the car stops there
    at_wall = rnd(position) == rnd(params.min_position)
    velocity = jnp.where(at_wall & (velocity < 0), 0.0, velocity)
    stored = state.replace(position=_to_float32(position.astype(dtype)), velocity=_to_float32(velocity.astype(dtype)))
    return stored, (rnd(position), rnd(velocity))


def is_terminal(position, velocity, params: MountainCarContinuousParams, f32_state) -> jax.Array:
    """The goal test on the values `dynamics` returns (the reference's, before its float32 store).

    Args:
        position: The position `dynamics` returns beside the state.
        velocity: The velocity `dynamics` returns beside the state.
        params: The goal, `goal_position` and `goal_velocity`.
        f32_state: Whether the step started from a float32 state (`state.time > 0`): the
            goal's constants are then rounded to float32 as the reference's comparison does.

    Returns:
        A bool scalar: `position >= goal_position` and `velocity >= goal_velocity`.
    """
    dtype = position.dtype
    goal_position = _as_reference(params.goal_position, f32_state, dtype)
    goal_velocity = _as_reference(params.goal_velocity, f32_state, dtype)
    return (position >= goal_position) & (velocity >= goal_velocity)


def reward_of(action: jax.Array, terminated: jax.Array, dtype) -> jax.Array:
    """The reward: 100 on reaching the goal, minus `0.1 * action**2` of the unclipped action.

    Args:
        action: `float32[1]`, the action as given (NaN taken as 0, its magnitude charged up to
            `CHARGED_ACTION_LIMIT`).
        terminated: Whether the step reached the goal.
        dtype: The float dtype of the computation.

    Returns:
        The reward, a scalar of `dtype`.
    """
    a = jnp.asarray(action, jnp.float32)[0].astype(dtype)
    a = spaces.clip_action(a, -CHARGED_ACTION_LIMIT, CHARGED_ACTION_LIMIT)
    return jnp.where(terminated, 100.0, 0.0) - a**2 * 0.1


class MountainCarContinuous(Environment[MountainCarContinuousState, MountainCarContinuousParams]):
    """gymnasium's `MountainCarContinuous-v0` (see the module docstring for what differs).

    Observation `float32[2]`, `[position, velocity]`; actions a float32 `Box` of shape (1,)
    from `min_action` to `max_action`, the force before it is multiplied by `power`.
    """

    def observe(self, state, params):
        """`float32[2]`: `[position, velocity]` (`get_obs`)."""
        return get_obs(state)

    def is_terminal(self, state, params):
        """Whether `state` is at the goal (the stored state's test; `step_env` tests the values
        before the float32 store, as the reference does)."""
        return (state.position >= params.goal_position) & (state.velocity >= params.goal_velocity)

    def reset_env(self, key, params):
        state = reset_state(key, MountainCarContinuousState)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        f32_state = state.time > 0
        state, (position, velocity) = dynamics(state, action, params)
        state = state.replace(time=state.time + 1)
        terminated = is_terminal(position, velocity, params, f32_state)
        reward = reward_of(action, terminated, state.position.dtype)
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        return observation_box(params)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Box(params.min_action, params.max_action, shape=(1,), dtype=jnp.float32)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.classic.mountain_car.render import render

        return render(state, params)
