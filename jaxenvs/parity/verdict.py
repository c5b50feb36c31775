"""The verdict: one comparison (`Check`), one env's checks together (`ParityResult`), Holm and two stages.

A `Check` is one number against one threshold: a worst error, a count of mismatches, or a
p-value. Deterministic checks cannot fail by chance; the p-values of one env are decided
together (Holm) so a correct env FAILs with probability at most `ALPHA_ENV`, and `two_stage`
draws fresh, larger samples when a first stage is borderline.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

# The false-alarm budget: a run of up to ENVS_PER_RUN correct envs FAILs one with probability
# at most ALPHA_RUN, so each env's checks together get ALPHA_ENV (a union bound over envs).
ALPHA_RUN = 0.01
ENVS_PER_RUN = 40
ALPHA_ENV = ALPHA_RUN / ENVS_PER_RUN
# Two stages (`two_stage`): the first rejects at Holm level ALPHA_ENV / 2; a first stage whose
# smallest Holm-adjusted p-value is below CONTINUE_BELOW is borderline and draws a second,
# independent stage of STAGE_TWO_SIZE times the samples. Under a correct env the second stage
# runs with probability at most CONTINUE_BELOW, so it may test at (ALPHA_ENV / 2) /
# CONTINUE_BELOW and the two together still FAIL a correct env with probability <= ALPHA_ENV.
CONTINUE_BELOW = 0.01
STAGE_ONE_LEVEL = ALPHA_ENV / 2
STAGE_TWO_LEVEL = ALPHA_ENV / 2 / CONTINUE_BELOW
STAGE_TWO_SIZE = 4


_STOP_AT_FIRST_FAILURE = contextvars.ContextVar("stop_at_first_failure", default=False)


class FirstFailure(Exception):
    """A deterministic check failed under `stop_at_first_failure()`: the verdict is FAIL.

    Args:
        check: the failing check (kept as `self.check`; the message is its `describe()`).
    """

    def __init__(self, check: Check):
        super().__init__(check.describe())
        self.check = check


@contextlib.contextmanager
def stop_at_first_failure() -> Iterator[None]:
    """Within it, the first failing check that is not a p-value ends the run at once.

    An error or a mismatch count fails whatever the run's Holm decision, so the verdict is FAIL
    as soon as one does. For tests of envs known to be wrong (the mutants), which need the
    verdict only.

    Yields:
        None.

    Raises:
        FirstFailure: (from the failing `Check`'s construction) a deterministic check failed.
    """
    token = _STOP_AT_FIRST_FAILURE.set(True)
    try:
        yield
    finally:
        _STOP_AT_FIRST_FAILURE.reset(token)


@dataclasses.dataclass
class Check:
    """One comparison: `value` (an error, a count or a test statistic) against `threshold`.

    Args:
        name: what was compared.
        n: how many transitions, samples or episodes were compared.
        value: the measured error, count or p-value.
        threshold: the bound `value` is held to.
        passed: whether it is within the bound.
        kind: `"error"` (passes when `value <= threshold`), `"p-value"` (passes when
            `value >= threshold`), `"mismatches"`, `"relative error"`, `"missed"`.
        detail: how it was measured, in words.
        transitions: how many reference transitions this check stands for in the report's
            "transitions compared" (set on one check per compared set, 0 on the others).
        first: the row of the first failing value, if any (used to point at the mismatch).
        mismatch: the first mismatch in words (field, step, the state it came from, both values).

    Raises:
        FirstFailure: a check that is not a p-value fails under `stop_at_first_failure()`.
    """

    name: str
    n: int  # transitions, samples or episodes compared
    value: float
    threshold: float
    passed: bool
    kind: str = "error"  # "error" (value <= threshold), "p-value" (value >= threshold), ...
    detail: str = ""
    transitions: int = 0
    first: int | None = None
    mismatch: str = ""

    def __post_init__(self) -> None:
        if not self.passed and self.kind != "p-value" and _STOP_AT_FIRST_FAILURE.get():
            raise FirstFailure(self)

    def describe(self) -> str:
        """The check on one line.

        Returns:
            `"name: kind value <=|>= threshold over n [ok|FAIL] (detail)"`.
        """
        op = "<=" if self.kind != "p-value" else ">="
        status = "ok" if self.passed else "FAIL"
        text = f"{self.name}: {self.kind} {self.value:.3g} {op} {self.threshold:.3g} over {self.n} [{status}]"
        return text + (f" ({self.detail})" if self.detail else "")

    def note(self, text: str) -> None:
        """Add `text` to the detail (after a "; " when there is one already).

        Args:
            text: how it was measured, in words.
        """
        self.detail = f"{self.detail}; {text}" if self.detail else text


@dataclasses.dataclass
class ParityResult:
    """Every check of one env against its reference, and the verdict on them together.

    The p-value checks are decided together by `decide(level)` (Holm's step-down procedure:
    the probability that any of them fails on a correct env is at most `level`); until then
    at `ALPHA_ENV`.

    Args:
        env_id: the env checked.
        reference: the reference it was checked against, in words.
        checks: the checks, in the order they ran.
        seconds: how long the run took.
        skipped: why the reference could not run, if it could not (the verdict is "skipped").
        level: the family-wise level the p-values were decided at (None: not yet decided).
        stages: how the verdict was reached (`two_stage`).
        first_stage: a borderline first stage, when a second stage decided.
        set_aside: checks that ran but do not apply, outside the verdict (the audit: the
            float64 checks of an env that computes in float32 under `jax_enable_x64`).
    """

    env_id: str
    reference: str
    checks: list[Check] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    skipped: str | None = None  # why the reference could not run, if it could not
    level: float | None = None  # the family-wise level the p-values were decided at
    stages: str = ""
    first_stage: ParityResult | None = None  # a borderline first stage, when a second decided
    # checks that ran but do not apply, outside the verdict (the audit: the float64 checks of an
    # env that computes in float32 even under jax_enable_x64), kept for their figures
    set_aside: list[Check] = dataclasses.field(default_factory=list)

    def p_checks(self) -> list[Check]:
        """The p-value checks.

        Returns:
            The checks whose `kind` is `"p-value"`, in order.
        """
        return [c for c in self.checks if c.kind == "p-value"]

    def decide(self, level: float = ALPHA_ENV) -> ParityResult:
        """Decide the p-value checks together at family-wise level `level` (Holm).

        Each p-value check gets the threshold of its rank and passes unless rejected.

        Args:
            level: the probability that any p-value check fails on a correct env.

        Returns:
            self, decided.
        """
        p_checks = self.p_checks()
        rejected, thresholds = holm([c.value for c in p_checks], level)
        for c, r, t in zip(p_checks, rejected, thresholds):
            c.threshold, c.passed = t, not r
        self.level = level
        return self

    def _decided(self) -> ParityResult:
        return self if self.level is not None else self.decide()

    @property
    def passed(self) -> bool:
        """Whether the reference ran and every check passed (deciding the p-values if not yet)."""
        self._decided()
        return self.skipped is None and bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def verdict(self) -> str:
        """`"pass"`, `"FAIL"` or `"skipped"`."""
        if self.skipped is not None:
            return "skipped"
        return "pass" if self.passed else "FAIL"

    @property
    def transitions(self) -> int:
        """How many reference transitions were compared (the checks' `transitions`, summed)."""
        return sum(c.transitions for c in self.checks)

    @property
    def num_tests(self) -> int:
        """How many p-values were decided together (the family of Holm's procedure)."""
        return len(self.p_checks())

    def worst(self, prefix: str = "") -> float:
        """The largest error among the error checks whose name starts with `prefix`.

        Args:
            prefix: the start of the checks' names (all error checks by default).

        Returns:
            The largest `value`, or NaN when there is no such check.
        """
        return max((c.value for c in self.checks if c.kind == "error" and c.name.startswith(prefix)), default=math.nan)

    def min_p(self) -> float:
        """The smallest p-value.

        Returns:
            The smallest `value` of the p-value checks, or NaN when there is none.
        """
        return min((c.value for c in self.p_checks()), default=math.nan)

    def min_adjusted_p(self) -> float:
        """Holm's adjusted p-value of the smallest p.

        Returns:
            `min(1, m * min p)` over the `m` p-value checks, 1 when there is none.
        """
        return min(1.0, self.num_tests * self.min_p()) if self.num_tests else 1.0

    def failures(self) -> list[Check]:
        """The checks that failed (deciding the p-values if not yet).

        Returns:
            The failing checks, in order.
        """
        self._decided()
        return [c for c in self.checks if not c.passed]

    def summary(self) -> str:
        """The result in words: verdict, how the p-values were decided, every check.

        Returns:
            Several lines: the verdict, then one line per check and per first mismatch.
        """
        self._decided()
        lines = [f"{self.env_id} vs {self.reference}: {self.verdict}"]
        if self.skipped is not None:
            lines.append(f"  skipped: {self.skipped}")
        if self.num_tests:
            lines.append(
                f"  {self.num_tests} p-values decided together at family-wise level {self.level:.2g} (Holm)"
                + (f"; {self.stages}" if self.stages else "")
            )
        lines += ["  " + c.describe() for c in self.checks]
        lines += [f"  first mismatch of {c.name}: {c.mismatch}" for c in self.failures() if c.mismatch]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def holm(p_values: Sequence[float], level: float) -> tuple[list[bool], list[float]]:
    """Holm's step-down procedure: which of `p_values` are rejected at family-wise level `level`.

    Each p-value is compared with `level / (m - rank)`, rank from 0 in ascending order; the
    ones after the first acceptance keep their rank's threshold.

    Args:
        p_values: the p-values of one family of tests.
        level: the probability, under every null hypothesis at once, of rejecting any.

    Returns:
        `(rejected, thresholds)`, each in the order of `p_values`.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    rejected, thresholds = [False] * m, [level] * m
    stopped = False
    for rank, i in enumerate(order):
        thresholds[i] = level / (m - rank)
        stopped = stopped or not p_values[i] <= thresholds[i]  # a NaN p-value stops too
        rejected[i] = not stopped
    return rejected, thresholds


def two_stage(run: Callable[[int, int], ParityResult], seed: int = 0) -> ParityResult:
    """A verdict from one or two independent stages of the same checks.

    Args:
        run: `(size factor, seed) -> ParityResult`: the checks at the given multiple of their
            size, drawing with the given seed (a different seed must give fresh samples).
        seed: the first stage's seed.

    Returns:
        The first stage's result, decided at `STAGE_ONE_LEVEL`, if it FAILs (a deterministic
        check or a rejected p-value) or is clearly correct; when borderline (smallest
        Holm-adjusted p-value below `CONTINUE_BELOW`), the second stage's result
        (`STAGE_TWO_SIZE` times the samples, a fresh seed) decided at `STAGE_TWO_LEVEL`, with
        the first stage's result kept as its `first_stage`, for the record.
    """
    first = run(1, seed).decide(STAGE_ONE_LEVEL)
    if first.skipped is not None or not first.passed or first.min_adjusted_p() >= CONTINUE_BELOW:
        first.stages = "one stage"
        return first
    second = run(STAGE_TWO_SIZE, seed + 1_000_003).decide(STAGE_TWO_LEVEL)
    second.stages = (
        f"two stages: stage 1 was borderline (smallest adjusted p {first.min_adjusted_p():.2g} < "
        f"{CONTINUE_BELOW:g}); stage 2 drew {STAGE_TWO_SIZE}x the samples afresh, decided at "
        f"{STAGE_TWO_LEVEL:.2g}"
    )
    second.first_stage = first
    second.seconds += first.seconds
    return second


class Timer:
    """Wall-clock time of a `with` block, in `seconds` once it ends."""

    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self.start
