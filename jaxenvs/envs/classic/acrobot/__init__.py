"""acrobot: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.classic.acrobot.env import (
    WRAP_STEPS,
    Acrobot,
    AcrobotParams,
    AcrobotState,
    bound,
    dsdt,
    dynamics,
    get_obs,
    is_terminal,
    rk4,
    torque_of,
    wrap,
)

__all__ = [
    "WRAP_STEPS",
    "AcrobotState",
    "AcrobotParams",
    "dsdt",
    "rk4",
    "wrap",
    "bound",
    "torque_of",
    "dynamics",
    "is_terminal",
    "get_obs",
    "Acrobot",
]
