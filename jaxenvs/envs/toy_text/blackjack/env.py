"""Blackjack: draw cards towards 21 without going over, then beat the dealer's hand.

Reference: gymnasium 1.3 `Blackjack-v1` (`gymnasium/envs/toy_text/blackjack.py`; registered
with `sab=True, natural=False` and no time limit), Sutton & Barto Example 5.1. Cards come
from an infinite deck (ace 1, 2-9, 10 four times for ten, jack, queen, king). Reset deals
the dealer two cards (one showing) and the player two. Actions: 0 stick, 1 hit. A hit adds a
card; going over 21 ends the episode with -1. Sticking ends it: the dealer draws while their
sum is below 17, then the closer to 21 wins (+1 / -1, 0 for a draw; a bust scores 0).
An ace counts 11 while that keeps the hand at or below 21 (a "usable ace").
The observation is gymnasium's tuple `(player sum, dealer's showing card, usable ace)`, three
int32 scalars in `Tuple(Discrete(32), Discrete(11), Discrete(2))`.

Rules options (params, dynamic booleans): `sab` (Sutton & Barto's rules; default True as
the registered id): a player natural (ace and a ten-card as the first two cards) against a
dealer without one wins +1, and `natural` is ignored; with `sab=False`, `natural=True` pays
+1.5 for a winning natural.

State: gymnasium holds the two hands as lists; here each hand is kept as what the rules read
of it: its sum counting aces as 1, whether it holds an ace, and its number of cards (a natural
is two cards, an ace, sum 11), plus the dealer's showing card. The dealer draws at most 10
cards before reaching 17, so a stick draws its cards in one batch of 10 and keeps the prefix
the dealer's rule takes; every step draws those 10 cards (a hit uses the first), three cards
to a random uint32 word.

Differs: the time limit is `2**31 - 1` steps (gymnasium registers none; an episode lasts at
most 11 steps anyway). The dealer's suit and face letters, drawn by gymnasium for its picture
only, are not drawn. `render` draws the dealer's showing card and the player's sum as pixel
digits, an "A" for a usable ace, and a bar for the player's sum. Invalid action under jit:
any non-zero action hits, like gymnasium's `if action:`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.envs.toy_text import _common
from jaxenvs.params import flag

STICK, HIT = 0, 1
DECK = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
MAX_DEALER_DRAWS = 10  # the longest a dealer can draw before reaching 17 (see the tests)


@struct.dataclass
class BlackjackState(EnvState):
    """The two hands, each as what the rules read of it (gymnasium keeps the `player` and
    `dealer` card lists).

    Attributes:
        player_sum: int32 scalar: the player's cards added up, aces as 1.
        player_has_ace: bool scalar: the player holds an ace.
        player_num_cards: int32 scalar: the cards in the player's hand.
        dealer_card: int32 scalar: the dealer's showing (first) card, 1 (ace) to 10.
        dealer_sum: int32 scalar: the dealer's cards added up, aces as 1.
        dealer_has_ace: bool scalar: the dealer holds an ace.
        dealer_num_cards: int32 scalar: the cards in the dealer's hand.
    """

    player_sum: jax.Array
    player_has_ace: jax.Array
    player_num_cards: jax.Array
    dealer_card: jax.Array
    dealer_sum: jax.Array
    dealer_has_ace: jax.Array
    dealer_num_cards: jax.Array


@struct.dataclass
class BlackjackParams(EnvParams):
    """Blackjack's rules options, gymnasium's `sab` and `natural` kwargs (dynamic booleans).

    Attributes:
        sab: Sutton & Barto's rules (default True, as the registered id): a player natural
            against a dealer without one wins +1, and `natural` is ignored.
        natural: Without `sab`, a winning natural pays +1.5.
        max_steps_in_episode: The time limit: `2**31 - 1` (gymnasium registers none; an
            episode lasts at most 11 steps anyway).
    """

    sab: bool = flag(True)
    natural: bool = flag(False)
    max_steps_in_episode: int = _common.NO_TIME_LIMIT


def draw_cards(key: jax.Array, n: int) -> jax.Array:
    """Cards from the infinite deck.

    Random bits are most of a step's cost, so each uint32 word gives three cards: the word
    modulo 13**3 read as three base-13 digits. The modulo makes some card triples likelier by
    at most 1 part in 1,954,923 (5e-7 relative), far below what any test can see.

    Args:
        key: A JAX PRNG key.
        n: How many cards (static).

    Returns:
        `int32[n]`, each card's value: 1 (ace) to 10 (ten, jack, queen, king).
    """
    words = jax.random.bits(key, (-(-n // 3),), jnp.uint32) % (len(DECK) ** 3)
    digits = jnp.stack([words % 13, (words // 13) % 13, words // 169], axis=-1).reshape(-1)[:n]
    return jnp.asarray(DECK, jnp.int32)[digits.astype(jnp.int32)]


def hand_value(total, has_ace) -> tuple[jax.Array, jax.Array]:
    """The value of a hand: an ace counts 11 when that keeps the hand at or below 21.

    Args:
        total: The hand's cards added up, aces as 1.
        has_ace: Whether the hand holds an ace.

    Returns:
        `(sum, usable ace)`: the hand's int32 sum and whether an ace counts 11 in it (bool).
    """
    usable = has_ace & (total + 10 <= 21)
    return jnp.where(usable, total + 10, total), usable


def is_natural(total, has_ace, num_cards) -> jax.Array:
    """Whether a hand is a natural: two cards, an ace and a ten-card.

    Args:
        total: The hand's cards added up, aces as 1.
        has_ace: Whether the hand holds an ace.
        num_cards: The cards in the hand.

    Returns:
        A bool scalar.
    """
    return (num_cards == 2) & has_ace & (total == 11)


def score(total, has_ace) -> jax.Array:
    """The score of a hand, gymnasium's `score`.

    Args:
        total: The hand's cards added up, aces as 1.
        has_ace: Whether the hand holds an ace.

    Returns:
        The hand's sum (`hand_value`), or 0 if it is over 21 (bust).
    """
    value, _ = hand_value(total, has_ace)
    return jnp.where(value > 21, 0, value)


def dealer_play(total, has_ace, num_cards, cards) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The dealer's hand after drawing from `cards` in order while their sum is below 17.

    Args:
        total: The dealer's cards added up, aces as 1.
        has_ace: Whether the dealer holds an ace.
        num_cards: The cards in the dealer's hand.
        cards: The cards to draw from, in order (`MAX_DEALER_DRAWS` of them suffice).

    Returns:
        `(total, has_ace, num_cards)` of the dealer's final hand.
    """
    for card in cards:  # a fixed, small number of draws: unrolled, each masked once the dealer stands
        value, _ = hand_value(total, has_ace)
        draws = value < 17
        total = total + jnp.where(draws, card, 0)
        has_ace = has_ace | (draws & (card == 1))
        num_cards = num_cards + draws.astype(jnp.int32)
    return total, has_ace, num_cards


