"""The comparisons parity is made of, and what they return.

A `Check` is one number measured against one threshold: a worst error (`error_check`,
`angle_check`), a count of exact mismatches (`exact_check`), the p-value of a test
(`chi_square_check`, `stratified_chi_square_check`, `ks_check`) or a distance in standard
errors (`mean_check`). A `ParityResult` gathers the checks of one env. Nothing here knows
about references or environments: `jaxenvs.parity.harness` collects the values compared.

Thresholds stated once: distribution tests fail below `P_THRESHOLD`; means must agree within
3 standard errors; the tolerances of state injection are `ATOL_*` (float32 and float64).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

# A stated significance level for every distribution test: p-values below it fail.
P_THRESHOLD = 1e-3
# State-injection tolerances: float64 runs per step and along whole episodes (the targets of
# the classic-control references), float32 per step, and float32 observations.
ATOL_F64_STEP = 1e-9
ATOL_F64_EPISODE = 1e-6
ATOL_F32_STEP = 1e-5
ATOL_F32_OBS = 1e-6


@dataclasses.dataclass
class Check:
    """One comparison: `value` (an error, a count or a test statistic) against `threshold`.

    transitions: how many reference transitions this check stands for in the report's
        "transitions compared" (set on one check per compared set, 0 on the others).
    first: the row of the first failing value, if any (used to point at the mismatch).
    mismatch: the first mismatch in words (field, step, the state it came from, both values).
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

    def describe(self) -> str:
        op = "<=" if self.kind != "p-value" else ">="
        status = "ok" if self.passed else "FAIL"
        text = f"{self.name}: {self.kind} {self.value:.3g} {op} {self.threshold:.3g} over {self.n} [{status}]"
        return text + (f" ({self.detail})" if self.detail else "")


@dataclasses.dataclass
class ParityResult:
    """Every check of one env against its reference."""

    env_id: str
    reference: str
    checks: list[Check] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    skipped: str | None = None  # why the reference could not run, if it could not

    @property
    def passed(self) -> bool:
        return self.skipped is None and bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def verdict(self) -> str:
        if self.skipped is not None:
            return "skipped"
        return "pass" if self.passed else "FAIL"

    @property
    def transitions(self) -> int:
        return sum(c.transitions for c in self.checks)

    def worst(self, prefix: str = "") -> float:
        errs = [c.value for c in self.checks if c.kind == "error" and c.name.startswith(prefix)]
        return max(errs) if errs else float("nan")

    def min_p(self) -> float:
        ps = [c.value for c in self.checks if c.kind == "p-value"]
        return min(ps) if ps else float("nan")

    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    def summary(self) -> str:
        lines = [f"{self.env_id} vs {self.reference}: {self.verdict}"]
        if self.skipped is not None:
            lines.append(f"  skipped: {self.skipped}")
        lines += ["  " + c.describe() for c in self.checks]
        lines += [f"  first mismatch of {c.name}: {c.mismatch}" for c in self.failures() if c.mismatch]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


