"""The comparisons: each `check_*` steps the JAX env beside the reference's collected data and returns `Check`s.

Steps by state injection (`check_transitions`), whole episodes, random steps, the time limit,
resets and random-policy statistics, written once against the reference protocol
(`jaxenvs.parity.reference`). `jaxenvs.parity.run_parity` runs them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.parity.collect import (
    Replay,
    compiled,
    compiled_replay,
    from_jax,
    jax_episode_statistics,
    jax_step_batch,
    recorded_draws,
    sample_jax_resets,
    sample_jax_steps,
    to_jax_batch,
)
from jaxenvs.parity.data import State, Transitions, stack_rows, take_rows
from jaxenvs.parity.reference import Reference
from jaxenvs.parity.stats import (
    ATOL_F32_OBS,
    ATOL_F32_STEP,
    ATOL_F64_EPISODE,
    FLOAT32_ROUNDING,
    bounded_check,
    chi_square_check,
    discrete_support_check,
    error_check,
    exact_check,
    ks_check,
    mean_check,
    sign_check,
    stratified_chi_square_check,
)
from jaxenvs.parity.verdict import Check

__all__ = [
    "Collection",
    "FieldPolicy",
    "check_episode_statistics",
    "check_episodes",
    "check_reference_fields",
    "check_resets",
    "check_step_distribution",
    "check_time_limit",
    "check_transitions",
    "compare_in_distribution",
    "near_time_limit",
]


def _flat(obs: Any, n: int) -> np.ndarray:
    leaves = jax.tree_util.tree_leaves(obs)
    return np.concatenate([np.asarray(x, np.float64).reshape(n, -1) for x in leaves], axis=1)


def _value_text(x: Any) -> str:
    x = np.asarray(x)
    return np.array2string(x, threshold=20, precision=9) if x.ndim else repr(x.item())


def _point_at(check: Check, label: str, field: str, data: Transitions, rows: np.ndarray, mine: Any, ref: Any) -> None:
    """Fill `check.mismatch` with the first failing row: field, step, state, both values."""
    if check.first is None:
        return
    i = int(rows[check.first])
    step = int(np.sum(data.episode[:i] == data.episode[i]))
    state = {k: _value_text(v) for k, v in data.state_at(i).items()}
    check.mismatch = (
        f"{label}: field {field!r} at transition {i} (step {step} of episode {int(data.episode[i])}), "
        f"action {_value_text(data.actions[i])}, from state {state}: "
        f"jax {_value_text(np.asarray(mine)[check.first])} vs reference {_value_text(np.asarray(ref)[check.first])}"
    )


# ---------------------------------------------------------------------------------------------
# deterministic transitions


def _truncated(ref: Reference, truncated: Any, terminated: Any) -> np.ndarray:
    """The JAX side's truncation as the reference flags it (never with termination, if it says so)."""
    truncated = np.asarray(truncated)
    return truncated & ~np.asarray(terminated) if ref.truncation_excludes_termination else truncated


