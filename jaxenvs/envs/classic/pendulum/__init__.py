"""pendulum: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.classic.pendulum.env import (
    Pendulum,
    PendulumParams,
    PendulumState,
    angle_normalize,
    clip_torque,
    cost,
    dynamics,
    get_obs,
)

__all__ = [
    "PendulumState",
    "PendulumParams",
    "angle_normalize",
    "clip_torque",
    "cost",
    "dynamics",
    "get_obs",
    "Pendulum",
]
