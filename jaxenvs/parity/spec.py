"""Parity as data: a frozen `ParitySpec` beside each env, and `run_stage`, one stage of its checks.

A spec names the reference (a function of the id building a `Reference`, or None where the
checks build their own), the library whose absence makes the run a skip, and its checks:
functions `Context -> list[Check]`, composed with `chain` as optax composes transformations.
The standard checks (`transitions`, `time_limit`, `episodes`, `resets`, `statistics`,
`step_distribution`) are here, and `on`, which runs checks on a variant of the run (`variant`,
`Context.with_env`); an env's own checks are functions of the same shape in its `parity.py`.
`Standard` is the set of checks a `Reference` given alone gets, as a `ParitySpec`.

`scale` means one thing everywhere (`jaxenvs.parity.scale.scaled`): a check of `at_one`
samples at scale 1 draws `Context.size(at_one, least) = max(least, int(at_one * scale))`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import jax

from jaxenvs.parity import harness
from jaxenvs.parity.harness import Collection, FieldPolicy
from jaxenvs.parity.reference import Reference
from jaxenvs.parity.scale import Sizes, scaled
from jaxenvs.parity.stats import ATOL_F32_STEP, ATOL_F64_EPISODE, ATOL_F64_STEP
from jaxenvs.parity.subject import builtin_env
from jaxenvs.parity.verdict import Check, ParityResult, Timer


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
        return scaled(at_one, self.scale, least)

    @property
    def limit(self) -> int:
        """The registered time limit (`max_steps_in_episode`)."""
        return int(self.registered.max_steps_in_episode)

    def with_env(self, env: Any, params: Any, reference: Reference) -> Context:
        """The same run (scale, seed) on another env and reference, for a setting the id's own
        reference does not cover (another size, a wrapper).

        Args:
            env: the raw JAX env.
            params: its params.
            reference: the reference it is checked against.

        Returns:
            A new `Context`.
        """
        return dataclasses.replace(self, env=env, params=params, _reference=reference)


CheckFn = Callable[[Context], list[Check]]
_FIELD_OPTIONS = ("reward_atol", "canonical", "info_fields", "in_distribution")
_COLLECTION_OPTIONS = ("data", "policy", "scramble", "replay", "params_of")


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
        library: the import name of the reference library, the one library whose absence
            skips the run (with the install line) rather than failing it; any other module
            that cannot be imported is an error. None: nothing to import (a `Reference` given
            as such, already built).
        description: the reference in words, when the registration gives none.
        builds_env: the checks build the env under test themselves when none is given
            (`ctx.env` is then None): MNISTBandit's, whose built-in env downloads MNIST,
            check one on synthetic data.
    """

    checks: CheckFn
    reference: Callable[[str], Reference] | None = None
    library: str | None = "gymnasium"
    description: str | None = None
    builds_env: bool = False


def run_stage(
    spec: ParitySpec, name: str, env: Any, params: Any, scale: float, seed: int, reference: str
) -> ParityResult:
    """One stage of `spec`'s checks of `env`, timed (`jaxenvs.parity.run_parity` decides in two).

    Args:
        spec: the checks.
        name: the registered id whose checks run, or a user's env's name (`Context.env_id`; it
            names the result).
        env: the raw env under test (None where `spec.builds_env` and none was given).
        params: its params.
        scale: the size of the stage (1.0 = the full suite).
        seed: the seed of both sides' draws.
        reference: the reference in words.

    Returns:
        The `ParityResult`, undecided.
    """
    result = ParityResult(name, reference)
    with Timer() as timer:
        result.checks += spec.checks(Context(name, env, params, float(scale), int(seed), spec))
    result.seconds = timer.seconds
    return result


# ---------------------------------------------------------------------------------------------
# the standard checks, each `Context -> list[Check]`


def _x64(on: bool) -> contextlib.AbstractContextManager:
    """`jax_enable_x64` within, where `on`; else the precision as it is."""
    return jax.enable_x64(True) if on else contextlib.nullcontext()


