"""The front door: `run_parity` checks an env against its reference, whatever the caller holds.

A registered id (its declared `ParitySpec` or `Reference`), a `ParitySpec` with an env, or a
`Reference` with an env (the standard set, `spec.Standard`). `check` and `assert_parity` are
`run_parity` on a `Reference`, kept in the form earlier releases gave them.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from jaxenvs.extras import install_line
from jaxenvs.parity.harness import check_reference_fields
from jaxenvs.parity.reference import Reference
from jaxenvs.parity.scale import Sizes, check_scale
from jaxenvs.parity.spec import Context, ParitySpec, Standard, run, run_checks
from jaxenvs.parity.subject import check_params, env_under_test, require_env, require_raw_env
from jaxenvs.parity.verdict import FirstFailure, ParityResult, two_stage
from jaxenvs.sidetables import parity_of

__all__ = ["assert_parity", "check", "has_parity", "parity_ids", "run_parity"]


def parity_ids() -> list[str]:
    """Every registered id that declares a parity check.

    Returns:
        The ids, in registration order.
    """
    from jaxenvs.registry import registered_envs

    return [env_id for env_id in registered_envs() if parity_of(env_id).target is not None]


def has_parity(env_id: str) -> bool:
    """Whether `env_id` declares a parity check.

    Args:
        env_id: a registered id.

    Returns:
        True when it declares one.

    Raises:
        UnknownEnvError: `env_id` is not registered.
    """
    from jaxenvs.registry import spec

    spec(env_id)  # an unknown id is named
    return parity_of(env_id).target is not None


def run_parity(
    env_id: str | ParitySpec | Reference, scale: float | Sizes = 1.0, seed: int = 0, env: Any = None, params: Any = None
) -> ParityResult:
    """Check a JAX env against its reference: the one entry, whatever `target` is.

    The reference and the checks come from `target`; `env` and `params` only choose what is
    checked against them, so a changed parameter or a modified copy of the env shows up as a
    failure, never in the reference. The verdict is reached in one or two stages
    (`verdict.two_stage`): a correct env FAILs with probability at most `ALPHA_ENV`.

    >>> import jaxenvs.parity
    >>> jaxenvs.parity.run_parity("CartPole-v1", scale=0.01).verdict  # doctest: +SKIP
    'pass'

    Args:
        env_id: what to check against: a registered id with a parity check (`parity_ids()`;
            the built-in env unless `env` is given), a `ParitySpec` (with `env`), or a
            `Reference` (with `env`: the standard set of checks, `spec.Standard`; `check`
            takes its options).
        scale: the size of the checks (1.0 = the full size; the tests use 0.01-0.25), or the
            `Sizes` of a `Reference`'s standard set; `scale.scaled` turns a scale into counts.
        seed: the seed of both sides' random draws.
        env: the raw JAX env to check (no auto-reset); for an id, default its built-in env.
        params: its params, of the env's params type; default `env.default_params`.

    Returns:
        A `ParityResult` (`.passed`, `.summary()`, `.failures()`); skipped, with the install
        line, when the library a `ParitySpec` declares (`ParitySpec.library`) is not installed,
        or when an id declares no reference.

    Raises:
        ImportError: the module an id's parity entry names cannot be imported, or a library other
            than the one its `ParitySpec` declares is missing (a typo is never a skip).
        TypeError: `env_id` is none of the three; `scale` is not a number; `env` is missing,
            has no `reset` / `step`, or `params` is not of the env's params type.
        ValueError: `scale` is not positive and finite, `seed` is not a non-negative int, or
            the env auto-resets.
        UnknownEnvError: `env_id` is an id that is not registered.
    """
    target = env_id
    if not isinstance(scale, Sizes):
        check_scale(scale)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"run_parity({_name(target)!r}): seed must be a non-negative int, got {seed!r}")
    if isinstance(target, str):
        return _run_id(target, scale, seed, env, params)
    if not isinstance(target, (ParitySpec, Reference)):
        raise TypeError(
            "run_parity: target must be a registered id, a jaxenvs.parity.ParitySpec or a "
            f"jaxenvs.parity.Reference, got {type(target).__name__}"
        )
    builds = isinstance(target, ParitySpec) and target.builds_env and env is None
    if not builds:
        if env is None:
            raise TypeError(f"run_parity({type(target).__name__}): pass env= (the raw JAX env to check)")
        require_raw_env(env, "run_parity")
        params = _params(env, params)
    name = getattr(env, "name", type(env).__name__)
    if isinstance(target, Reference):
        sizes = scale if isinstance(scale, Sizes) else Sizes.at(scale)
        return _run_reference(env, params, target, sizes, seed, Standard(), name)
    if isinstance(scale, Sizes):
        raise TypeError("run_parity(ParitySpec): scale must be a number (Sizes is for a Reference's standard set)")
    return _run_spec(target, name, target.description or name, float(scale), seed, env, params)


def _name(target: Any) -> str:
    """The target in words, for messages."""
    return target if isinstance(target, str) else type(target).__name__


def _params(env: Any, params: Any) -> Any:
    """`params`, or the env's default params; a clear error when it has none."""
    default = getattr(env, "default_params", None)
    if params is None and default is None:
        raise TypeError("run_parity(env=...): the env has no default_params; pass params=")
    check_params(getattr(env, "name", type(env).__name__), params, default)
    return default if params is None else params


