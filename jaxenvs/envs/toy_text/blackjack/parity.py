"""Blackjack against gymnasium's, the hands as its lists of cards: sticks where the dealer draws
nothing exactly (under each rule setting); hits and sticks with the dealer drawing by
distribution; the deal (player's hand, dealer's hand, hand sizes); random-policy statistics
(under the natural rules too, from scale 0.25 up)."""

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.toy_text import _parity as tt
from jaxenvs.envs.toy_text.blackjack.env import BlackjackState
from jaxenvs.parity import Check, GymnasiumReference, Transitions, check_transitions
from jaxenvs.parity.stats import rows

MAX_CARDS = 21  # a hand never holds more
# the JAX state's fields, compared exactly: what the rules read of the hands
FIELDS = tuple(k for k in BlackjackState.__dataclass_fields__ if k != "time")
RULES = {
    "sab": dict(sab=True, natural=False),
    "plain": dict(sab=False, natural=False),
    "natural": dict(sab=False, natural=True),
}


def _pad(cards: Sequence[int]) -> np.ndarray:
    return np.pad(np.asarray(cards, np.int32), (0, MAX_CARDS - len(cards)))


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


def _cards(padded) -> list[int]:
    return [int(c) for c in padded if c]


def _read_state(env: Any) -> dict[str, Any]:
    return _hands(env.unwrapped.player, env.unwrapped.dealer)


def _write_state(env: Any, state: dict[str, Any]) -> None:
    env.unwrapped.player, env.unwrapped.dealer = _cards(state["player"]), _cards(state["dealer"])


def _to_jax(state: dict[str, Any], params: Any) -> BlackjackState:
    return BlackjackState(time=jnp.int32(0), **{k: jnp.asarray(state[k]) for k in FIELDS})


def _reference(env_id: str = "Blackjack-v1", **kwargs: Any) -> GymnasiumReference:
    return tt.gymnasium_reference(env_id, _read_state, _write_state, _to_jax, FIELDS, **kwargs)


def _sticks(ctx: p.Context) -> list[Check]:
    """Sticks where the dealer draws nothing: the reward is the rules' alone, compared exactly."""
    players = [(1, 10), (10, 1), (10, 10), (10, 9), (5, 6, 10), (1, 5, 5), (10, 5, 10), (7, 7, 7), (2, 3)]
    dealers = [(1, 10), (10, 7), (10, 10), (1, 6), (5, 6, 10), (10, 2, 10), (9, 9), (1, 1, 5)]
    cases = [(_hands(pl, d), 0) for pl in players for d in dealers]
    checks = []
    for rule, kwargs in RULES.items():
        ruled = p.variant(_reference, **kwargs)(ctx)
        data = ruled.reference.step_cases(cases)
        label, collect = f"stick ({rule} rules)", p.Collection(data=data)
        checks += check_transitions(ruled.env, ruled.params, ruled.reference, label=label, collect=collect)
    return checks


def _dealer_value(t: Transitions) -> np.ndarray:
    total, ace = t.next_states["dealer_sum"], t.next_states["dealer_has_ace"]
    return total + 10 * (ace & (total + 10 <= 21))


def _hit_outcome(t: Transitions) -> list[tuple]:
    return rows(*t.obs, t.rewards, t.terminated)


def _stick_outcome(t: Transitions) -> list[tuple]:
    return rows(t.rewards, _dealer_value(t), t.next_states["dealer_num_cards"])


HIT_HANDS = [((2, 3), (10, 5)), ((1, 5), (1, 9)), ((10, 6), (7, 10)), ((1, 1), (2, 2)), ((9, 2), (6, 6))]
HIT_HANDS.append(((10, 1, 9), (4, 3)))
STICK_HANDS = [((10, 8), (10, 6)), ((10, 10), (2, 2)), ((1, 10), (1, 5)), ((9, 9), (1, 1)), ((7, 8), (10, 3))]


def _draws(label: str, hands: list, action: int, at_one: int, outcome: Callable, seed_offset: int) -> p.CheckFn:
    """Card draws from `hands` under `action`, by distribution."""
    cases = [(_hands(*h), action) for h in hands]

    def check(ctx: p.Context) -> list[Check]:
        support = tt.enumerated_support(ctx.reference, outcome)
        return p.step_distribution(cases, outcome, at_one, 100, seed_offset, label=label, support=support)(ctx)

    return check


def _deal(label: str, *fields: str, **kwargs: Any) -> p.CheckFn:
    """The deal's `fields` (the player's two cards and the dealer's two, one showing)."""
    outcome = lambda s, o: rows(*(s[k] for k in fields))  # noqa: E731
    return p.resets(at_one=5000, least=1000, outcome=outcome, discrete=True, label=label, **kwargs)


SPEC = p.ParitySpec(
    reference=_reference,
    checks=p.chain(
        _sticks,
        _draws("hit", HIT_HANDS, 1, 500, _hit_outcome, 1),
        _draws("stick with dealer draws", STICK_HANDS, 0, 600, _stick_outcome, 2),
        _deal("reset player hand", "player_sum", "player_has_ace"),
        _deal("reset dealer hand", "dealer_card", "dealer_sum", "dealer_has_ace"),
        _deal("reset hand sizes", "player_num_cards", "dealer_num_cards", support={(2, 2)}),
        # random-policy episodes (at most 11 steps; gymnasium has no time limit)
        p.statistics(at_one=4000, least=500, max_steps=32),
        tt.variant_statistics(
            _reference, RULES["natural"], "natural rules random-policy", 4000, 500, seed_offset=1, max_steps=32
        ),
    ),
)