def _compare(
    label: str, ref: Reference, data: Transitions, out: tuple, fields: FieldPolicy, out64: tuple | str | None = None
) -> list[Check]:
    """Every next-state field, observation, reward and flag of `data` against the JAX side's
    `out` (row for row; and `fields.info_fields` of `info`); steps with a random part
    (`ref.random_step`) leave out `ref.random_step_fields`. With `out64` (the same steps in
    float64), float values are bounded by their own float32 rounding (`bounded_check`) instead
    of `atol` / `reward_atol`; `out64 == "none"`: the env has no float64 path."""
    atol, reward_atol, canonical = fields.atol, fields.reward_atol, fields.canonical
    obs, mine, reward, terminated, truncated, info = out
    no_f64 = isinstance(out64, str)
    rtol = 2 * FLOAT32_ROUNDING if no_f64 else 0.0
    obs64, mine64, reward64 = out64 if out64 is not None and not no_f64 else (None, {}, None)
    n = len(data)
    every = np.ones(n, bool)
    random_rows = np.zeros(n, bool)
    if ref.random_step is not None:
        random_rows[:] = [ref.random_step(data.state_at(i), data.state_at(i, True), data.rewards[i]) for i in range(n)]

    def keep(name: str) -> np.ndarray:
        if name in ref.random_fields:
            return ~every
        return ~random_rows if name in ref.random_step_fields else every

    checks: list[Check] = []

    def add(name: str, made: Check | list[Check], kept: np.ndarray, a: Any, b: Any) -> None:
        for check in made if isinstance(made, list) else [made]:
            _point_at(check, label, name, data, np.flatnonzero(kept), a, b)
            checks.append(check)

    for k, want in data.next_states.items():
        kept = keep(k)
        if k not in mine or not kept.any():
            continue
        a, b, name = np.asarray(mine[k])[kept], want[kept], f"{label} {k}"
        if canonical is not None:
            a, b = canonical(k, a, b, {f: v[kept] for f, v in data.next_states.items()})
        angle = k in ref.angle_fields
        if k in ref.exact_fields or ref.exact_fields == "*":
            add(k, exact_check(name, a, b), kept, a, b)
        elif k in mine64:
            add(k, bounded_check(name, a, b, np.asarray(mine64[k])[kept], angle=angle), kept, a, b)
        else:  # angles modulo 2 pi, to atol alone
            add(k, error_check(name, a, b, atol, rtol=0.0 if angle else rtol, angle=angle), kept, a, b)
    kept = keep("observation")
    if kept.any():
        mask = ref.obs_mask or (lambda x: x)
        a, b, name = mask(_flat(obs, n)[kept]), mask(_flat(data.obs, n)[kept]), f"{label} observation"
        if obs64 is not None:
            add("observation", bounded_check(name, a, b, mask(_flat(obs64, n)[kept])), kept, a, b)
        else:  # observations are float32 on both sides: compared at float32 resolution
            add("observation", error_check(name, a, b, max(atol, ATOL_F32_OBS), rtol=2e-7), kept, a, b)
    kept = keep("reward")
    if kept.any():
        a, b = np.asarray(reward)[kept], data.rewards[kept]
        if reward64 is not None:
            add("reward", bounded_check(f"{label} reward", a, b, np.asarray(reward64)[kept]), kept, a, b)
        else:
            if a.dtype == np.float32:  # rewards are float32 by contract: compare rounded alike
                b = b.astype(np.float32)
            tol = max(reward_atol, atol) if no_f64 else reward_atol
            add("reward", error_check(f"{label} reward", a, b, tol, rtol=rtol), kept, a, b)
    flags = [("terminated", np.asarray(terminated), data.terminated, keep("terminated"))]
    if truncated is not None:
        flags.append(("truncated", _truncated(ref, truncated, terminated), data.truncated, every))
    for name, a, b, kept in flags:
        if kept.any():
            add(name, exact_check(f"{label} {name}", a[kept], b[kept]), kept, a[kept], b[kept])
    for k in fields.info_fields:
        a, b = np.asarray(info[k], np.float64), np.asarray(data.info[k], np.float64)
        add(k, error_check(f"{label} {k}", a, b, 1e-7), every, a, b)
    if checks:
        checks[0].transitions = n
        if no_f64:
            checks[0].note("no float64 path: compared to atol + rtol 2^-12")
        if random_rows.any():
            checks[0].note(f"{int(random_rows.sum())} steps with a random part")
    return checks


@dataclasses.dataclass(frozen=True)
class FieldPolicy:
    """How the compared values are held to the reference's (`check_transitions`).

    Args:
        atol: the tolerance of float values.
        reward_atol: the tolerance of rewards.
        float32_bound: a float32 env against a float64 reference: the same steps are run again
            under `jax_enable_x64`, and every float value is bounded by its own float32 rounding
            (`stats.bounded_check`) instead of `atol` / `reward_atol`.
        canonical: `(field, jax, ref, ref_next_states) -> (jax, ref)` puts a field in canonical
            form before the comparison (e.g. empty slots a reference lacks).
        info_fields: `info` entries compared too (to 1e-7), e.g. toy text's `prob`, `action_mask`.
        in_distribution: `(ref, transitions) -> bool[n]`, the rows compared in distribution
            instead (`compare_in_distribution`): steps whose outcome the two sides find by
            different numerical routes (a motor just at its torque limit on one side, just
            under it on the other), where a tolerance would measure the route, not the env.
    """

    atol: float = ATOL_F32_STEP
    reward_atol: float = 0.0
    float32_bound: bool = False
    canonical: Callable | None = None
    info_fields: Sequence[str] = ()
    in_distribution: Callable[[Reference, Transitions], np.ndarray] | None = None


