"""`LogWrapper`: episode returns and lengths in `info`, PureJaxRL's keys.

The int32 counters saturate at `TIMESTEP_MAX` instead of wrapping (docs/wrappers.md).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.start import StartWrapper

TIMESTEP_MAX = 2**31 - 1  # where the int32 counters stop


def _count(counter: jax.Array) -> jax.Array:
    """`counter + 1`, held at `TIMESTEP_MAX` instead of wrapping to a negative int32."""
    return jnp.where(counter < TIMESTEP_MAX, counter + 1, counter).astype(jnp.int32)


@struct.dataclass
class LogEnvState:
    """`LogWrapper`'s state: the wrapped env's state and the episode counters.

    Attributes:
        env_state: The wrapped env's state.
        episode_returns: float32, the return of the running episode so far.
        episode_lengths: int32, the steps of the running episode so far.
        returned_episode_returns: float32, the return of the last finished episode.
        returned_episode_lengths: int32, the length of the last finished episode.
        timestep: int32, the steps taken since the first reset, held at `TIMESTEP_MAX`.
    """

    env_state: object
    episode_returns: jax.Array
    episode_lengths: jax.Array
    returned_episode_returns: jax.Array
    returned_episode_lengths: jax.Array
    timestep: jax.Array


class LogWrapper(StartWrapper):
    """PureJaxRL's episode statistics in `info`.

    Each step adds `returned_episode` (true on the step an episode ends, terminated or
    truncated), `returned_episode_returns`, `returned_episode_lengths` (the last finished
    episode's) and `timestep`. Put it over an auto-resetting env or `make_vec` (one entry per env).
    `reset` and `reset_to_level` start every counter at zero; `reset_to_level(..., state=s)` (a
    PLR loop's next rollout) keeps `timestep` and the last finished episode's from `s`.

    Args:
        env: The env to wrap.

    Examples:
        >>> import jax, jaxenvs
        >>> from jaxenvs.wrappers import LogWrapper
        >>> env, params = jaxenvs.make("CartPole-v1")
        >>> env = LogWrapper(env)
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> for t in range(3):
        ...     obs, state, reward, terminated, truncated, info = env.step(jax.random.key(t), state, 1, params)
        >>> int(info["timestep"]), int(state.episode_lengths), float(state.episode_returns)
        (3, 3, 3.0)
    """

    def _start(self, obs, env_state, params, previous=None):
        """The running episode's counters at zero; the others kept from `previous`, or zero."""
        batch = (self.env.num_envs,) if hasattr(self.env, "num_envs") else ()
        zero_f, zero_i = jnp.zeros(batch, jnp.float32), jnp.zeros(batch, jnp.int32)
        state = LogEnvState(
            env_state=env_state,
            episode_returns=zero_f,
            episode_lengths=zero_i,
            returned_episode_returns=zero_f if previous is None else previous.returned_episode_returns,
            returned_episode_lengths=zero_i if previous is None else previous.returned_episode_lengths,
            timestep=zero_i if previous is None else previous.timestep,
        )
        return obs, state

    def _env_state(self, state):
        """The wrapped env's state."""
        return state.env_state

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; the counters updated and copied into `info`."""
        obs, env_state, reward, terminated, truncated, info = self.env.step(key, state.env_state, action, params)
        done = jnp.logical_or(terminated, truncated)
        new_return = state.episode_returns + reward.astype(jnp.float32)
        new_length = _count(state.episode_lengths)
        state = LogEnvState(
            env_state=env_state,
            episode_returns=jnp.where(done, 0.0, new_return).astype(jnp.float32),
            episode_lengths=jnp.where(done, 0, new_length).astype(jnp.int32),
            returned_episode_returns=jnp.where(done, new_return, state.returned_episode_returns).astype(jnp.float32),
            returned_episode_lengths=jnp.where(done, new_length, state.returned_episode_lengths).astype(jnp.int32),
            timestep=_count(state.timestep),
        )
        info = dict(info)
        info["returned_episode_returns"] = state.returned_episode_returns
        info["returned_episode_lengths"] = state.returned_episode_lengths
        info["timestep"] = state.timestep
        info["returned_episode"] = done
        return obs, state, reward, terminated, truncated, info

    @defaults_params
    def render(self, state, params=None):
        """A picture of `state`."""
        return self.env.render(state.env_state, params)
