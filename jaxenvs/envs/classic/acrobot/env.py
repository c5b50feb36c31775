"""Acrobot: swing the tip of a two-link chain above a line by torquing the middle joint.

Reference: gymnasium `Acrobot-v1` (500 steps), `gymnasium/envs/classic_control/acrobot.py`.
Same constants (links of 1 m and 1 kg, centres of mass at 0.5 m, moments of inertia 1,
g = 9.8, dt = 0.2 s), the book's equations of motion (`book_or_nips="book"`; `"nips"` gives the
paper's), one classic Runge-Kutta step over `[0, dt]` with gymnasium's `rk4` sub-steps and
operation order, then angles wrapped into [-pi, pi] by whole periods and angular velocities
bounded to +-4 pi and +-9 pi. Reward -1 per step, 0 on the step that terminates; termination
when `-cos(theta1) - cos(theta1 + theta2) > 1` (the tip above the line). Reset: the four
state variables uniform in [-0.1, 0.1], rounded to float32 as the reference stores them.
Observation `[cos theta1, sin theta1, cos theta2, sin theta2, dtheta1, dtheta2]`, float32.

Differs:
- `torque_noise_max` (default 0, as the reference) is a static param: it decides whether the
  step draws a random number at all, so the noiseless default draws none.
- The reference wraps angles with `while` loops; here the period is subtracted (or added)
  by up to `WRAP_STEPS` unrolled conditional steps, which reproduce the loop's arithmetic
  for every state the bounded dynamics reach (at most 5 periods), then a modulo catches
  anything further.
- The dynamics compute in float32 unless `jax_enable_x64` is on (then float64 like the
  reference). The dynamics are chaotic: float64 runs match the reference per step to
  rounding, but whole trajectories drift apart over hundreds of steps.

Invalid action: inside jit an action outside {0, 1, 2} is clipped to the nearest one.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params, float_dtype
from jaxenvs.params import choice, positive, real

# Unrolled steps of the reference's `wrap` loop; the bounded dynamics need at most 5.
WRAP_STEPS = 6


@struct.dataclass
class AcrobotState(EnvState):
    """The two links: gymnasium's `state` vector, one field per entry in its order.

    Every field is a float32 scalar (float64 under `jax_enable_x64`).

    Attributes:
        theta1: Angle of the first link from pointing down (rad), in [-pi, pi].
        theta2: Angle of the second link relative to the first (rad), in [-pi, pi].
        dtheta1: Angular velocity of `theta1` (rad/s), in [-`max_vel_1`, `max_vel_1`].
        dtheta2: Angular velocity of `theta2` (rad/s), in [-`max_vel_2`, `max_vel_2`].
    """

    theta1: jax.Array
    theta2: jax.Array
    dtheta1: jax.Array
    dtheta2: jax.Array


@struct.dataclass
class AcrobotParams(EnvParams):
    """Acrobot's constants and defaults, named after gymnasium's class attributes (`LINK_MASS_1`
    is `link_mass_1`; `gravity` is the `g` of its `_dsdt`).

    Attributes:
        dt: Seconds per step, one Runge-Kutta step (> 0).
        link_length_1: Length of the first link (m).
        link_length_2: Length of the second link (m); only drawn, the dynamics use the centre
            of mass.
        link_mass_1: Mass of the first link (kg).
        link_mass_2: Mass of the second link (kg).
        link_com_pos_1: Position of the first link's centre of mass along it (m).
        link_com_pos_2: Position of the second link's centre of mass along it (m).
        link_moi: Moment of inertia of either link.
        gravity: Gravitational acceleration (m/s^2).
        max_vel_1: Bound of `dtheta1` (rad/s; 4 pi).
        max_vel_2: Bound of `dtheta2` (rad/s; 9 pi).
        torque_noise_max: Static. Noise uniform in +-this added to the torque (>= 0); static
            because a zero noise draws no random number at all.
        book_or_nips: The equations of motion: "book" (the default, gymnasium's) or "nips".
        max_steps_in_episode: The time limit (500 for `Acrobot-v1`).
    """

    dt: float = positive(0.2)
    link_length_1: float = positive(1.0, per_episode=True)
    link_length_2: float = positive(1.0, per_episode=True)
    link_mass_1: float = positive(1.0, per_episode=True)
    link_mass_2: float = positive(1.0, per_episode=True)
    link_com_pos_1: float = positive(0.5, per_episode=True)
    link_com_pos_2: float = positive(0.5, per_episode=True)
    link_moi: float = positive(1.0, per_episode=True)
    gravity: float = real(9.8, per_episode=True)
    max_vel_1: float = positive(4 * np.pi)
    max_vel_2: float = positive(9 * np.pi)
    torque_noise_max: float = real(0.0, low=0.0, static=True)
    book_or_nips: str = choice("book", ("book", "nips"))
    max_steps_in_episode: int = 500


def dsdt(theta1, theta2, dtheta1, dtheta2, torque, params: AcrobotParams):
    """The time derivative of `(theta1, theta2, dtheta1, dtheta2)` (gymnasium's `_dsdt`, same
    operation order).

    Args:
        theta1: Angle of the first link (rad).
        theta2: Angle of the second link relative to the first (rad).
        dtheta1: Angular velocity of `theta1` (rad/s).
        dtheta2: Angular velocity of `theta2` (rad/s).
        torque: The torque on the middle joint.
        params: The constants; `book_or_nips` picks the equations.

    Returns:
        `(dtheta1, dtheta2, ddtheta1, ddtheta2)`.
    """
    m1, m2 = params.link_mass_1, params.link_mass_2
    l1 = params.link_length_1
    lc1, lc2 = params.link_com_pos_1, params.link_com_pos_2
    I1 = I2 = params.link_moi
    g = params.gravity
    a = torque
    d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * jnp.cos(theta2)) + I1 + I2
    d2 = m2 * (lc2**2 + l1 * lc2 * jnp.cos(theta2)) + I2
    phi2 = m2 * lc2 * g * jnp.cos(theta1 + theta2 - np.pi / 2.0)
    phi1 = (
        -m2 * l1 * lc2 * dtheta2**2 * jnp.sin(theta2)
        - 2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * jnp.sin(theta2)
        + (m1 * lc1 + m2 * l1) * g * jnp.cos(theta1 - np.pi / 2)
        + phi2
    )
    if params.book_or_nips == "nips":
        ddtheta2 = (a + d2 / d1 * phi1 - phi2) / (m2 * lc2**2 + I2 - d2**2 / d1)
    else:
        ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * dtheta1**2 * jnp.sin(theta2) - phi2) / (
            m2 * lc2**2 + I2 - d2**2 / d1
        )
    ddtheta1 = -(d2 * ddtheta2 + phi1) / d1
    return dtheta1, dtheta2, ddtheta1, ddtheta2


def rk4(y0: tuple, torque, params: AcrobotParams) -> tuple:
    """One classic Runge-Kutta step over `[0, dt]`, as gymnasium's `rk4(derivs, y0, [0, dt])`.

    Args:
        y0: `(theta1, theta2, dtheta1, dtheta2)` at the start.
        torque: The torque, constant over the step (the fifth component of the reference's
            augmented state).
        params: The constants (`dt` among them).

    Returns:
        `(theta1, theta2, dtheta1, dtheta2)` after `dt`, neither wrapped nor bounded.
    """
    dt = params.dt
    dt2 = dt / 2.0

    def derivs(y):
        return dsdt(*y, torque, params)

    def shifted(h, k):
        return tuple(y + h * ki for y, ki in zip(y0, k))

    k1 = derivs(y0)
    k2 = derivs(shifted(dt2, k1))
    k3 = derivs(shifted(dt2, k2))
    k4 = derivs(shifted(dt, k3))
    return tuple(y + dt / 6.0 * (a + 2 * b + 2 * c + d) for y, a, b, c, d in zip(y0, k1, k2, k3, k4))


def wrap(x, m, M):
    """`x` moved into `[m, M]` by whole periods `M - m`, as the reference's `wrap`.

    One period at a time like the reference's `while` loops, so exact for up to `WRAP_STEPS`
    periods; anything further is brought into range by a modulo.

    Args:
        x: The value (an angle, rad).
        m: The lower end.
        M: The upper end.

    Returns:
        `x` in `[m, M]`.
    """
    diff = M - m
    for _ in range(WRAP_STEPS):
        x = jnp.where(x > M, x - diff, x)
    for _ in range(WRAP_STEPS):
        x = jnp.where(x < m, x + diff, x)
    # beyond the unrolled steps (unreachable with the default bounds): land in range anyway
    return jnp.where((x > M) | (x < m), m + jnp.mod(x - m, diff), x)


def bound(x, m, M):
    """The reference's `bound`: `min(max(x, m), M)`.

    Args:
        x: The value (an angular velocity).
        m: The lower bound.
        M: The upper bound.

    Returns:
        `x` clipped into `[m, M]`.
    """
    return jnp.minimum(jnp.maximum(x, m), M)


def torque_of(action: jax.Array, dtype) -> jax.Array:
    """The reference's `AVAIL_TORQUE[action]`: -1, 0 or +1 for actions 0, 1, 2.

    Args:
        action: The action (an out-of-range one is clipped into [0, 2]).
        dtype: The float dtype of the torque.

    Returns:
        The torque, a scalar of `dtype`.
    """
    return (jnp.clip(action, 0, 2) - 1).astype(dtype)


def dynamics(state: AcrobotState, torque: jax.Array, params: AcrobotParams) -> AcrobotState:
    """Integrate one `dt`, then wrap the angles into [-pi, pi] and bound the velocities.

    Args:
        state: The state before the step.
        torque: The torque on the middle joint (noise included).
        params: The constants.

    Returns:
        The state after the step, in `state`'s float dtype (its `time` unchanged).
    """
    dtype = state.theta1.dtype
    y0 = (state.theta1, state.theta2, state.dtheta1, state.dtheta2)
    theta1, theta2, dtheta1, dtheta2 = rk4(y0, torque, params)
    return state.replace(
        theta1=wrap(theta1, -np.pi, np.pi).astype(dtype),
        theta2=wrap(theta2, -np.pi, np.pi).astype(dtype),
        dtheta1=bound(dtheta1, -params.max_vel_1, params.max_vel_1).astype(dtype),
        dtheta2=bound(dtheta2, -params.max_vel_2, params.max_vel_2).astype(dtype),
    )


def is_terminal(state: AcrobotState) -> jax.Array:
    """Whether the tip is above the line one link length over the pivot.

    Args:
        state: The state reached.

    Returns:
        A bool scalar: `-cos(theta1) - cos(theta1 + theta2) > 1`.
    """
    return -jnp.cos(state.theta1) - jnp.cos(state.theta2 + state.theta1) > 1.0


def get_obs(state: AcrobotState) -> jax.Array:
    """The observation of a state, as the reference returns it.

    Args:
        state: The state.

    Returns:
        `float32[6]`: `[cos theta1, sin theta1, cos theta2, sin theta2, dtheta1, dtheta2]`.
    """
    return jnp.stack(
        [
            jnp.cos(state.theta1),
            jnp.sin(state.theta1),
            jnp.cos(state.theta2),
            jnp.sin(state.theta2),
            state.dtheta1,
            state.dtheta2,
        ]
    ).astype(jnp.float32)


class Acrobot(Environment[AcrobotState, AcrobotParams]):
    """gymnasium's `Acrobot-v1` (see the module docstring for what differs).

    Observation `float32[6]` (`get_obs`); actions `Discrete(3)`: torque -1, 0, +1 on the
    middle joint.
    """

    def observe(self, state, params):
        """`float32[6]` (`get_obs`)."""
        return get_obs(state)

    def is_terminal(self, state, params):
        """Whether the free end swung above the bar (the module's `is_terminal`)."""
        return is_terminal(state)

    def reset_env(self, key, params):
        dtype = float_dtype()
        # the reference draws in float64 and stores the reset state as float32
        values = jax.random.uniform(key, (4,), dtype=dtype, minval=-0.1, maxval=0.1)
        theta1, theta2, dtheta1, dtheta2 = values.astype(jnp.float32).astype(dtype)
        state = AcrobotState(
            time=jnp.zeros((), jnp.int32),
            theta1=theta1,
            theta2=theta2,
            dtheta1=dtheta1,
            dtheta2=dtheta2,
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        dtype = state.theta1.dtype
        torque = torque_of(action, dtype)
        if params.torque_noise_max > 0:
            torque = torque + jax.random.uniform(
                key, (), dtype=dtype, minval=-params.torque_noise_max, maxval=params.torque_noise_max
            )
        state = dynamics(state, torque, params)
        state = state.replace(time=state.time + 1)
        terminated = is_terminal(state)
        reward = jnp.where(terminated, 0.0, -1.0)
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        high = np.array([1.0, 1.0, 1.0, 1.0, params.max_vel_1, params.max_vel_2], dtype=np.float32)
        return spaces.Box(-high, high, shape=(6,), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(3)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.classic.acrobot.render import render

        return render(state, params)
