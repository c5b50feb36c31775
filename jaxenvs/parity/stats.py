"""The statistics of a comparison: errors, mismatch counts and tests of distributions, each a `Check`.

Nothing here knows about references or environments (`jaxenvs.parity.harness` collects the values).
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from jaxenvs.parity.verdict import ALPHA_ENV, Check

# Means: Welch's t-test where the sample mean is near normal by Cochran's rule (n >= 25 G1^2,
# G1 the sample skewness), else a permutation test with this many resamples.
PERMUTATIONS = 10_000
# State-injection tolerances: float64 runs per step and along whole episodes (the targets of
# the classic-control references), float32 observations of float32 references. A float32 JAX
# step against a float64 reference is bounded by the same step in float64 (`bounded_check`):
# each value may differ from the reference by twice its own float32 rounding plus
# FLOAT32_ULPS units of float32 rounding of its magnitude, and one step's float32 rounding may
# not exceed FLOAT32_ROUNDING, relative (about 1,000 ulps; one classic-control step measures
# at most 12).
ATOL_F64_STEP = 1e-9
ATOL_F64_EPISODE = 1e-6
ATOL_F32_STEP = 1e-5
ATOL_F32_OBS = 1e-6
FLOAT32_ULPS = 4
FLOAT32_ROUNDING = 2.0**-13


# ---------------------------------------------------------------------------------------------
# arrays and rows


def rows(*columns: Any) -> list[tuple]:
    """Per-row tuples of the given arrays, as chi-square outcomes.

    Args:
        *columns: arrays of `n` rows each (`[n, ...]`).

    Returns:
        `n` tuples of Python scalars, each row's entries of every column flattened in order.
    """
    cols = [np.asarray(c).reshape(len(np.asarray(c)), -1) for c in columns]
    return [tuple(v.item() for v in row) for row in np.concatenate(cols, axis=1)]


def _per_row(x: np.ndarray) -> np.ndarray:
    return x.reshape(len(x), -1) if x.ndim else x.reshape(1, 1)


# ---------------------------------------------------------------------------------------------
# deterministic values


def _abs_diff(a: np.ndarray, b: np.ndarray, angle: bool = False) -> np.ndarray:
    """`|a - b|` (modulo 2 pi for angles); NaN against NaN counts as 0, NaN against a number as inf."""
    d = np.abs(a - b)
    if angle:
        d = np.minimum(d % (2 * np.pi), 2 * np.pi - d % (2 * np.pi))
    d[np.isnan(a) & np.isnan(b)] = 0.0
    return np.where(np.isnan(d), np.inf, d)


def _first(bad: np.ndarray) -> int | None:
    """The first row with a bad entry, if any."""
    rows = np.flatnonzero(np.any(_per_row(bad), axis=1))
    return int(rows[0]) if len(rows) else None


def error_check(
    name: str, jax_values: Any, ref_values: Any, atol: float, rtol: float = 0.0, angle: bool = False
) -> Check:
    """Worst `|jax - ref|` (less `rtol * |ref|` when `rtol` is given) over all entries, against `atol`.

    Args:
        name: the check's name.
        jax_values: `[n, ...]` the JAX values.
        ref_values: `[n, ...]` the reference's.
        atol: the largest error allowed.
        rtol: the error allowed relative to `|ref|`, on top of `atol`.
        angle: differences taken modulo 2 pi.

    Returns:
        An error check (failing with inf when the shapes differ).
    """
    a = np.asarray(jax_values, dtype=np.float64)
    b = np.asarray(ref_values, dtype=np.float64)
    n = int(a.shape[0]) if a.ndim else 1
    if a.shape != b.shape:
        return Check(name, n, math.inf, atol, False, detail=f"shapes {a.shape} vs {b.shape}", first=0)
    excess = _abs_diff(a, b, angle) - rtol * np.abs(b)
    value = max(float(excess.max()), 0.0) if excess.size else 0.0
    detail = "modulo 2 pi" if angle else f"rtol {rtol:g}" if rtol else ""
    return Check(name, n, value, atol, value <= atol, detail=detail, first=_first(excess > atol))


def bounded_check(name: str, jax_values: Any, ref_values: Any, jax64_values: Any, angle: bool = False) -> list[Check]:
    """A float32 JAX value against a float64 reference, bounded by its own arithmetic.

    The same JAX step run in float64 (`jax64_values`) measures the float32 rounding this step
    propagated into each value.

    Each value may differ from the reference by twice its own rounding plus `FLOAT32_ULPS`
    float32 units of `|ref| + 1`; and the rounding itself may not exceed `FLOAT32_ROUNDING` of
    `|ref| + 1` (so a bug only the float32 path has cannot hide in its own bound).

    Args:
        name: the checks' name ("<name>" and "<name> float32 rounding").
        jax_values: `[n, ...]` the float32 step's values.
        ref_values: `[n, ...]` the reference's.
        jax64_values: `[n, ...]` the same step's values in float64.
        angle: differences taken modulo 2 pi.

    Returns:
        Two checks: the error against the reference (its threshold the bound at the worst
        value), and the float32 rounding (relative) against `FLOAT32_ROUNDING`.
    """
    a, b, c = (np.asarray(x, np.float64) for x in (jax_values, ref_values, jax64_values))
    n = int(a.shape[0]) if a.ndim else 1
    if a.shape != b.shape or a.shape != c.shape:
        return [Check(name, n, math.inf, 0.0, False, detail=f"shapes {a.shape} vs {b.shape} vs {c.shape}", first=0)]

    error, rounding = _abs_diff(a, b, angle), _abs_diff(a, c, angle)
    scale = np.abs(b) + 1.0
    bound = 2 * rounding + FLOAT32_ULPS * float(np.finfo(np.float32).eps) * scale
    if error.size == 0:
        return [Check(name, n, 0.0, 0.0, True), Check(f"{name} float32 rounding", n, 0.0, FLOAT32_ROUNDING, True)]
    worst = int(np.argmax(error / bound))
    first, ratio = _first(error > bound), float(error.flat[worst] / bound.flat[worst])
    detail = f"bound 2 x own float32 rounding + {FLOAT32_ULPS} ulp; worst error/bound {ratio:.2g}"
    relative = float(np.max(rounding / scale))
    own, ok = "the float32 step against itself in float64", relative <= FLOAT32_ROUNDING
    return [
        Check(name, n, float(error.max()), float(bound.flat[worst]), first is None, detail=detail, first=first),
        Check(f"{name} float32 rounding", n, relative, FLOAT32_ROUNDING, ok, kind="relative error", detail=own),
    ]


def exact_check(name: str, jax_values: Any, ref_values: Any) -> Check:
    """Mismatch count of exactly-compared values (flags, integer states, rewards), per row.

    Args:
        name: the check's name.
        jax_values: `[n, ...]` the JAX values.
        ref_values: `[n, ...]` the reference's.

    Returns:
        A mismatches check: how many rows differ anywhere (inf when the shapes differ).
    """
    a, b = np.asarray(jax_values), np.asarray(ref_values)
    n = int(a.shape[0]) if a.ndim else 1
    if a.shape != b.shape:
        return Check(name, n, math.inf, 0, False, kind="mismatches", detail=f"shapes {a.shape} vs {b.shape}", first=0)
    bad = int(np.any(_per_row(a != b), axis=1).sum())
    return Check(name, n, float(bad), 0.0, bad == 0, kind="mismatches", first=_first(a != b))


# ---------------------------------------------------------------------------------------------
# distributions


def p_value_check(name: str, n: int, p: float, detail: str) -> Check:
    """A test's p-value as a check.

    It passes at `ALPHA_ENV` until its `ParityResult` decides it with the env's other p-values
    (Holm).

    Args:
        name: the check's name.
        n: how many samples the test saw.
        p: the p-value (clipped to [0, 1]).
        detail: the test, in words.

    Returns:
        A p-value check.
    """
    p = float(min(max(p, 0.0), 1.0))
    return Check(name, n, p, ALPHA_ENV, p >= ALPHA_ENV, kind="p-value", detail=detail)


def _hashable(x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(_hashable(v) for v in x)
    x = np.asarray(x)
    return tuple(x.ravel().tolist()) if x.ndim else x.item()


def outside_support_check(name: str, outside: list, n: int, outside_ref: int, known: str = "") -> Check:
    """Outcomes outside a support known from the reference's definition: none may occur.

    Args:
        name: the check's name prefix ("<name> support").
        outside: the JAX outcomes outside the support.
        n: how many JAX outcomes there were.
        outside_ref: how many reference outcomes were outside it.
        known: the support in words, for the detail.

    Returns:
        A mismatches check (both sides must stay inside).
    """
    detail = [f"reference {outside_ref} outside"]
    if outside:
        detail.append(f"outside: {sorted(set(outside), key=str)[:3]}")
    elif known:
        detail.append(known)
    ok = not outside and not outside_ref
    return Check(f"{name} support", n, float(len(outside)), 0.0, ok, kind="mismatches", detail="; ".join(detail))


def unseen_outcomes_check(name: str, jax_samples: Sequence[Any], ref_samples: Sequence[Any]) -> Check:
    """Outcomes one side produced and the other never did, tested as chance.

    For a support known only from the reference's sample: a rare outcome one sample reaches
    and the other misses is chance, many are not.

    Under equal distributions, each sample that falls in an outcome only one side produced
    came from the JAX side with probability `n_jax / (n_jax + n_ref)`, independently of how
    many such samples there are; the p-value is the binomial tail of the JAX side's count.

    Args:
        name: the check's name prefix ("<name> support").
        jax_samples: the JAX side's outcomes (hashable once converted by `_hashable`).
        ref_samples: the reference's.

    Returns:
        A p-value check; its detail names a few of the JAX-only outcomes.
    """
    from scipy import stats

    a = [_hashable(x) for x in jax_samples]
    b = [_hashable(x) for x in ref_samples]
    seen_a, seen_b = set(a), set(b)
    only_a = [x for x in a if x not in seen_b]
    only_b = sum(x not in seen_a for x in b)
    k, total = len(only_a), len(only_a) + only_b
    p = float(stats.binom.sf(k - 1, total, len(a) / (len(a) + len(b)))) if k else 1.0
    detail = f"{k} JAX samples in outcomes the reference never produced, {only_b} the other way round (binomial)"
    if only_a:
        detail += f"; JAX-only: {sorted(set(only_a), key=str)[:3]}"
    return p_value_check(f"{name} support", len(a), p, detail)


def discrete_support_check(
    name: str, jax_samples: Sequence[Any], ref_samples: Sequence[Any], support: set | None
) -> Check:
    """The support of discrete outcomes: known from the reference's definition, or tested as chance.

    Args:
        name: the check's name prefix ("<name> support").
        jax_samples: the JAX side's outcomes.
        ref_samples: the reference's.
        support: the set the reference can produce, known from its definition: every outcome
            of both sides must lie in it (`outside_support_check`); None: outcomes only one
            side produced are tested as chance (`unseen_outcomes_check`).

    Returns:
        A mismatches check (with `support`) or a p-value check (without).
    """
    if support is None:
        return unseen_outcomes_check(name, jax_samples, ref_samples)
    support = {_hashable(x) for x in support}
    outside = [x for x in map(_hashable, jax_samples) if x not in support]
    outside_ref = sum(_hashable(x) not in support for x in ref_samples)
    known = f"{len(support)} outcomes the reference can produce"
    return outside_support_check(name, outside, len(jax_samples), outside_ref, known)


def _pooled_table(jax_samples: Sequence[Any], ref_samples: Sequence[Any]) -> np.ndarray:
    """The 2 x bins table of (jax, reference) counts of hashable outcomes, rarest first, pooled
    until each bin holds >= 10."""
    ca, cb = Counter(jax_samples), Counter(ref_samples)
    bins, acc = [], np.zeros(2)
    for o in sorted(ca.keys() | cb.keys(), key=lambda o: (ca[o] + cb[o], str(o))):
        acc = acc + (ca[o], cb[o])
        if acc.sum() >= 10:
            bins.append(acc)
            acc = np.zeros(2)
    if acc.sum() and bins:
        bins[-1] = bins[-1] + acc
    return np.array(bins).reshape(-1, 2).T


def chi_square_check(
    name: str, jax_samples: Sequence[Any], ref_samples: Sequence[Any], support: set | None = None
) -> list[Check]:
    """Discrete outcomes: support and a two-sample chi-square test of the frequencies.

    Args:
        name: the checks' name prefix ("<name> support", "<name> frequencies").
        jax_samples: the JAX side's outcomes.
        ref_samples: the reference's.
        support: as `discrete_support_check` takes it.

    Returns:
        Two checks: the support, and the chi-square p-value (rare outcomes pooled): the
        stratified test of one case.
    """
    a = [_hashable(x) for x in jax_samples]
    b = [_hashable(x) for x in ref_samples]
    support_check = discrete_support_check(name, a, b, support)
    return [support_check, stratified_chi_square_check(name, [0] * len(a), a, [0] * len(b), b)]


def stratified_chi_square_check(
    name: str, cases: Sequence[Any], jax_samples: Sequence[Any], ref_cases: Sequence[Any], ref_samples: Sequence[Any]
) -> Check:
    """Two-sample chi-square of outcome frequencies, one contingency table per case, summed.

    Statistics and degrees of freedom add up. Pooling every case into one table would count
    the per-case totals, equal by design, as degrees of freedom and make the test conservative.
    A single case is `scipy.stats.chi2_contingency`'s own test of its table (with Yates'
    correction at one degree of freedom).

    Args:
        name: the check's name prefix ("<name> frequencies").
        cases: the case of each JAX sample (the state and action it was drawn from).
        jax_samples: the JAX outcomes.
        ref_cases: the case of each reference sample.
        ref_samples: the reference's outcomes.

    Returns:
        A p-value check.
    """
    from scipy import stats

    by_case: dict[Any, tuple[list, list]] = {}
    for side, (cs, samples) in enumerate(((cases, jax_samples), (ref_cases, ref_samples))):
        for c, x in zip(cs, samples):
            by_case.setdefault(_hashable(c), ([], []))[side].append(_hashable(x))
    tables = [_pooled_table(a, b) for a, b in by_case.values()]
    tests = [stats.chi2_contingency(t, correction=len(tables) == 1) for t in tables if t.shape[1] >= 2]
    statistic, dof = sum(t.statistic for t in tests), sum(t.dof for t in tests)
    p = float(stats.chi2.sf(statistic, dof)) if dof else 1.0
    if len(tables) == 1:
        detail = f"chi-square, {tables[0].shape[1]} bins"
    else:
        detail = f"chi-square stratified by case: {statistic:.1f} on {dof} degrees of freedom"
    return p_value_check(f"{name} frequencies", len(jax_samples), p, detail)


def tail_check(name: str, jax_samples: Any, ref_samples: Any) -> Check:
    """Continuous outcomes beyond the reference sample's range, tested as chance.

    For a support known only from the reference's sample: under equal distributions, the `k`
    largest of both samples together all come from the JAX side with probability
    `C(n_jax, k) / C(n_jax + n_ref, k)` (the same below the smallest); Bonferroni over both
    tails and over coordinates.

    Args:
        name: the check's name prefix ("<name> support").
        jax_samples: `[n, ...]` JAX outcomes.
        ref_samples: `[m, ...]` reference outcomes.

    Returns:
        A p-value check.
    """
    from scipy.special import gammaln

    a = np.asarray(jax_samples, dtype=np.float64).reshape(len(jax_samples), -1)
    b = np.asarray(ref_samples, dtype=np.float64).reshape(len(ref_samples), -1)
    n, m = len(a), len(b)

    def tail(k: int) -> float:  # C(n, k) / C(n + m, k)
        return float(np.exp(gammaln(n + 1) - gammaln(n - k + 1) - gammaln(n + m + 1) + gammaln(n + m - k + 1)))

    p, beyond = 1.0, 0
    for j in range(a.shape[1]):
        hi, lo = b[:, j].max(), b[:, j].min()
        # a float32 JAX value equal to a float64 reference bound is not beyond it
        above = int(np.sum(a[:, j] > hi + 1e-6 * (1 + abs(hi))))
        below = int(np.sum(a[:, j] < lo - 1e-6 * (1 + abs(lo))))
        p = min(p, 2 * min(tail(above), tail(below)) * a.shape[1])
        beyond = max(beyond, above, below)
    detail = f"at most {beyond} JAX samples beyond one end of the reference's range (exact tail, Bonferroni)"
    return p_value_check(f"{name} support", n, min(p, 1.0), detail)


def ks_check(
    name: str, jax_samples: Any, ref_samples: Any, support: Callable[[np.ndarray], np.ndarray] | str | None = None
) -> list[Check]:
    """Continuous outcomes: support, and a two-sample Kolmogorov-Smirnov test per coordinate.

    Args:
        name: the checks' name prefix ("<name> support", "<name> distribution").
        jax_samples: `[n, ...]` the JAX outcomes.
        ref_samples: `[m, ...]` the reference's.
        support: None: JAX samples beyond the reference sample's range are tested as chance
            (`tail_check`); a predicate `x[n, d] -> bool[n]` (the reference's definition of
            its support), which both sides' samples must satisfy; `"unbounded"`: no support
            test.

    Returns:
        The support check (none when `"unbounded"`) and the KS p-value (Bonferroni over
        coordinates).
    """
    from scipy import stats

    a = np.asarray(jax_samples, dtype=np.float64).reshape(len(jax_samples), -1)
    b = np.asarray(ref_samples, dtype=np.float64).reshape(len(ref_samples), -1)
    checks = []
    if support is None:
        checks.append(tail_check(name, a, b))
    elif callable(support):
        outside, outside_ref = int(np.sum(~support(a))), int(np.sum(~support(b)))
        checks.append(outside_support_check(name, [None] * outside, len(a), outside_ref))
    with warnings.catch_warnings():  # scipy's own fallback to the asymptotic p-value, announced
        warnings.filterwarnings("ignore", "ks_2samp: Exact calculation unsuccessful", RuntimeWarning)
        p = min(float(stats.ks_2samp(a[:, j], b[:, j]).pvalue) * a.shape[1] for j in range(a.shape[1]))
    detail = f"KS, {a.shape[1]} coordinates, Bonferroni"
    return checks + [p_value_check(f"{name} distribution", len(a), min(p, 1.0), detail)]


def sign_check(name: str, differences: Any, tolerance: Any, columns: Sequence[str] | None = None) -> Check:
    """Paired differences beyond a tolerance have no direction: a two-sided sign test per
    coordinate (Bonferroni over coordinates).

    Args:
        name: the check's name prefix ("<name> direction").
        differences: `[n, d]` JAX minus reference, row for row.
        tolerance: `[d]` (or a scalar): differences within it are not counted.
        columns: the coordinates' names (for the detail).

    Returns:
        A p-value check whose detail names the most lopsided coordinate's counts.
    """
    from scipy import stats

    d = np.asarray(differences, np.float64).reshape(len(differences), -1)
    above, below = (d > tolerance).sum(0), (d < -np.asarray(tolerance)).sum(0)
    ps = [stats.binomtest(int(a), int(a + b)).pvalue if a + b else 1.0 for a, b in zip(above, below)]
    worst = int(np.argmin(ps)) if ps else 0
    p = min(1.0, min(ps, default=1.0) * d.shape[1])
    where = f" ({columns[worst]})" if columns is not None and ps else ""
    detail = (
        f"sign test, {d.shape[1]} coordinates, Bonferroni; most lopsided{where}: {above[worst]} up, {below[worst]} down"
    )
    return p_value_check(f"{name} direction", len(d), p, detail)


def _near_normal_mean(x: np.ndarray) -> bool:
    """Cochran's rule: the mean of `n` draws is near normal when n >= 25 G1^2 (G1: skewness)."""
    sd = x.std()
    if len(x) < 30 or sd == 0:
        return False
    g1 = float(np.mean(((x - x.mean()) / sd) ** 3))
    return len(x) >= 25 * g1 * g1


