"""mountain_car: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.classic.mountain_car.env import (
    MountainCar,
    MountainCarParams,
    MountainCarState,
    dynamics,
    get_obs,
    is_terminal,
    observation_box,
    reset_position,
)

__all__ = [
    "MountainCarState",
    "MountainCarParams",
    "dynamics",
    "is_terminal",
    "get_obs",
    "reset_position",
    "observation_box",
    "MountainCar",
]
