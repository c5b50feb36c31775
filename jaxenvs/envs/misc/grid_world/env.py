"""GridWorld: the deterministic grid of tabular-learning tutorials.

An empty `height x width` grid (5 x 5 by default; static, as they fix the observation space).
The agent starts in the top-left corner (0, 0); the goal is the opposite corner
(height - 1, width - 1). Actions 0 up, 1 right, 2 down, 3 left, gymnasium CliffWalking's order;
a move off the grid leaves the agent in place ("walls clip"). Reaching the goal terminates.

Reward, after Sutton & Barto's gridworld (Example 4.1) and the tutorials that follow it:
`step_reward = -1` on every step, the one into the goal included, so an episode's return is
minus its length and the optimal return is `-(height + width - 2)`. `goal_reward` (0) is added on
the step into the goal; `step_reward=0, goal_reward=1` gives the other common convention, 1 for
reaching the goal and 0 otherwise (then discount to prefer short paths). Time limit 100 steps.

Observation: the cell index `row * width + col` (int32, `Discrete(height * width)`), the state
index of a Q-table. No reference implementation: its rules are tested directly.
Invalid action: inside jit an action outside 0..3 is clipped into that range.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.envs.misc import _common
from jaxenvs.params import integer, real


@struct.dataclass
class GridWorldState(EnvState):
    """The state of GridWorld.

    Attributes:
        pos: The agent's cell, `int32[2]` (row, col).
    """

    pos: jax.Array


@struct.dataclass
class GridWorldParams(EnvParams):
    """GridWorld's params.

    Attributes:
        height: The grid's number of rows (static: it fixes the observation space).
        width: The grid's number of columns (static).
        step_reward: Paid on every step, the one into the goal included.
        goal_reward: Added on the step into the goal.
        max_steps_in_episode: The time limit.
    """

    height: int = integer(5, low=1, high=1024, static=True)
    width: int = integer(5, low=1, high=1024, static=True)
    step_reward: float = real(-1.0)
    goal_reward: float = real(0.0)
    max_steps_in_episode: int = 100


def move(pos: jax.Array, action: jax.Array, height: int, width: int) -> jax.Array:
    """The cell after `action`; moves off the grid are clipped back onto it.

    Args:
        pos: The agent's cell, `int32[2]` (row, col).
        action: 0 up, 1 right, 2 down, 3 left.
        height: The grid's number of rows.
        width: The grid's number of columns.

    Returns:
        The new cell, `int32[2]`.
    """
    target = pos + jnp.asarray(_common.DIRECTIONS)[action]
    return jnp.clip(target, 0, np.array([height - 1, width - 1], np.int32))


def goal_cell(params: GridWorldParams) -> jax.Array:
    """The goal, the bottom-right corner.

    Args:
        params: The env's params.

    Returns:
        `int32[2]`: `(height - 1, width - 1)`.
    """
    return jnp.asarray([params.height - 1, params.width - 1], jnp.int32)


def shortest_path_length(params: GridWorldParams) -> int:
    """Steps from the start to the goal on an empty grid.

    Args:
        params: The env's params.

    Returns:
        `height + width - 2`; the optimal return is minus it at the default rewards.
    """
    return params.height + params.width - 2


class GridWorld(Environment[GridWorldState, GridWorldParams]):
    """The tutorials' deterministic grid world (see the module docstring)."""

    reset_ignores_key = True  # every episode starts alike

    @staticmethod
    def get_obs(state: GridWorldState, params: GridWorldParams) -> jax.Array:
        """The observation of `state`: the agent's cell index.

        Args:
            state: The state.
            params: The env's params.

        Returns:
            `row * width + col` (int32 scalar), in `0..height * width - 1`.
        """
        return (state.pos[0] * params.width + state.pos[1]).astype(jnp.int32)

    def observe(self, state, params):
        """The agent's cell index `row * width + col`, an int32 scalar (`get_obs`)."""
        return self.get_obs(state, params)

    def is_terminal(self, state, params):
        """Whether the agent is at the goal, the bottom-right cell (the `terminated` of the step into `state`)."""
        return jnp.all(state.pos == goal_cell(params))

    def reset_env(self, key, params):
        """Start in the top-left corner, (0, 0).

        Raises:
            ValueError: If the grid has fewer than two cells.
        """
        if params.height < 1 or params.width < 1 or params.height * params.width < 2:
            raise ValueError(f"GridWorld needs at least two cells, got {params.height} x {params.width}")
        state = GridWorldState(time=jnp.zeros((), jnp.int32), pos=jnp.zeros((2,), jnp.int32))
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.clip(action, 0, 3).astype(jnp.int32)
        state = state.replace(pos=move(state.pos, action, params.height, params.width), time=state.time + 1)
        reached = self.is_terminal(state, params)
        reward = params.step_reward + reached * params.goal_reward
        return self.observe(state, params), state, reward, reached, {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Discrete(params.height * params.width)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(4)

    @defaults_params
    def render(self, state, params=None):
        # a border of walls around the grid, so the shared maze drawing applies
        open_map = np.zeros((params.height + 2, params.width + 2), dtype=bool)
        open_map[1:-1, 1:-1] = True
        return _common.draw_grid(open_map, state.pos + 1, goal_cell(params) + 1)