@dataclasses.dataclass(frozen=True)
class Collection:
    """Which reference transitions `check_transitions` compares, and how the JAX side steps them.

    Args:
        data: the reference transitions (one set, or `{label: set}` compared apart but stepped
            as one batch); None: `ref.transitions(num_steps, seed, policy, scramble)`.
        policy: the reference's policy while collecting (`Reference.transitions`).
        scramble: changes the reference's state before each step (`Reference.transitions`).
        replay: `(states, actions, draws, params) -> (obs, next_state, reward, terminated)`, the
            JAX step with the reference's recorded draws (`ref.draws_to_jax` translates them);
            truncation is then not compared (a replay is the MDP step alone).
        params_of: `{label: params}` for sets collected under other params (same static fields).
    """

    data: Transitions | Mapping[str, Transitions] | None = None
    policy: Callable | None = None
    scramble: Callable | None = None
    replay: Replay | None = None
    params_of: Mapping[str, Any] | None = None


def check_transitions(
    env: Any,
    params: Any,
    ref: Reference,
    num_steps: int = 2000,
    atol: float | None = None,
    seed: int = 0,
    *,
    label: str = "step",
    fields: FieldPolicy | None = None,
    collect: Collection | None = None,
) -> list[Check]:
    """Per-step parity by state injection.

    Reference states are translated into JAX states and both sides take the same action; every
    next-state field, the observation, the reward and both flags are compared.

    Args:
        env: the raw JAX env (no auto-reset).
        params: its params.
        ref: the reference.
        num_steps: how many reference transitions to collect (without `collect.data`).
        atol: the tolerance of float values (overrides `fields.atol`).
        seed: the seed of the collected transitions.
        label: the checks' name prefix.
        fields: how values are compared (`FieldPolicy`).
        collect: what is compared and how it is stepped (`Collection`).

    Returns:
        The checks, one or more per compared field and set.
    """
    fields = fields or FieldPolicy()
    if atol is not None:
        fields = dataclasses.replace(fields, atol=atol)
    collect = collect or Collection()
    data, replay, params_of = collect.data, collect.replay, collect.params_of
    if data is None:
        data = ref.transitions(num_steps, seed, collect.policy, collect.scramble)
    sets = dict(data) if isinstance(data, Mapping) else {label: data}
    parts = list(sets.values())
    total = sum(parts[1:], parts[0])
    batched = bool(params_of)
    if batched:  # one params per row, stacked
        per_row = [params_of.get(k, params) for k, part in sets.items() for _ in range(len(part))]
        params = jax.tree_util.tree_map(jnp.asarray, stack_rows(per_row))
    step_replay = None if replay is None else compiled_replay(env, replay, (0, 0, 0, 0 if batched else None))
    names = list(total.next_states)
    obs, nxt, reward, terminated, truncated, info = jax_step_batch(env, params, ref, total, seed, step_replay, batched)
    out = (obs, from_jax(ref, nxt, names), reward, terminated, truncated, info)
    out64 = None
    if fields.float32_bound:
        with jax.enable_x64(True):
            obs64, nxt64, reward64, *_ = jax_step_batch(env, params, ref, total, seed, step_replay, batched)
            out64 = jax.tree_util.tree_map(np.asarray, (obs64, from_jax(ref, nxt64, names), reward64))
        if not any(v.dtype == np.float64 for v in out64[1].values()):
            # no float64 path (its step computes in float32 under x64): its own rounding cannot be
            # measured, so values are compared to `atol` plus the bound's relative cap, 2 x 2^-13
            out64 = "none"
    checks: list[Check] = []
    for (k, part), end in zip(sets.items(), np.cumsum([len(part) for part in parts])):
        if not len(part):
            continue
        rows = np.arange(end - len(part), end)
        loose = np.zeros(len(part), bool) if fields.in_distribution is None else fields.in_distribution(ref, part)
        if loose.any():
            loose_out = take_rows(out, rows[loose])
            checks += compare_in_distribution(f"{k} in contact", part.select(loose), loose_out, fields)
            k, part, rows = f"{k} in free flight", part.select(~loose), rows[~loose]
        if len(part):
            part64 = take_rows(out64, rows) if isinstance(out64, tuple) else out64
            checks += _compare(k, ref, part, take_rows(out, rows), fields, part64)
    return checks


