"""GaussianBandit: a safe arm against a risky arm of unknown mean (Lange & Sprekeler, 2022).

Reference: gymnax `GaussianBandit-misc` (`gymnax/environments/misc/gaussian_bandit.py`). Arm 0
always pays 0. At reset the mean `mu` of arm 1 is drawn from `N(mean_mu, sigma_p^2)`
(`N(-1, 1)` by default); each pull of arm 1 pays `mu + sigma_l * N(0, 1)` (`sigma_l = 0.1`). It
never terminates: episodes are 100 steps. Observation `[last_reward, last_action one-hot (2),
time]`, time as `2 t / 100 - 1` with `normalize_time` (the default).

Differs: the observation space leaves `last_reward` unbounded (gymnax declares [0, 2], which
the negative rewards leave) and bounds the time feature by its real range. A pull uses one
normal number. Invalid action: inside jit any action other than 0 pulls arm 1 (gymnax's
`action == 0` test). `mu` is float64 with `jax_enable_x64`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params, float_dtype
from jaxenvs.envs.misc import _common
from jaxenvs.params import flag, real


@struct.dataclass
class GaussianBanditState(EnvState):
    """The state of GaussianBandit (gymnax's field names).

    Attributes:
        last_action: The previous arm pulled (int32 scalar; 0 at reset).
        last_reward: The previous reward (float32 scalar; 0 at reset).
        mu: The mean pay of arm 1 this episode (float scalar, float64 with `jax_enable_x64`).
    """

    last_action: jax.Array
    last_reward: jax.Array
    mu: jax.Array


@struct.dataclass
class GaussianBanditParams(EnvParams):
    """GaussianBandit's params (gymnax's names and defaults).

    Attributes:
        mean_mu: The mean of arm 1's mean over episodes.
        sigma_p: The standard deviation of arm 1's mean over episodes.
        sigma_l: The standard deviation of arm 1's pay over pulls.
        normalize_time: Encode the observation's time entry as `2 t / 100 - 1`; else the raw
            step count.
        max_steps_in_episode: The episode's length (the env never terminates).
    """

    mean_mu: float = real(-1.0)
    sigma_p: float = real(1.0, low=0.0)
    sigma_l: float = real(0.1, low=0.0)
    normalize_time: bool = flag(True)
    max_steps_in_episode: int = 100


def pull(noise: jax.Array, mu: jax.Array, action: jax.Array, sigma_l) -> jax.Array:
    """The reward of pulling `action` given one standard normal `noise`.

    Args:
        noise: A standard normal number.
        mu: Arm 1's mean pay this episode.
        action: The arm pulled: 0 (pays 0) or 1.
        sigma_l: The standard deviation of arm 1's pay.

    Returns:
        0 for arm 0, `mu + sigma_l * noise` for arm 1 (float32 scalar).
    """
    return jnp.where(action == 0, 0.0, mu + noise * sigma_l).astype(jnp.float32)


class GaussianBandit(Environment[GaussianBanditState, GaussianBanditParams]):
    """gymnax's GaussianBandit (see the module docstring)."""

    def get_obs(self, state, params) -> jax.Array:
        """The observation of `state`.

        Args:
            state: The state.
            params: The env's params.

        Returns:
            A `float32[4]` array: `[last_reward, last_action one-hot (2), time]`.
        """
        time = _common.time_feature(state.time, params.normalize_time)
        return jnp.concatenate([state.last_reward[None], _common.one_hot(state.last_action, 2), time[None]])

    def observe(self, state, params):
        """`float32[4]`: `[last_reward, last_action one-hot (2), time]` (`get_obs`)."""
        return self.get_obs(state, params)

    def is_terminal(self, state, params):
        """Whether `state` ended its episode by termination: never (only the time limit ends it)."""
        return jnp.zeros((), jnp.bool_)  # never terminates

    def reset_env(self, key, params):
        mu = params.mean_mu + jax.random.normal(key, dtype=float_dtype()) * params.sigma_p
        state = GaussianBanditState(
            time=jnp.zeros((), jnp.int32),
            last_action=jnp.zeros((), jnp.int32),
            last_reward=jnp.zeros((), jnp.float32),
            mu=jnp.asarray(mu, float_dtype()),
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.where(action == 0, 0, 1).astype(jnp.int32)
        reward = pull(jax.random.normal(key, dtype=state.mu.dtype), state.mu, action, params.sigma_l)
        state = state.replace(last_action=action, last_reward=reward, time=state.time + 1)
        return self.observe(state, params), state, reward, jnp.asarray(False), {}

    @defaults_params
    def observation_space(self, params=None):
        t_lo, t_hi = _common.time_bounds(bool(params.normalize_time), params.max_steps_in_episode)
        return spaces.Box(np.array([-np.inf, 0, 0, t_lo]), np.array([np.inf, 1, 1, t_hi]), (4,), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(2)

    @defaults_params
    def render(self, state, params=None):
        return _common.draw_bandit(jnp.stack([jnp.zeros_like(state.mu), state.mu]), -3.0, 3.0, state.last_action)
