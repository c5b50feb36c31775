"""cliff_walking: the env (`env.py`), its grid (`layout.py`), drawing (`render.py`) and parity spec (`parity.py`)."""

from jaxenvs.envs.toy_text.cliff_walking.env import (
    CLIFF_REWARD,
    DOWN,
    GOAL,
    LEFT,
    RIGHT,
    SHAPE,
    START,
    STEP_REWARD,
    UP,
    CliffWalking,
    CliffWalkingParams,
    CliffWalkingState,
    cliff_tables,
    move,
    slip,
)
from jaxenvs.envs.toy_text.cliff_walking.render import CLIFF, GOAL_COLOR, GRASS, GRASS_DARK, PLAYER, START_COLOR

__all__ = [
    "UP",
    "RIGHT",
    "DOWN",
    "LEFT",
    "SHAPE",
    "START",
    "GOAL",
    "CLIFF_REWARD",
    "STEP_REWARD",
    "cliff_tables",
    "CliffWalkingState",
    "CliffWalkingParams",
    "slip",
    "move",
    "CliffWalking",
    "GRASS",
    "GRASS_DARK",
    "CLIFF",
    "START_COLOR",
    "GOAL_COLOR",
    "PLAYER",
]
