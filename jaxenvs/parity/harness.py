"""The parity harness: compare a JAX env against a reference implementation, per DESIGN.md.

Building blocks, each returning a `Check` (a number measured, a threshold, a verdict):

- `check_transitions`: deterministic transitions by state injection. The reference is run
  under a policy; at each step its state is read, translated into a JAX state, and both take
  the same action; next state, observation, reward and flags are compared.
- `check_episodes`: whole episodes from the same initial state under the same actions.
- `check_samples`: a stochastic outcome (reset distribution, a random event) sampled from both:
  support (every JAX outcome the reference can produce) and frequencies (chi-square for
  discrete outcomes, Kolmogorov-Smirnov for continuous ones).
- `check_episode_statistics`: episode length and return under a random policy agree within
  3 standard errors.

`Reference` is what a user gives to check their own JAX env against their own gymnasium-style
env: how to build the reference, and how to read, write and translate its state (README).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

# A stated significance level for every distribution test: p-values below it fail.
P_THRESHOLD = 1e-3


@dataclasses.dataclass
class Check:
    """One comparison: `value` (an error or a test statistic) against `threshold`."""

    name: str
    n: int  # transitions, samples or episodes compared
    value: float  # worst error, or the p-value / distance of a test
    threshold: float
    passed: bool
    kind: str = "error"  # "error" (value <= threshold) or "p-value" (value >= threshold)
    detail: str = ""

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
        return sum(c.n for c in self.checks if c.kind == "error")

    def worst(self, prefix: str = "") -> float:
        errs = [c.value for c in self.checks if c.kind == "error" and c.name.startswith(prefix)]
        return max(errs) if errs else float("nan")

    def min_p(self) -> float:
        ps = [c.value for c in self.checks if c.kind == "p-value"]
        return min(ps) if ps else float("nan")

    def summary(self) -> str:
        lines = [f"{self.env_id} vs {self.reference}: {self.verdict}"]
        lines += ["  " + c.describe() for c in self.checks]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# comparisons


def max_error(a: Any, b: Any) -> float:
    """Largest absolute difference between two arrays (inf if shapes differ)."""
    a, b = np.atleast_1d(np.asarray(a, np.float64)), np.atleast_1d(np.asarray(b, np.float64))
    if a.shape != b.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    diff = np.abs(a - b)
    diff[np.isnan(a) & np.isnan(b)] = 0.0
    return float(np.nanmax(np.where(np.isnan(diff), np.inf, diff)))


def error_check(name: str, jax_values: Any, ref_values: Any, atol: float, rtol: float = 0.0) -> Check:
    """Worst `|jax - ref| - rtol * |ref|` over all entries, against `atol`."""
    a = np.asarray(jax_values, dtype=np.float64)
    b = np.asarray(ref_values, dtype=np.float64)
    n = int(a.shape[0]) if a.ndim else 1
    if a.shape != b.shape:
        return Check(name, n, math.inf, atol, False, detail=f"shapes {a.shape} vs {b.shape}")
    excess = np.abs(a - b) - rtol * np.abs(b)
    worst = float(np.max(excess)) if excess.size else 0.0
    worst_abs = max_error(a, b)
    value = worst_abs if rtol == 0.0 else max(worst, 0.0)
    return Check(name, n, value, atol, bool(value <= atol), detail="" if rtol == 0 else f"rtol {rtol:g}")


def exact_check(name: str, jax_values: Any, ref_values: Any) -> Check:
    """Mismatch count of exactly-compared values (flags, integer states, rewards)."""
    a, b = np.asarray(jax_values), np.asarray(ref_values)
    n = int(a.shape[0]) if a.ndim else 1
    if a.shape != b.shape:
        return Check(name, n, math.inf, 0, False, kind="mismatches", detail=f"shapes {a.shape} vs {b.shape}")
    mismatches = int(np.sum(np.any((a != b).reshape(n, -1), axis=1))) if a.ndim else int(a != b)
    return Check(name, n, float(mismatches), 0.0, mismatches == 0, kind="mismatches")


def _hashable(x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(_hashable(v) for v in x)
    x = np.asarray(x)
    return tuple(x.ravel().tolist()) if x.ndim else x.item()


def chi_square_check(name: str, jax_samples: Sequence[Any], ref_samples: Sequence[Any]) -> list[Check]:
    """Discrete outcomes: support (JAX outcomes the reference never produced) and a two-sample
    chi-square test of the frequencies (bins with few counts pooled)."""
    from scipy import stats

    a = [_hashable(x) for x in jax_samples]
    b = [_hashable(x) for x in ref_samples]
    support = set(b)
    outside = sorted({x for x in a if x not in support}, key=str)
    checks = [
        Check(
            f"{name} support",
            len(a),
            float(sum(x not in support for x in a)),
            0.0,
            not outside,
            kind="mismatches",
            detail=f"outside: {outside[:3]}" if outside else "",
        )
    ]
    outcomes = sorted(set(a) | support, key=str)
    index = {o: i for i, o in enumerate(outcomes)}
    ca = np.bincount([index[x] for x in a], minlength=len(outcomes)).astype(float)
    cb = np.bincount([index[x] for x in b], minlength=len(outcomes)).astype(float)
    # pool rare outcomes so every expected count is >= 5
    order = np.argsort(ca + cb)
    pooled_a, pooled_b, acc_a, acc_b = [], [], 0.0, 0.0
    for i in order:
        acc_a, acc_b = acc_a + ca[i], acc_b + cb[i]
        if acc_a + acc_b >= 10:
            pooled_a.append(acc_a)
            pooled_b.append(acc_b)
            acc_a = acc_b = 0.0
    if acc_a + acc_b > 0 and pooled_a:
        pooled_a[-1] += acc_a
        pooled_b[-1] += acc_b
    if len(pooled_a) < 2:
        p = 1.0
    else:
        p = float(stats.chi2_contingency(np.array([pooled_a, pooled_b]))[1])
    checks.append(
        Check(
            f"{name} frequencies",
            len(a),
            p,
            P_THRESHOLD,
            p >= P_THRESHOLD,
            kind="p-value",
            detail=f"chi-square, {len(pooled_a)} bins",
        )
    )
    return checks


def ks_check(name: str, jax_samples: Any, ref_samples: Any) -> list[Check]:
    """Continuous outcomes, per coordinate: the JAX samples lie within the reference's range
    (widened by 1%) and a two-sample Kolmogorov-Smirnov test (Bonferroni over coordinates)."""
    from scipy import stats

    a = np.asarray(jax_samples, dtype=np.float64).reshape(len(jax_samples), -1)
    b = np.asarray(ref_samples, dtype=np.float64).reshape(len(ref_samples), -1)
    lo, hi = b.min(axis=0), b.max(axis=0)
    pad = 0.01 * (hi - lo) + 1e-12
    outside = int(np.sum(np.any((a < lo - pad) | (a > hi + pad), axis=1)))
    p = min(float(stats.ks_2samp(a[:, j], b[:, j]).pvalue) * a.shape[1] for j in range(a.shape[1]))
    p = min(p, 1.0)
    return [
        Check(f"{name} support", len(a), float(outside), 0.0, outside == 0, kind="mismatches"),
        Check(
            f"{name} distribution",
            len(a),
            p,
            P_THRESHOLD,
            p >= P_THRESHOLD,
            kind="p-value",
            detail=f"KS, {a.shape[1]} coordinates, Bonferroni",
        ),
    ]


def mean_check(name: str, jax_values: Any, ref_values: Any, num_se: float = 3.0) -> Check:
    """Means agree within `num_se` standard errors of their difference; value = |z|."""
    a, b = np.asarray(jax_values, np.float64), np.asarray(ref_values, np.float64)
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b)) if len(a) > 1 and len(b) > 1 else 0.0
    diff = abs(a.mean() - b.mean())
    z = 0.0 if diff == 0 else (math.inf if se == 0 else diff / se)
    return Check(
        name, len(a), z, num_se, z <= num_se, kind="|z|", detail=f"jax {a.mean():.4g} vs reference {b.mean():.4g}"
    )


# ---------------------------------------------------------------------------------------------
# the reference side


@dataclasses.dataclass
class Reference:
    """How to drive a gymnasium-style reference and translate its state.

    make: builds a reference env (gymnasium API: `reset(seed=)`, `step(action)`).
    get_state: `ref -> {field: value}`, with the JAX state's field names (including `time`).
    set_state: writes such a dict into `ref` (used to start whole episodes from a JAX reset).
    to_jax: `(state dict, params) -> JAX state`.
    from_jax: `JAX state -> state dict` (defaults to the dataclass fields named in get_state).
    exact_fields: fields compared exactly (integers, booleans); the rest with a tolerance.
    """

    make: Callable[[], Any]
    get_state: Callable[[Any], Mapping[str, Any]]
    to_jax: Callable[[Mapping[str, Any], Any], Any]
    set_state: Callable[[Any, Mapping[str, Any]], None] | None = None
    from_jax: Callable[[Any], Mapping[str, Any]] | None = None
    exact_fields: Sequence[str] = ("time",)
    name: str = "reference"

    def state_from_jax(self, state: Any, fields: Sequence[str]) -> dict[str, np.ndarray]:
        if self.from_jax is not None:
            return {k: np.asarray(v) for k, v in self.from_jax(state).items()}
        return {k: np.asarray(getattr(state, k)) for k in fields}


def _stack(dicts: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    return {k: np.stack([np.asarray(d[k]) for d in dicts]) for k in dicts[0]}


def collect_reference_transitions(
    ref: Reference, num_steps: int, seed: int = 0, policy: Callable[[Any, np.random.Generator], Any] | None = None
) -> dict[str, Any]:
    """Run the reference for `num_steps` steps (resetting after each episode) and record
    every (state, action, next state, observation, reward, flags)."""
    env = ref.make()
    rng = np.random.default_rng(seed)
    env.action_space.seed(seed)
    env.reset(seed=seed)
    episode = 0
    states, actions, next_states, obs, rewards, terms, truncs = [], [], [], [], [], [], []
    for _ in range(num_steps):
        state = dict(ref.get_state(env))
        action = policy(env, rng) if policy is not None else env.action_space.sample()
        o, r, te, tr, _ = env.step(action)
        states.append(state)
        actions.append(np.asarray(action))
        next_states.append(dict(ref.get_state(env)))
        obs.append(np.asarray(o))
        rewards.append(float(r))
        terms.append(bool(te))
        truncs.append(bool(tr))
        if te or tr:
            episode += 1
            env.reset(seed=seed * 100_003 + episode)
    env.close()
    return dict(
        states=states,
        actions=np.stack(actions),
        next_states=_stack(next_states),
        obs=obs,
        rewards=np.asarray(rewards),
        terminated=np.asarray(terms),
        truncated=np.asarray(truncs),
    )


def check_transitions(
    env: Any,
    params: Any,
    ref: Reference,
    num_steps: int,
    atol: float,
    seed: int = 0,
    policy: Callable[[Any, np.random.Generator], Any] | None = None,
    label: str = "step",
    reward_atol: float = 0.0,
) -> list[Check]:
    """Per-step parity by state injection; `env` is the raw env (no auto-reset).

    All reference states are collected first, then the JAX env steps them as one vmapped
    batch with the same actions.
    """
    data = collect_reference_transitions(ref, num_steps, seed, policy)
    jax_states = [ref.to_jax(s, params) for s in data["states"]]
    batch = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *jax_states)
    keys = jax.random.split(jax.random.key(seed), num_steps)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    obs, next_state, reward, terminated, truncated, _ = step(keys, batch, jnp.asarray(data["actions"]), params)
    fields = list(data["next_states"])
    mine = ref.state_from_jax(next_state, fields)
    checks = []
    for k in fields:
        if k in ref.exact_fields:
            checks.append(exact_check(f"{label} {k}", mine[k], data["next_states"][k]))
        else:
            checks.append(error_check(f"{label} {k}", mine[k], data["next_states"][k], atol))
    checks.append(_obs_check(f"{label} observation", obs, data["obs"], atol))
    ref_rewards = data["rewards"]
    if np.asarray(reward).dtype == np.float32:
        # rewards are float32 by contract: compare with the reference's rounded to float32
        ref_rewards = ref_rewards.astype(np.float32)
    checks.append(error_check(f"{label} reward", reward, ref_rewards, max(reward_atol, 0.0)))
    checks.append(exact_check(f"{label} terminated", terminated, data["terminated"]))
    checks.append(exact_check(f"{label} truncated", truncated, data["truncated"]))
    return checks


def _obs_check(name: str, jax_obs: Any, ref_obs: Sequence[Any], atol: float) -> Check:
    leaves_a = jax.tree_util.tree_leaves(jax_obs)
    ref_stacked = (
        jax.tree_util.tree_map(lambda *xs: np.stack(xs), *ref_obs)
        if not isinstance(ref_obs[0], np.ndarray)
        else np.stack(ref_obs)
    )
    leaves_b = jax.tree_util.tree_leaves(ref_stacked)
    a = np.concatenate([np.asarray(x, np.float64).reshape(len(ref_obs), -1) for x in leaves_a], axis=1)
    b = np.concatenate([np.asarray(x, np.float64).reshape(len(ref_obs), -1) for x in leaves_b], axis=1)
    # observations are float32 in both; compare at float32 resolution
    return error_check(name, a, b, max(atol, 0.0), rtol=2e-7 if a.dtype.kind == "f" else 0.0)


def check_episodes(
    env: Any,
    params: Any,
    ref: Reference,
    num_episodes: int,
    atol: float,
    seed: int = 0,
    max_steps: int | None = None,
) -> list[Check]:
    """Whole episodes: JAX rolls out from the reference's reset state under the reference's
    random actions with no re-injection; the state error over the whole episode is compared."""
    env_ref = ref.make()
    step = jax.jit(env.step)
    worst: dict[str, float] = {}
    flag_mismatch = 0
    total = 0
    for episode in range(num_episodes):
        env_ref.reset(seed=seed + episode)
        env_ref.action_space.seed(seed + episode)
        state_dict = dict(ref.get_state(env_ref))
        state = ref.to_jax(state_dict, params)
        fields = list(state_dict)
        key = jax.random.key(seed + episode)
        done = False
        t = 0
        while not done and (max_steps is None or t < max_steps):
            action = env_ref.action_space.sample()
            _, r_ref, te_ref, tr_ref, _ = env_ref.step(action)
            key, sub = jax.random.split(key)
            _, state, r, te, tr, _ = step(sub, state, jnp.asarray(action), params)
            ref_state = ref.get_state(env_ref)
            mine = ref.state_from_jax(state, fields)
            for k in fields:
                if k not in ref.exact_fields:
                    worst[k] = max(worst.get(k, 0.0), max_error(mine[k], ref_state[k]))
            flag_mismatch += int(bool(te) != bool(te_ref) or bool(tr) != bool(tr_ref))
            flag_mismatch += int(abs(float(r) - float(r_ref)) > 1e-6 * max(1.0, abs(float(r_ref))))
            total += 1
            t += 1
            done = bool(te_ref or tr_ref)
    env_ref.close()
    checks = [Check(f"episode {k}", total, v, atol, v <= atol) for k, v in worst.items()]
    checks.append(
        Check("episode rewards and flags", total, float(flag_mismatch), 0.0, flag_mismatch == 0, kind="mismatches")
    )
    return checks


def sample_reference_resets(ref: Reference, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    env = ref.make()
    out = []
    for i in range(n):
        env.reset(seed=seed + i)
        out.append(dict(ref.get_state(env)))
    env.close()
    return _stack(out)


def sample_jax_resets(env: Any, params: Any, ref: Reference, fields: Sequence[str], n: int, seed: int = 0):
    keys = jax.random.split(jax.random.key(seed), n)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    return ref.state_from_jax(states, fields)


def check_reset_distribution(
    env: Any, params: Any, ref: Reference, n: int, seed: int = 0, discrete: bool = False
) -> list[Check]:
    ref_states = sample_reference_resets(ref, n, seed)
    fields = [k for k in ref_states if k != "time"]
    mine = sample_jax_resets(env, params, ref, fields, n, seed)
    if discrete:
        a = [tuple(np.concatenate([np.ravel(mine[k][i]) for k in fields])) for i in range(n)]
        b = [tuple(np.concatenate([np.ravel(ref_states[k][i]) for k in fields])) for i in range(n)]
        return chi_square_check("reset", a, b)
    a = np.concatenate([mine[k].reshape(n, -1) for k in fields], axis=1)
    b = np.concatenate([ref_states[k].reshape(n, -1) for k in fields], axis=1)
    return ks_check("reset", a, b)


def reference_episode_statistics(make: Callable[[], Any], num_episodes: int, seed: int = 0, max_steps: int = 100_000):
    """Lengths and returns of `num_episodes` reference episodes under uniform random actions."""
    env = make()
    env.action_space.seed(seed)
    lengths, returns = [], []
    for i in range(num_episodes):
        env.reset(seed=seed + i)
        done, length, ret = False, 0, 0.0
        while not done and length < max_steps:
            _, r, te, tr, _ = env.step(env.action_space.sample())
            length += 1
            ret += float(r)
            done = bool(te or tr)
        lengths.append(length)
        returns.append(ret)
    env.close()
    return np.asarray(lengths), np.asarray(returns)


def jax_episode_statistics(env: Any, params: Any, num_episodes: int, seed: int = 0, max_steps: int = 100_000):
    """Lengths and returns of the first episode of `num_episodes` vmapped envs, random actions.

    `env` is the raw env; each runs until its first episode ends (or `max_steps`)."""
    act_space = env.action_space(params)
    num_steps = min(int(params.max_steps_in_episode), max_steps)

    def episode(key):
        k_reset, k_run = jax.random.split(key)
        _, state = env.reset(k_reset, params)

        def body(carry, k):
            state, done, length, ret = carry
            ka, ks = jax.random.split(k)
            _, nstate, r, te, tr, _ = env.step(ks, state, act_space.sample(ka), params)
            alive = ~done
            state = jax.tree_util.tree_map(lambda n, o: jnp.where(alive, n, o), nstate, state)
            return (state, done | te | tr, length + alive, ret + jnp.where(alive, r, 0.0)), None

        init = (state, jnp.asarray(False), jnp.asarray(0, jnp.int32), jnp.asarray(0.0, jnp.float32))
        (_, _, length, ret), _ = jax.lax.scan(body, init, jax.random.split(k_run, num_steps))
        return length, ret

    keys = jax.random.split(jax.random.key(seed), num_episodes)
    lengths, returns = jax.jit(jax.vmap(episode))(keys)
    return np.asarray(lengths), np.asarray(returns)


def check_episode_statistics(
    env: Any, params: Any, make_reference: Callable[[], Any], num_episodes: int, seed: int = 0
) -> list[Check]:
    """Episode length and return under uniform random actions, within 3 standard errors."""
    ref_len, ref_ret = reference_episode_statistics(make_reference, num_episodes, seed)
    len_, ret = jax_episode_statistics(env, params, num_episodes, seed)
    return [
        mean_check("random-policy episode length", len_, ref_len),
        mean_check("random-policy episode return", ret, ref_ret),
    ]


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
