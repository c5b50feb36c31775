"""The env under test: the built-in env of an id, or a user's, checked before any check runs."""

from __future__ import annotations

from typing import Any

from jaxenvs.environment import resolve_params

__all__ = ["builtin_env", "check_params", "env_under_test", "require_env", "require_raw_env"]


def env_under_test(env_id: str, env: Any = None, params: Any = None) -> tuple[Any, Any]:
    """The env and params the checks check for `run_parity(env_id, env=env, params=params)`.

    The built-in raw env (`make(env_id, autoreset=False)`) where `env` is None, its default
    params where `params` is None.

    Args:
        env_id: the id whose checks run (or the env's name, for a user's target; named in errors).
        env: the env under test, or None.
        params: its params, or None.

    Returns:
        `(env, params)`.

    Raises:
        TypeError: `env` has no `reset` / `step`, has no `default_params` and `params` is
            None, or `params` is not of the env's params type.
    """
    if env is None:
        env, default = builtin_env(env_id)
    else:
        require_env(env, f"run_parity({env_id!r}, env=...)")
        default = getattr(env, "default_params", None)
    if params is None and default is None:
        raise TypeError(f"run_parity({env_id!r}, env=...): the env has no default_params; pass params=")
    check_params(env_id, params, default)
    return env, resolve_params(env, params)


_BUILTIN: dict[str, tuple[Any, Any, Any]] = {}


def builtin_env(env_id: str) -> tuple[Any, Any]:
    """The built-in raw env of `env_id` and its registered params, one env object per registration.

    Runs on it (the id's own check, its mutants' params) share compiled functions.

    Args:
        env_id: a registered id.

    Returns:
        `(env, params)`, as `jaxenvs.make(env_id, autoreset=False)` builds them.
    """
    import jaxenvs

    s = jaxenvs.spec(env_id)
    held = _BUILTIN.get(env_id)
    if held is None or held[0] is not s:  # a re-registered id gets a new env
        held = _BUILTIN[env_id] = (s, *jaxenvs.make(env_id, autoreset=False))
    return held[1], held[2]


def check_params(env_id: str, params: Any, default: Any) -> None:
    """A clear error for `params` (when given) not of the type of the env's `default`.

    Args:
        env_id: the id (or env name) the error names.
        params: the params given, or None.
        default: the env's default params, or None.

    Raises:
        TypeError: `params` is not of `default`'s type.
    """
    if params is not None and default is not None and type(params) is not type(default):
        raise TypeError(
            f"run_parity({env_id!r}, params=...): params must be a {type(default).__name__} "
            f"(the env's params type), got {type(params).__name__}"
        )


def require_env(env: Any, where: str) -> None:
    """A clear error for an env the checks cannot step: an id instead of an env, or no `reset` / `step`.

    Args:
        env: the env given.
        where: the call it was given to, for the message.

    Raises:
        TypeError: `env` is a string or has no `reset` / `step`.
    """
    if isinstance(env, str):
        raise TypeError(
            f"{where}: env must be an environment object, got the string {env!r}; for a registered id use "
            f"jaxenvs.parity.run_parity({env!r}), or pass jaxenvs.make({env!r}, autoreset=False)[0]"
        )
    missing = [m for m in ("reset", "step") if not callable(getattr(env, m, None))]
    if missing:
        raise TypeError(
            f"{where}: env must be a raw JAX env with reset(key, params) and step(key, state, action, params); "
            f"{type(env).__name__} has no {' or '.join(missing)}"
        )


def require_raw_env(env: Any, where: str = "check") -> None:
    """A clear error for an env the checks cannot step, or one that auto-resets (its step would
    start a new episode where the reference's ends).

    Args:
        env: the env given.
        where: the call it was given to, for the message.

    Raises:
        TypeError: as `require_env`.
        ValueError: `env` auto-resets.
    """
    require_env(env, where)
    from jaxenvs.wrappers.autoreset import AutoReset
    from jaxenvs.wrappers.base import find_wrapper

    if find_wrapper(env, AutoReset) is not None:
        raise ValueError(
            f"{where}: {getattr(env, 'name', env)!r} auto-resets, so its step would start a new episode where the "
            "reference's ends; pass the raw env: jaxenvs.make(id, autoreset=False) or env.unwrapped"
        )
