"""Catch: move a paddle along the bottom row to catch a ball falling straight down.

Reference: bsuite `environments/catch.py` (experiment `catch`, 10,000 episodes). A 10 x 5
board by default; the ball starts in a uniformly random column of the top row, the paddle in
the middle of the bottom row. Actions 0, 1, 2 move the paddle left, not at all, right
(clipped at the walls); the ball falls one row per step. When it reaches the paddle's row the
episode ends with reward +1 if the paddle is under it, -1 otherwise; every other step gives 0.
The observation is bsuite's float32 `(rows, columns)` board, 1 at the ball and the paddle.

Differs: bsuite's `total_regret` logging is not kept. Invalid action under jit: clipped to
0..2 (left or right).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams

NUM_EPISODES = 10_000  # bsuite experiments/catch/sweep.py


@struct.dataclass
class CatchState(EnvState):
    """The state of Catch (bsuite's `_ball_x`, `_ball_y`, `_paddle_x`, `_paddle_y`).

    Attributes:
        ball_x: The ball's column (int32 scalar, 0 at the left).
        ball_y: The ball's row (int32 scalar, 0 at the top).
        paddle_x: The paddle's column (int32 scalar).
        paddle_y: The paddle's row (int32 scalar, always `rows - 1`).
    """

    ball_x: jax.Array
    ball_y: jax.Array
    paddle_x: jax.Array
    paddle_y: jax.Array


@struct.dataclass
class CatchParams(BsuiteParams):
    """Catch's params: only the bsuite ones (the board's size is the env's, fixed at construction)."""


def move_paddle(paddle_x: jax.Array, action: jax.Array, columns: int) -> jax.Array:
    """The paddle's column after an action.

    Args:
        paddle_x: The paddle's column (int32 scalar).
        action: 0 (left), 1 (stay) or 2 (right); others are clipped to 0..2.
        columns: The board's width.

    Returns:
        The new column (int32 scalar), kept within `0..columns - 1`.
    """
    dx = jnp.clip(action, 0, 2) - 1
    return jnp.clip(paddle_x + dx, 0, columns - 1).astype(jnp.int32)


def board(state: CatchState, rows: int, columns: int) -> jax.Array:
    """bsuite's observation of Catch: the board with the ball and the paddle on it.

    Args:
        state: The state.
        rows: The board's height.
        columns: The board's width.

    Returns:
        A `float32[rows, columns]` array, 1 at the ball and at the paddle, 0 elsewhere.
    """
    cells = jnp.arange(rows * columns)  # flat indices: one compare per cell, cheap to batch
    ball = cells == state.ball_y * columns + state.ball_x
    paddle = cells == state.paddle_y * columns + state.paddle_x
    return jnp.where(ball | paddle, 1.0, 0.0).astype(jnp.float32).reshape(rows, columns)


class Catch(Environment[CatchState, CatchParams]):
    """bsuite's Catch (see the module docstring).

    Args:
        rows: The board's height (bsuite's `rows`; 10 in its experiment).
        columns: The board's width (bsuite's `columns`; 5 in its experiment).
    """

    def __init__(self, rows: int = 10, columns: int = 5):
        self.rows = int(rows)
        self.columns = int(columns)

    @property
    def default_params(self) -> CatchParams:
        return CatchParams(bsuite_num_episodes=NUM_EPISODES)

    def observe(self, state, params):
        """The board, `float32[rows, columns]`, 1 at the ball and the paddle."""
        return board(state, self.rows, self.columns)

    def is_terminal(self, state, params):
        """Whether the ball has reached the paddle's row (the `terminated` of the step into `state`)."""
        return state.ball_y == state.paddle_y

    def reset_env(self, key, params):
        state = CatchState(
            time=jnp.zeros((), jnp.int32),
            ball_x=jax.random.randint(key, (), 0, self.columns, dtype=jnp.int32),
            ball_y=jnp.zeros((), jnp.int32),
            paddle_x=jnp.asarray(self.columns // 2, jnp.int32),
            paddle_y=jnp.asarray(self.rows - 1, jnp.int32),
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        state = state.replace(
            paddle_x=move_paddle(state.paddle_x, action, self.columns),
            ball_y=state.ball_y + 1,
            time=state.time + 1,
        )
        terminated = state.ball_y == state.paddle_y
        caught = state.paddle_x == state.ball_x
        reward = jnp.where(terminated, jnp.where(caught, 1.0, -1.0), 0.0)
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(0.0, 1.0, shape=(self.rows, self.columns), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(3)

    @defaults_params
    def render(self, state, params=None):
        return _draw.board(board(state, self.rows, self.columns))
