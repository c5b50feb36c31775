"""Parity of the toy-text envs against gymnasium 1.3's `toy_text`.

The references keep their state in plain attributes of the unwrapped env (`s`, Taxi's
`fickle_step`, Blackjack's `player` and `dealer` lists), so states are injected by
assignment. Per env:

- deterministic transitions exactly, by state injection: every (state, action) of the
  non-slippery FrozenLake map (and a random custom map with its own reward schedule), of
  CliffWalking and of the dry Taxi (next observation, reward, terminated, `prob`, Taxi's
  `action_mask`), plus the harness's `check_transitions` along random-policy runs (time
  limit and truncation included); Blackjack's stick rewards where the dealer draws nothing,
  under each rule setting;
- stochastic transitions by distribution (chi-square, harness threshold): from injected
  states, many next states from both: slippery moves (FrozenLake at the default and a
  custom `success_rate`, CliffWalkingSlippery), Taxi's rain and fickle passenger,
  Blackjack's hits and the dealer's draws;
- reset distributions (Taxi's 300 starts, its fickle draw, Blackjack's deals, FrozenLake's
  start cells on a map with two);
- random-policy episode length and return within 3 standard errors (CliffWalking's
  ~7,000-step random walks compared over their first 1,000 steps, the same cap on both; the
  rainy fickle Taxi and Blackjack's natural rules too, from `scale` 0.25 up).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.parity import _gymnasium as gym_utils
from jaxenvs.parity.harness import (
    P_THRESHOLD,
    Check,
    ParityResult,
    Reference,
    Timer,
    check_episode_statistics,
    check_reset_distribution,
    check_transitions,
    chi_square_check,
    error_check,
    exact_check,
    jax_episode_statistics,
    mean_check,
    reference_episode_statistics,
)

IDS = (
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "Taxi-v4",
    "CliffWalking-v1",
    "CliffWalkingSlippery-v1",
    "Blackjack-v1",
)

# Below this scale (the tests' CI sizes) the random-policy statistics of the option variants
# (rainy and fickle Taxi, Blackjack's natural rules) are left out: each costs a compile of a
# whole-episode scan, and those options are checked transition by transition anyway.
VARIANT_STATISTICS_SCALE = 0.25

# ---------------------------------------------------------------------------------------------
# shared machinery


@functools.lru_cache(maxsize=32)
def _batched_step(env: Any) -> Callable:
    """One jitted, vmapped step per env object, so that checks sharing an env share its compiles."""
    return jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))


def _jax_step(env: Any, params: Any, states: Any, actions: Sequence[int], seed: int):
    """Step a batched JAX state with the given actions (one key each); numpy outputs."""
    keys = jax.random.split(jax.random.key(seed), len(actions))
    out = _batched_step(env)(keys, states, jnp.asarray(actions, jnp.int32), params)
    return jax.tree_util.tree_map(np.asarray, out)


def _raw(env_id: str, **overrides: Any):
    return jaxenvs.make(env_id, autoreset=False, **overrides)


def _unwrapped_reference(env_id: str, seed: int, **kwargs: Any) -> Any:
    ref = gym_utils.make(env_id, **kwargs).unwrapped
    ref.reset(seed=seed)
    return ref


def _sample_both(
    label: str,
    env: Any,
    params: Any,
    ref: Any,
    cases: Sequence[tuple[Any, int]],
    n_per: int,
    seed: int,
    inject: Callable[[Any, Any], None],
    to_jax: Callable[[list], Any],
    ref_outcome: Callable[[Any, tuple], tuple],
    jax_outcome: Callable[[tuple, int], tuple],
    support: Callable[[Any, Any, int], set],
) -> list[Check]:
    """From each injected `(state, action)` case, `n_per` next outcomes from both.

    Support: every JAX outcome must be one the reference can produce from that case, taken
    from the reference itself (`support(ref, state, action)`: its transition table, or every
    branch of its random draws), not from its finite sample. Frequencies: a chi-square
    stratified by case (`_stratified_chi_square`)."""
    ref_samples = []
    for state, action in cases:
        for _ in range(n_per):
            inject(ref, state)
            out = ref.step(action)
            ref_samples.append((repr(state), action) + ref_outcome(ref, out))
    states = to_jax([state for state, _ in cases for _ in range(n_per)])
    actions = [action for _, action in cases for _ in range(n_per)]
    out = _jax_step(env, params, states, actions, seed)
    jax_samples = [
        (repr(cases[i // n_per][0]), cases[i // n_per][1]) + jax_outcome(out, i) for i in range(len(actions))
    ]
    allowed = set()
    for state, action in cases:
        allowed |= {(repr(state), action) + o for o in support(ref, state, action)}
    outside = [x for x in jax_samples if x not in allowed]
    support_check = Check(
        f"{label} support",
        len(jax_samples),
        float(len(outside)),
        0.0,
        not outside,
        kind="mismatches",
        detail=(
            f"outside: {sorted(set(outside), key=str)[:3]}"
            if outside
            else f"{len(allowed)} outcomes the reference can produce"
        ),
    )
    return [support_check, _stratified_chi_square(f"{label} frequencies", jax_samples, ref_samples)]


def _stratified_chi_square(name: str, jax_samples: Sequence[tuple], ref_samples: Sequence[tuple]) -> Check:
    """Two-sample chi-square of outcome frequencies, one contingency table per case (the
    first two entries of each sample), summed: statistic and degrees of freedom add up.

    Pooling every case into one table would count the per-case totals, equal by design, as
    degrees of freedom, and make the test conservative. Within a case, outcomes with fewer
    than 10 samples in all are pooled, as in the harness's `chi_square_check`."""
    from scipy import stats

    by_case: dict[tuple, list[dict]] = {}
    for side, samples in enumerate((jax_samples, ref_samples)):
        for x in samples:
            counts = by_case.setdefault(x[:2], [{}, {}])[side]
            counts[x[2:]] = counts.get(x[2:], 0) + 1
    statistic, dof = 0.0, 0
    for jax_counts, ref_counts in by_case.values():
        outcomes = sorted(set(jax_counts) | set(ref_counts), key=lambda o: jax_counts.get(o, 0) + ref_counts.get(o, 0))
        bins, acc = [], [0, 0]
        for o in outcomes:
            acc = [acc[0] + jax_counts.get(o, 0), acc[1] + ref_counts.get(o, 0)]
            if sum(acc) >= 10:
                bins.append(acc)
                acc = [0, 0]
        if sum(acc) and bins:
            bins[-1] = [bins[-1][0] + acc[0], bins[-1][1] + acc[1]]
        if len(bins) >= 2:
            statistic += float(stats.chi2_contingency(np.array(bins).T, correction=False)[0])
            dof += len(bins) - 1
    p = float(stats.chi2.sf(statistic, dof)) if dof else 1.0
    return Check(
        name,
        len(jax_samples),
        p,
        P_THRESHOLD,
        p >= P_THRESHOLD,
        kind="p-value",
        detail=f"chi-square stratified by case: {statistic:.1f} on {dof} degrees of freedom",
    )


