"""`RegisteredDefaults`: the params `make` built become the env's defaults."""

from __future__ import annotations

from typing import Any

from jaxenvs.wrappers.base import Wrapper


class RegisteredDefaults(Wrapper):
    """Makes the params `make` built (registered values and overrides) the env's defaults.

    So that `env.step(key, state, action)` without params uses them.

    Args:
        env: the env.
        params: the params that become its `default_params`.

    Examples:
        >>> import jaxenvs
        >>> env, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=7)
        >>> env.default_params.max_steps_in_episode
        7
    """

    keeps_observation = True  # observations pass through unchanged (see `VecEnv`)

    def __init__(self, env: Any, params: Any):
        super().__init__(env)
        self._registered_params = params

    @property
    def default_params(self) -> Any:
        """The params `make` built."""
        return self._registered_params
