"""meta_maze: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.meta_maze.env import MetaMaze, MetaMazeParams, MetaMazeState, maze_layout, start_cell

__all__ = ["MetaMazeState", "MetaMazeParams", "maze_layout", "start_cell", "MetaMaze"]