def compare_in_distribution(
    label: str, data: Transitions, out: tuple, fields: FieldPolicy | None = None
) -> list[Check]:
    """Steps from the same states compared as two samples: the change every step makes to each
    float next-state field, the reward and the observation (KS per coordinate, Bonferroni), and
    the flags and other exact fields together (chi-square of their joint values). The steps
    start from the same states, so their differences are tested too: those beyond the
    tolerance (`fields.atol`, the reward's `reward_atol`) must have no direction (a sign test
    per coordinate, Bonferroni). Two numerical routes to one outcome part either way; a wrong
    constant pushes one way.

    Args:
        label: the checks' name prefix.
        data: the reference transitions.
        out: the JAX side's `(obs, next_states, reward, terminated, truncated, info)` of the same
            rows, next states named as the reference names them.
        fields: the tolerances (default `FieldPolicy()`'s).

    Returns:
        The checks: the KS and sign-test p-values, the flags' support and chi-square, and
        integer fields exactly.
    """
    fields = fields or FieldPolicy()
    obs, mine, reward, terminated, *_ = out
    n = len(data)
    checks: list[Check] = []
    moved, moved_ref, flags, flags_ref, columns = [], [], [], [], []
    for k, want in data.next_states.items():
        if k not in mine:
            continue
        a, b = np.asarray(mine[k]).reshape(n, -1), np.asarray(want).reshape(n, -1)
        if np.issubdtype(b.dtype, np.floating):
            before = np.asarray(data.states[k], np.float64).reshape(n, -1)
            moved += [a - before]
            moved_ref += [b - before]
            columns += [f"{k}[{j}]" for j in range(b.shape[1])]
        elif b.dtype == bool:
            flags += [a]
            flags_ref += [b]
        else:  # counters and indices: the same on both sides, contact or not
            checks += [exact_check(f"{label} {k}", a, b)]
    moved += [_flat(obs, n), np.asarray(reward, np.float64).reshape(n, 1)]
    moved_ref += [_flat(data.obs, n), data.rewards.reshape(n, 1)]
    columns += [f"observation[{j}]" for j in range(moved[-2].shape[1])] + ["reward"]
    flags += [np.asarray(terminated).reshape(n, 1)]
    flags_ref += [data.terminated.reshape(n, 1)]
    mine_moved, ref_moved = np.hstack(moved), np.hstack(moved_ref)
    tol = np.full(mine_moved.shape[1], fields.atol)
    tol[-1] = max(fields.atol, fields.reward_atol)
    checks = ks_check(f"{label} step", mine_moved, ref_moved, support="unbounded") + checks
    checks.insert(1, sign_check(f"{label} step", mine_moved - ref_moved, tol, columns))
    joint, joint_ref = (list(map(tuple, np.hstack(f).astype(np.int64))) for f in (flags, flags_ref))
    checks += chi_square_check(f"{label} flags", joint, joint_ref)
    checks[0].transitions = n
    return checks


def near_time_limit(limit: int, set_time: Callable[[State, int], None] | None = None) -> Callable:
    """A `scramble` for `Reference.transitions` that sets the time near the limit.

    Args:
        limit: the time limit.
        set_time: `(state, t)` writes time `t` into a reference state (default: its `time` field).

    Returns:
        `scramble(ref, rng)`: before every step, sets the reference's time one or two steps
        before `limit`.
    """

    def scramble(r: Reference, rng: np.random.Generator) -> None:
        state = r.state()
        t = limit - 1 - int(rng.integers(2))
        if set_time is not None:
            set_time(state, t)
        else:
            state["time"] = np.asarray(t, np.asarray(state["time"]).dtype)
        r.load(state)

    return scramble


