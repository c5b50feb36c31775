"""`Wrapper`: an environment around another, delegating what it does not change.

A wrapper is used through `reset` / `step` (and the spaces, `render`), never around them: its
`reset_env`, `step_env`, `truncation`, `observe` and `is_terminal` raise, since they would go
straight to the inner env and skip the wrapper.
"""

from __future__ import annotations

from typing import Any, TypeVar

from jaxenvs.environment import Environment, defaults_params

W = TypeVar("W")

# the raw env's transition, which a wrapper must not expose (it would skip the wrapper)
_RAW_ONLY = ("reset_env", "step_env", "truncation", "observe", "is_terminal")


class Wrapper(Environment):
    """Wraps `env`; every method this class does not change goes to `env`.

    `params=None` resolves to this wrapper's `default_params` (the wrapped env's, unless a
    wrapper changes them, as the registry's does) before it is passed down, so the defaults of
    the outermost layer hold for the whole stack.

    Args:
        env: The env to wrap (raw or wrapped).
    """

    def __init__(self, env: Environment):
        self.env = env

    @property
    def unwrapped(self) -> Environment:
        """The raw env at the bottom of the stack."""
        return self.env.unwrapped

    @property
    def default_params(self) -> Any:
        """The wrapped env's default params."""
        return self.env.default_params

    @defaults_params
    def reset(self, key, params=None):
        """Start an episode (the wrapped env's reset)."""
        return self.env.reset(key, params)

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition (the wrapped env's step).

        Returns:
            `(obs, state, reward, terminated, truncated, info)`.
        """
        return self.env.step(key, state, action, params)

    @defaults_params
    def reset_to_level(self, key, level, params=None):
        """Start an episode from a level (the wrapped env's `reset_to_level`).

        Available where this wrapper's `reset` is the wrapped env's, or it keeps observations;
        a wrapper that changes what `reset` returns defines its own.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: This wrapper changes `reset` and defines no `reset_to_level`.
        """
        if type(self).reset is not Wrapper.reset and not getattr(type(self), "keeps_observation", False):
            raise TypeError(
                f"{type(self).__name__} changes reset and has no reset_to_level of its own; call it on the env "
                "it wraps and wrap the result, or start from a level below this wrapper"
            )
        return self.env.reset_to_level(key, level, params)

    @defaults_params
    def observation_space(self, params=None):
        """The wrapped env's observation space."""
        return self.env.observation_space(params)

    @defaults_params
    def action_space(self, params=None):
        """The wrapped env's action space."""
        return self.env.action_space(params)

    @defaults_params
    def render(self, state, params=None):
        """The wrapped env's picture of `state`.

        Returns:
            A `uint8[H, W, 3]` image.
        """
        return self.env.render(state, params)

    def _raw_only(self, name: str):
        raise TypeError(
            f"{type(self).__name__} is a wrapper: call reset/step (its {name} would skip the wrapper); "
            f"the raw env is `.unwrapped`"
        )

    def reset_env(self, key, params):
        """Not available on a wrapper: `reset_env` would skip it (use `reset` / `step`; the raw env is `.unwrapped`).

        Args:
            key: Unused.
            params: Unused.

        Raises:
            TypeError: Always.
        """
        self._raw_only("reset_env")

    def step_env(self, key, state, action, params):
        """Not available on a wrapper: `step_env` would skip it (use `reset` / `step`; the raw env is `.unwrapped`).

        Args:
            key: Unused.
            state: Unused.
            action: Unused.
            params: Unused.

        Raises:
            TypeError: Always.
        """
        self._raw_only("step_env")

    def truncation(self, state, params):
        """Not available on a wrapper: `truncation` would skip it (use `reset` / `step`; the raw env is `.unwrapped`).

        Args:
            state: Unused.
            params: Unused.

        Raises:
            TypeError: Always.
        """
        self._raw_only("truncation")

    def observe(self, state, params):
        """Not available on a wrapper: `observe` would skip it (use `reset` / `step`; the raw env is `.unwrapped`).

        Args:
            state: Unused.
            params: Unused.

        Raises:
            TypeError: Always.
        """
        self._raw_only("observe")

    def is_terminal(self, state, params):
        """Not available on a wrapper: `is_terminal` would skip it (use `reset` / `step`; the raw env is `.unwrapped`).

        Args:
            state: Unused.
            params: Unused.

        Raises:
            TypeError: Always.
        """
        self._raw_only("is_terminal")

    @property
    def name(self) -> str:
        """The wrapped env's name."""
        return self.env.name

    @property
    def num_actions(self) -> int:
        """The wrapped env's number of actions."""
        return self.env.num_actions

    def __getattr__(self, name: str) -> Any:
        # only reached for attributes this wrapper lacks; `env` itself must not recurse
        if name == "env" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.env, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env!r})"


def transparent_raw(env: Any) -> Environment | None:
    """The raw env under `env`, if every wrapper between them keeps states and observations.

    A wrapper keeps them when its class declares `keeps_observation = True` (as the registry's
    defaults do); the raw env's `observe` and `is_terminal` then hold for `env`.

    Args:
        env: An env, raw or wrapped.

    Returns:
        The raw env, or None if some layer changes states or observations.
    """
    layer = env
    while isinstance(layer, Wrapper):
        if not getattr(type(layer), "keeps_observation", False):
            return None
        layer = layer.env
    return layer


def find_wrapper(env: Any, cls: type[W]) -> W | None:
    """The outermost layer of `env`'s stack that is a `cls` (`env` itself included).

    Args:
        env: An env, raw or wrapped.
        cls: The wrapper class to look for.

    Returns:
        That layer, or None if there is none.
    """
    layer = env
    while True:
        if isinstance(layer, cls):
            return layer
        if not isinstance(layer, Wrapper):
            return None
        layer = layer.env
