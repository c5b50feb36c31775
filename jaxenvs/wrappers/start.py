"""`StartWrapper`: a wrapper's episode start, written once for `reset` and `reset_to_level`.

A wrapper that changes what an episode starts with (fresh counters, a first stack of frames,
normalisation statistics) writes that change once, as `_start(obs, env_state, params,
previous)`; its `reset` applies it to the wrapped env's `reset`, its `reset_to_level` to the
wrapped env's `reset_to_level`, so the two mean the same. `reset_to_level(..., state=s)`
continues a run: each layer keeps what it keeps across episodes (running statistics, the
step counter), as it does across an auto-reset, and the layers below it get their part of `s`.
"""

from __future__ import annotations

import inspect
from typing import Any

from jaxenvs.environment import defaults_params
from jaxenvs.levels import apply_level
from jaxenvs.wrappers.base import Wrapper


def takes_state(env: Any) -> bool:
    """Whether `env.reset_to_level` takes `state=` (a layer that continues a run).

    Args:
        env: An env, raw or wrapped.

    Returns:
        True when its `reset_to_level` has a `state` parameter.
    """
    try:
        return "state" in inspect.signature(env.reset_to_level).parameters
    except (AttributeError, TypeError, ValueError):
        return False


def continue_to_level(env: Any, key: Any, level: Any, params: Any, state: Any) -> tuple[Any, Any]:
    """`env.reset_to_level(key, level, params)`, continuing `state` where `env` takes one.

    Args:
        env: The env to start an episode of.
        key: A JAX PRNG key.
        level: A `jaxenvs.levels.Level`.
        params: The env's params.
        state: `env`'s state of the run to continue, or None to start afresh.

    Returns:
        `(obs, state)`.

    Raises:
        TypeError: `state` is given and `env` does not take it, but a layer below it does (what
            that layer keeps would be started afresh without a word).
    """
    if state is None:
        return env.reset_to_level(key, level, params)
    if takes_state(env):
        return env.reset_to_level(key, level, params, state=state)
    layer = getattr(env, "env", None)
    while layer is not None:
        if takes_state(layer):
            raise TypeError(
                f"{type(env).__name__} does not pass reset_to_level's state= on to the {type(layer).__name__} "
                f"below it, which keeps its statistics across episodes: put {type(layer).__name__} above "
                f"{type(env).__name__}, or call reset_to_level without state= (everything starts afresh)"
            )
        layer = getattr(layer, "env", None)
    return env.reset_to_level(key, level, params)


class StartWrapper(Wrapper):
    """A wrapper whose episodes start as its env's, then pass through `_start`.

    A subclass overrides `_start` (what its episode start changes) and, when its state holds
    the wrapped env's state as `env_state`, `_env_state`. `reset` and `reset_to_level` are then
    both defined, with the same meaning. A wrapper whose episodes start unchanged (it changes
    the step only: `ClipAction`, `TransformReward`, `LegacyStep`) subclasses it as it is, so that
    `reset_to_level(..., state=)` reaches the layers below it.

    Args:
        env: The env to wrap.
    """

    def _start(self, obs: Any, env_state: Any, params: Any, previous: Any = None) -> tuple[Any, Any]:
        """This layer's `(obs, state)` at an episode start of the wrapped env.

        Args:
            obs: The wrapped env's first observation.
            env_state: The wrapped env's first state.
            params: The params the episode runs under (the level's settings in place).
            previous: This layer's state of the run `reset_to_level(..., state=)` continues, or
                None (`reset`, and `reset_to_level` without `state`).

        Returns:
            `(obs, state)`; here the wrapped env's, unchanged.
        """
        return obs, env_state

    def _env_state(self, state: Any) -> Any:
        """The wrapped env's part of this layer's state (here the state itself)."""
        return state

    @defaults_params
    def reset(self, key, params=None):
        """Start an episode: the wrapped env's reset, then this layer's start.

        Args:
            key: A JAX PRNG key.
            params: The env's params.

        Returns:
            `(obs, state)`.
        """
        obs, env_state = self.env.reset(key, params)
        return self._start(obs, env_state, params)

    @defaults_params
    def reset_to_level(self, key, level, params=None, *, state=None):
        """Start an episode from a level: the wrapped env's `reset_to_level`, then this layer's start.

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level` (batched over `make_vec`: one per env).
            params: The env's params.
            state: The state of the run to continue (optional): what each layer keeps across
                episodes (`NormalizeObservation`'s statistics, `LogWrapper`'s step counter and
                last finished episode) continues from it, as across an auto-reset; None starts
                everything as `reset` does.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: `state` is given and a layer below that keeps statistics cannot receive
                it; as the wrapped env's `reset_to_level`.
            ValueError: As the wrapped env's `reset_to_level`.
        """
        env_state = None if state is None else self._env_state(state)
        obs, env_state = continue_to_level(self.env, key, level, params, env_state)
        return self._start(obs, env_state, apply_level(params, level), state)