def check_time_limit(
    env: Any,
    params: Any,
    ref: Reference,
    limit: int,
    num_steps: int = 100,
    seed: int = 0,
    *,
    label: str = "time limit",
    set_time: Callable[[State, int], None] | None = None,
) -> list[Check]:
    """Truncation at the time limit, which random-policy episodes seldom reach.

    The reference's own states with the time set one or two steps before `limit` are stepped
    by both sides; `truncated` and the time are compared exactly, so a limit one step early or
    late fails.

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference.
        limit: the limit the reference's settings declare (never the env's).
        num_steps: how many transitions to compare.
        seed: the seed of the reference's run.
        label: the checks' name prefix.
        set_time: `(state, t)` writes time `t` into a reference state (default: its `time` field).

    Returns:
        The checks of `check_transitions` on those states.
    """
    data = ref.transitions(num_steps, seed, scramble=near_time_limit(limit, set_time))
    _, nxt, _, terminated, truncated, _ = jax_step_batch(env, params, ref, data, seed, None, False)
    compared = {"truncated": (_truncated(ref, truncated, terminated), data.truncated)}
    mine = from_jax(ref, nxt, ["time"])
    if "time" in mine and "time" in data.next_states:
        compared["time"] = (mine["time"], data.next_states["time"])
    checks = []
    for name, (a, b) in compared.items():
        checks.append(exact_check(f"{label} {name}", a, b))
        _point_at(checks[-1], label, name, data, np.arange(len(data)), a, b)
    checks[0].detail = f"from {limit - 2} and {limit - 1} steps into an episode"
    return checks


# ---------------------------------------------------------------------------------------------
# whole episodes


def check_episodes(
    env,
    params,
    ref: Reference,
    *,
    num_episodes=20,
    atol=ATOL_F64_EPISODE,
    seed=0,
    data=None,
    label="episode",
    replay=None,
) -> list[Check]:
    """Whole episodes, the JAX env never re-injected.

    The JAX env starts from the reference's first state of each episode and takes its actions
    (with its draws, given `replay`); every state field, the observation, the reward and the
    flags are compared at every step.

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference.
        num_episodes: how many episodes (without `data`).
        atol: the tolerance of float values.
        seed: the seed of the reference's episodes.
        data: the reference's episodes (`Transitions`; by default
            `ref.episodes(num_episodes, seed)`).
        label: the checks' name prefix.
        replay: as in `check_transitions`.

    Returns:
        The checks, one or more per compared field.
    """
    if data is None:
        data = ref.episodes(num_episodes, seed)
    episodes = [np.flatnonzero(data.episode == e) for e in np.unique(data.episode)]
    horizon = max(len(rows) for rows in episodes)
    # index[j, t]: the row of episode j's step t (its last row again past its end)
    index = np.array([np.pad(rows, (0, horizon - len(rows)), mode="edge") for rows in episodes])
    alive = np.arange(horizon) < np.array([len(rows) for rows in episodes])[:, None]
    start = to_jax_batch(env, params, ref, {k: v[index[:, 0]] for k, v in data.states.items()})
    actions = jnp.asarray(data.actions[index])
    # one jitted, vmapped step per time step (not a scan: XLA may fuse a scanned step into other
    # roundings, which a float32-storing reference amplifies over a long episode)
    if replay is not None:
        draws = jax.tree_util.tree_map(lambda x: x[index], recorded_draws(ref, data))
        replay_step = compiled_replay(env, replay, (0, 0, 0, None))

        def step(t, state):
            return *replay_step(state, actions[:, t], jax.tree_util.tree_map(lambda x: x[:, t], draws), params), None
    else:
        env_step = compiled(env, "step(0, 0, 0, None)", lambda: jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None))))
        keys = jax.random.split(jax.random.key(seed), (horizon, len(episodes)))

        def step(t, state):
            return env_step(keys[t], state, actions[:, t], params)[:5]

    outs = [step(0, start)]
    for t in range(1, horizon):  # the steps stay on the device until the last: one copy back
        outs.append(step(t, outs[-1][1]))
    order = np.argsort(index[alive])  # the alive steps in the reference's row order

    def in_row_order(*steps):
        """One value per step of every episode, put at the reference row it compares with."""
        return np.stack([np.asarray(x) for x in steps], axis=1)[alive][order]

    obs, states, rewards, terminated, truncated = jax.tree_util.tree_map(in_row_order, *jax.device_get(outs))
    out = (obs, from_jax(ref, states, list(data.next_states)), rewards, terminated, truncated, {})
    checks = _compare(label, ref, data, out, FieldPolicy(atol, max(atol, 1e-6)))
    checks[0].note(f"{len(episodes)} whole episodes")
    return checks