def _table_support(outcome: Callable[[tuple], tuple]) -> Callable[[Any, Any, int], set]:
    """The support of a reference with a transition table `P[s][a] = [(p, s', r, t), ...]`."""

    def support(ref: Any, state: Any, action: int) -> set:
        s = state[0] if isinstance(state, tuple) else state
        return {outcome(entry) for entry in ref.P[s][action] if entry[0] > 0}

    return support


class _ScriptedRandom:
    """Stands in for a reference's `np_random` so that each of its `choice` draws can be
    forced: `script[i]` picks the i-th call's outcome among the distinct options (each with
    its multiplicity). `random()` answers 0.5, enough for a categorical over one outcome."""

    def __init__(self, script: Sequence[int]):
        self.script = list(script)
        self.calls: list[tuple[list[Any], list[int]]] = []

    def choice(self, options: Sequence[Any]) -> Any:
        values, counts = [], []
        for o in list(options):
            if o in values:
                counts[values.index(o)] += 1
            else:
                values.append(o)
                counts.append(1)
        i = len(self.calls)
        self.calls.append((values, counts))
        return values[self.script[i] if i < len(self.script) else 0]

    def random(self) -> float:
        return 0.5


def _enumerated_support(inject: Callable[[Any, Any], None], outcome: Callable[[Any, tuple], tuple]):
    """The support of a reference step whose randomness is `np_random.choice` draws: the step
    is replayed once per sequence of picks (depth-first), by the reference's own code."""

    def support(ref: Any, state: Any, action: int) -> set:
        saved = ref._np_random
        found = set()
        stack: list[list[int]] = [[]]
        try:
            while stack:
                script = stack.pop()
                rng = _ScriptedRandom(script)
                ref._np_random = rng
                inject(ref, state)
                out = ref.step(action)
                if len(rng.calls) > len(script):  # an unforced draw: branch on it
                    stack += [script + [k] for k in range(len(rng.calls[len(script)][0]))]
                else:
                    found.add(outcome(ref, out))
        finally:
            ref._np_random = saved
        return found

    return support


