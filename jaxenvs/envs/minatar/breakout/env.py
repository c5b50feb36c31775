"""Breakout-MinAtar: bounce a ball off a paddle to break three rows of bricks (`Breakout`,
checked against `minatar.Environment("breakout")`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.envs.minatar._common import (
    GRID_SIZE,
    LEFT,
    RIGHT,
    MinAtarEnvironment,
    MinAtarState,
    cell_mask,
)

NUM_CHANNELS = 4
CHANNELS = ("paddle", "ball", "trail", "brick")
MINIMAL_ACTIONS = (0, 1, 3)  # n, l, r
BRICK_ROWS = (1, 4)  # rows 1..3 hold the bricks
# ball_dir: 0 up-left, 1 up-right, 2 down-right, 3 down-left
_DX = (-1, 1, 1, -1)
_DY = (-1, -1, 1, 1)


@struct.dataclass
class BreakoutState(MinAtarState):
    """Breakout's state: MinAtar's game attributes, with its names.

    Attributes:
        ball_x: The ball's column, 0-9 (int32 scalar).
        ball_y: The ball's row, 0 (top) .. 9 (int32 scalar).
        ball_dir: The ball's direction (int32 scalar): 0 up-left, 1 up-right, 2 down-right,
            3 down-left.
        pos: The paddle's column, on row 9 (int32 scalar).
        brick_map: `bool[10, 10]`: where bricks stand ([row, column]; rows 1-3).
        strike: The ball broke a brick on the previous step (bool scalar): it passes through
            the next brick it meets.
        last_x: The ball's column before the last step, the trail (int32 scalar).
        last_y: The ball's row before the last step (int32 scalar).
    """

    ball_x: jax.Array
    ball_y: jax.Array
    ball_dir: jax.Array
    pos: jax.Array
    brick_map: jax.Array
    strike: jax.Array
    last_x: jax.Array
    last_y: jax.Array


def full_brick_map() -> jax.Array:
    """The wall at the start and after a rebuild.

    Returns:
        `bool[10, 10]`, true on rows 1-3.
    """
    rows = jnp.arange(GRID_SIZE)[:, None]
    return jnp.broadcast_to((rows >= BRICK_ROWS[0]) & (rows < BRICK_ROWS[1]), (GRID_SIZE, GRID_SIZE))


def initial_state(ball_start: jax.Array) -> BreakoutState:
    """The start of an episode: the paddle at column 4, a full wall, the ball on row 3.

    Args:
        ball_start: MinAtar's `randint(2)` (int scalar): 0, the ball at the left wall heading
            down-right; 1, at the right wall heading down-left.

    Returns:
        The state.
    """
    ball_start = jnp.asarray(ball_start, jnp.int32)
    ball_x = 9 * ball_start
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    return BreakoutState(
        time=i32(0),
        last_action=i32(0),
        terminal=jnp.asarray(False),
        ball_x=ball_x,
        ball_y=i32(3),
        ball_dir=2 + ball_start,
        pos=i32(4),
        brick_map=full_brick_map(),
        strike=jnp.asarray(False),
        last_x=ball_x,
        last_y=i32(3),
    )


def move_paddle(pos: jax.Array, action: jax.Array) -> jax.Array:
    """The paddle's move: one column left or right, kept in columns 0-9.

    Args:
        pos: The paddle's column.
        action: The executed MinAtar action, 0..5 (only `l` and `r` move it).

    Returns:
        The new column (int32).
    """
    pos = jnp.where(action == LEFT, jnp.maximum(pos - 1, 0), pos)
    return jnp.where(action == RIGHT, jnp.minimum(pos + 1, GRID_SIZE - 1), pos)


def move_ball(state: BreakoutState, pos: jax.Array) -> tuple[BreakoutState, jax.Array, jax.Array]:
    """The ball's move against walls, bricks and the paddle (at its new column `pos`).

    The ball bounces off the side walls and the ceiling; it breaks the brick it moves onto
    and bounces back unless `strike` (it just broke one: it passes through). On the bottom
    row the wall is rebuilt if no brick is left; the ball bounces straight back if the paddle
    is under its previous column, diagonally back if under its new column, else the game ends.

    Args:
        state: The state before the step.
        pos: The paddle's column after its move.

    Returns:
        `(state, reward, terminal)`: the state with the ball, wall, trail and paddle updated,
        the float32 reward (1 for a broken brick) and whether the ball was missed.
    """
    ball_dir = state.ball_dir
    new_x = state.ball_x + jnp.asarray(_DX, jnp.int32)[ball_dir]
    new_y = state.ball_y + jnp.asarray(_DY, jnp.int32)[ball_dir]

    hit_side = (new_x < 0) | (new_x > GRID_SIZE - 1)
    new_x = jnp.clip(new_x, 0, GRID_SIZE - 1)
    ball_dir = jnp.where(hit_side, ball_dir ^ 1, ball_dir)  # mirror left-right

    hit_top = new_y < 0
    new_y = jnp.maximum(new_y, 0)
    ball_dir = jnp.where(hit_top, 3 - ball_dir, ball_dir)  # mirror up-down

    # MinAtar's chain: ceiling, else brick, else bottom row
    target = cell_mask(new_y, new_x)
    brick_here = ~hit_top & jnp.any(state.brick_map & target)
    breaks = brick_here & ~state.strike
    brick_map = state.brick_map & ~(breaks & target)
    ball_dir = jnp.where(breaks, 3 - ball_dir, ball_dir)
    new_y = jnp.where(breaks, state.ball_y, new_y)

    at_bottom = ~hit_top & ~brick_here & (new_y == GRID_SIZE - 1)
    # the wall is rebuilt when the ball comes down with no brick left, before the paddle check
    refill = at_bottom & ~jnp.any(brick_map)
    brick_map = brick_map | (refill & full_brick_map())
    straight_back = at_bottom & (state.ball_x == pos)
    diagonal_back = at_bottom & ~straight_back & (new_x == pos)
    ball_dir = jnp.where(straight_back, 3 - ball_dir, jnp.where(diagonal_back, ball_dir ^ 2, ball_dir))
    new_y = jnp.where(straight_back | diagonal_back, state.ball_y, new_y)
    terminal = at_bottom & ~straight_back & ~diagonal_back

    state = state.replace(
        ball_x=new_x,
        ball_y=new_y,
        ball_dir=ball_dir,
        brick_map=brick_map,
        strike=brick_here,
        last_x=state.ball_x,
        last_y=state.ball_y,
        pos=pos,
    )
    return state, breaks.astype(jnp.float32), terminal


def transition(state: BreakoutState, action: jax.Array, draws=None, params=None):
    """MinAtar's `act` for the executed action (Breakout draws nothing while playing).

    Args:
        state: The state before the step.
        action: The executed MinAtar action, 0..5.
        draws: Unused (no draws).
        params: Unused (Breakout has no difficulty ramp).

    Returns:
        `(state, reward, terminal)`, as `move_ball`.
    """
    return move_ball(state, move_paddle(state.pos, action))


def get_obs(state: BreakoutState) -> jax.Array:
    """The observation, as MinAtar's `state()`.

    Args:
        state: The game's state.

    Returns:
        `bool[10, 10, 4]`, channels 0 paddle, 1 ball, 2 trail (the ball's previous cell),
        3 brick.
    """
    return jnp.stack(
        [
            cell_mask(GRID_SIZE - 1, state.pos),
            cell_mask(state.ball_y, state.ball_x),
            cell_mask(state.last_y, state.last_x),
            state.brick_map,
        ],
        axis=-1,
    )


class Breakout(MinAtarEnvironment):
    """MinAtar's Breakout (`minatar.Environment("breakout")`, `minatar/environments/breakout.py`,
    MinAtar 1.0.15).

    The paddle sits on the bottom row and moves one cell left or right; the ball moves one
    cell diagonally per step and bounces off the side walls, the ceiling and bricks. Each
    broken brick gives reward 1; a ball that has just broken a brick passes through the next
    brick it meets (MinAtar's `strike` flag). When the ball reaches the bottom row and no
    brick is left, the three rows are rebuilt. On the bottom row the ball bounces straight
    back if the paddle is under its previous column, diagonally back if it is under its new
    column, and otherwise the game ends. The ball starts on row 3 at the left wall heading
    down-right or at the right wall heading down-left, with equal probability (the one random
    draw of a reset; a step draws nothing but the sticky action).

    Observation: `bool[10, 10, 4]`, channels (MinAtar's order) 0 paddle, 1 ball, 2 trail (the
    ball's previous cell), 3 brick. Actions: MinAtar's six `n, l, u, r, d, f` (minimal set
    `n, l, r` with `use_minimal_action_set=True`, id `Breakout-MinAtar-v1`).

    Params (`MinAtarParams`) and defaults: `sticky_action_prob=0.1`, `difficulty_ramping=True`
    (Breakout has no ramp; ignored, as in MinAtar), `use_minimal_action_set=False`,
    `max_steps_in_episode=10_000`.

    Differs: `last_action` starts at no-op on every reset (MinAtar keeps it across episodes of
    one `Environment` object). Inside jit an out-of-range action is clipped into the action
    set.
    """

    num_channels = NUM_CHANNELS
    minimal_actions = MINIMAL_ACTIONS
    num_draw_words = 0

    def reset_env(self, key, params):
        ball_start = (jax.random.bits(key, (), jnp.uint32) >> 31).astype(jnp.int32)
        state = initial_state(ball_start)
        return self.observe(state, params), state

    def transition(self, state, action, draws, params):
        return transition(state, action, draws, params)

    def get_obs(self, state):
        return get_obs(state)
