"""CartPole: balance a pole on a cart by pushing it left or right.

Reference: gymnasium `CartPole-v1` (500 steps) and `CartPole-v0` (200 steps),
`gymnasium/envs/classic_control/cartpole.py`. Same constants, explicit Euler integrator,
termination when |x| > 2.4 or |theta| > 12 degrees, reward 1 on every step including the
terminating one (`sutton_barto_reward=True`: 0 per step, -1 on termination), reset uniform
in [-0.05, 0.05]^4.

Differs: the reference computes in float64 and returns float32 observations; here the
dynamics run in float32 unless `jax_enable_x64` is on (then float64, matching the reference
to rounding). Invalid action: any action other than 1 pushes left, like the reference's
`force_mag if action == 1 else -force_mag`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params, float_dtype
from jaxenvs.params import flag, positive, real


@struct.dataclass
class CartPoleState(EnvState):
    """The cart and the pole: gymnasium's `state` vector, one field per entry in its order.

    Every field is a float32 scalar (float64 under `jax_enable_x64`).

    Attributes:
        x: Cart position (m); the episode terminates beyond +-`x_threshold`.
        x_dot: Cart velocity (m/s).
        theta: Pole angle from upright (rad); the episode terminates beyond
            +-`theta_threshold_radians`.
        theta_dot: Pole angular velocity (rad/s).
    """

    x: jax.Array
    x_dot: jax.Array
    theta: jax.Array
    theta_dot: jax.Array


@struct.dataclass
class CartPoleParams(EnvParams):
    """CartPole's constants, with gymnasium's names and defaults.

    Attributes:
        gravity: Gravitational acceleration (m/s^2).
        masscart: Mass of the cart (kg, > 0).
        masspole: Mass of the pole (kg, > 0).
        length: Half the pole's length (m, > 0), gymnasium's `length`.
        force_mag: Magnitude of the push of either action (N, >= 0).
        tau: Seconds between state updates (> 0).
        theta_threshold_radians: Pole angle beyond which the episode terminates (rad; 12
            degrees).
        x_threshold: Cart position beyond which the episode terminates (m).
        sutton_barto_reward: Static. Reward 0 per step and -1 on termination, instead of 1 on
            every step (gymnasium's `sutton_barto_reward`).
        euler: Static. Explicit Euler (gymnasium's `kinematics_integrator="euler"`, the
            default); False: semi-implicit Euler (any other integrator name there).
        max_steps_in_episode: The time limit: 500 for `CartPole-v1`, 200 for `CartPole-v0`.
    """

    gravity: float = real(9.8, per_episode=True)
    masscart: float = positive(1.0, per_episode=True)
    masspole: float = positive(0.1, per_episode=True)
    length: float = positive(0.5, per_episode=True)
    force_mag: float = real(10.0, low=0.0, per_episode=True)
    tau: float = positive(0.02, per_episode=True)
    theta_threshold_radians: float = positive(12 * 2 * np.pi / 360)
    x_threshold: float = positive(2.4)
    sutton_barto_reward: bool = flag(False, static=True)
    euler: bool = flag(True, static=True)
    max_steps_in_episode: int = 500

    @property
    def total_mass(self):
        """`masspole + masscart`, derived (gymnasium's attribute and gymnax's params field)."""
        return self.masspole + self.masscart

    @property
    def polemass_length(self):
        """`masspole * length`, derived (gymnasium's attribute and gymnax's params field)."""
        return self.masspole * self.length


def dynamics(state: CartPoleState, action: jax.Array, params: CartPoleParams) -> CartPoleState:
    """One integration step of the cart-pole equations (gymnasium's `step` physics).

    Args:
        state: The state before the step.
        action: 1 pushes right; any other value pushes left, as the reference's
            `force_mag if action == 1 else -force_mag`.
        params: The constants; `params.euler` picks the integrator.

    Returns:
        The state after `tau` seconds, in `state`'s float dtype (its `time` unchanged).
    """
    dtype = state.x.dtype
    force = jnp.where(action == 1, params.force_mag, -params.force_mag).astype(dtype)
    costheta, sintheta = jnp.cos(state.theta), jnp.sin(state.theta)
    total_mass = params.masspole + params.masscart
    polemass_length = params.masspole * params.length
    temp = (force + polemass_length * state.theta_dot**2 * sintheta) / total_mass
    thetaacc = (params.gravity * sintheta - costheta * temp) / (
        params.length * (4.0 / 3.0 - params.masspole * costheta**2 / total_mass)
    )
    xacc = temp - polemass_length * thetaacc * costheta / total_mass
    tau = params.tau
    if params.euler:
        x = state.x + tau * state.x_dot
        x_dot = state.x_dot + tau * xacc
        theta = state.theta + tau * state.theta_dot
        theta_dot = state.theta_dot + tau * thetaacc
    else:
        x_dot = state.x_dot + tau * xacc
        x = state.x + tau * x_dot
        theta_dot = state.theta_dot + tau * thetaacc
        theta = state.theta + tau * theta_dot
    return state.replace(
        x=x.astype(dtype),
        x_dot=x_dot.astype(dtype),
        theta=theta.astype(dtype),
        theta_dot=theta_dot.astype(dtype),
    )


def is_terminal(state: CartPoleState, params: CartPoleParams) -> jax.Array:
    """Whether the cart or the pole has left its bounds.

    Args:
        state: The state reached.
        params: Its thresholds, `x_threshold` and `theta_threshold_radians`.

    Returns:
        A bool scalar: |x| > `x_threshold` or |theta| > `theta_threshold_radians`.
    """
    return (
        (state.x < -params.x_threshold)
        | (state.x > params.x_threshold)
        | (state.theta < -params.theta_threshold_radians)
        | (state.theta > params.theta_threshold_radians)
    )


def get_obs(state: CartPoleState) -> jax.Array:
    """The observation of a state, as the reference returns it.

    Args:
        state: The state.

    Returns:
        `float32[4]`: `[x, x_dot, theta, theta_dot]`.
    """
    return jnp.stack([state.x, state.x_dot, state.theta, state.theta_dot]).astype(jnp.float32)


class CartPole(Environment[CartPoleState, CartPoleParams]):
    """gymnasium's `CartPole-v1` and `CartPole-v0` (see the module docstring for what differs).

    Observation `float32[4]` in a Box bounded by twice the thresholds (the velocities
    unbounded); actions `Discrete(2)`: 0 pushes the cart left, 1 right.
    """

    def observe(self, state, params):
        """`float32[4]`: `[x, x_dot, theta, theta_dot]` (`get_obs`)."""
        return get_obs(state)

    def is_terminal(self, state, params):
        """Whether the pole fell or the cart left the track (the module's `is_terminal`)."""
        return is_terminal(state, params)

    def reset_env(self, key, params):
        x, x_dot, theta, theta_dot = jax.random.uniform(key, (4,), dtype=float_dtype(), minval=-0.05, maxval=0.05)
        state = CartPoleState(time=jnp.zeros((), jnp.int32), x=x, x_dot=x_dot, theta=theta, theta_dot=theta_dot)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        state = dynamics(state, action, params)
        state = state.replace(time=state.time + 1)
        terminated = is_terminal(state, params)
        if params.sutton_barto_reward:
            reward = jnp.where(terminated, -1.0, 0.0)
        else:
            reward = jnp.ones(())
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        high = np.array(
            [params.x_threshold * 2, np.inf, params.theta_threshold_radians * 2, np.inf],
            dtype=np.float32,
        )
        return spaces.Box(-high, high, shape=(4,), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(2)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.classic.cartpole.render import render

        return render(state, params)
