"""Parity of the toy-text envs against gymnasium 1.3's `toy_text`, through `GymnasiumReference`.

The references keep their state in plain attributes of the unwrapped env (`s`, Taxi's
`fickle_step`, Blackjack's `player` and `dealer` lists), read and written by assignment.
Per env:

- deterministic transitions exactly, by state injection: every (state, action) of the
  non-slippery FrozenLake map (and a random custom map with its own reward schedule), of
  CliffWalking and of the dry Taxi (next state, observation, reward, terminated, `prob`,
  Taxi's `action_mask`), plus random-policy runs (time limit and truncation included);
  Blackjack's sticks where the dealer draws nothing, under each rule setting;
- stochastic transitions by distribution (chi-square stratified by case): from injected
  states, many next states from both: slippery moves (FrozenLake at the default and a
  custom `success_rate`, CliffWalkingSlippery), Taxi's rain and fickle passenger,
  Blackjack's hits and the dealer's draws. Every JAX outcome must be one the reference can
  produce: read from its transition table `P`, or found by replaying its step once per
  branch of its `np_random.choice` draws (`_enumerated_support`);
- reset distributions (Taxi's 300 starts, its fickle draw, Blackjack's deals, FrozenLake's
  start cells on a map with two);
- random-policy episode length and return compared by a p-value (`mean_check`) (CliffWalking's
  ~7,000-step random walks compared over their first 1,000 steps, the same cap on both; the
  rainy fickle Taxi and Blackjack's natural rules too, from `scale` 0.25 up).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.parity.checks import Check, ParityResult, Timer, rows
from jaxenvs.parity.harness import (
    check_episode_statistics,
    check_resets,
    check_step_distribution,
    check_transitions,
)
from jaxenvs.parity.reference import GymnasiumReference, Transitions, elapsed_steps, set_elapsed_steps

# Below this scale (the tests' CI sizes) the random-policy statistics of the option variants
# (rainy and fickle Taxi, Blackjack's natural rules) are left out: each costs a compile of a
# whole-episode scan, and those options are checked transition by transition anyway.
VARIANT_STATISTICS_SCALE = 0.25


def _raw(env_id: str, **overrides: Any):
    return jaxenvs.make(env_id, autoreset=False, **overrides)


def _reference(env_id: str, read_state, write_state, to_jax, exact_fields, **kwargs: Any) -> GymnasiumReference:
    import gymnasium

    return GymnasiumReference(
        make=lambda: gymnasium.make(env_id, disable_env_checker=True, **kwargs),
        read_state=read_state,
        write_state=write_state,
        to_jax=to_jax,
        exact_fields=exact_fields,
        name=f"gymnasium {env_id}",
    )


# ---------------------------------------------------------------------------------------------
# supports: what the reference can produce from a case


def _table_support(ref: GymnasiumReference, outcome: Callable[[tuple], tuple]) -> Callable[[dict, int], set]:
    """The support of a reference with a transition table `P[s][a] = [(p, s', r, t), ...]`."""

    def support(state: dict, action: int) -> set:
        if ref.env is None:
            ref.reset(0)
        return {outcome(entry) for entry in ref.env.unwrapped.P[int(state["s"])][int(action)] if entry[0] > 0}

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


def _enumerated_support(ref: GymnasiumReference, outcome: Callable[[Transitions], list]):
    """The support of a reference step whose randomness is `np_random.choice` draws: the step
    is replayed once per sequence of picks (depth-first), by the reference's own code."""

    def support(state: dict, action: int) -> set:
        if ref.env is None:
            ref.reset(0)
        u = ref.env.unwrapped
        saved = u._np_random
        found = set()
        stack: list[list[int]] = [[]]
        try:
            while stack:
                script = stack.pop()
                rng = _ScriptedRandom(script)
                u._np_random = rng
                out = ref.step_cases([(state, action)])
                if len(rng.calls) > len(script):  # an unforced draw: branch on it
                    stack += [script + [k] for k in range(len(rng.calls[len(script)][0]))]
                else:
                    found.add(outcome(out)[0])
        finally:
            u._np_random = saved
        return found

    return support


