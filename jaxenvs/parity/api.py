"""The front door: `run_parity` checks an env against its reference, whatever the caller holds.

A registered id (its declared `ParitySpec` or `Reference`), a `ParitySpec` with an env, or a
`Reference` with an env (the standard set, `spec.Standard`): each becomes one `_Run` (its
checks, the env they check, its names), which `_decide` runs in one or two stages, skipping
where the one library the checks declare is missing. `check` and `assert_parity` are
`run_parity` on a `Reference`, with the standard set's options.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from jaxenvs.extras import install_line
from jaxenvs.parity.harness import check_reference_fields
from jaxenvs.parity.reference import Reference
from jaxenvs.parity.scale import Sizes, check_scale
from jaxenvs.parity.spec import ParitySpec, Standard, run_stage
from jaxenvs.parity.subject import env_under_test, require_raw_env
from jaxenvs.parity.verdict import FirstFailure, ParityResult, two_stage

__all__ = ["assert_parity", "check", "has_parity", "parity_ids", "run_parity"]


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
        True when it declares one.

    Raises:
        UnknownEnvError: `env_id` is not registered.
    """
    from jaxenvs.registry import spec

    spec(env_id)  # an unknown id is named
    return spec(env_id).parity is not None


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
        run = _of_id(target, scale, env, params)
        if isinstance(run, ParityResult):  # the id declares no reference
            return run
    elif isinstance(target, (ParitySpec, Reference)):
        run = _of_users(target, scale, env, params)
    else:
        raise TypeError(
            "run_parity: target must be a registered id, a jaxenvs.parity.ParitySpec or a "
            f"jaxenvs.parity.Reference, got {type(target).__name__}"
        )
    return _decide(run, seed)


def _name(target: Any) -> str:
    """The target in words, for messages."""
    return target if isinstance(target, str) else type(target).__name__


@dataclasses.dataclass(frozen=True)
class _Run:
    """Any target of `run_parity` in one form, which `_decide` runs: an id, a `ParitySpec` or a
    `Reference` becomes its checks (`spec`), what they check (`env`, `params`) and its names."""

    spec: ParitySpec  # the checks, their reference, the library whose absence is a skip
    name: str  # the result's name and `Context.env_id`: the id, or the env's name
    reference: str  # the reference in words
    env: Any  # the raw env under test; None: the id's built-in env (or the checks build one)
    params: Any  # its params; None: its default params
    scale: float = 1.0  # the first stage's size
    install: str = ""  # how to install the library, for the skip


def _decide(run: _Run, seed: int) -> ParityResult:
    """`run`'s verdict in one or two stages (`verdict.two_stage`); skipped where the library
    its spec declares is not installed, the one module whose absence is a skip."""
    try:
        if run.spec.library is not None:
            importlib.import_module(run.spec.library)
        env, params = run.env, run.params
        if env is None and not run.spec.builds_env:
            env, params = env_under_test(run.name, None, params)

        def stage(factor: int, stage_seed: int) -> ParityResult:
            return run_stage(run.spec, run.name, env, params, run.scale * factor, stage_seed, run.reference)

        return two_stage(stage, seed)
    except FirstFailure as e:  # under verdict.stop_at_first_failure(): the verdict is known
        return ParityResult(run.name, run.reference, checks=[e.check], stages="stopped at the first failure")
    except ImportError as e:
        if run.spec.library is None or _top_module(e.name) != _top_module(run.spec.library):
            raise  # a typo, or a module other than the declared library: never a skip
        install = f": {run.install}" if run.install else ""
        return ParityResult(run.name, run.reference, skipped=f"reference not installed ({e.name}){install}")


def _of_id(env_id: str, scale: float | Sizes, env: Any, params: Any) -> _Run | ParityResult:
    """The parity check `env_id` declares, on `env` (None: the built-in env), as a `_Run`; a
    skipped result where it declares none."""
    from jaxenvs.registry import spec

    if env is not None:
        env, params = env_under_test(env_id, env, params)
    declared = spec(env_id)
    if declared.parity is None:
        return ParityResult(env_id, declared.reference or "-", skipped="no reference declared")
    target = _load_parity(env_id, declared.parity)
    if isinstance(target, Reference):
        if env is None:
            env, params = env_under_test(env_id, None, params)
        return _of_reference(target, scale, Standard(), env_id, env, params)
    if isinstance(scale, Sizes):
        raise TypeError(f"run_parity({env_id!r}): scale must be a number for an id with a ParitySpec")
    described = declared.reference or target.description or env_id
    return _Run(target, env_id, described, env, params, float(scale), install_line(declared.extra or "parity"))


def _of_users(target: ParitySpec | Reference, scale: float | Sizes, env: Any, params: Any) -> _Run:
    """A user's `ParitySpec` or `Reference` on `env`, as a `_Run` named after the env."""
    name = getattr(env, "name", type(env).__name__)
    if not (isinstance(target, ParitySpec) and target.builds_env and env is None):
        if env is None:
            raise TypeError(f"run_parity({type(target).__name__}): pass env= (the raw JAX env to check)")
        require_raw_env(env, "run_parity")
        env, params = env_under_test(name, env, params)
    if isinstance(target, Reference):
        return _of_reference(target, scale, Standard(), name, env, params)
    if isinstance(scale, Sizes):
        raise TypeError("run_parity(ParitySpec): scale must be a number (Sizes is for a Reference's standard set)")
    return _Run(target, name, target.description or name, env, params, float(scale))


def _of_reference(
    reference: Reference, scale: float | Sizes, standard: Standard, name: str, env: Any, params: Any
) -> _Run:
    """`standard`'s checks of `env` against `reference`, at `scale` or the `Sizes` given, as a `_Run`."""
    check_reference_fields(env, params, reference)
    sizes = scale if isinstance(scale, Sizes) else Sizes.at(scale)
    return _Run(standard.spec(sizes, reference), name, reference.name, env, params)


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
    return _decide(_of_reference(reference, sizes or Sizes(), Standard(**options), name, env, params), seed)


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
