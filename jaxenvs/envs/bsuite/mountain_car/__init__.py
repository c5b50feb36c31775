"""mountain_car: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.mountain_car.env import (
    NUM_EPISODES,
    MountainCar,
    MountainCarParams,
    MountainCarState,
    dynamics,
    observation,
)

__all__ = ["NUM_EPISODES", "MountainCarState", "MountainCarParams", "dynamics", "observation", "MountainCar"]
