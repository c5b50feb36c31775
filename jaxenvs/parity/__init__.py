"""Parity: prove a JAX env matches a reference implementation, ours or yours.

    result = jaxenvs.parity.check(env, params, reference)   # .passed, .summary()
    jaxenvs.parity.assert_parity(env, params, reference)    # in a test: names the first mismatch

Each registered id declares its checks (`EnvSpec.parity`): a `ParitySpec` (the built-in
envs' sit beside them, `jaxenvs/envs/<family>/<env>/parity.py`) or a `Reference`.
`run_parity(env_id, ...)` runs them on the built-in env or another one. The reference
libraries are imported only when a check runs.
"""

from __future__ import annotations

from typing import Any

from jaxenvs.extras import install_line
from jaxenvs.parity.checks import (
    ALPHA_ENV,
    ALPHA_RUN,
    ENVS_PER_RUN,
    Check,
    FirstFailure,
    ParityResult,
    Sizes,
    check_scale,
    two_stage,
)
from jaxenvs.parity.harness import (
    assert_parity,
    check,
    check_episode_statistics,
    check_episodes,
    check_resets,
    check_step_distribution,
    check_transitions,
    require_env,
)
from jaxenvs.parity.reference import DmEnvReference, GymnasiumReference, JaxReference, Reference, Transitions
from jaxenvs.parity.spec import ParitySpec
from jaxenvs.parity.spec import run as run_spec

__all__ = [
    "ALPHA_ENV",
    "ALPHA_RUN",
    "ENVS_PER_RUN",
    "Check",
    "DmEnvReference",
    "GymnasiumReference",
    "JaxReference",
    "ParityResult",
    "ParitySpec",
    "Reference",
    "Sizes",
    "Transitions",
    "assert_parity",
    "check",
    "check_episode_statistics",
    "check_episodes",
    "check_resets",
    "check_step_distribution",
    "builtin_env",
    "check_transitions",
    "env_under_test",
    "has_parity",
    "parity_ids",
    "run_parity",
]


def parity_ids() -> list[str]:
    """Every registered id that declares a parity check.

    Returns:
        The ids, in registration order.
    """
    from jaxenvs.registry import registered_envs, spec

    return [env_id for env_id in registered_envs() if spec(env_id).parity is not None]


def has_parity(env_id: str) -> bool:
    """Whether `env_id` declares a parity check.

    Args:
        env_id: a registered id.

    Returns:
        True when its `EnvSpec.parity` is set.

    Raises:
        UnknownEnvError: `env_id` is not registered.
    """
    from jaxenvs.registry import spec

    return spec(env_id).parity is not None


def env_under_test(env_id: str, env: Any = None, params: Any = None) -> tuple[Any, Any]:
    """The env and params the checks check for `run_parity(env_id, env=env, params=params)`.

    The built-in raw env (`make(env_id, autoreset=False)`) where `env` is None, its default
    params where `params` is None.

    Args:
        env_id: the id whose checks run (named in errors).
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
    _check_params(env_id, params, default)
    return env, default if params is None else params


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


def _check_params(env_id: str, params: Any, default: Any) -> None:
    """A clear error for `params` (when given) not of the type of the env's `default`."""
    if params is not None and default is not None and type(params) is not type(default):
        raise TypeError(
            f"run_parity({env_id!r}, params=...): params must be a {type(default).__name__} "
            f"(the env's params type), got {type(params).__name__}"
        )


