"""Pong: keep a ball in play with a paddle on a small grid.

Reference: gymnax `Pong-misc` (`gymnax/environments/misc/pong.py`, after BlackHC's
`batch_pong_poc` vanilla pong). A `height x width` board (30 x 40); the player's paddle is the
left column, the opponent's the right one, each `2 * paddle_half_height + 1` cells tall.
Actions 0 stay, 1 up, 2 down move the player's paddle by `paddle_y_speed`, its centre kept
`paddle_half_height` cells inside the board. The opponent (with `use_ai_policy`, the default)
moves one step towards the ball's row every step, or mirrors the player's move. The ball starts
in the middle moving right at `ball_x_speed`. Per step, in order: paddles move, the ball moves
by its velocity, it bounces off the bottom edge, and it bounces off a paddle that it reached
with its row within the paddle (off the left paddle within `paddle_half_height` rows, off the
right within `paddle_half_height + 1`), the row speed changing by the hit's offset from the
paddle centre over `paddle_half_height`, rounded (half to even) and clipped to
`ball_max_y_speed`. The episode terminates when the ball leaves at the left or right side;
every other step pays 1, the terminating step 0. 1000 steps. Observation `float32[height, width,
3]`: paddles, ball, and the ball's previous cell.

Like gymnax, the ball bounces off the bottom edge only: past the top row it flies on off the
board (drawn at row 0) until it leaves at a side. Differs: gymnax's `terminal` state field,
which nothing sets, is left out; the observation space is [0, 1] (gymnax declares [0, 2]).
Invalid action: inside jit any action other than 1 or 2 keeps the paddle still.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.params import flag, integer


@struct.dataclass
class PongState(EnvState):
    """The state of Pong (gymnax's field names, without its unused `terminal`).

    Attributes:
        paddle_centers: The rows of the player's (left) and the opponent's (right) paddle
            centres, `float32[2]`.
        ball_position: The ball's `(row, col)`, `float32[2]` (off the board once it has left).
        last_ball_position: The ball's `(row, col)` one step earlier, `float32[2]`.
        ball_velocity: The ball's `(row, col)` velocity in cells per step, `int32[2]`.
    """

    paddle_centers: jax.Array
    ball_position: jax.Array
    last_ball_position: jax.Array
    ball_velocity: jax.Array


@struct.dataclass
class PongParams(EnvParams):
    """Pong's params (gymnax's names and defaults).

    Attributes:
        ball_max_y_speed: The largest row speed of the ball, in cells per step.
        paddle_y_speed: The paddles' move per step, in rows.
        ball_x_speed: The ball's column speed, in cells per step.
        use_ai_policy: The opponent chases the ball; otherwise it mirrors the player's move.
        max_steps_in_episode: The time limit.
    """

    ball_max_y_speed: int = integer(3, low=0, high=100)
    paddle_y_speed: int = integer(1, low=0, high=100)
    ball_x_speed: int = integer(1, low=1, high=100)
    use_ai_policy: bool = flag(True)
    max_steps_in_episode: int = 1000


def move_paddles(action, state: PongState, params: PongParams, paddle_half_height: int, height: int) -> PongState:
    """Both paddles moved: the player's by `action`, the opponent's by its policy.

    Each centre is kept `paddle_half_height` rows inside the board. The chasing opponent steps
    up only if that brings it strictly closer to the ball's row, else down.

    Args:
        action: 0 stay, 1 up, 2 down (any other: stay).
        state: The state.
        params: The env's params.
        paddle_half_height: The paddles' half height in rows.
        height: The board's number of rows.

    Returns:
        The state with new `paddle_centers`.
    """
    lo, hi = paddle_half_height, height - paddle_half_height - 1
    speed = params.paddle_y_speed
    action = jnp.asarray(action)
    step = ((action == 2).astype(jnp.int32) - (action == 1).astype(jnp.int32)) * speed
    centers = state.paddle_centers
    player = jnp.clip(centers[0].astype(jnp.int32) + step, lo, hi)
    mirror = jnp.clip(centers[1].astype(jnp.int32) + step, lo, hi)
    # the opponent steps up only if that brings it strictly closer to the ball's row
    row = state.ball_position[0]
    up_gap = jnp.abs(row - jnp.clip(centers[1] - speed, lo, hi))
    down_gap = jnp.abs(row - jnp.clip(centers[1] + speed, lo, hi))
    chase = jnp.clip(centers[1].astype(jnp.int32) + jnp.where(up_gap < down_gap, -speed, speed), lo, hi)
    opponent = jnp.where(params.use_ai_policy, chase, mirror)
    return state.replace(paddle_centers=jnp.stack([player, opponent]).astype(jnp.float32))


def move_ball(state: PongState) -> PongState:
    """The ball moved by its velocity.

    Args:
        state: The state.

    Returns:
        The state with a new `ball_position`.
    """
    return state.replace(ball_position=state.ball_position + state.ball_velocity)


def bounce_off_bottom(state: PongState, height: int) -> PongState:
    """The ball reflected off the bottom edge when it has moved past the last row.

    Args:
        state: The state.
        height: The board's number of rows.

    Returns:
        The state, its ball's row mirrored at row `height - 1` and its row velocity negated
        where the ball was past it.
    """
    row = state.ball_position[0]
    past = row >= height
    return state.replace(
        ball_position=state.ball_position.at[0].set(jnp.where(past, 2 * (height - 1) - row, row)),
        ball_velocity=state.ball_velocity.at[0].multiply(jnp.where(past, -1, 1)),
    )


def bounce_off_paddles(state: PongState, params: PongParams, width: int, paddle_half_height: int) -> PongState:
    """The ball reflected off a paddle it has reached with its row within the paddle.

    The row speed changes by the hit's offset from the paddle centre over
    `paddle_half_height`, rounded (half to even) and clipped to `ball_max_y_speed`; the column
    speed is negated and the column mirrored at the paddle.

    Args:
        state: The state.
        params: The env's params.
        width: The board's number of columns.
        paddle_half_height: The paddles' half height in rows.

    Returns:
        The state with the ball's new position and velocity.
    """
    row, col = state.ball_position[0], state.ball_position[1]
    offset = row - state.paddle_centers  # the hit's row offset from each paddle's centre
    left_col, right_col = 2.0 - col, 2.0 * (width - 2) - col  # the column mirrored at each paddle
    left_hit = (left_col >= 1) & (jnp.abs(offset[0]) <= paddle_half_height)
    right_hit = (right_col < width - 2) & (jnp.abs(offset[1]) < paddle_half_height + 1)
    hit = left_hit | right_hit
    side_offset = jnp.where(left_hit, offset[0], offset[1])
    new_row_vel = jnp.round(
        jnp.clip(
            state.ball_velocity[0].astype(jnp.float32) + side_offset / float(paddle_half_height),
            -params.ball_max_y_speed,
            params.ball_max_y_speed,
        )
    ).astype(jnp.int32)
    velocity = jnp.where(hit, jnp.stack([new_row_vel, -state.ball_velocity[1]]), state.ball_velocity)
    new_col = jnp.where(left_hit, left_col, jnp.where(right_hit, right_col, col))
    return state.replace(ball_position=jnp.stack([row, new_col]), ball_velocity=velocity)


def ball_out(state: PongState, width: int) -> jax.Array:
    """Whether the ball has left the board at the left or right side.

    Args:
        state: The state.
        width: The board's number of columns.

    Returns:
        A bool scalar.
    """
    col = state.ball_position[1]
    return (col < 0) | (col >= width)


class Pong(Environment[PongState, PongParams]):
    """gymnax's Pong (see the module docstring).

    Args:
        width: The board's number of columns.
        height: The board's number of rows.
        paddle_half_height: The paddles' half height in rows (a paddle is
            `2 * paddle_half_height + 1` rows tall).
    """

    reset_ignores_key = True  # every episode starts alike

    def __init__(self, width: int = 40, height: int = 30, paddle_half_height: int = 2):
        self.width = width
        self.height = height
        self.paddle_half_height = paddle_half_height
        self.obs_shape = (height, width, 3)

    def observe(self, state: PongState, params: PongParams) -> jax.Array:
        """`get_obs(state)`, `float32[height, width, 3]`."""
        return self.get_obs(state)

    def is_terminal(self, state: PongState, params: PongParams) -> jax.Array:
        """Whether the ball has left the board (the `terminated` of the step into `state`)."""
        return ball_out(state, self.width)

    def get_obs(self, state: PongState) -> jax.Array:
        """The board as three channels of 0s and 1s: the paddles, the ball, the ball's previous cell.

        Cells off the board are clipped onto it. Written as a scatter of the few lit cells
        into zeros: under vmap that is several times faster than comparing every cell.

        Args:
            state: The state.

        Returns:
            A `float32[height, width, 3]` array.
        """

        def cell(position):
            floor = jnp.floor(position)
            row = jnp.clip(floor[0], 0, self.height - 1).astype(jnp.int32)
            return row, jnp.clip(floor[1], 0, self.width - 1).astype(jnp.int32)

        ball_row, ball_col = cell(state.ball_position)
        last_row, last_col = cell(state.last_ball_position)
        centre = jnp.floor(state.paddle_centers).astype(jnp.int32)[:, None]
        span = jnp.arange(-self.paddle_half_height, self.paddle_half_height + 1)[None, :]
        paddle_rows = jnp.clip(centre + span, 0, self.height - 1).reshape(-1)  # both paddles
        paddle_cols = jnp.repeat(jnp.asarray([0, self.width - 1]), span.shape[1])
        rows = jnp.concatenate([paddle_rows, jnp.stack([ball_row, last_row])])
        cols = jnp.concatenate([paddle_cols, jnp.stack([ball_col, last_col])])
        channels = jnp.concatenate([jnp.zeros_like(paddle_rows), jnp.asarray([1, 2])])
        return jnp.zeros(self.obs_shape, jnp.float32).at[rows, cols, channels].set(1.0)

    def reset_env(self, key, params):
        middle = jnp.asarray([self.height / 2, self.width / 2], jnp.float32)
        state = PongState(
            time=jnp.zeros((), jnp.int32),
            paddle_centers=jnp.full((2,), self.height / 2, jnp.float32),
            ball_position=middle,
            last_ball_position=middle,
            ball_velocity=jnp.stack([jnp.zeros((), jnp.int32), jnp.asarray(params.ball_x_speed, jnp.int32)]),
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        last_ball_position = state.ball_position
        state = move_paddles(action, state, params, self.paddle_half_height, self.height)
        state = move_ball(state)
        state = bounce_off_bottom(state, self.height)
        state = bounce_off_paddles(state, params, self.width, self.paddle_half_height)
        state = state.replace(last_ball_position=last_ball_position, time=state.time + 1)
        terminated = ball_out(state, self.width)
        reward = 1.0 - terminated.astype(jnp.float32)
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(0.0, 1.0, self.obs_shape, jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(3)

    @defaults_params
    def render(self, state, params=None, cell: int = 10):
        """A picture of `state`, one colour a channel of its observation; jit-able.

        Args:
            state: The state to draw.
            params: The env's params; None means `default_params` (unused).
            cell: Each cell's side in pixels.

        Returns:
            A `uint8[height * cell, width * cell, 3]` image.
        """
        from jaxenvs.envs.misc.pong.render import render

        return render(self, state, cell)