class Timer:
    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self.start


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much a run compares; `Sizes.at(scale)` is the default suite at a fraction of its size."""

    steps: int = 2000
    samples: int = 2000
    episodes: int = 200

    @classmethod
    def at(cls, scale: float, steps: int = 2000, samples: int = 2000, episodes: int = 200) -> Sizes:
        return cls(max(50, int(steps * scale)), max(200, int(samples * scale)), max(20, int(episodes * scale)))


# ---------------------------------------------------------------------------------------------
# arrays and rows


def stack(dicts: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """A list of `{field: value}` as `{field: values stacked along a new first axis}`."""
    return {k: np.stack([np.asarray(d[k]) for d in dicts]) for k in dicts[0]}


def rows(*columns: Any) -> list[tuple]:
    """Per-row tuples of the given arrays (each `[n, ...]`), as chi-square outcomes."""
    cols = [np.asarray(c).reshape(len(np.asarray(c)), -1) for c in columns]
    return [tuple(v.item() for v in row) for row in np.concatenate(cols, axis=1)]


def _per_row(x: np.ndarray) -> np.ndarray:
    return x.reshape(len(x), -1) if x.ndim else x.reshape(1, 1)


# ---------------------------------------------------------------------------------------------
# deterministic values


def max_error(a: Any, b: Any) -> float:
    """Largest absolute difference between two arrays (inf if shapes differ; NaN == NaN)."""
    a, b = np.atleast_1d(np.asarray(a, np.float64)), np.atleast_1d(np.asarray(b, np.float64))
    if a.shape != b.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    diff = np.abs(a - b)
    diff[np.isnan(a) & np.isnan(b)] = 0.0
    return float(np.nanmax(np.where(np.isnan(diff), np.inf, diff)))


def error_check(name: str, jax_values: Any, ref_values: Any, atol: float, rtol: float = 0.0) -> Check:
    """Worst `|jax - ref|` (less `rtol * |ref|` when `rtol` is given) over all entries, against `atol`."""
    a = np.asarray(jax_values, dtype=np.float64)
    b = np.asarray(ref_values, dtype=np.float64)
    n = int(a.shape[0]) if a.ndim else 1
    if a.shape != b.shape:
        return Check(name, n, math.inf, atol, False, detail=f"shapes {a.shape} vs {b.shape}", first=0)
    diff = np.abs(a - b)
    diff[np.isnan(a) & np.isnan(b)] = 0.0
    diff = np.where(np.isnan(diff), np.inf, diff)
    excess = diff - rtol * np.abs(b)
    value = max_error(a, b) if rtol == 0.0 else max(float(np.max(excess)) if excess.size else 0.0, 0.0)
    bad = np.flatnonzero(np.any(_per_row(excess) > atol, axis=1))
    return Check(
        name,
        n,
        value,
        atol,
        bool(value <= atol),
        detail="" if rtol == 0 else f"rtol {rtol:g}",
        first=int(bad[0]) if len(bad) else None,
    )


def angle_check(name: str, jax_values: Any, ref_values: Any, atol: float) -> Check:
    """`error_check` for angles: differences taken modulo 2 pi."""
    d = np.abs(np.asarray(jax_values, np.float64) - np.asarray(ref_values, np.float64)) % (2 * np.pi)
    d = np.minimum(d, 2 * np.pi - d)
    check = error_check(name, d, np.zeros_like(d), atol)
    check.detail = "modulo 2 pi"
    return check


def exact_check(name: str, jax_values: Any, ref_values: Any) -> Check:
    """Mismatch count of exactly-compared values (flags, integer states, rewards), per row."""
    a, b = np.asarray(jax_values), np.asarray(ref_values)
    n = int(a.shape[0]) if a.ndim else 1
    if a.shape != b.shape:
        return Check(name, n, math.inf, 0, False, kind="mismatches", detail=f"shapes {a.shape} vs {b.shape}", first=0)
    bad = np.flatnonzero(np.any(_per_row(a != b), axis=1))
    return Check(
        name, n, float(len(bad)), 0.0, len(bad) == 0, kind="mismatches", first=int(bad[0]) if len(bad) else None
    )


# ---------------------------------------------------------------------------------------------
# distributions


def p_value_check(name: str, n: int, p: float, detail: str) -> Check:
    """A test's p-value against the stated threshold."""
    return Check(name, n, p, P_THRESHOLD, p >= P_THRESHOLD, kind="p-value", detail=detail)