def _obs_reward_terminated(t: Transitions) -> list[tuple]:
    return rows(t.obs, t.rewards, t.terminated)


# ---------------------------------------------------------------------------------------------
# FrozenLake and CliffWalking: one integer cell `s`


def _cell_reference(env_id: str, state_cls: Any, timed: bool, **kwargs: Any) -> GymnasiumReference:
    def read_state(env: Any) -> dict[str, Any]:
        out = {"s": np.int32(env.unwrapped.s)}
        if timed:  # CliffWalking has no TimeLimit: its JAX time is compared against nothing
            out["time"] = np.int32(elapsed_steps(env))
        return out

    def write_state(env: Any, state: dict[str, Any]) -> None:
        env.unwrapped.s = int(state["s"])
        set_elapsed_steps(env, int(state.get("time", 0)))

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        return state_cls(time=jnp.asarray(state.get("time", 0), jnp.int32), s=jnp.asarray(state["s"], jnp.int32))

    return _reference(env_id, read_state, write_state, to_jax, ("s", "time"), **kwargs)


def _every_cell(label: str, env: Any, params: Any, ref: GymnasiumReference, num_cells: int) -> list[Check]:
    """Every (cell, action) of a deterministic grid, stepped in both."""
    cases = [({"s": np.int32(s)}, a) for s in range(num_cells) for a in range(4)]
    return check_transitions(env, params, ref, data=ref.step_cases(cases), label=label, info_fields=("prob",))


