"""swimmer: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.swimmer.env import Swimmer, SwimmerParams, SwimmerState, integrate, swim_reward

__all__ = ["SwimmerState", "SwimmerParams", "integrate", "swim_reward", "Swimmer"]
