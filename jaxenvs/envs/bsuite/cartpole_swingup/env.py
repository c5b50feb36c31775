"""bsuite's CartPole swing-up: the pole starts hanging down; swing it up and hold it there.

Reference: bsuite `experiments/cartpole_swingup/cartpole_swingup.py` (experiment
`cartpole_swingup`, 1,000 episodes; its sweep varies `height_threshold` and
`x_reward_threshold`). bsuite's cart-pole physics (`cartpole.step_cartpole`), the pole at
`pi` plus the uniform reset noise. Each step costs `move_cost` (0.1) for pushing (actions 0
and 2) and pays +1 while `cos(theta) > height_threshold`, `|theta_dot| < theta_dot_threshold`
and `|x| < x_reward_threshold`. The episode ends once `time_elapsed > max_time` or `|x| >
x_threshold`. The observation is bsuite's float32 `(1, 8)`: cartpole's six entries, then +1/-1
for `|x| < x_reward_threshold` and for `|theta_dot| < theta_dot_threshold`.

Differs: float32 dynamics unless `jax_enable_x64` is on (bsuite computes in float64).
Invalid action under jit: clipped to 0..2 (bsuite would charge `|a - 1| * move_cost` for it;
here the clipped action is charged).
"""

from __future__ import annotations

import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, defaults_params
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams
from jaxenvs.envs.bsuite.cartpole import CartPoleState, base_observation, reset_state, step_cartpole
from jaxenvs.params import positive, real

NUM_EPISODES = 1_000  # bsuite experiments/cartpole_swingup/sweep.py


@struct.dataclass
class CartPoleSwingupParams(BsuiteParams):
    """bsuite's cart-pole swing-up settings, and the cart-pole physics (its `CartpoleConfig`).

    Attributes:
        height_threshold: The +1 needs `cos(theta)` above this (bsuite's sweep varies it).
        theta_dot_threshold: ... and `|theta_dot|` below this, in radians per second.
        x_reward_threshold: ... and `|x|` below this, in metres (bsuite's sweep varies it).
        move_cost: The cost of each push (actions 0 and 2).
        x_threshold: The episode ends when `|x|` exceeds this, in metres; it also scales the
            observation's `x` and `x_dot`.
        timescale: Seconds per step (the Euler step).
        max_time: The episode ends once `time_elapsed` exceeds this, in seconds.
        init_range: At reset, x, x_dot, theta - pi and theta_dot are uniform in
            `[-init_range, init_range]`.
        mass_cart: The cart's mass in kg.
        mass_pole: The pole's mass in kg.
        length: Half the pole's length in metres (the distance to its centre of mass).
        force_mag: The force of a push in newtons.
        gravity: The acceleration of gravity in m/s^2.
    """

    height_threshold: float = real(0.5)
    theta_dot_threshold: float = real(1.0, low=0.0)
    x_reward_threshold: float = real(1.0, low=0.0)
    move_cost: float = real(0.1, low=0.0)
    x_threshold: float = positive(3.0)
    timescale: float = positive(0.01)
    max_time: float = positive(10.0)
    init_range: float = real(0.05, low=0.0)
    mass_cart: float = positive(1.0, per_episode=True)
    mass_pole: float = positive(0.1, per_episode=True)
    length: float = positive(0.5, per_episode=True)
    force_mag: float = real(10.0, low=0.0, per_episode=True)
    gravity: float = real(9.8, per_episode=True)


def is_upright(state: CartPoleState, params: CartPoleSwingupParams):
    """Whether swing-up pays its +1 in `state`.

    Args:
        state: The state.
        params: The env's params.

    Returns:
        A bool scalar: `cos(theta) > height_threshold`, `|theta_dot| < theta_dot_threshold`
        and `|x| < x_reward_threshold`.
    """
    return (
        (jnp.cos(state.theta) > params.height_threshold)
        & (jnp.abs(state.theta_dot) < params.theta_dot_threshold)
        & (jnp.abs(state.x) < params.x_reward_threshold)
    )


class CartPoleSwingup(Environment[CartPoleState, CartPoleSwingupParams]):
    """bsuite's cart-pole swing-up (see the module docstring); the arguments set `default_params`.

    Args:
        height_threshold: See `CartPoleSwingupParams`.
        theta_dot_threshold: See `CartPoleSwingupParams`.
        x_reward_threshold: See `CartPoleSwingupParams`.
        move_cost: See `CartPoleSwingupParams`.
        x_threshold: See `CartPoleSwingupParams`.
        timescale: See `CartPoleSwingupParams`.
        max_time: See `CartPoleSwingupParams`.
        init_range: See `CartPoleSwingupParams`.
    """

    def __init__(
        self,
        height_threshold: float = 0.5,
        theta_dot_threshold: float = 1.0,
        x_reward_threshold: float = 1.0,
        move_cost: float = 0.1,
        x_threshold: float = 3.0,
        timescale: float = 0.01,
        max_time: float = 10.0,
        init_range: float = 0.05,
    ):
        self._defaults = dict(
            height_threshold=height_threshold,
            theta_dot_threshold=theta_dot_threshold,
            x_reward_threshold=x_reward_threshold,
            move_cost=move_cost,
            x_threshold=x_threshold,
            timescale=timescale,
            max_time=max_time,
            init_range=init_range,
        )

    @property
    def default_params(self) -> CartPoleSwingupParams:
        return CartPoleSwingupParams(bsuite_num_episodes=NUM_EPISODES, **self._defaults)

    def reset_env(self, key, params):
        state = reset_state(key, params, theta_offset=jnp.pi)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.clip(action, 0, 2)
        state = step_cartpole(state, action, params).replace(time=state.time + 1)
        reward = -jnp.abs(action - 1).astype(jnp.float32) * params.move_cost
        reward = reward + is_upright(state, params).astype(jnp.float32)
        return self.observe(state, params), state, reward, self.is_terminal(state, params), {}

    def is_terminal(self, state, params):
        """Whether `state` is past `max_time` or off the track (the `terminated` of the step into it)."""
        return (state.time_elapsed > params.max_time) | (jnp.abs(state.x) > params.x_threshold)

    def observe(self, state, params):
        """bsuite's observation, `float32[1, 8]`: `base_observation`'s six entries, then +1/-1 flags."""
        # the flags: |x| < x_reward_threshold, |theta_dot| < theta_dot_threshold
        x_ok = jnp.where(jnp.abs(state.x) < params.x_reward_threshold, 1.0, -1.0)
        theta_dot_ok = jnp.where(jnp.abs(state.theta_dot) < params.theta_dot_threshold, 1.0, -1.0)
        entries = base_observation(state, params) + [x_ok, theta_dot_ok]
        return jnp.stack([jnp.asarray(e, jnp.float32) for e in entries])[None, :]

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(-jnp.inf, jnp.inf, shape=(1, 8), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(3)

    @defaults_params
    def render(self, state, params=None):
        return _draw.cartpole(state.x, state.theta, params.x_threshold, params.length)