def mean_check(name: str, jax_values: Any, ref_values: Any, seed: int = 0) -> Check:
    """Means agree: a p-value for "the two samples come from one distribution", read through their means.

    Welch's t-test where both means are near normal (Cochran's rule), else an exact
    permutation test (`PERMUTATIONS` resamples; sparse rewards, skewed lengths).

    Args:
        name: the check's name.
        jax_values: one value per JAX episode (or sample).
        ref_values: one value per reference episode.
        seed: the permutations' seed.

    Returns:
        A p-value check whose detail gives both means and the test used.
    """
    from scipy import stats

    a, b = np.asarray(jax_values, np.float64).ravel(), np.asarray(ref_values, np.float64).ravel()
    means = f"jax {a.mean():.4g} vs reference {b.mean():.4g}"
    if np.ptp(np.concatenate([a, b])) == 0:
        return p_value_check(name, len(a), 1.0, f"{means}; all equal")
    if np.ptp(a) == 0 and np.ptp(b) == 0:  # two different constants
        return p_value_check(name, len(a), 0.0, f"{means}; each side constant")
    if _near_normal_mean(a) and _near_normal_mean(b):
        p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
        return p_value_check(name, len(a), p, f"{means}; Welch t")
    result = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=PERMUTATIONS,
        rng=np.random.default_rng(seed),
    )
    return p_value_check(name, len(a), float(result.pvalue), f"{means}; permutation ({PERMUTATIONS} resamples, skewed)")


def rare_events_check(name: str, counts: Mapping[str, int], n: int) -> Check:
    """Every named rare event happened at least once among the `n` compared transitions.

    Args:
        name: the check's name.
        counts: `{event: how many times it happened}`.
        n: how many transitions were compared.

    Returns:
        A check of how many events never happened (must be 0).
    """
    missed = [k for k, v in counts.items() if v == 0]
    detail = ", ".join(f"{k} {v}" for k, v in counts.items())
    return Check(name, n, float(len(missed)), 0.0, not missed, kind="missed", detail=detail)