# ---------------------------------------------------------------------------------------------
# distributions


def check_step_distribution(
    env: Any,
    params: Any,
    ref: Reference,
    cases: Sequence[tuple[State, Any]],
    n: int,
    outcome: Callable[[Transitions], list],
    seed: int = 0,
    *,
    label: str = "step",
    support: Callable[[State, Any], set] | None = None,
    continuous: Callable | str | bool = False,
) -> list[Check]:
    """A random step, `n` times from each injected `(state, action)` case on both sides.

    Discrete outcomes from several cases are tested by a chi-square stratified by case.

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference.
        cases: the `(reference state, action)` cases to step from.
        n: how many steps from each case, on each side.
        outcome: `Transitions -> [outcome per row]` (the same function reads both sides: the
            JAX side's next states are read by `from_jax` into the reference's field names).
        seed: the seed of both sides' draws.
        label: the checks' name prefix.
        support: `(state, action) -> set of outcomes` the reference can produce from that case
            (from its definition, not its sample); default: outcomes only one side produced
            are tested as chance (`stats.unseen_outcomes_check`).
        continuous: KS per coordinate instead of chi-square (a support predicate,
            `"unbounded"`, or True).

    Returns:
        The support and distribution checks.
    """
    ref_out, jax_out, ref_cases, jax_cases = [], [], [], []
    for c, (state, action) in enumerate(cases):  # an outcome function may give several outcomes a step
        ref_out += list(outcome(ref.sample_steps(dict(state), action, n, seed + c)))
        jax_out += list(outcome(sample_jax_steps(env, params, ref, dict(state), action, n, seed + c)))
        ref_cases += [c] * (len(ref_out) - len(ref_cases))
        jax_cases += [c] * (len(jax_out) - len(jax_cases))
    if continuous is not False:
        return ks_check(label, np.asarray(jax_out), np.asarray(ref_out), None if continuous is True else continuous)
    allowed = None
    if support is not None:
        allowed = {(c, o) for c, (state, action) in enumerate(cases) for o in support(dict(state), action)}
    support_check = discrete_support_check(label, list(zip(jax_cases, jax_out)), list(zip(ref_cases, ref_out)), allowed)
    return [support_check, stratified_chi_square_check(label, jax_cases, jax_out, ref_cases, ref_out)]


def check_resets(
    env: Any,
    params: Any,
    ref: Reference,
    n: int = 2000,
    seed: int = 0,
    *,
    outcome: Callable[[State, Any], Any] | None = None,
    discrete: bool = False,
    support: Any = None,
    label: str = "reset",
) -> list[Check]:
    """The reset distribution: `n` resets of each side, compared as rows of outcomes.

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference.
        n: how many resets on each side.
        seed: the seed of both sides' resets.
        outcome: `(states, obs) -> rows` (by default every state field but `time`).
        discrete: chi-square of the rows' frequencies; otherwise KS per coordinate.
        support: the reference's support, as `stats.chi_square_check` or `stats.ks_check`
            take it.
        label: the checks' name prefix.

    Returns:
        The support and distribution checks.
    """
    ref_states, ref_obs = ref.sample_resets(n, seed)
    mine, obs = sample_jax_resets(env, params, ref, n, seed, list(ref_states))
    if outcome is None:
        fields = [k for k in ref_states if k != "time"]

        def outcome(s, o):
            return np.concatenate([np.asarray(s[k]).reshape(len(s[k]), -1) for k in fields], axis=1)

    a, b = outcome(mine, obs), outcome(ref_states, ref_obs)
    if discrete:
        a = [tuple(np.ravel(x).tolist()) for x in a]
        b = [tuple(np.ravel(x).tolist()) for x in b]
        return chi_square_check(label, a, b, support)
    return ks_check(label, a, b, support)