def _cell_distribution(
    label: str, env: Any, params: Any, ref: GymnasiumReference, cells: Sequence[int], n_per: int, seed: int
) -> list[Check]:
    return check_step_distribution(
        env,
        params,
        ref,
        [({"s": np.int32(s)}, a) for s in cells for a in range(4)],
        n_per,
        _obs_reward_terminated,
        seed,
        label=label,
        support=_table_support(ref, lambda entry: (int(entry[1]), float(entry[2]), bool(entry[3]))),
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
    ref_dry = _cell_reference(env_id, State, timed=True, is_slippery=False)
    checks += _every_cell("non-slippery", dry_env, dry_params, ref_dry, num_cells)
    checks += check_transitions(
        dry_env, dry_params, ref_dry, max(200, int(2000 * scale)), 0.0, seed, label="non-slippery step"
    )
    # slippery moves by distribution
    ref = _cell_reference(env_id, State, timed=True)
    checks += _cell_distribution("slippery step", env, params, ref, live, n_per, seed + 1)
    checks += check_resets(env, params, ref, max(100, int(1000 * scale)), seed, discrete=True)
    if env_id == "FrozenLake-v1":
        # a custom map, success rate and reward schedule, as gymnasium's kwargs
        custom = dict(
            desc=frozen_lake.generate_random_map(5, p=0.75, seed=seed),
            success_rate=0.6,
            reward_schedule=(2.0, -1.0, -0.25),
        )
        c_env, c_params = _raw(env_id, is_slippery=False, **custom)
        checks += _every_cell(
            "custom map", c_env, c_params, _cell_reference(env_id, State, timed=True, is_slippery=False, **custom), 25
        )
        c_env, c_params = _raw(env_id, **custom)
        c_live = [s for s in range(25) if custom["desc"][s // 5][s % 5] in "SF"]
        c_ref = _cell_reference(env_id, State, timed=True, **custom)
        checks += _cell_distribution("custom map slippery step", c_env, c_params, c_ref, c_live, n_per, seed + 2)
        # a map with two start cells: the start is drawn between them
        two_starts = ("SFFS", "FHFH", "FFFH", "HFFG")
        s_env, s_params = _raw(env_id, desc=two_starts)
        s_ref = _cell_reference(env_id, State, timed=True, desc=list(two_starts))
        checks += check_resets(
            s_env, s_params, s_ref, max(200, int(1000 * scale)), seed, discrete=True, label="two-start reset"
        )
    checks += check_episode_statistics(env, params, ref, max(100, int(1000 * scale)), seed)
    return checks


def _cliff_walking(env_id: str, scale: float, seed: int) -> list[Check]:
    from jaxenvs.envs.toy_text import cliff_walking

    State = cliff_walking.CliffWalkingState
    checks: list[Check] = []
    env, params = _raw(env_id)
    ref = _cell_reference(env_id, State, timed=False)
    if params.is_slippery:
        checks += _cell_distribution("slippery step", env, params, ref, range(48), max(40, int(120 * scale)), seed)
    else:
        checks += _every_cell("step", env, params, ref, 48)
        checks += check_transitions(
            env, params, ref, max(200, int(2000 * scale)), 0.0, seed, label="random-policy step"
        )
    checks += check_resets(env, params, ref, max(50, int(200 * scale)), seed, discrete=True)
    # gymnasium registers CliffWalking without a time limit: both sides stop at the same cap
    checks += check_episode_statistics(
        env, params, ref, max(30, int(400 * scale)), seed, max_steps=1000, label="random-policy (first 1000 steps)"
    )
    return checks


# ---------------------------------------------------------------------------------------------
# Taxi: gymnasium's encoded `s` plus `fickle_step`


def _taxi_reference(**kwargs: Any) -> GymnasiumReference:
    from jaxenvs.envs.toy_text import taxi

    def read_state(env: Any) -> dict[str, Any]:
        u = env.unwrapped
        return {"s": np.int32(u.s), "fickle_step": np.bool_(u.fickle_step), "time": np.int32(elapsed_steps(env))}

    def write_state(env: Any, state: dict[str, Any]) -> None:
        env.unwrapped.s, env.unwrapped.fickle_step = int(state["s"]), bool(state["fickle_step"])
        set_elapsed_steps(env, int(state["time"]))

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        s = jnp.asarray(state["s"], jnp.int32)
        row, col, pass_loc, dest = taxi.decode(s)
        return taxi.TaxiState(
            time=jnp.asarray(state["time"], jnp.int32),
            taxi_row=row,
            taxi_col=col,
            pass_loc=pass_loc,
            dest_idx=dest,
            fickle_step=jnp.asarray(state["fickle_step"], bool),
        )

    ref = _reference("Taxi-v4", read_state, write_state, to_jax, ("s", "fickle_step", "time"), **kwargs)
    ref.from_jax = lambda state: {"s": taxi.Taxi.get_obs(state), "fickle_step": state.fickle_step, "time": state.time}
    return ref


def _taxi_state(s: int, fickle_step: bool = False) -> dict[str, Any]:
    return {"s": np.int32(s), "fickle_step": np.bool_(fickle_step), "time": np.int32(0)}


def _taxi(env_id: str, scale: float, seed: int) -> list[Check]:
    checks: list[Check] = []
    env, params = _raw(env_id)
    ref = _taxi_reference()

    # every (state, action) of the dry taxi, with the action mask
    cases = [(_taxi_state(s), a) for s in range(500) for a in range(6)]
    checks += check_transitions(
        env, params, ref, data=ref.step_cases(cases), label="step", info_fields=("prob", "action_mask")
    )
    checks += check_transitions(env, params, ref, max(200, int(2000 * scale)), 0.0, seed, label="random-policy step")

    rng = np.random.default_rng(seed)
    # rain: every move from a random subset of states
    rain_env, rain_params = _raw(env_id, is_rainy=True)
    rain_ref = _taxi_reference(is_rainy=True)
    states = rng.choice(500, size=max(25, int(250 * scale)), replace=False)
    checks += check_step_distribution(
        rain_env,
        rain_params,
        rain_ref,
        [(_taxi_state(int(s)), a) for s in states for a in range(4)],
        max(40, int(60 * scale)),
        lambda t: rows(t.obs, t.rewards, np.round(t.info["prob"].astype(np.float64), 6)),
        seed + 1,
        label="rainy step",
        support=_table_support(rain_ref, lambda entry: (int(entry[1]), float(entry[2]), round(float(entry[0]), 6))),
    )

    # the fickle passenger: aboard, not yet changed their mind, the taxi moves (or not)
    def fickle_outcome(t: Transitions) -> list[tuple]:
        return rows(t.obs, t.rewards, t.next_states["fickle_step"])

    fickle_env, fickle_params = _raw(env_id, fickle_passenger=True)
    fickle_ref = _taxi_reference(fickle_passenger=True)
    aboard = [((row * 5 + col) * 5 + 4) * 4 + dest for row in range(5) for col in range(5) for dest in range(4)]
    picked = rng.choice(aboard, size=max(20, int(100 * scale)), replace=False)
    checks += check_step_distribution(
        fickle_env,
        fickle_params,
        fickle_ref,
        [(_taxi_state(int(s), True), a) for s in picked for a in range(6)],
        max(20, int(40 * scale)),
        fickle_outcome,
        seed + 2,
        label="fickle step",
        support=_enumerated_support(fickle_ref, fickle_outcome),
    )
    # resets: the 300 starts, and whether the passenger is fickle
    checks += check_resets(env, params, ref, max(1500, int(6000 * scale)), seed, discrete=True)
    checks += check_resets(
        fickle_env,
        fickle_params,
        fickle_ref,
        max(1000, int(2000 * scale)),
        seed,
        outcome=lambda s, o: s["fickle_step"],
        discrete=True,
        label="fickle reset",
    )
    n_ep = max(50, int(300 * scale))
    checks += check_episode_statistics(env, params, ref, n_ep, seed)
    if scale >= VARIANT_STATISTICS_SCALE:
        both_env, both_params = _raw(env_id, is_rainy=True, fickle_passenger=True)
        both_ref = _taxi_reference(is_rainy=True, fickle_passenger=True)
        checks += check_episode_statistics(
            both_env, both_params, both_ref, n_ep, seed, label="rainy fickle random-policy"
        )
    return checks


# ---------------------------------------------------------------------------------------------
# Blackjack: the hands as gymnasium's lists


MAX_CARDS = 21  # a hand never holds more


def _pad(cards: Sequence[int]) -> np.ndarray:
    out = np.zeros(MAX_CARDS, np.int32)
    out[: len(cards)] = cards
    return out


def _hands(player: Sequence[int], dealer: Sequence[int]) -> dict[str, Any]:
    """A Blackjack state as the reference keeps it (padded hands) and as the JAX state names it."""
    return {
        "player": _pad(player),
        "dealer": _pad(dealer),
        "player_sum": np.int32(sum(player)),
        "player_has_ace": np.bool_(1 in player),
        "player_num_cards": np.int32(len(player)),
        "dealer_card": np.int32(dealer[0]),
        "dealer_sum": np.int32(sum(dealer)),
        "dealer_has_ace": np.bool_(1 in dealer),
        "dealer_num_cards": np.int32(len(dealer)),
    }


def _blackjack_reference(**kwargs: Any) -> GymnasiumReference:
    from jaxenvs.envs.toy_text import blackjack

    def read_state(env: Any) -> dict[str, Any]:
        return _hands(env.unwrapped.player, env.unwrapped.dealer)

    def write_state(env: Any, state: dict[str, Any]) -> None:
        env.unwrapped.player = [int(c) for c in state["player"] if c]
        env.unwrapped.dealer = [int(c) for c in state["dealer"] if c]

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        state = _hands([int(c) for c in state["player"] if c], [int(c) for c in state["dealer"] if c])
        fields = blackjack.BlackjackState.__dataclass_fields__
        return blackjack.BlackjackState(
            time=jnp.int32(0), **{k: jnp.asarray(v) for k, v in state.items() if k in fields and k != "time"}
        )

    exact = tuple(k for k in _hands([1], [1]) if k not in ("player", "dealer"))
    return _reference("Blackjack-v1", read_state, write_state, to_jax, exact, **kwargs)


def _dealer_value(t: Transitions) -> np.ndarray:
    total, ace = t.next_states["dealer_sum"], t.next_states["dealer_has_ace"]
    return total + 10 * (ace & (total + 10 <= 21))


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
    cases = [(_hands(p, d), 0) for p in players for d in dealers]
    for rule, kwargs in RULES.items():
        ref = _blackjack_reference(**kwargs)
        checks += check_transitions(
            env, params.replace(**kwargs), ref, data=ref.step_cases(cases), label=f"stick ({rule} rules)"
        )

    # card draws: hits, and sticks with the dealer drawing
    ref = _blackjack_reference()

    def hit_outcome(t: Transitions) -> list[tuple]:
        return rows(*t.obs, t.rewards, t.terminated)

    def stick_outcome(t: Transitions) -> list[tuple]:
        return rows(t.rewards, _dealer_value(t), t.next_states["dealer_num_cards"])

    hit_hands = [((2, 3), (10, 5)), ((1, 5), (1, 9)), ((10, 6), (7, 10)), ((1, 1), (2, 2)), ((9, 2), (6, 6))]
    hit_hands.append(((10, 1, 9), (4, 3)))
    stick_hands = [((10, 8), (10, 6)), ((10, 10), (2, 2)), ((1, 10), (1, 5)), ((9, 9), (1, 1)), ((7, 8), (10, 3))]
    for label, hands, action, n, outcome, offset in (
        ("hit", hit_hands, 1, max(100, int(500 * scale)), hit_outcome, 1),
        ("stick with dealer draws", stick_hands, 0, max(100, int(600 * scale)), stick_outcome, 2),
    ):
        cases = [(_hands(*h), action) for h in hands]
        support = _enumerated_support(ref, outcome)
        checks += check_step_distribution(
            env, params, ref, cases, n, outcome, seed + offset, label=label, support=support
        )

    # the deal: the player's two cards and the dealer's two (one showing)
    n = max(1000, int(5000 * scale))

    def deal(*fields: str) -> Callable:
        return lambda s, o: rows(*(s[k] for k in fields))

    checks += check_resets(
        env,
        params,
        ref,
        n,
        seed,
        outcome=deal("player_sum", "player_has_ace"),
        discrete=True,
        label="reset player hand",
    )
    checks += check_resets(
        env,
        params,
        ref,
        n,
        seed,
        outcome=deal("dealer_card", "dealer_sum", "dealer_has_ace"),
        discrete=True,
        label="reset dealer hand",
    )
    checks += check_resets(
        env,
        params,
        ref,
        n,
        seed,
        outcome=deal("player_num_cards", "dealer_num_cards"),
        discrete=True,
        support={(2, 2)},
        label="reset hand sizes",
    )

    # random-policy episodes (at most 11 steps; gymnasium has no time limit)
    n_ep = max(500, int(4000 * scale))
    checks += check_episode_statistics(env, params, ref, n_ep, seed, max_steps=32)
    if scale >= VARIANT_STATISTICS_SCALE:
        nat_env, nat_params = _raw(env_id, **RULES["natural"])
        checks += check_episode_statistics(
            nat_env,
            nat_params,
            _blackjack_reference(**RULES["natural"]),
            n_ep,
            seed + 1,
            max_steps=32,
            label="natural rules random-policy",
        )
    return checks


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

    result = ParityResult(env_id, jaxenvs.spec(env_id).reference or env_id)
    with Timer() as timer:
        result.checks += _RUNNERS[env_id](env_id, scale, seed)
    result.seconds = timer.seconds
    return result
