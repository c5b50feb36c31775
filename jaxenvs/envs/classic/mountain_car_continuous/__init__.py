"""mountain_car_continuous: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.classic.mountain_car_continuous.env import (
    CHARGED_ACTION_LIMIT,
    MountainCarContinuous,
    MountainCarContinuousParams,
    MountainCarContinuousState,
    dynamics,
    is_terminal,
    reward_of,
)

__all__ = [
    "CHARGED_ACTION_LIMIT",
    "MountainCarContinuousState",
    "MountainCarContinuousParams",
    "dynamics",
    "is_terminal",
    "reward_of",
    "MountainCarContinuous",
]
