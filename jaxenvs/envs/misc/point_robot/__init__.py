"""point_robot: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.point_robot.env import (
    REPORTED_ACTION_LIMIT,
    PointRobot,
    PointRobotParams,
    PointRobotState,
    goal_distance,
    sample_position,
)

__all__ = [
    "REPORTED_ACTION_LIMIT",
    "PointRobotState",
    "PointRobotParams",
    "sample_position",
    "goal_distance",
    "PointRobot",
]