def check_episode_statistics(
    env,
    params,
    ref: Reference,
    num_episodes: int = 200,
    seed: int = 0,
    *,
    max_steps: int = 100_000,
    label: str = "random-policy",
    require_end: bool = False,
) -> list[Check]:
    """Episode length and return under uniform random actions, compared by a p-value (`mean_check`).

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference.
        num_episodes: how many episodes on each side.
        seed: the seed of both sides' episodes.
        max_steps: both sides cut an episode here (the JAX side at its time limit too).
        label: the checks' name prefix.
        require_end: no episode of either side may have been cut (a check that fails if one was).

    Returns:
        The length and return checks (and the cut-episodes check with `require_end`).
    """
    ref_len, ref_ret = ref.episode_statistics(num_episodes, seed, max_steps)
    length, ret = jax_episode_statistics(env, params, num_episodes, seed, max_steps)
    checks = [
        mean_check(f"{label} episode length", length, ref_len, seed),
        mean_check(f"{label} episode return", ret, ref_ret, seed + 1),
    ]
    if require_end:
        cut = int(np.sum(length >= max_steps) + np.sum(ref_len >= max_steps))
        name = f"{label} episodes cut at {max_steps} steps"
        checks.append(Check(name, len(length) + len(ref_len), float(cut), 0.0, cut == 0, kind="mismatches"))
    return checks


# ---------------------------------------------------------------------------------------------


def check_reference_fields(env: Any, params: Any, reference: Reference) -> None:
    """A clear error, before any check runs, for a reference whose fields cannot be compared.

    The reference's state (read after a reset) must name only fields the JAX state has (unless
    `from_jax` translates the JAX state), and every field named in `exact_fields`,
    `angle_fields`, `random_fields` and `random_step_fields` must be one of them.

    Args:
        env: the raw JAX env under test.
        params: its params.
        reference: the reference.

    Raises:
        TypeError: `read_state` does not return a dict.
        ValueError: a field the JAX state does not have, or a misspelt field name.
    """
    import difflib

    reference.reset(0)
    fields = set(reference.state())
    if reference.from_jax is None:
        _, template = env.reset(jax.random.key(0), params)
        jax_fields = set(getattr(template, "__dataclass_fields__", ()))
        extra = sorted(fields - jax_fields)
        if jax_fields and extra:
            raise ValueError(
                f"{reference.name}: read_state gives {extra}, which the JAX state ({type(template).__name__}) does "
                f"not have (it has {sorted(jax_fields)}); leave them out of read_state, or give the reference "
                "from_jax= (JAX state -> {field: value}) to translate"
            )
    for option in ("exact_fields", "angle_fields", "random_fields", "random_step_fields"):
        names = getattr(reference, option)
        if names == "*":
            continue
        if isinstance(names, str):
            raise TypeError(f"{reference.name}: {option} must be a sequence of field names (or '*'), got {names!r}")
        known = fields | {"observation", "reward", "terminated"} | ({"time"} if option == "exact_fields" else set())
        unknown = [n for n in names if n not in known]  # `time` is exact_fields' default, for states that have one
        if unknown:
            hints = {n: difflib.get_close_matches(n, sorted(fields), n=1) for n in unknown}
            hint = "; ".join(f"{n!r}: did you mean {h[0]!r}?" for n, h in hints.items() if h)
            raise ValueError(
                f"{reference.name}: {option} names {unknown}, not fields of the reference's state "
                f"{sorted(fields)}" + (f" ({hint})" if hint else "")
            )
