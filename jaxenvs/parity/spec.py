"""Parity as data: a frozen `ParitySpec` beside each env, one driver `run` for every id.

A spec names the reference (a function of the id building a `Reference`, or None where the
checks build their own), the library whose absence makes the run a skip, and its checks:
functions `Context -> list[Check]`, composed with `chain` as optax composes transformations.
The standard checks (`transitions`, `time_limit`, `episodes`, `resets`, `statistics`) are
here; an env's own checks are functions of the same shape in its `parity.py`.

`scale` means one thing everywhere: a check of `at_one` samples at scale 1 draws
`Context.size(at_one, least) = max(least, int(at_one * scale))`.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

import jax

from jaxenvs.parity.checks import ATOL_F32_STEP, ATOL_F64_EPISODE, ATOL_F64_STEP, Check, ParityResult, Timer
from jaxenvs.parity.reference import Reference


@dataclasses.dataclass
class Context:
    """What a check is given: the env under test and everything a run fixes.

    Attributes:
        env_id: the registered id whose checks run.
        env: the raw env under test (the built-in one, or a user's / a mutant's).
        params: the params it is checked at.
        scale: the size of the run (1.0 = the full suite).
        seed: the seed of both sides' draws.
        spec: the `ParitySpec` being run.
    """

    env_id: str
    env: Any
    params: Any
    scale: float
    seed: int
    spec: ParitySpec
    _reference: Reference | None = None

    @property
    def registered(self) -> Any:
        """The id's registered params (the reference's settings)."""
        from jaxenvs.parity import builtin_env

        return builtin_env(self.env_id)[1]

    @property
    def reference(self) -> Reference:
        """The spec's reference for this id, built on first use.

        Raises:
            TypeError: the spec names no reference (its checks build their own).
        """
        if self._reference is None:
            if self.spec.reference is None:
                raise TypeError(f"{self.env_id}: its ParitySpec names no reference; its checks build their own")
            self._reference = self.spec.reference(self.env_id)
        return self._reference

    def size(self, at_one: int, least: int = 1) -> int:
        """How many samples a check of `at_one` samples at scale 1 draws in this run.

        Args:
            at_one: the count at scale 1.
            least: the count below which the check says nothing useful.

        Returns:
            `max(least, int(at_one * scale))`.
        """
        return max(least, int(at_one * self.scale))

    @property
    def limit(self) -> int:
        """The registered time limit (`max_steps_in_episode`)."""
        return int(self.registered.max_steps_in_episode)


CheckFn = Callable[[Context], list[Check]]


def chain(*checks: CheckFn) -> CheckFn:
    """One check function running `checks` in order, their results concatenated.

    Args:
        *checks: functions `Context -> list[Check]`.

    Returns:
        A function `Context -> list[Check]`.
    """

    def run(ctx: Context) -> list[Check]:
        out: list[Check] = []
        for check in checks:
            out += check(ctx)
        return out

    return run


@dataclasses.dataclass(frozen=True)
class ParitySpec:
    """How an id is checked against its reference.

    Attributes:
        checks: a function `Context -> list[Check]` (usually a `chain` of checks).
        reference: `env_id -> Reference`, built once per run where a check asks for
            `ctx.reference`; None where the checks build their own references.
        library: the import name of the reference library; when it is not installed the run
            is skipped with the install line, never failed.
        description: the reference in words, when the registration gives none.
        builds_env: the checks build the env under test themselves when none is given
            (`ctx.env` is then None): MNISTBandit's, whose built-in env downloads MNIST,
            check one on synthetic data.
    """

    checks: CheckFn
    reference: Callable[[str], Reference] | None = None
    library: str = "gymnasium"
    description: str | None = None
    builds_env: bool = False


def run(
    spec: ParitySpec, env_id: str, scale: float = 1.0, seed: int = 0, env: Any = None, params: Any = None
) -> ParityResult:
    """One stage of `spec`'s checks of `env_id` (`jaxenvs.parity.run_parity` decides in two).

    Args:
        spec: the id's `ParitySpec`.
        env_id: a registered id (its registered params are the reference's settings).
        scale: the size of the run (1.0 = the full suite).
        seed: the seed of both sides' draws.
        env: the raw env under test; default the built-in env of `env_id`.
        params: its params; default the env's default params.

    Returns:
        The `ParityResult`, undecided.

    Raises:
        ImportError: `spec.library` is not installed (`run_parity` turns it into a skip).
    """
    import jaxenvs
    from jaxenvs.parity import env_under_test

    importlib.import_module(spec.library)
    s = jaxenvs.spec(env_id)
    result = ParityResult(env_id, s.reference or spec.description or env_id)
    with Timer() as timer:
        if env is not None or not spec.builds_env:
            env, params = env_under_test(env_id, env, params)
        ctx = Context(env_id, env, params, float(scale), int(seed), spec)
        result.checks += spec.checks(ctx)
    result.seconds = timer.seconds
    return result


# ---------------------------------------------------------------------------------------------
# the standard checks, each `Context -> list[Check]`


def transitions(
    precision: str = "f32",
    atol: float | None = None,
    at_one: int = 2000,
    least: int = 50,
    seed_offset: int = 0,
    label: str | None = None,
    **kwargs: Any,
) -> CheckFn:
    """Per-step state injection (`harness.check_transitions`).

    Args:
        precision: "f32" (each value within its own float32 rounding, measured by the same
            step in float64: `bounded`), "f64" (under `jax_enable_x64`, to `ATOL_F64_STEP`),
            or "atol" (float32 to `atol`).
        atol: the tolerance of "atol" (default `ATOL_F32_STEP`).
        at_one: transitions at scale 1.
        least: transitions at the smallest scale.
        seed_offset: added to the run's seed.
        label: the checks' name prefix (default "f32 step", "f64 step" or "step").
        **kwargs: passed to `check_transitions` (policy, scramble, reward_atol, ...).

    Returns:
        A check function.

    Raises:
        ValueError: `precision` is not one of "f32", "f64", "atol".
    """
    from jaxenvs.parity.harness import check_transitions

    if precision not in ("f32", "f64", "atol"):
        raise ValueError(f"transitions: precision must be 'f32', 'f64' or 'atol', got {precision!r}")

    def check(ctx: Context) -> list[Check]:
        n = ctx.size(at_one, least)
        seed = ctx.seed + seed_offset
        if precision == "f64":
            with jax.enable_x64(True):
                return check_transitions(
                    ctx.env, ctx.params, ctx.reference, n, ATOL_F64_STEP, seed, label=label or "f64 step", **kwargs
                )
        if precision == "f32":
            return check_transitions(
                ctx.env,
                ctx.params,
                ctx.reference,
                n,
                seed=seed,
                label=label or "f32 step",
                float32_bound=True,
                **kwargs,
            )
        tol = ATOL_F32_STEP if atol is None else atol
        return check_transitions(ctx.env, ctx.params, ctx.reference, n, tol, seed, label=label or "step", **kwargs)

    return check


def time_limit(at_one: int = 100, least: int = 50, **kwargs: Any) -> CheckFn:
    """The registered time limit, from states just before it (`harness.check_time_limit`).

    Args:
        at_one: steps at scale 1.
        least: steps at the smallest scale.
        **kwargs: passed to `check_time_limit` (`set_time`, `label`).

    Returns:
        A check function.
    """
    from jaxenvs.parity.harness import check_time_limit

    def check(ctx: Context) -> list[Check]:
        return check_time_limit(
            ctx.env, ctx.params, ctx.reference, ctx.limit, ctx.size(at_one, least), ctx.seed, **kwargs
        )

    return check


def episodes(precision: str = "f64", atol: float | None = None, at_one: int = 20, least: int = 5) -> CheckFn:
    """Whole episodes from the same start, without re-injection (`harness.check_episodes`).

    Args:
        precision: "f64" (under `jax_enable_x64`, to `ATOL_F64_EPISODE`) or "atol" (float32).
        atol: the tolerance of "atol".
        at_one: episodes at scale 1.
        least: episodes at the smallest scale.

    Returns:
        A check function.
    """
    from jaxenvs.parity.harness import check_episodes

    def check(ctx: Context) -> list[Check]:
        n = ctx.size(at_one, least)
        if precision == "f64":
            with jax.enable_x64(True):
                return check_episodes(
                    ctx.env, ctx.params, ctx.reference, num_episodes=n, atol=ATOL_F64_EPISODE, seed=ctx.seed
                )
        tol = ATOL_F32_STEP if atol is None else atol
        return check_episodes(ctx.env, ctx.params, ctx.reference, num_episodes=n, atol=tol, seed=ctx.seed)

    return check


def resets(at_one: int = 2000, least: int = 200, **kwargs: Any) -> CheckFn:
    """The reset distribution (`harness.check_resets`: KS per coordinate, or `discrete=True`).

    Args:
        at_one: samples a side at scale 1.
        least: samples at the smallest scale.
        **kwargs: passed to `check_resets`.

    Returns:
        A check function.
    """
    from jaxenvs.parity.harness import check_resets

    def check(ctx: Context) -> list[Check]:
        return check_resets(ctx.env, ctx.params, ctx.reference, ctx.size(at_one, least), ctx.seed, **kwargs)

    return check


def statistics(at_one: int = 200, least: int = 20, **kwargs: Any) -> CheckFn:
    """Random-policy episode length and return (`harness.check_episode_statistics`).

    Args:
        at_one: episodes a side at scale 1.
        least: episodes at the smallest scale.
        **kwargs: passed to `check_episode_statistics`.

    Returns:
        A check function.
    """
    from jaxenvs.parity.harness import check_episode_statistics

    def check(ctx: Context) -> list[Check]:
        return check_episode_statistics(ctx.env, ctx.params, ctx.reference, ctx.size(at_one, least), ctx.seed, **kwargs)

    return check
