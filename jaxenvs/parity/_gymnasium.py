"""Reading and writing the state of gymnasium reference envs (wrappers included)."""

from __future__ import annotations

from typing import Any


def time_limit(env: Any) -> Any | None:
    """The `TimeLimit` wrapper inside `env`, if any."""
    import gymnasium

    while env is not None:
        if isinstance(env, gymnasium.wrappers.TimeLimit):
            return env
        env = getattr(env, "env", None)
    return None


def elapsed_steps(env: Any) -> int:
    limit = time_limit(env)
    return 0 if limit is None or limit._elapsed_steps is None else int(limit._elapsed_steps)


def set_elapsed_steps(env: Any, t: int) -> None:
    limit = time_limit(env)
    if limit is not None:
        limit._elapsed_steps = int(t)


def make(env_id: str, **kwargs: Any) -> Any:
    """`gymnasium.make(env_id)` with the passive env checker off (it warns on injected states)."""
    import gymnasium

    return gymnasium.make(env_id, disable_env_checker=True, **kwargs)
