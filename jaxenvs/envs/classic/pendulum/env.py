"""Pendulum: swing a frictionless pendulum up and keep it upright with a limited torque.

Reference: gymnasium `Pendulum-v1` (200 steps), `gymnasium/envs/classic_control/pendulum.py`.
Same constants (g = 10.0 by default, m = l = 1, dt = 0.05, torque limit 2, speed limit 8).
The action, a float32 Box [-2, 2] of shape (1,), is clipped to +-`max_torque`; the cost
`angle_normalize(theta)**2 + 0.1 * theta_dot**2 + 0.001 * u**2` is computed on the state
before the step and the reward is its negative; then semi-implicit Euler: the angular
velocity is updated and clipped to +-`max_speed`, and the angle advances by the new velocity
(the angle itself is never wrapped). Never terminates; only the time limit ends an episode.
Reset: theta uniform in [-pi, pi], theta_dot uniform in [-1, 1]. Observation
`[cos theta, sin theta, theta_dot]`, float32.

Precision, reproduced on purpose: the torque is a float32 scalar in the reference, so numpy
computes `0.001 * u**2` and `3 / (m l**2) * u` in float32 (NEP 50) before adding them to
float64 terms; this env does the same under `jax_enable_x64` (float64 elsewhere) and then
matches the reference to rounding. Without x64 everything is float32.

Differs: gymnasium's picture draws an arrow scaled by the last torque; the state here holds
no last torque, so `render` draws the rod, its ends and the axle only.
Invalid action: clipped to +-`max_torque`, as the reference does; inside jit a NaN torque is 0.

Differentiable: nothing stops gradients (gymnax 1.x's `with_transition_gradients` is always
on here), so `jax.grad` of an episode's return (`make(id, autoreset=False)`, a `lax.scan` of
`step`) with respect to the actions and the params' float fields (`g`, `m`, `l`, `dt`, ...,
pytree leaves) is exact, tested against finite differences. At the limits it is the clipped
function's: 0 in an action beyond +-`max_torque` (the bound takes it), 0 through a velocity
clipped at +-`max_speed`. The float32 rounding of the torque terms passes the gradient as is.
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
class PendulumState(EnvState):
    """The pendulum: gymnasium's `state` vector, one field per entry in its order.

    Both fields are float32 scalars (float64 under `jax_enable_x64`).

    Attributes:
        theta: Angle from upright (rad), counterclockwise, never wrapped.
        theta_dot: Angular velocity (rad/s), in [-`max_speed`, `max_speed`].
    """

    theta: jax.Array
    theta_dot: jax.Array


@struct.dataclass
class PendulumParams(EnvParams):
    """Pendulum's constants, with gymnasium's names and defaults.

    Attributes:
        max_speed: The bound of the angular velocity's magnitude (rad/s, > 0).
        max_torque: The bound of the torque's magnitude, and of the action space (> 0).
        dt: Seconds per step (> 0).
        g: Gravitational acceleration (m/s^2; gymnasium's default 10.0, its `g` kwarg).
        m: The pendulum's mass (kg, > 0).
        l: The pendulum's length (m, > 0).
        max_steps_in_episode: The time limit (200 for `Pendulum-v1`).
    """

    max_speed: float = positive(8.0)
    max_torque: float = positive(2.0)
    dt: float = positive(0.05, per_episode=True)
    g: float = real(10.0, per_episode=True)
    m: float = positive(1.0, per_episode=True)
    l: float = positive(1.0, per_episode=True)  # noqa: E741 (the reference's name)
    max_steps_in_episode: int = 200


def angle_normalize(x: jax.Array) -> jax.Array:
    """An angle moved into [-pi, pi) (the reference's `((x + pi) % (2 pi)) - pi`).

    Args:
        x: The angle (rad).

    Returns:
        `x` in [-pi, pi), of `x`'s dtype.
    """
    return ((x + np.pi) % (2 * np.pi)) - np.pi


def clip_torque(action: jax.Array, params: PendulumParams) -> jax.Array:
    """The torque of an action, the reference's `np.clip(u, -max_torque, max_torque)[0]`.

    Args:
        action: The action, of shape (1,) (NaN taken as 0).
        params: The bound, `max_torque`.

    Returns:
        The torque, a float32 scalar in [-`max_torque`, `max_torque`].
    """
    u = jnp.asarray(action, jnp.float32)[0]
    return spaces.clip_action(u, -params.max_torque, params.max_torque).astype(jnp.float32)


def cost(state: PendulumState, u: jax.Array, params: PendulumParams) -> jax.Array:
    """The reference's `costs` of taking a torque in a state: the reward is its negative.

    Args:
        state: The state before the step.
        u: The clipped torque (`clip_torque`), a float32 scalar.
        params: The env's params (not read; the cost's weights are the reference's constants).

    Returns:
        `angle_normalize(theta)**2 + 0.1 * theta_dot**2 + 0.001 * u**2` in `state`'s float
        dtype, the torque term computed in float32 as the reference does.
    """
    dtype = state.theta.dtype
    control = (jnp.float32(0.001) * u**2).astype(dtype)  # float32 in the reference
    return angle_normalize(state.theta) ** 2 + 0.1 * state.theta_dot**2 + control


def dynamics(state: PendulumState, u: jax.Array, params: PendulumParams) -> PendulumState:
    """One semi-implicit Euler step under a torque, the velocity clipped before the angle moves.

    Args:
        state: The state before the step.
        u: The clipped torque (`clip_torque`), a float32 scalar.
        params: The constants.

    Returns:
        The state after `dt` seconds, in `state`'s float dtype (its `time` unchanged).
    """
    dtype = state.theta.dtype
    th, thdot = state.theta, state.theta_dot
    g, m, l, dt = params.g, params.m, params.l, params.dt
    torque_acc = (jnp.asarray(3.0 / (m * l**2)).astype(jnp.float32) * u).astype(dtype)  # float32
    newthdot = thdot + (3 * g / (2 * l) * jnp.sin(th) + torque_acc) * dt
    newthdot = jnp.clip(newthdot, -params.max_speed, params.max_speed)
    newth = th + newthdot * dt
    return state.replace(theta=newth.astype(dtype), theta_dot=newthdot.astype(dtype))


def get_obs(state: PendulumState) -> jax.Array:
    """The observation of a state, as the reference returns it.

    Args:
        state: The state.

    Returns:
        `float32[3]`: `[cos theta, sin theta, theta_dot]`.
    """
    return jnp.stack([jnp.cos(state.theta), jnp.sin(state.theta), state.theta_dot]).astype(jnp.float32)


class Pendulum(Environment[PendulumState, PendulumParams]):
    """gymnasium's `Pendulum-v1` (see the module docstring for what differs).

    Observation `float32[3]`, `[cos theta, sin theta, theta_dot]`; actions a float32 `Box`
    of shape (1,) in [-`max_torque`, `max_torque`], the torque.
    """

    def observe(self, state, params):
        """`float32[3]` (`get_obs`)."""
        return get_obs(state)

    def is_terminal(self, state, params):
        """Whether `state` ended its episode by termination: never (only the time limit ends it)."""
        return jnp.zeros((), jnp.bool_)  # never terminates

    def reset_env(self, key, params):
        dtype = float_dtype()
        high = jnp.asarray([np.pi, 1.0], dtype)
        theta, theta_dot = jax.random.uniform(key, (2,), dtype=dtype, minval=-high, maxval=high)
        state = PendulumState(time=jnp.zeros((), jnp.int32), theta=theta, theta_dot=theta_dot)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        u = clip_torque(action, params)
        reward = -cost(state, u, params)
        state = dynamics(state, u, params)
        state = state.replace(time=state.time + 1)
        return self.observe(state, params), state, reward, jnp.zeros((), jnp.bool_), {}

    @defaults_params
    def observation_space(self, params=None):
        high = jnp.stack([1.0, 1.0, jnp.asarray(params.max_speed, jnp.float32)])
        return spaces.Box(-high, high, shape=(3,), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Box(-params.max_torque, params.max_torque, shape=(1,), dtype=jnp.float32)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.classic.pendulum.render import render

        return render(state, params)
