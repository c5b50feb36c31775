"""bsuite's CartPole: keep a pole up and the cart on the track for 10 seconds.

Reference: bsuite `environments/cartpole.py` (experiment `cartpole`, 1,000 episodes). Not
gymnasium's CartPole: three actions (push left, nothing, push right: force `(a - 1) * 10`),
a 0.01 s explicit-Euler step, the angle wrapped to [0, 2 pi), reward 1 while
`cos(theta) > height_threshold` (0.8) and `|x| < x_threshold` (3), and the episode ends on
the first step without reward or once `time_elapsed > max_time` (10 s, i.e. after 1,001
steps). The observation is bsuite's float32 `(1, 6)`:
`[x / x_threshold, x_dot / x_threshold, sin theta, cos theta, theta_dot, time_elapsed /
max_time]`. Reset: x, x_dot, theta, theta_dot uniform in [-init_range, init_range].

`step_cartpole` is shared with `CartPoleSwingup`.

Differs: bsuite computes in float64; here the dynamics run in float32 unless
`jax_enable_x64` is on (then float64, matching bsuite to rounding). `time_elapsed`
accumulates `timescale` per step like bsuite's. Invalid action under jit: clipped to 0..2.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params, float_dtype
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams
from jaxenvs.params import positive, real

NUM_EPISODES = 1_000  # bsuite experiments/cartpole/sweep.py (and cartpole_swingup)


@struct.dataclass
class CartPoleState(EnvState):
    """The state of bsuite's cart-pole (its `CartpoleState`), shared with `CartPoleSwingup`.

    Each field below is a float scalar in the dynamics' dtype (float32, or float64 with
    `jax_enable_x64`).

    Attributes:
        x: The cart's position in metres, 0 at the track's middle.
        x_dot: The cart's velocity in metres per second.
        theta: The pole's angle in radians, 0 upright, wrapped to [0, 2 pi).
        theta_dot: The pole's angular velocity in radians per second.
        time_elapsed: Seconds since reset (`timescale` added per step).
    """

    x: jax.Array
    x_dot: jax.Array
    theta: jax.Array
    theta_dot: jax.Array
    time_elapsed: jax.Array


@struct.dataclass
class CartPoleParams(BsuiteParams):
    """bsuite's cart-pole settings and physics (its `CartpoleConfig`).

    Attributes:
        height_threshold: The reward is 1 while `cos(theta)` is above this (and `|x|` below
            `x_threshold`); the episode ends on the first step without it.
        x_threshold: The track's half-width in metres (see `height_threshold`); it also
            scales the observation's `x` and `x_dot`.
        timescale: Seconds per step (the Euler step).
        max_time: The episode ends once `time_elapsed` exceeds this, in seconds.
        init_range: At reset, x, x_dot, theta and theta_dot are uniform in
            `[-init_range, init_range]`.
        mass_cart: The cart's mass in kg.
        mass_pole: The pole's mass in kg.
        length: Half the pole's length in metres (the distance to its centre of mass).
        force_mag: The force of a push in newtons (actions 0 and 2 push by `-force_mag` and
            `+force_mag`).
        gravity: The acceleration of gravity in m/s^2.
    """

    height_threshold: float = real(0.8)
    x_threshold: float = positive(3.0)
    timescale: float = positive(0.01)
    max_time: float = positive(10.0)
    init_range: float = real(0.05, low=0.0)
    mass_cart: float = positive(1.0, per_episode=True)
    mass_pole: float = positive(0.1, per_episode=True)
    length: float = positive(0.5, per_episode=True)
    force_mag: float = real(10.0, low=0.0, per_episode=True)
    gravity: float = real(9.8, per_episode=True)


def step_cartpole(state, action: jax.Array, params) -> CartPoleState:
    """bsuite's `step_cartpole`: one explicit-Euler step of the cart-pole equations.

    Args:
        state: The state (a `CartPoleState`).
        action: 0 (push left), 1 (no push) or 2 (push right); others are clipped to 0..2.
        params: The physics: a `CartPoleParams` or `CartPoleSwingupParams`.

    Returns:
        The next state, in `state`'s float dtype, its `time` unchanged (the caller counts
        steps).
    """
    dtype = state.x.dtype
    force = (jnp.clip(action, 0, 2) - 1).astype(dtype) * params.force_mag
    cos, sin = jnp.cos(state.theta), jnp.sin(state.theta)
    pl = params.mass_pole * params.length
    m_total = params.mass_cart + params.mass_pole
    temp = (force + pl * state.theta_dot**2 * sin) / m_total
    theta_acc = (params.gravity * sin - cos * temp) / (
        params.length * (4.0 / 3.0 - params.mass_pole * cos**2 / m_total)
    )
    x_acc = temp - pl * theta_acc * cos / m_total
    ts = params.timescale
    return state.replace(
        x=(state.x + ts * state.x_dot).astype(dtype),
        x_dot=(state.x_dot + ts * x_acc).astype(dtype),
        theta=jnp.remainder(state.theta + ts * state.theta_dot, 2 * jnp.pi).astype(dtype),
        theta_dot=(state.theta_dot + ts * theta_acc).astype(dtype),
        time_elapsed=(state.time_elapsed + ts).astype(dtype),
    )


def reset_state(key: jax.Array, params, theta_offset: float = 0.0) -> CartPoleState:
    """A reset state: x, x_dot, theta and theta_dot uniform in `[-init_range, init_range]`.

    Args:
        key: A JAX PRNG key.
        params: A `CartPoleParams` or `CartPoleSwingupParams` (its `init_range` is used).
        theta_offset: Added to theta: 0 for cartpole, pi (hanging down) for swing-up.

    Returns:
        The state, time 0 and `time_elapsed` 0, in `float_dtype()`.
    """
    x, x_dot, theta, theta_dot = jax.random.uniform(
        key, (4,), dtype=float_dtype(), minval=-params.init_range, maxval=params.init_range
    )
    zero = jnp.zeros((), float_dtype())
    return CartPoleState(
        time=jnp.zeros((), jnp.int32),
        x=x,
        x_dot=x_dot,
        theta=theta + theta_offset,
        theta_dot=theta_dot,
        time_elapsed=zero,
    )


def base_observation(state: CartPoleState, params) -> list[jax.Array]:
    """The six observation entries cartpole and cartpole swing-up share.

    Args:
        state: The state.
        params: A `CartPoleParams` or `CartPoleSwingupParams`.

    Returns:
        Six scalars: `[x / x_threshold, x_dot / x_threshold, sin theta, cos theta, theta_dot,
        time_elapsed / max_time]`.
    """
    return [
        state.x / params.x_threshold,
        state.x_dot / params.x_threshold,
        jnp.sin(state.theta),
        jnp.cos(state.theta),
        state.theta_dot,
        state.time_elapsed / params.max_time,
    ]


def is_rewarded(state: CartPoleState, params: CartPoleParams) -> jax.Array:
    """Whether cartpole pays its reward of 1 in `state` (else the episode ends).

    Args:
        state: The state.
        params: The env's params.

    Returns:
        A bool scalar: `cos(theta) > height_threshold` and `|x| < x_threshold`.
    """
    return (jnp.cos(state.theta) > params.height_threshold) & (jnp.abs(state.x) < params.x_threshold)


class CartPole(Environment[CartPoleState, CartPoleParams]):
    """bsuite's CartPole (see the module docstring); the arguments set `default_params`.

    Args:
        height_threshold: See `CartPoleParams`.
        x_threshold: See `CartPoleParams`.
        timescale: See `CartPoleParams`.
        max_time: See `CartPoleParams`.
        init_range: See `CartPoleParams`.
    """

    def __init__(
        self,
        height_threshold: float = 0.8,
        x_threshold: float = 3.0,
        timescale: float = 0.01,
        max_time: float = 10.0,
        init_range: float = 0.05,
    ):
        self._defaults = dict(
            height_threshold=height_threshold,
            x_threshold=x_threshold,
            timescale=timescale,
            max_time=max_time,
            init_range=init_range,
        )

    @property
    def default_params(self) -> CartPoleParams:
        return CartPoleParams(bsuite_num_episodes=NUM_EPISODES, **self._defaults)

    def reset_env(self, key, params):
        state = reset_state(key, params)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        state = step_cartpole(state, action, params).replace(time=state.time + 1)
        rewarded = is_rewarded(state, params)
        terminated = self.is_terminal(state, params)
        return self.observe(state, params), state, rewarded.astype(jnp.float32), terminated, {}

    def is_terminal(self, state, params):
        """Whether `state` is past `max_time` or unrewarded (the `terminated` of the step into it)."""
        return (state.time_elapsed > params.max_time) | ~is_rewarded(state, params)

    def observe(self, state, params):
        """bsuite's observation, `float32[1, 6]`: the six entries of `base_observation`."""
        return jnp.stack(base_observation(state, params)).astype(jnp.float32)[None, :]

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(-jnp.inf, jnp.inf, shape=(1, 6), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(3)

    @defaults_params
    def render(self, state, params=None):
        return _draw.cartpole(state.x, state.theta, params.x_threshold, params.length)