def stick_reward(state: BlackjackState, params: BlackjackParams) -> jax.Array:
    """The reward of sticking: the final hands compared (the dealer's already played out).

    Args:
        state: The state after the stick, both hands final.
        params: The rules options, `sab` and `natural`.

    Returns:
        A float32 scalar: +1 (or 1.5 for a natural paid so), 0 for a draw, -1.
    """
    player = score(state.player_sum, state.player_has_ace)
    dealer = score(state.dealer_sum, state.dealer_has_ace)
    reward = jnp.sign(player - dealer).astype(jnp.float32)
    player_natural = is_natural(state.player_sum, state.player_has_ace, state.player_num_cards)
    dealer_natural = is_natural(state.dealer_sum, state.dealer_has_ace, state.dealer_num_cards)
    sab = jnp.asarray(params.sab)
    reward = jnp.where(sab & player_natural & ~dealer_natural, 1.0, reward)
    pays_natural = ~sab & jnp.asarray(params.natural) & player_natural & (reward == 1.0)
    return jnp.where(pays_natural, 1.5, reward)


def get_obs(state: BlackjackState) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The observation of a state, gymnasium's tuple.

    Args:
        state: The state.

    Returns:
        `(player sum, dealer's showing card, usable ace)`, three int32 scalars in
        `Tuple(Discrete(32), Discrete(11), Discrete(2))`.
    """
    value, usable = hand_value(state.player_sum, state.player_has_ace)
    return value.astype(jnp.int32), state.dealer_card, usable.astype(jnp.int32)


class Blackjack(Environment[BlackjackState, BlackjackParams]):
    """gymnasium's `Blackjack-v1` (see the module docstring for what differs).

    Observation `get_obs`'s tuple; actions `Discrete(2)`: 0 stick, 1 hit.
    """

    def observe(self, state, params):
        """`(player sum, dealer's showing card, usable ace)`, three int32 scalars (`get_obs`)."""
        return get_obs(state)

    def reset_env(self, key, params):
        dealer_a, dealer_b, player_a, player_b = draw_cards(key, 4)  # gymnasium deals the dealer first
        state = BlackjackState(
            time=jnp.zeros((), jnp.int32),
            player_sum=player_a + player_b,
            player_has_ace=(player_a == 1) | (player_b == 1),
            player_num_cards=jnp.asarray(2, jnp.int32),
            dealer_card=dealer_a,
            dealer_sum=dealer_a + dealer_b,
            dealer_has_ace=(dealer_a == 1) | (dealer_b == 1),
            dealer_num_cards=jnp.asarray(2, jnp.int32),
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        hit = jnp.asarray(action) != STICK
        cards = draw_cards(key, MAX_DEALER_DRAWS)
        # hit: the player takes the first card
        player_sum = state.player_sum + cards[0]
        bust = player_sum > 21
        # stick: the dealer plays out their hand from the same cards
        dealer_sum, dealer_has_ace, dealer_num_cards = dealer_play(
            state.dealer_sum, state.dealer_has_ace, state.dealer_num_cards, cards
        )
        state = BlackjackState(
            time=state.time + 1,
            player_sum=jnp.where(hit, player_sum, state.player_sum),
            player_has_ace=jnp.where(hit, state.player_has_ace | (cards[0] == 1), state.player_has_ace),
            player_num_cards=jnp.where(hit, state.player_num_cards + 1, state.player_num_cards),
            dealer_card=state.dealer_card,
            dealer_sum=jnp.where(hit, state.dealer_sum, dealer_sum),
            dealer_has_ace=jnp.where(hit, state.dealer_has_ace, dealer_has_ace),
            dealer_num_cards=jnp.where(hit, state.dealer_num_cards, dealer_num_cards),
        )
        reward = jnp.where(hit, jnp.where(bust, -1.0, 0.0), stick_reward(state, params))
        terminated = ~hit | bust
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Tuple((spaces.Discrete(32), spaces.Discrete(11), spaces.Discrete(2)))

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(2)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.toy_text.blackjack.render import render

        return render(get_obs(state), params)