def _capped_episode_statistics(
    env: Any, params: Any, make_reference: Callable[[], Any], n: int, seed: int, max_steps: int
) -> list[Check]:
    """Random-policy length and return over each episode's first `max_steps` steps, for envs
    gymnasium registers without a time limit (both sides stop at the same cap)."""
    ref_len, ref_ret = reference_episode_statistics(make_reference, n, seed, max_steps=max_steps)
    length, ret = jax_episode_statistics(env, params, n, seed, max_steps=max_steps)
    return [
        mean_check(f"random-policy episode length (first {max_steps} steps)", length, ref_len),
        mean_check(f"random-policy episode return (first {max_steps} steps)", ret, ref_ret),
    ]


# ---------------------------------------------------------------------------------------------
# FrozenLake and CliffWalking: one integer cell `s`


def _cell_reference(env_id: str, state_cls: Any, timed: bool, **kwargs: Any) -> Reference:
    def get_state(env: Any) -> dict[str, Any]:
        out = {"s": np.int32(env.unwrapped.s)}
        if timed:  # CliffWalking has no TimeLimit: its JAX time is compared against nothing
            out["time"] = np.int32(gym_utils.elapsed_steps(env))
        return out

    def set_state(env: Any, state: dict[str, Any]) -> None:
        env.unwrapped.s = int(state["s"])
        gym_utils.set_elapsed_steps(env, int(state.get("time", 0)))

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        return state_cls(time=jnp.asarray(state.get("time", 0), jnp.int32), s=jnp.asarray(state["s"], jnp.int32))

    return Reference(
        make=lambda: gym_utils.make(env_id, **kwargs),
        get_state=get_state,
        set_state=set_state,
        to_jax=to_jax,
        exact_fields=("s", "time"),
        name=f"gymnasium {env_id}",
    )


def _cells(state_cls: Any, cells: Sequence[int]) -> Any:
    """A batch of FrozenLake or CliffWalking states at the given cells."""
    cells = jnp.asarray(np.asarray(cells, np.int32))
    return state_cls(time=jnp.zeros_like(cells), s=cells)


