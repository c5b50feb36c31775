"""pong: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.pong.env import (
    Pong,
    PongParams,
    PongState,
    ball_out,
    bounce_off_bottom,
    bounce_off_paddles,
    move_ball,
    move_paddles,
)

__all__ = [
    "PongState",
    "PongParams",
    "move_paddles",
    "move_ball",
    "bounce_off_bottom",
    "bounce_off_paddles",
    "ball_out",
    "Pong",
]
