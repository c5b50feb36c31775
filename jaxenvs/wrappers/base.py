"""`Wrapper`: an environment around another, delegating what it does not change.

A wrapper is used through `reset` / `step` (and `observation_space`, `action_space`, `render`),
never around them: it has no `reset_env` / `step_env` / `truncation` of its own (they would go
straight to the inner env and skip the wrapper), so calling one raises. `env.unwrapped` is
the raw env; `find_wrapper(env, cls)` finds a wrapper in a stack.
"""

from __future__ import annotations

from typing import Any, TypeVar

from jaxenvs.environment import Environment

W = TypeVar("W")

# the raw env's transition, which a wrapper must not expose (it would skip the wrapper)
_RAW_ONLY = ("reset_env", "step_env", "truncation", "observe", "is_terminal")


class Wrapper(Environment):
    """Wraps `env`; every method this class does not change goes to `env`.

    `params=None` resolves to this wrapper's `default_params` (the wrapped env's, unless a
    wrapper changes them, as the registry's does) before it is passed down, so the defaults
    of the outermost layer hold for the whole stack.
    """

    def __init__(self, env: Environment):
        self.env = env

    @property
    def unwrapped(self) -> Environment:
        return self.env.unwrapped

    @property
    def default_params(self) -> Any:
        return self.env.default_params

    def reset(self, key, params=None):
        return self.env.reset(key, params)

    def step(self, key, state, action, params=None):
        return self.env.step(key, state, action, params)

    def observation_space(self, params=None):
        return self.env.observation_space(params)

    def action_space(self, params=None):
        return self.env.action_space(params)

    def render(self, state, params=None):
        return self.env.render(state, params)

    def _raw_only(self, name: str):
        raise TypeError(
            f"{type(self).__name__} is a wrapper: call reset/step (its {name} would skip the wrapper); "
            f"the raw env is `.unwrapped`"
        )

    def reset_env(self, key, params):
        self._raw_only("reset_env")

    def step_env(self, key, state, action, params):
        self._raw_only("step_env")

    def truncation(self, state, params):
        self._raw_only("truncation")

    def observe(self, state, params):
        self._raw_only("observe")

    def is_terminal(self, state, params):
        self._raw_only("is_terminal")

    @property
    def name(self) -> str:
        return self.env.name

    @property
    def num_actions(self) -> int:
        return self.env.num_actions

    def __getattr__(self, name: str) -> Any:
        # only reached for attributes this wrapper lacks; `env` itself must not recurse
        if name == "env" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.env, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env!r})"


def transparent_raw(env: Any) -> Environment | None:
    """The raw env under `env` when every wrapper between them passes states and observations
    through unchanged (declares the class attribute `keeps_observation = True`, as the
    registry's defaults do), so the raw env's `observe` and `is_terminal` hold for `env`;
    else None."""
    layer = env
    while isinstance(layer, Wrapper):
        if not getattr(type(layer), "keeps_observation", False):
            return None
        layer = layer.env
    return layer


def find_wrapper(env: Any, cls: type[W]) -> W | None:
    """The outermost layer of `env`'s stack that is a `cls` (`env` itself included), or None."""
    layer = env
    while True:
        if isinstance(layer, cls):
            return layer
        if not isinstance(layer, Wrapper):
            return None
        layer = layer.env