def _cell_exact(label: str, env: Any, params: Any, ref: Any, state_cls: Any, num_cells: int, seed: int):
    """Every (cell, action) of a deterministic grid, stepped in both."""
    cases = [(s, a) for s in range(num_cells) for a in range(4)]
    ref_obs, ref_reward, ref_term, ref_prob = [], [], [], []
    for s, a in cases:
        ref.s = s
        o, r, te, _, info = ref.step(a)
        ref_obs.append(o)
        ref_reward.append(r)
        ref_term.append(te)
        ref_prob.append(info["prob"])
    states = _cells(state_cls, [s for s, _ in cases])
    obs, _, reward, terminated, _, info = _jax_step(env, params, states, [a for _, a in cases], seed)
    return [
        error_check(f"{label} next cell", obs, ref_obs, 0.0),
        error_check(f"{label} reward", reward, ref_reward, 0.0),
        exact_check(f"{label} terminated", terminated, np.asarray(ref_term)),
        error_check(f"{label} prob", info["prob"], ref_prob, 1e-7),
    ]


def _cell_distribution(
    label: str, env: Any, params: Any, ref: Any, state_cls: Any, cells: Sequence[int], n_per: int, seed: int
) -> list[Check]:
    def inject(r, s):
        r.s = s

    return _sample_both(
        label,
        env,
        params,
        ref,
        [(s, a) for s in cells for a in range(4)],
        n_per,
        seed,
        inject=inject,
        to_jax=lambda cells: _cells(state_cls, cells),
        ref_outcome=lambda r, out: (int(out[0]), float(out[1]), bool(out[2])),
        jax_outcome=lambda out, i: (int(out[0][i]), float(out[2][i]), bool(out[3][i])),
        support=_table_support(lambda entry: (int(entry[1]), float(entry[2]), bool(entry[3]))),
    )


