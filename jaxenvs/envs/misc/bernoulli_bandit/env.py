"""BernoulliBandit: a two-armed bandit whose better arm changes between episodes (Wang et al., 2017).

Reference: gymnax `BernoulliBandit-misc` (`gymnax/environments/misc/bernoulli_bandit.py`), the
meta-RL bandit of "Learning to reinforcement learn". At reset arm 0 pays with probability
`reward_prob` or `1 - reward_prob` (each with probability 1/2), arm 1 with the complement. Each
pull pays 1 with the arm's probability, else 0. It never terminates: episodes are 100 steps.
Observation `[last_reward, last_action one-hot (2), time]`, time mapped by
`(max_lim - min_lim) t / t_max + min_lim` with `normalize_time` (the default: [-1, 1] over 100
steps).

Differs: the state keeps `last_reward` as float32 (gymnax: int32) and `max_steps_in_episode` is
an int (gymnax: float 100.0); the observation space bounds `last_reward` by 1 (gymnax: 2) and the
time feature by its real range. A pull uses one uniform number. Invalid action: inside jit an
action outside {0, 1} is clipped into it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params, float_dtype
from jaxenvs.envs.misc import _common
from jaxenvs.params import flag, integer, probability, real


@struct.dataclass
class BernoulliBanditState(EnvState):
    """The state of BernoulliBandit (gymnax's field names).

    Attributes:
        last_action: The previous arm pulled (int32 scalar; 0 at reset).
        last_reward: The previous reward, 0 or 1 (float32 scalar; 0 at reset).
        exp_reward_best: The better arm's pay probability (float scalar).
        reward_probs: Each arm's pay probability, `float[2]`, drawn at reset.
    """

    last_action: jax.Array
    last_reward: jax.Array
    exp_reward_best: jax.Array
    reward_probs: jax.Array


@struct.dataclass
class BernoulliBanditParams(EnvParams):
    """BernoulliBandit's params (gymnax's names and defaults).

    Attributes:
        reward_prob: One arm pays with this probability, the other with `1 - reward_prob`.
        normalize_time: Encode the time entry of the observation linearly from `min_lim` at
            t = 0 to `max_lim` at t = `t_max`; else the raw step count.
        max_steps_in_episode: The episode's length (the env never terminates).
        min_lim: The normalized time at t = 0.
        max_lim: The normalized time at t = `t_max`.
        t_max: The step at which the normalized time reaches `max_lim`.
    """

    reward_prob: float = probability(0.1)
    normalize_time: bool = flag(True)
    max_steps_in_episode: int = 100
    min_lim: float = real(-1.0, high="max_lim", high_open=True)
    max_lim: float = real(1.0, low="min_lim", low_open=True)
    t_max: int = integer(100, low=1)


def pull(u: jax.Array, reward_probs: jax.Array, action: jax.Array) -> jax.Array:
    """The reward of pulling `action`, from one uniform `u`: 1 with the arm's probability.

    Args:
        u: A uniform number in [0, 1).
        reward_probs: Each arm's pay probability, `float[2]`.
        action: The arm pulled, 0 or 1.

    Returns:
        1.0 if `u < reward_probs[action]`, else 0.0 (float32 scalar).
    """
    return (u < reward_probs[action]).astype(jnp.float32)


class BernoulliBandit(Environment[BernoulliBanditState, BernoulliBanditParams]):
    """gymnax's BernoulliBandit (see the module docstring)."""

    def get_obs(self, state, params) -> jax.Array:
        """The observation of `state`.

        Args:
            state: The state.
            params: The env's params.

        Returns:
            A `float32[4]` array: `[last_reward, last_action one-hot (2), time]`.
        """
        time = _common.time_feature(state.time, params.normalize_time, params.min_lim, params.max_lim, params.t_max)
        return jnp.concatenate([state.last_reward[None], _common.one_hot(state.last_action, 2), time[None]])

    def observe(self, state, params):
        """`float32[4]`: `[last_reward, last_action one-hot (2), time]` (`get_obs`)."""
        return self.get_obs(state, params)

    def is_terminal(self, state, params):
        """Whether `state` ended its episode by termination: never (only the time limit ends it)."""
        return jnp.zeros((), jnp.bool_)  # never terminates

    def reset_env(self, key, params):
        dtype = float_dtype()
        p = jnp.asarray(params.reward_prob, dtype)
        p0 = jnp.where(jax.random.bernoulli(key), p, 1 - p)
        state = BernoulliBanditState(
            time=jnp.zeros((), jnp.int32),
            last_action=jnp.zeros((), jnp.int32),
            last_reward=jnp.zeros((), jnp.float32),
            exp_reward_best=jnp.maximum(p0, 1 - p0),
            reward_probs=jnp.stack([p0, 1 - p0]),
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.clip(action, 0, 1).astype(jnp.int32)
        u = jax.random.uniform(key, dtype=state.reward_probs.dtype)
        reward = pull(u, state.reward_probs, action)
        state = state.replace(last_action=action, last_reward=reward, time=state.time + 1)
        return self.observe(state, params), state, reward, jnp.asarray(False), {}

    @defaults_params
    def observation_space(self, params=None):
        t_lo, t_hi = _common.time_bounds(
            bool(params.normalize_time), params.max_steps_in_episode, params.min_lim, params.max_lim, params.t_max
        )
        return spaces.Box(np.array([0, 0, 0, t_lo]), np.array([1, 1, 1, t_hi]), (4,), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(2)

    @defaults_params
    def render(self, state, params=None):
        return _common.draw_bandit(state.reward_probs, 0.0, 1.0, state.last_action)
