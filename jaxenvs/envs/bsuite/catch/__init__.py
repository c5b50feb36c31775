"""catch: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.catch.env import NUM_EPISODES, Catch, CatchParams, CatchState, board, move_paddle

__all__ = ["NUM_EPISODES", "CatchState", "CatchParams", "move_paddle", "board", "Catch"]
