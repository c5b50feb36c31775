"""blackjack: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.toy_text.blackjack.env import (
    DECK,
    HIT,
    MAX_DEALER_DRAWS,
    STICK,
    Blackjack,
    BlackjackParams,
    BlackjackState,
    dealer_play,
    draw_cards,
    get_obs,
    hand_value,
    is_natural,
    score,
    stick_reward,
)
from jaxenvs.envs.toy_text.blackjack.render import BUST, CARD, CARD_BACK, GOLD, HEIGHT, INK, TABLE, WIDTH

__all__ = [
    "STICK",
    "HIT",
    "DECK",
    "MAX_DEALER_DRAWS",
    "BlackjackState",
    "BlackjackParams",
    "draw_cards",
    "hand_value",
    "is_natural",
    "score",
    "dealer_play",
    "stick_reward",
    "get_obs",
    "Blackjack",
    "HEIGHT",
    "WIDTH",
    "TABLE",
    "CARD",
    "CARD_BACK",
    "INK",
    "GOLD",
    "BUST",
]