def _run_id(env_id: str, scale: float | Sizes, seed: int, env: Any, params: Any) -> ParityResult:
    """The parity check `env_id` declares, on the built-in env or on `env`."""
    if env is not None:
        require_env(env, f"run_parity({env_id!r}, env=...)")
        check_params(env_id, params, getattr(env, "default_params", None))
    from jaxenvs.registry import spec

    s, declared = spec(env_id), parity_of(env_id)
    described = declared.reference or "-"
    if declared.target is None:
        return ParityResult(env_id, described, skipped="no reference declared")
    target = _load_parity(env_id, declared.target)
    try:
        if isinstance(target, ParitySpec):
            if isinstance(scale, Sizes):
                raise TypeError(f"run_parity({env_id!r}): scale must be a number for an id with a ParitySpec")
            return two_stage(lambda f, stage_seed: run(target, env_id, scale * f, stage_seed, env, params), seed)
        env, params = env_under_test(env_id, env, params)
        sizes = scale if isinstance(scale, Sizes) else Sizes.at(scale)
        return _run_reference(env, params, target, sizes, seed, Standard(), env_id)
    except FirstFailure as e:  # under verdict.stop_at_first_failure(): the verdict is known
        return ParityResult(env_id, described, checks=[e.check], stages="stopped at the first failure")
    except ImportError as e:
        # only the library the spec declares optional may be absent; anything else is a bug
        if not (isinstance(target, ParitySpec) and _top_module(e.name) == _top_module(target.library)):
            raise
        install = install_line(s.extra or "parity")
        return ParityResult(env_id, described, skipped=f"reference not installed ({e.name}): {install}")


def _run_spec(spec: ParitySpec, name: str, described: str, scale: float, seed: int, env: Any, params: Any):
    """A user's `ParitySpec` on `env`, decided in two stages (skipped when its library is missing)."""
    try:
        importlib.import_module(spec.library)
    except ImportError as e:
        if _top_module(e.name) != _top_module(spec.library):
            raise
        return ParityResult(name, described, skipped=f"reference not installed ({e.name})")

    def stage(factor: int, stage_seed: int) -> ParityResult:
        return run_checks(Context(name, env, params, scale * factor, stage_seed, spec), described)

    return two_stage(stage, seed)


def _run_reference(
    env: Any, params: Any, reference: Reference, sizes: Sizes, seed: int, standard: Standard, name: str
) -> ParityResult:
    """The standard set of checks of `env` against `reference`, decided in two stages."""
    check_reference_fields(env, params, reference)
    spec = standard.spec(sizes)

    def stage(factor: int, stage_seed: int) -> ParityResult:
        return run_checks(Context(name, env, params, factor, stage_seed, spec, reference), reference.name)

    return two_stage(stage, seed)


def _load_parity(env_id: str, parity: Any) -> ParitySpec | Reference:
    """The ParitySpec or Reference an id's parity entry names (calling a function of no
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


_STANDARD_OPTIONS = tuple(f.name for f in dataclasses.fields(Standard))


def check(
    env: Any,
    params: Any,
    reference: Reference,
    *,
    sizes: Sizes | None = None,
    seed: int = 0,
    name: str | None = None,
    **options: Any,
) -> ParityResult:
    """`run_parity(reference, sizes, seed, env, params)`: `env` against `reference`, the standard set.

    Args:
        env: the raw JAX env (`make(..., autoreset=False)`, or any env with
            `reset(key, params)` / `step(key, state, action, params)`).
        params: its params (used as given: under `float64`, Python scalars follow the
            precision, float32 arrays do not).
        reference: the reference.
        sizes: how much to compare (default `Sizes()`).
        seed: the first stage's seed.
        name: the env's name in the result (default: the env's own).
        **options: the fields of `spec.Standard` (`atol`, `reward_atol`, `float64`,
            `whole_episodes`, `resets`, `discrete_resets`, `statistics`).

    Returns:
        The `ParityResult`: `.passed`, `.summary()`, `.failures()`.

    Raises:
        TypeError: `env` is a string or has no `reset`/`step`; `reference` is not a
            `Reference`; `sizes` is not a `Sizes`; an unknown option; `read_state` does not
            return a dict.
        ValueError: `env` auto-resets; the reference names a field the JAX state does not have.
    """
    require_raw_env(env, "check")
    if not isinstance(reference, Reference):
        raise TypeError(
            f"check: reference must be a jaxenvs.parity.Reference (GymnasiumReference, DmEnvReference, "
            f"JaxReference, ...), got {type(reference).__name__}"
        )
    if sizes is not None and not isinstance(sizes, Sizes):
        raise TypeError(f"check: sizes must be a jaxenvs.parity.Sizes, got {type(sizes).__name__}")
    unknown = sorted(set(options) - set(_STANDARD_OPTIONS))
    if unknown:
        raise TypeError(f"check: unknown option(s) {unknown}; valid: {list(_STANDARD_OPTIONS)}")
    name = name or getattr(env, "name", type(env).__name__)
    return _run_reference(env, params, reference, sizes or Sizes(), seed, Standard(**options), name)


def assert_parity(env: Any, params: Any, reference: Reference, **kwargs: Any) -> ParityResult:
    """`check(...)`, raising when the env does not match.

    Args:
        env: the raw JAX env.
        params: its params.
        reference: the reference.
        **kwargs: `check`'s keyword arguments.

    Returns:
        The passing `ParityResult`.

    Raises:
        AssertionError: a check failed; the message names the first mismatch (the field, the
            step, the state it came from, both values) and lists every failed check.
        TypeError: as `check`.
        ValueError: as `check`.
    """
    result = check(env, params, reference, **kwargs)
    failures = result.failures()
    if failures:
        first = next((c.mismatch for c in failures if c.mismatch), None)
        lines = [f"{result.env_id} does not match {result.reference}"]
        if first:
            lines.append(f"first mismatch: {first}")
        lines += ["failed: " + c.describe() for c in failures]
        raise AssertionError("\n".join(lines))
    return result
