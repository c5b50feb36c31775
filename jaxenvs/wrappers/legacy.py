"""`LegacyStep`: the pre-1.0 gymnax step `(obs, state, reward, done, info)` for PureJaxRL-era code."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.start import StartWrapper


class LegacyStep(StartWrapper):
    """The step as gymnax before 1.0: `(obs, state, reward, done, info)`.

    `done = terminated or truncated`; `info` keeps `discount` (0 only on termination) and gains
    `terminated` and `truncated`, so nothing is lost.

    Args:
        env: The env to wrap.

    Examples:
        >>> import jax, jaxenvs
        >>> from jaxenvs.wrappers import LegacyStep
        >>> env, params = jaxenvs.make("CartPole-v1")
        >>> env = LegacyStep(env)
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> obs, state, reward, done, info = env.step(jax.random.key(1), state, 0, params)
        >>> bool(done), sorted(info)
        (False, ['discount', 'final_observation', 'final_terminated', 'final_truncated', 'terminated', 'truncated'])
    """

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition, as a 5-tuple.

        Returns:
            `(obs, state, reward, done, info)`, `info` with `terminated` and `truncated` added.
        """
        obs, state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        info = dict(info)
        info["terminated"] = terminated
        info["truncated"] = truncated
        return obs, state, reward, jnp.logical_or(terminated, truncated), info
