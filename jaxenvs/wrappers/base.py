"""`Wrapper`: an `Env` around another, delegating what it does not change.

A wrapper implements the runtime interface (`jaxenvs.environment.Env`) and nothing else: the
authoring hooks of `Environment` (`reset_env`, `step_env`) are not part of it, so a wrapper
cannot be skipped through them.
"""

from __future__ import annotations

from typing import Any, TypeVar

from jaxenvs.environment import Env, Environment, defaults_params

W = TypeVar("W")

# what an env author implements and the runtime interface does not offer (`reset_env`,
# `step_env`, ...): a wrapper does not pass them through, since they would skip it
_AUTHORING_ONLY = frozenset(vars(Environment)) - frozenset(dir(Env))


class Wrapper(Env):
    """Wraps `env`; every method this class does not change goes to `env`.

    `params=None` resolves to this wrapper's `default_params` (the wrapped env's, unless a
    wrapper changes them, as the registry's does) before it is passed down, so the defaults of
    the outermost layer hold for the whole stack.

    A wrapper whose states and observations are its env's declares `keeps_observation = True`;
    it then answers the env's optional capabilities (`observe`, `is_terminal`, `truncation`,
    `action_mask`, `reset_rows`, `reset_ignores_key`) with the wrapped env's. Any other wrapper answers None
    (False), unless it defines its own.

    Args:
        env: The env to wrap (raw or wrapped).
    """

    keeps_observation: bool = False

    def __init__(self, env: Env):
        self.env = env

    @property
    def unwrapped(self) -> Env:
        """The raw env at the bottom of the stack."""
        return self.env.unwrapped

    @property
    def default_params(self) -> Any:
        """The wrapped env's default params."""
        return self.env.default_params

    # --- optional capabilities: the wrapped env's, where this layer keeps its states -------
    @property
    def observe(self) -> Any:
        """The wrapped env's `observe`, where this layer keeps states and observations; else None."""
        return self.env.observe if self.keeps_observation else None

    @property
    def is_terminal(self) -> Any:
        """The wrapped env's `is_terminal`, where this layer keeps states; else None."""
        return self.env.is_terminal if self.keeps_observation else None

    @property
    def truncation(self) -> Any:
        """The wrapped env's `truncation`, where this layer keeps states; else None."""
        return self.env.truncation if self.keeps_observation else None

    @property
    def action_mask(self) -> Any:
        """The wrapped env's `action_mask`, where this layer keeps states; else None."""
        return self.env.action_mask if self.keeps_observation else None

    @property
    def reset_rows(self) -> Any:
        """The wrapped env's `reset_rows` (a batch-native family's), where this layer keeps states; else None."""
        return self.env.reset_rows if self.keeps_observation else None

    @property
    def reset_ignores_key(self) -> bool:
        """The wrapped env's `reset_ignores_key`, where this layer keeps states; else False."""
        return bool(self.keeps_observation and self.env.reset_ignores_key)

    # --- the runtime interface ----------------------------------------------------------
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
        if type(self).reset is not Wrapper.reset and not self.keeps_observation:
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
        if name in _AUTHORING_ONLY:
            raise AttributeError(
                f"{type(self).__name__} is a wrapper: {name} is an env author's hook, which would skip it; "
                "call reset/step (the raw env is `.unwrapped`)"
            )
        return getattr(self.env, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env!r})"


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