def run_parity(env_id: str, scale: float = 1.0, seed: int = 0, env: Any = None, params: Any = None) -> ParityResult:
    """Run the parity check `env_id` declares, on the built-in env or on another one.

    The reference and the checks are always `env_id`'s (built from its registered settings);
    `env` and `params` only choose what is checked against them, so a changed parameter or a
    modified copy of the env shows up as a failure, never in the reference. Checks that need a
    setting changed (sticky actions off for exact replay, a non-slippery map, ...) apply it on
    top of `params`; every field they change is also checked at `params` as given.

    Args:
        env_id: a registered id with a parity check (`parity_ids()`).
        scale: the size of the checks (1.0 = the full size; the tests use 0.01-0.25).
        seed: the seed of both sides' random draws.
        env: the raw JAX env to check (no auto-reset; `reset(key, params)` and
            `step(key, state, action, params)`); default the built-in
            `jaxenvs.make(env_id, autoreset=False)`.
        params: the params to check it at, of the env's params type; default
            `env.default_params` (for the built-in env, `env_id`'s registered params).

    Returns:
        A `ParityResult` (`.passed`, `.summary()`, `.failures()`), decided in one or two stages
        (`checks.two_stage`: a correct env FAILs with probability at most `checks.ALPHA_ENV`);
        skipped, with the install line, when the library its `ParitySpec` declares
        (`ParitySpec.library`) is not installed, or when `env_id` declares no reference.

    Raises:
        ImportError: the module `env_id`'s parity entry names cannot be imported or lacks the
            attribute (the message names the entry), or a library other than the one its
            `ParitySpec` declares is missing (a typo is never a skip).
        TypeError: `scale` is not a number; `env` has no `reset` / `step`, `params` is not of
            the env's params type, or `env_id` declares something that is neither a
            ParitySpec nor a Reference.
        ValueError: `scale` is not positive and finite, or `seed` is not a non-negative int.
        UnknownEnvError: `env_id` is not registered.
    """
    check_scale(scale)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"run_parity({env_id!r}): seed must be a non-negative int, got {seed!r}")
    if env is not None:
        require_env(env, f"run_parity({env_id!r}, env=...)")
        _check_params(env_id, params, getattr(env, "default_params", None))
    from jaxenvs.registry import spec

    s = spec(env_id)
    if s.parity is None:
        return ParityResult(env_id, s.reference or "-", skipped="no reference declared")
    target = _load_parity(env_id, s.parity)
    try:
        if isinstance(target, ParitySpec):
            return two_stage(lambda f, stage_seed: run_spec(target, env_id, scale * f, stage_seed, env, params), seed)
        env, params = env_under_test(env_id, env, params)
        return check(env, params, target, sizes=Sizes.at(scale), seed=seed, name=env_id)  # decided in two stages
    except FirstFailure as e:  # under checks.stop_at_first_failure(): the verdict is known
        return ParityResult(env_id, s.reference or "-", checks=[e.check], stages="stopped at the first failure")
    except ImportError as e:
        # only the library the spec declares optional may be absent; anything else is a bug
        if not (isinstance(target, ParitySpec) and _top_module(e.name) == _top_module(target.library)):
            raise
        install = install_line(s.extra or "parity")
        return ParityResult(env_id, s.reference or "-", skipped=f"reference not installed ({e.name}): {install}")


def _load_parity(env_id: str, parity: Any) -> ParitySpec | Reference:
    """The ParitySpec or Reference an id's `parity` entry names (calling a function of no
    arguments that returns one); a module that fails to import is an error naming it."""
    from jaxenvs.registry import resolve

    try:
        target = resolve(parity)
    except (ImportError, AttributeError) as e:
        module = parity.partition(":")[0]
        raise ImportError(f"{env_id}: cannot load its parity reference {parity!r}: {e}", name=module) from e
    if not isinstance(target, (ParitySpec, Reference)):  # a function of no arguments returning one
        target = target()
    if not isinstance(target, (ParitySpec, Reference)):
        raise TypeError(
            f"{env_id}'s parity {parity!r} gave {type(target).__name__}; "
            "expected a jaxenvs.parity.ParitySpec or Reference (or a function of no arguments returning one)"
        )
    return target


def _top_module(name: str | None) -> str:
    """The top-level package of a dotted module name ("" for None)."""
    return (name or "").split(".")[0]
