"""Blackjack drawn as a table: the dealer's showing card and face-down card, the player's sum
in pixel digits with an "A" for a usable ace, and a bar up to 31 marked at 21 (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering
from jaxenvs.envs.toy_text import _common

HEIGHT, WIDTH = 160, 240
TABLE, CARD, CARD_BACK, INK = (7, 99, 36), (255, 255, 255), (150, 30, 40), (0, 0, 0)
GOLD, BUST = (240, 200, 60), (220, 40, 40)


def render(observation, params=None):
    """Draw the table from an observation, as gymnasium draws its `_get_obs()`: the dealer's
    showing card and face-down card, the player's sum, an "A" for a usable ace, and a bar for
    the sum (red past 21).

    Args:
        observation: `(player sum, dealer's showing card, usable ace)`, `get_obs`'s tuple.
        params: The env's params (not read).

    Returns:
        A `uint8[160, 240, 3]` picture.
    """
    player, dealer_card, usable = observation
    img = rendering.canvas(HEIGHT, WIDTH, TABLE)
    # the dealer's showing card (an "A" for an ace) and their face-down card
    img = rendering.rect(img, 20.0, 12.0, 70.0, 80.0, CARD)
    img = _common.number(img, dealer_card, 24, 26, 6, INK, show=dealer_card != 1)
    img = _common.glyph(img, _common.GLYPH_A, 24 + 4 * 6, 26, 6, INK, show=dealer_card == 1)
    img = rendering.rect(img, 78.0, 12.0, 128.0, 80.0, CARD_BACK)
    # the player's sum, an "A" for a usable ace, and a bar up to 31 with a mark at 21
    img = _common.number(img, player, 20, 92, 8, CARD)
    img = _common.glyph(img, _common.GLYPH_A, 20 + 8 * 8, 92, 8, GOLD, show=usable == 1)
    bar_end = 20.0 + 200.0 * player.astype(jnp.float32) / 31.0
    bar_color = jnp.where(player > 21, jnp.asarray(BUST, jnp.uint8), jnp.asarray(GOLD, jnp.uint8))
    img = rendering.rect(img, 20.0, 140.0, bar_end, 150.0, bar_color)
    return rendering.rect(img, 20.0 + 200.0 * 21 / 31 - 1, 136.0, 20.0 + 200.0 * 21 / 31 + 1, 154.0, CARD)
