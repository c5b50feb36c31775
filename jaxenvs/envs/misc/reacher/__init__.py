"""reacher: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.reacher.env import Reacher, ReacherParams, ReacherState, integrate, reach_reward, tip_position

__all__ = ["ReacherState", "ReacherParams", "integrate", "tip_position", "reach_reward", "Reacher"]