def _frozen_lake(env_id: str, scale: float, seed: int) -> list[Check]:
    from jaxenvs.envs.toy_text import frozen_lake

    State = frozen_lake.FrozenLakeState
    checks: list[Check] = []
    env, params = _raw(env_id)
    desc = params.desc
    num_cells = len(desc) * len(desc[0])
    live = [s for s in range(num_cells) if desc[s // len(desc[0])][s % len(desc[0])] in "SF"]
    n_per = max(60, int(150 * scale))

    # deterministic: every (cell, action) without slipping; then random-policy runs
    dry_env, dry_params = _raw(env_id, is_slippery=False)
    ref = _unwrapped_reference(env_id, seed, is_slippery=False)
    checks += _cell_exact("non-slippery", dry_env, dry_params, ref, State, num_cells, seed)
    ref_dry = _cell_reference(env_id, State, timed=True, is_slippery=False)
    checks += check_transitions(
        dry_env, dry_params, ref_dry, max(200, int(2000 * scale)), 0.0, seed, label="non-slippery step"
    )
    # slippery moves by distribution
    ref = _unwrapped_reference(env_id, seed + 1)
    checks += _cell_distribution("slippery step", env, params, ref, State, live, n_per, seed + 1)
    checks += check_reset_distribution(
        env, params, _cell_reference(env_id, State, timed=True), max(100, int(1000 * scale)), seed, discrete=True
    )
    if env_id == "FrozenLake-v1":
        # a custom map, success rate and reward schedule, as gymnasium's kwargs
        custom = dict(
            desc=frozen_lake.generate_random_map(5, p=0.75, seed=seed),
            success_rate=0.6,
            reward_schedule=(2.0, -1.0, -0.25),
        )
        c_env, c_params = _raw(env_id, is_slippery=False, **custom)
        ref = _unwrapped_reference(env_id, seed, is_slippery=False, **custom)
        checks += _cell_exact("custom map", c_env, c_params, ref, State, 25, seed)
        c_env, c_params = _raw(env_id, **custom)
        c_live = [s for s in range(25) if custom["desc"][s // 5][s % 5] in "SF"]
        ref = _unwrapped_reference(env_id, seed + 2, **custom)
        checks += _cell_distribution("custom map slippery step", c_env, c_params, ref, State, c_live, n_per, seed + 2)
        # a map with two start cells: the start is drawn between them
        two_starts = ("SFFS", "FHFH", "FFFH", "HFFG")
        s_env, s_params = _raw(env_id, desc=two_starts)
        checks += check_reset_distribution(
            s_env,
            s_params,
            _cell_reference(env_id, State, timed=True, desc=list(two_starts)),
            max(200, int(1000 * scale)),
            seed,
            discrete=True,
        )
        checks[-2].name, checks[-1].name = "two-start reset support", "two-start reset frequencies"
    checks += check_episode_statistics(env, params, lambda: gym_utils.make(env_id), max(100, int(1000 * scale)), seed)
    return checks


def _cliff_walking(env_id: str, scale: float, seed: int) -> list[Check]:
    from jaxenvs.envs.toy_text import cliff_walking

    State = cliff_walking.CliffWalkingState
    checks: list[Check] = []
    env, params = _raw(env_id)
    if params.is_slippery:
        ref = _unwrapped_reference(env_id, seed)
        checks += _cell_distribution(
            "slippery step", env, params, ref, State, range(48), max(40, int(120 * scale)), seed
        )
    else:
        ref = _unwrapped_reference(env_id, seed)
        checks += _cell_exact("step", env, params, ref, State, 48, seed)
        checks += check_transitions(
            env,
            params,
            _cell_reference(env_id, State, timed=False),
            max(200, int(2000 * scale)),
            0.0,
            seed,
            label="random-policy step",
        )
    checks += check_reset_distribution(
        env, params, _cell_reference(env_id, State, timed=False), max(50, int(200 * scale)), seed, discrete=True
    )
    checks += _capped_episode_statistics(
        env, params, lambda: gym_utils.make(env_id), max(30, int(400 * scale)), seed, max_steps=1000
    )
    return checks


# ---------------------------------------------------------------------------------------------
# Taxi: gymnasium's encoded `s` plus `fickle_step`


def _taxi_to_jax(s: Any, fickle_step: Any = False, time: Any = 0) -> Any:
    """Taxi states (batched if the arguments are arrays) from gymnasium's `s` and `fickle_step`."""
    from jaxenvs.envs.toy_text import taxi

    s = jnp.asarray(s, jnp.int32)
    row, col, pass_loc, dest = taxi.decode(s)
    return taxi.TaxiState(
        time=jnp.broadcast_to(jnp.asarray(time, jnp.int32), s.shape),
        taxi_row=row,
        taxi_col=col,
        pass_loc=pass_loc,
        dest_idx=dest,
        fickle_step=jnp.broadcast_to(jnp.asarray(fickle_step, bool), s.shape),
    )


def _taxi_batch(states: list[tuple[int, bool]]) -> Any:
    return _taxi_to_jax(np.array([st[0] for st in states]), np.array([st[1] for st in states]))


def _taxi_reference(**kwargs: Any) -> Reference:
    from jaxenvs.envs.toy_text import taxi

    def get_state(env: Any) -> dict[str, Any]:
        u = env.unwrapped
        return {
            "s": np.int32(u.s),
            "fickle_step": np.bool_(u.fickle_step),
            "time": np.int32(gym_utils.elapsed_steps(env)),
        }

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        return _taxi_to_jax(state["s"], state["fickle_step"], state["time"])

    def from_jax(state: Any) -> dict[str, Any]:
        return {"s": taxi.Taxi.get_obs(state), "fickle_step": state.fickle_step, "time": state.time}

    return Reference(
        make=lambda: gym_utils.make("Taxi-v4", **kwargs),
        get_state=get_state,
        to_jax=to_jax,
        from_jax=from_jax,
        exact_fields=("s", "fickle_step", "time"),
        name="gymnasium Taxi-v4",
    )


def _taxi(env_id: str, scale: float, seed: int) -> list[Check]:
    checks: list[Check] = []
    env, params = _raw(env_id)

    # every (state, action) of the dry taxi, with the action mask
    ref = _unwrapped_reference(env_id, seed)
    cases = [(s, a) for s in range(500) for a in range(6)]
    ref_rows = []
    for s, a in cases:
        ref.s = s
        o, r, te, _, info = ref.step(a)
        ref_rows.append((o, r, te, info["prob"], info["action_mask"]))
    obs, _, reward, terminated, _, info = _jax_step(
        env, params, _taxi_to_jax(np.array([s for s, _ in cases])), [a for _, a in cases], seed
    )
    checks += [
        error_check("step next state", obs, [x[0] for x in ref_rows], 0.0),
        error_check("step reward", reward, [x[1] for x in ref_rows], 0.0),
        exact_check("step terminated", terminated, np.asarray([x[2] for x in ref_rows])),
        error_check("step prob", info["prob"], [x[3] for x in ref_rows], 0.0),
        exact_check("step action_mask", info["action_mask"].astype(np.int8), np.stack([x[4] for x in ref_rows])),
    ]
    checks += check_transitions(
        env, params, _taxi_reference(), max(200, int(2000 * scale)), 0.0, seed, label="random-policy step"
    )

    rng = np.random.default_rng(seed)

    def inject(r, state):
        r.s, r.fickle_step = state

    # rain: every move from a random subset of states
    rain_env, rain_params = _raw(env_id, is_rainy=True)
    ref = _unwrapped_reference(env_id, seed + 1, is_rainy=True)
    states = rng.choice(500, size=max(25, int(250 * scale)), replace=False)
    checks += _sample_both(
        "rainy step",
        rain_env,
        rain_params,
        ref,
        [((int(s), False), a) for s in states for a in range(4)],
        max(40, int(60 * scale)),
        seed + 1,
        inject=inject,
        to_jax=_taxi_batch,
        ref_outcome=lambda r, out: (int(out[0]), float(out[1]), round(float(out[4]["prob"]), 6)),
        jax_outcome=lambda out, i: (int(out[0][i]), float(out[2][i]), round(float(out[5]["prob"][i]), 6)),
        support=_table_support(lambda entry: (int(entry[1]), float(entry[2]), round(float(entry[0]), 6))),
    )

    # the fickle passenger: aboard, not yet changed their mind, the taxi moves (or not)
    def fickle_outcome(r, out):
        return int(out[0]), float(out[1]), bool(r.fickle_step)

    fickle_env, fickle_params = _raw(env_id, fickle_passenger=True)
    ref = _unwrapped_reference(env_id, seed + 2, fickle_passenger=True)
    aboard = [((row * 5 + col) * 5 + 4) * 4 + dest for row in range(5) for col in range(5) for dest in range(4)]
    picked = rng.choice(aboard, size=max(20, int(100 * scale)), replace=False)
    checks += _sample_both(
        "fickle step",
        fickle_env,
        fickle_params,
        ref,
        [((int(s), True), a) for s in picked for a in range(6)],
        max(20, int(40 * scale)),
        seed + 2,
        inject=inject,
        to_jax=_taxi_batch,
        ref_outcome=fickle_outcome,
        jax_outcome=lambda out, i: (int(out[0][i]), float(out[2][i]), bool(out[1].fickle_step[i])),
        support=_enumerated_support(inject, fickle_outcome),
    )
    # resets: the 300 starts, and whether the passenger is fickle
    checks += check_reset_distribution(
        env, params, _taxi_reference(), max(1500, int(6000 * scale)), seed, discrete=True
    )
    n = max(500, int(2000 * scale))
    ref_fickle = _taxi_reference(fickle_passenger=True)
    from jaxenvs.parity.harness import sample_jax_resets, sample_reference_resets

    ref_resets = sample_reference_resets(ref_fickle, n, seed)
    jax_resets = sample_jax_resets(fickle_env, fickle_params, ref_fickle, ["fickle_step"], n, seed)
    checks += chi_square_check("fickle reset", jax_resets["fickle_step"].tolist(), ref_resets["fickle_step"].tolist())

    n_ep = max(50, int(300 * scale))
    checks += check_episode_statistics(env, params, lambda: gym_utils.make(env_id), n_ep, seed)
    if scale < VARIANT_STATISTICS_SCALE:
        return checks
    both_env, both_params = _raw(env_id, is_rainy=True, fickle_passenger=True)
    stats = check_episode_statistics(
        both_env, both_params, lambda: gym_utils.make(env_id, is_rainy=True, fickle_passenger=True), n_ep, seed
    )
    for c in stats:
        c.name = "rainy fickle " + c.name
    return checks + stats


# ---------------------------------------------------------------------------------------------
# Blackjack: the hands as gymnasium's lists


def _blackjack_to_jax(hands: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> Any:
    """A batch of Blackjack states from gymnasium's hands `(player, dealer)`."""
    from jaxenvs.envs.toy_text import blackjack

    def column(f, dtype=np.int32):
        return jnp.asarray(np.array([f(player, dealer) for player, dealer in hands], dtype))

    return blackjack.BlackjackState(
        time=column(lambda p, d: 0),
        player_sum=column(lambda p, d: sum(p)),
        player_has_ace=column(lambda p, d: 1 in p, bool),
        player_num_cards=column(lambda p, d: len(p)),
        dealer_card=column(lambda p, d: d[0]),
        dealer_sum=column(lambda p, d: sum(d)),
        dealer_has_ace=column(lambda p, d: 1 in d, bool),
        dealer_num_cards=column(lambda p, d: len(d)),
    )


def _inject_hands(ref: Any, hands: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    ref.player, ref.dealer = list(hands[0]), list(hands[1])


def _dealer_value(dealer: Sequence[int]) -> int:
    total = sum(dealer)
    return total + 10 if 1 in dealer and total + 10 <= 21 else total


RULES = {
    "sab": dict(sab=True, natural=False),
    "plain": dict(sab=False, natural=False),
    "natural": dict(sab=False, natural=True),
}


def _blackjack(env_id: str, scale: float, seed: int) -> list[Check]:
    checks: list[Check] = []
    env, params = _raw(env_id)

    # stick where the dealer draws nothing: the reward is the rules' alone, compared exactly
    players = [(1, 10), (10, 1), (10, 10), (10, 9), (5, 6, 10), (1, 5, 5), (10, 5, 10), (7, 7, 7), (2, 3)]
    dealers = [(1, 10), (10, 7), (10, 10), (1, 6), (5, 6, 10), (10, 2, 10), (9, 9), (1, 1, 5)]
    cases = [((p, d), 0) for p in players for d in dealers]
    for rule, kwargs in RULES.items():
        ref = _unwrapped_reference(env_id, seed, **kwargs)
        ref_rows = []
        for hands, action in cases:
            _inject_hands(ref, hands)
            o, r, te, _, _ = ref.step(action)
            ref_rows.append((o, r, te))
        obs, _, reward, terminated, _, _ = _jax_step(
            env, params.replace(**kwargs), _blackjack_to_jax([h for h, _ in cases]), [a for _, a in cases], seed
        )
        checks += [
            error_check(f"stick ({rule} rules) reward", reward, [x[1] for x in ref_rows], 0.0),
            error_check(
                f"stick ({rule} rules) observation", np.stack(obs, axis=1), np.asarray([x[0] for x in ref_rows]), 0.0
            ),
            exact_check(f"stick ({rule} rules) terminated", terminated, np.asarray([x[2] for x in ref_rows])),
        ]

    # card draws: hits, and sticks with the dealer drawing
    def hit_outcome(r, out):
        return tuple(int(x) for x in out[0]) + (float(out[1]), bool(out[2]))

    def stick_outcome(r, out):
        return float(out[1]), _dealer_value(r.dealer), len(r.dealer)

    hit_hands = [
        ((2, 3), (10, 5)),
        ((1, 5), (1, 9)),
        ((10, 6), (7, 10)),
        ((1, 1), (2, 2)),
        ((9, 2), (6, 6)),
        ((10, 1, 9), (4, 3)),
    ]
    ref = _unwrapped_reference(env_id, seed + 1)
    checks += _sample_both(
        "hit",
        env,
        params,
        ref,
        [(h, 1) for h in hit_hands],
        max(100, int(500 * scale)),
        seed + 1,
        inject=_inject_hands,
        to_jax=_blackjack_to_jax,
        ref_outcome=hit_outcome,
        jax_outcome=lambda out, i: tuple(int(x[i]) for x in out[0]) + (float(out[2][i]), bool(out[3][i])),
        support=_enumerated_support(_inject_hands, hit_outcome),
    )
    stick_hands = [((10, 8), (10, 6)), ((10, 10), (2, 2)), ((1, 10), (1, 5)), ((9, 9), (1, 1)), ((7, 8), (10, 3))]
    ref = _unwrapped_reference(env_id, seed + 2)
    checks += _sample_both(
        "stick with dealer draws",
        env,
        params,
        ref,
        [(h, 0) for h in stick_hands],
        max(100, int(600 * scale)),
        seed + 2,
        inject=_inject_hands,
        to_jax=_blackjack_to_jax,
        ref_outcome=stick_outcome,
        jax_outcome=lambda out, i: (
            float(out[2][i]),
            int(out[1].dealer_sum[i] + 10 * (out[1].dealer_has_ace[i] and out[1].dealer_sum[i] + 10 <= 21)),
            int(out[1].dealer_num_cards[i]),
        ),
        support=_enumerated_support(_inject_hands, stick_outcome),
    )

    # the deal: the player's two cards and the dealer's two (one showing)
    n = max(1000, int(5000 * scale))
    ref = gym_utils.make(env_id)
    ref_player, ref_dealer = [], []
    for i in range(n):
        ref.reset(seed=seed + i)
        u = ref.unwrapped
        ref_player.append((sum(u.player), 1 in u.player))
        ref_dealer.append((u.dealer[0], sum(u.dealer), 1 in u.dealer))
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(seed), n), params)
    states = jax.tree_util.tree_map(np.asarray, states)
    jax_player = list(zip(states.player_sum.tolist(), states.player_has_ace.tolist()))
    jax_dealer = list(zip(states.dealer_card.tolist(), states.dealer_sum.tolist(), states.dealer_has_ace.tolist()))
    checks += chi_square_check("reset player hand", jax_player, ref_player)
    checks += chi_square_check("reset dealer hand", jax_dealer, ref_dealer)
    checks.append(
        exact_check(
            "reset hand sizes", np.stack([states.player_num_cards, states.dealer_num_cards]), np.full((2, n), 2)
        )
    )

    # random-policy episodes (at most 11 steps; gymnasium has no time limit)
    n_ep = max(500, int(4000 * scale))
    checks += _capped_episode_statistics(env, params, lambda: gym_utils.make(env_id), n_ep, seed, max_steps=32)
    if scale < VARIANT_STATISTICS_SCALE:
        return checks
    nat_env, nat_params = _raw(env_id, **RULES["natural"])
    stats = _capped_episode_statistics(
        nat_env, nat_params, lambda: gym_utils.make(env_id, **RULES["natural"]), n_ep, seed + 1, max_steps=32
    )
    for c in stats:
        c.name = "natural rules " + c.name
    return checks + stats


_RUNNERS = {
    "FrozenLake-v1": _frozen_lake,
    "FrozenLake8x8-v1": _frozen_lake,
    "Taxi-v4": _taxi,
    "CliffWalking-v1": _cliff_walking,
    "CliffWalkingSlippery-v1": _cliff_walking,
    "Blackjack-v1": _blackjack,
}


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    import gymnasium  # noqa: F401  (a missing reference makes the result "skipped")

    result = ParityResult(env_id, f"gymnasium {env_id} (toy_text)")
    with Timer() as timer:
        result.checks += _RUNNERS[env_id](env_id, scale, seed)
    result.seconds = timer.seconds
    return result