def _hashable(x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(_hashable(v) for v in x)
    x = np.asarray(x)
    return tuple(x.ravel().tolist()) if x.ndim else x.item()


def _support_check(name: str, outside: list, n: int, outside_ref: int | None = None, known: str = "") -> Check:
    detail = []
    if outside_ref is not None:
        detail.append(f"reference {outside_ref} outside")
    if outside:
        detail.append(f"outside: {sorted(set(outside), key=str)[:3]}")
    elif known:
        detail.append(known)
    ok = not outside and not outside_ref
    return Check(f"{name} support", n, float(len(outside)), 0.0, ok, kind="mismatches", detail="; ".join(detail))


def _pooled(ca: np.ndarray, cb: np.ndarray) -> list[list[float]]:
    """Bins of (jax, reference) counts, rare outcomes pooled until each bin holds >= 10."""
    bins, acc = [], [0.0, 0.0]
    for i in np.argsort(ca + cb, kind="stable"):
        acc = [acc[0] + ca[i], acc[1] + cb[i]]
        if sum(acc) >= 10:
            bins.append(acc)
            acc = [0.0, 0.0]
    if sum(acc) and bins:
        bins[-1] = [bins[-1][0] + acc[0], bins[-1][1] + acc[1]]
    return bins


def chi_square_check(
    name: str, jax_samples: Sequence[Any], ref_samples: Sequence[Any], support: set | None = None
) -> list[Check]:
    """Discrete outcomes: support and a two-sample chi-square test of the frequencies.

    Support: every JAX outcome must be one the reference produced, or, where `support` (the
    set the reference can produce, known from its definition) is given, lie in it, as every
    reference outcome must."""
    from scipy import stats

    a = [_hashable(x) for x in jax_samples]
    b = [_hashable(x) for x in ref_samples]
    if support is None:
        seen = set(b)
        checks = [_support_check(name, [x for x in a if x not in seen], len(a))]
    else:
        support = {_hashable(x) for x in support}
        outside_ref = sum(x not in support for x in b)
        checks = [_support_check(name, [x for x in a if x not in support], len(a), outside_ref)]
    outcomes = sorted(set(a) | set(b), key=str)
    index = {o: i for i, o in enumerate(outcomes)}
    ca = np.bincount([index[x] for x in a], minlength=len(outcomes)).astype(float)
    cb = np.bincount([index[x] for x in b], minlength=len(outcomes)).astype(float)
    bins = _pooled(ca, cb)
    p = float(stats.chi2_contingency(np.array(bins).T)[1]) if len(bins) >= 2 else 1.0
    return checks + [p_value_check(f"{name} frequencies", len(a), p, f"chi-square, {len(bins)} bins")]


def stratified_chi_square_check(
    name: str, cases: Sequence[Any], jax_samples: Sequence[Any], ref_cases: Sequence[Any], ref_samples: Sequence[Any]
) -> Check:
    """Two-sample chi-square of outcome frequencies, one contingency table per case, summed:
    statistics and degrees of freedom add up. Pooling every case into one table would count
    the per-case totals, equal by design, as degrees of freedom and make the test conservative."""
    from scipy import stats

    by_case: dict[Any, list[dict]] = {}
    for side, (cs, samples) in enumerate(((cases, jax_samples), (ref_cases, ref_samples))):
        for c, x in zip(cs, samples):
            counts = by_case.setdefault(_hashable(c), [{}, {}])[side]
            x = _hashable(x)
            counts[x] = counts.get(x, 0) + 1
    statistic, dof = 0.0, 0
    for jax_counts, ref_counts in by_case.values():
        outcomes = sorted(set(jax_counts) | set(ref_counts), key=str)
        ca = np.array([jax_counts.get(o, 0) for o in outcomes], float)
        cb = np.array([ref_counts.get(o, 0) for o in outcomes], float)
        bins = _pooled(ca, cb)
        if len(bins) >= 2:
            statistic += float(stats.chi2_contingency(np.array(bins).T, correction=False)[0])
            dof += len(bins) - 1
    p = float(stats.chi2.sf(statistic, dof)) if dof else 1.0
    detail = f"chi-square stratified by case: {statistic:.1f} on {dof} degrees of freedom"
    return p_value_check(f"{name} frequencies", len(jax_samples), p, detail)


def ks_check(
    name: str, jax_samples: Any, ref_samples: Any, support: Callable[[np.ndarray], np.ndarray] | str | None = None
) -> list[Check]:
    """Continuous outcomes: support, and a two-sample Kolmogorov-Smirnov test per coordinate
    (Bonferroni over coordinates).

    support: None, the JAX samples must lie within the reference's range (widened by 1%);
    a predicate `x[n, d] -> bool[n]` (the reference's definition of its support), which both
    sides' samples must satisfy; "unbounded", no support test (normal noise, whose tails one
    sample reaches and the other does not)."""
    from scipy import stats

    a = np.asarray(jax_samples, dtype=np.float64).reshape(len(jax_samples), -1)
    b = np.asarray(ref_samples, dtype=np.float64).reshape(len(ref_samples), -1)
    checks = []
    if support is None:
        lo, hi = b.min(axis=0), b.max(axis=0)
        pad = 0.01 * (hi - lo) + 1e-12
        outside = int(np.sum(np.any((a < lo - pad) | (a > hi + pad), axis=1)))
        checks.append(Check(f"{name} support", len(a), float(outside), 0.0, outside == 0, kind="mismatches"))
    elif callable(support):
        outside, outside_ref = int(np.sum(~support(a))), int(np.sum(~support(b)))
        checks.append(_support_check(name, [None] * outside, len(a), outside_ref))
    p = min(float(stats.ks_2samp(a[:, j], b[:, j]).pvalue) * a.shape[1] for j in range(a.shape[1]))
    detail = f"KS, {a.shape[1]} coordinates, Bonferroni"
    return checks + [p_value_check(f"{name} distribution", len(a), min(p, 1.0), detail)]


def mean_check(name: str, jax_values: Any, ref_values: Any, num_se: float = 3.0) -> Check:
    """Means agree within `num_se` standard errors of their difference; value = |z|."""
    a, b = np.asarray(jax_values, np.float64), np.asarray(ref_values, np.float64)
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b)) if len(a) > 1 and len(b) > 1 else 0.0
    diff = abs(a.mean() - b.mean())
    z = 0.0 if diff == 0 else (math.inf if se == 0 else diff / se)
    return Check(
        name, len(a), z, num_se, z <= num_se, kind="|z|", detail=f"jax {a.mean():.4g} vs reference {b.mean():.4g}"
    )


def rare_events_check(name: str, counts: Mapping[str, int], n: int) -> Check:
    """Every named rare event happened at least once among the `n` compared transitions."""
    missed = [k for k, v in counts.items() if v == 0]
    return Check(
        name,
        n,
        float(len(missed)),
        0.0,
        not missed,
        kind="missed",
        detail=", ".join(f"{k} {v}" for k, v in counts.items()),
    )