def _sized(
    check_fn: Callable, at_one: int, least: int, seed_offset: int, float64: bool = False, **kwargs: Any
) -> CheckFn:
    """`check_fn(env, params, reference, ctx.size(at_one, least), seed=seed, **kwargs)` as a check
    (under `jax_enable_x64` where `float64`)."""

    def check(ctx: Context) -> list[Check]:
        n, seed = ctx.size(at_one, least), ctx.seed + seed_offset
        with _x64(float64):
            return check_fn(ctx.env, ctx.params, ctx.reference, n, seed=seed, **kwargs)

    return check


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
            step in float64: `float32_bound`), "f64" (under `jax_enable_x64`, to
            `ATOL_F64_STEP`), or "atol" (float32 to `atol`).
        atol: the tolerance of "atol", and of "f32" where the env has no float64 path
            (default `ATOL_F32_STEP`).
        at_one: transitions at scale 1.
        least: transitions at the smallest scale.
        seed_offset: added to the run's seed.
        label: the checks' name prefix (default "f32 step", "f64 step" or "step").
        **kwargs: `FieldPolicy` options (`reward_atol`, `canonical`, `info_fields`) and `Collection`
            options (`policy`, `scramble`, `replay`, ...) of `check_transitions`.

    Returns:
        A check function.

    Raises:
        ValueError: `precision` is not one of "f32", "f64", "atol".
    """
    labels = {"f32": "f32 step", "f64": "f64 step", "atol": "step"}
    if precision not in labels:
        raise ValueError(f"transitions: precision must be 'f32', 'f64' or 'atol', got {precision!r}")
    tol = ATOL_F64_STEP if precision == "f64" else ATOL_F32_STEP if atol is None else atol
    field_options = {k: kwargs.pop(k) for k in list(kwargs) if k in _FIELD_OPTIONS}
    collect = Collection(**{k: kwargs.pop(k) for k in list(kwargs) if k in _COLLECTION_OPTIONS})
    fields = FieldPolicy(atol=tol, float32_bound=precision == "f32", **field_options)
    kwargs.update(label=label or labels[precision], fields=fields, collect=collect)
    return _sized(harness.check_transitions, at_one, least, seed_offset, precision == "f64", **kwargs)


def time_limit(at_one: int = 100, least: int = 50, **kwargs: Any) -> CheckFn:
    """The registered time limit, from states just before it (`harness.check_time_limit`).

    Args:
        at_one: steps at scale 1.
        least: steps at the smallest scale.
        **kwargs: passed to `check_time_limit` (`set_time`, `label`).

    Returns:
        A check function.
    """

    def check(ctx: Context) -> list[Check]:
        n = ctx.size(at_one, least)
        return harness.check_time_limit(ctx.env, ctx.params, ctx.reference, ctx.limit, n, ctx.seed, **kwargs)

    return check


def episodes(precision: str = "f64", atol: float | None = None, at_one: float = 20, least: int = 5) -> CheckFn:
    """Whole episodes from the same start, without re-injection (`harness.check_episodes`).

    Args:
        precision: "f64" (under `jax_enable_x64`, to `ATOL_F64_EPISODE`) or "atol" (float32).
        atol: the tolerance of "atol" (default `ATOL_F32_STEP`).
        at_one: episodes at scale 1.
        least: episodes at the smallest scale.

    Returns:
        A check function.
    """
    tol = ATOL_F64_EPISODE if precision == "f64" else ATOL_F32_STEP if atol is None else atol

    def check(ctx: Context) -> list[Check]:
        with _x64(precision == "f64"):
            n = ctx.size(at_one, least)
            return harness.check_episodes(ctx.env, ctx.params, ctx.reference, num_episodes=n, atol=tol, seed=ctx.seed)

    return check


def resets(at_one: int = 2000, least: int = 200, seed_offset: int = 0, **kwargs: Any) -> CheckFn:
    """The reset distribution (`harness.check_resets`: KS per coordinate, or `discrete=True`).

    Args:
        at_one: samples a side at scale 1.
        least: samples at the smallest scale.
        seed_offset: added to the run's seed.
        **kwargs: passed to `check_resets` (`outcome`, `discrete`, `support`, `label`).

    Returns:
        A check function.
    """
    return _sized(harness.check_resets, at_one, least, seed_offset, **kwargs)


def statistics(at_one: int = 200, least: int = 20, seed_offset: int = 0, **kwargs: Any) -> CheckFn:
    """Random-policy episode length and return (`harness.check_episode_statistics`).

    Args:
        at_one: episodes a side at scale 1.
        least: episodes at the smallest scale.
        seed_offset: added to the run's seed.
        **kwargs: passed to `check_episode_statistics` (`max_steps`, `label`, ...).

    Returns:
        A check function.
    """
    return _sized(harness.check_episode_statistics, at_one, least, seed_offset, **kwargs)


def step_distribution(
    cases: Any, outcome: Callable, at_one: int = 2000, least: int = 200, seed_offset: int = 0, **kwargs: Any
) -> CheckFn:
    """Random steps from injected states, by distribution (`harness.check_step_distribution`).

    Args:
        cases: the `(reference state, action)` cases, or `Context -> cases`.
        outcome: `Transitions -> [outcome per row]`, what is compared.
        at_one: samples a case at scale 1.
        least: samples at the smallest scale.
        seed_offset: added to the run's seed.
        **kwargs: passed to `check_step_distribution` (`label`, `support`, `continuous`).

    Returns:
        A check function.
    """

    def check(ctx: Context) -> list[Check]:
        chosen, n, seed = cases(ctx) if callable(cases) else cases, ctx.size(at_one, least), ctx.seed + seed_offset
        return harness.check_step_distribution(ctx.env, ctx.params, ctx.reference, chosen, n, outcome, seed, **kwargs)

    return check


# ---------------------------------------------------------------------------------------------
# checks on a variant of the run


def on(variant: Callable[[Context], Context], *checks: CheckFn) -> CheckFn:
    """`checks` run on a variant of the run (another env, params or reference: `Context.with_env`).

    Args:
        variant: `Context -> Context`.
        *checks: the checks run on the variant, in order.

    Returns:
        A check function.
    """
    inner = chain(*checks)
    return lambda ctx: inner(variant(ctx))


def variant(reference: Callable[..., Reference], **options: Any) -> Callable[[Context], Context]:
    """A variant of the run with `options` set in the params and in the reference alike.

    Args:
        reference: `(env_id, **options) -> Reference`, the reference at those settings (the
            spec's own reference function, where it takes them).
        **options: params fields, which are also the reference's settings of the same name.

    Returns:
        `Context -> Context`: the env under test at `params.replace(**options)`, against
        `reference(env_id, **options)`.
    """
    return lambda ctx: ctx.with_env(ctx.env, ctx.params.replace(**options), reference(ctx.env_id, **options))


# ---------------------------------------------------------------------------------------------
# the standard set of a `Reference`


@dataclasses.dataclass(frozen=True)
class Standard:
    """The standard set of checks of an env against a `Reference` (`jaxenvs.parity.run_parity`).

    Args:
        atol: the tolerance of the float32 transitions.
        reward_atol: the tolerance of rewards.
        float64: the transitions again under `jax_enable_x64`, to `ATOL_F64_STEP`.
        whole_episodes: `sizes.episodes // 10` whole episodes (float64 if `float64`).
        resets: the reset distribution.
        discrete_resets: resets compared by chi-square (else KS).
        statistics: random-policy episode length and return.
    """

    atol: float = ATOL_F32_STEP
    reward_atol: float = 0.0
    float64: bool = False
    whole_episodes: bool = False
    resets: bool = True
    discrete_resets: bool = False
    statistics: bool = True

    def spec(self, sizes: Sizes, reference: Reference) -> ParitySpec:
        """The checks at `sizes` (each a stage's size factor times them) against `reference`.

        Args:
            sizes: how much each check compares at a stage's size factor 1 (so a run's scale is 1).
            reference: the reference, already built (nothing for the run to import).

        Returns:
            The `ParitySpec`.
        """
        label = "f32 step" if self.float64 else "step"
        chosen = [transitions("atol", self.atol, sizes.steps, 1, label=label, reward_atol=self.reward_atol)]
        if self.float64:
            chosen.append(transitions("f64", at_one=sizes.steps, least=1, seed_offset=1))
        if self.whole_episodes:
            chosen.append(episodes("f64" if self.float64 else "atol", self.atol, at_one=sizes.episodes / 10, least=3))
        if self.resets:
            chosen.append(resets(sizes.samples, 1, discrete=self.discrete_resets))
        if self.statistics:
            chosen.append(statistics(sizes.episodes, 1))
        return ParitySpec(chain(*chosen), lambda _: reference, library=None, description=reference.name)
