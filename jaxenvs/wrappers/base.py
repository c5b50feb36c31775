"""`Wrapper`: an environment around another, delegating what it does not change."""

from __future__ import annotations

from typing import Any

from jaxenvs.environment import Environment


class Wrapper(Environment):
    """Delegates every method to the wrapped env; subclasses override one concern.

    `params=None` is resolved to this wrapper's `default_params` before it is passed down,
    so a wrapper that changes the defaults (the registry's) holds for the whole stack.
    """

    def __init__(self, env: Environment):
        self._env = env

    @property
    def env(self) -> Environment:
        return self._env

    @property
    def unwrapped(self) -> Environment:
        return self._env.unwrapped

    @property
    def default_params(self) -> Any:
        return self._env.default_params

    def _params(self, params: Any) -> Any:
        return self.default_params if params is None else params

    def reset(self, key, params=None):
        return self._env.reset(key, self._params(params))

    def step(self, key, state, action, params=None):
        return self._env.step(key, state, action, self._params(params))

    def reset_env(self, key, params):
        return self._env.reset_env(key, params)

    def step_env(self, key, state, action, params):
        return self._env.step_env(key, state, action, params)

    def observation_space(self, params=None):
        return self._env.observation_space(self._params(params))

    def action_space(self, params=None):
        return self._env.action_space(self._params(params))

    def render(self, state, params=None):
        return self._env.render(state, self._params(params))

    @property
    def name(self) -> str:
        return self._env.name

    @property
    def num_actions(self) -> int:
        return self._env.num_actions

    def __getattr__(self, name: str) -> Any:
        # only reached for attributes this wrapper lacks; `_env` itself must not recurse
        if name == "_env":
            raise AttributeError(name)
        return getattr(self._env, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._env!r})"
