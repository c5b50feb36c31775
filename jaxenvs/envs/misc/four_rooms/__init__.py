"""four_rooms: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.four_rooms.env import (
    FOUR_ROOMS_MAP,
    FourRooms,
    FourRoomsParams,
    FourRoomsState,
    at_goal,
    slip_action,
)

__all__ = ["FOUR_ROOMS_MAP", "FourRoomsState", "FourRoomsParams", "slip_action", "at_goal", "FourRooms"]
