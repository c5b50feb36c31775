"""breakout: the env (`env.py`) and its parity spec (`parity.py`); its drawing is the family's
(`jaxenvs.envs.minatar._common.render_observation`)."""

from jaxenvs.envs.minatar.breakout.env import (
    BRICK_ROWS,
    CHANNELS,
    MINIMAL_ACTIONS,
    NUM_CHANNELS,
    Breakout,
    BreakoutState,
    full_brick_map,
    get_obs,
    initial_state,
    move_ball,
    move_paddle,
    transition,
)

__all__ = [
    "NUM_CHANNELS",
    "CHANNELS",
    "MINIMAL_ACTIONS",
    "BRICK_ROWS",
    "BreakoutState",
    "full_brick_map",
    "initial_state",
    "move_paddle",
    "move_ball",
    "transition",
    "get_obs",
    "Breakout",
]
