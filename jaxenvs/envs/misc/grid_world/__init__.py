"""grid_world: the env (`env.py`)."""

from jaxenvs.envs.misc.grid_world.env import (
    GridWorld,
    GridWorldParams,
    GridWorldState,
    goal_cell,
    move,
    shortest_path_length,
)

__all__ = ["GridWorldState", "GridWorldParams", "move", "goal_cell", "shortest_path_length", "GridWorld"]
