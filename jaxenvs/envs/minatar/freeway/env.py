"""Freeway-MinAtar: lead a chicken up across eight lanes of traffic (`Freeway`, checked against
`minatar.Environment("freeway")`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.envs.minatar._common import (
    DOWN,
    GRID_SIZE,
    UP,
    MinAtarEnvironment,
    MinAtarState,
    cell_mask,
    randint_from_bits,
)

NUM_CHANNELS = 7
CHANNELS = ("chicken", "car", "speed1", "speed2", "speed3", "speed4", "speed5")
MINIMAL_ACTIONS = (0, 2, 4)  # n, u, d
NUM_CARS = 8
PLAYER_SPEED = 3  # steps between two chicken moves
TIME_LIMIT = 2500
CHICKEN_X = 4
X, Y, TIMER, SPEED = range(4)  # columns of `cars`


@struct.dataclass
class FreewayState(MinAtarState):
    """Freeway's state: MinAtar's game attributes, with its names.

    Attributes:
        cars: `int32[8, 4]`, per car `[x, y, timer, speed]` (columns `X, Y, TIMER, SPEED`):
            the column, the row `y = index + 1`, the steps until it moves (at 0) and the signed
            speed (-5..-1 left, 1..5 right; it moves once every `|speed| + 1` steps).
        pos: The chicken's row, 9 (bottom) .. 0 (top) (int32 scalar); its column is 4.
        move_timer: Steps until the chicken may move again, at 0 (int32 scalar).
        terminate_timer: Counts down from 2500; the game is terminal once it is negative
            (int32 scalar).
    """

    cars: jax.Array
    pos: jax.Array
    move_timer: jax.Array
    terminate_timer: jax.Array


@struct.dataclass
class CarDraws:
    """New car speeds (MinAtar's `_randomize_cars`): drawn at reset, and used by a step only
    when the chicken reaches the top.

    Attributes:
        speeds: `int32[8]`, speed magnitudes 1..5 (MinAtar's `randint(1, 6, 8)`).
        directions: `int32[8]`, +1 right, -1 left (MinAtar's `sign(rand(8) - 0.5)`).
    """

    speeds: jax.Array
    directions: jax.Array


def draw_cars(bits: jax.Array) -> CarDraws:
    """New car speeds from 8 random words: magnitude from the high 24 bits, direction from bit 0.

    Args:
        bits: `uint32[8]` random words, one per car.

    Returns:
        The draws: magnitudes uniform on 1..5, directions a fair coin.
    """
    speeds = 1 + randint_from_bits(bits, 5)
    directions = jnp.where((bits & 1) == 1, 1, -1).astype(jnp.int32)
    return CarDraws(speeds=speeds, directions=directions)


def initial_state(draws: CarDraws) -> FreewayState:
    """The start of an episode: all cars at the left edge with the drawn speeds, the chicken at
    the bottom.

    Args:
        draws: The cars' speeds.

    Returns:
        The state (`terminate_timer` 2500, `move_timer` 3).
    """
    speed = draws.speeds * draws.directions
    cars = jnp.stack(
        [jnp.zeros(NUM_CARS, jnp.int32), jnp.arange(1, NUM_CARS + 1, dtype=jnp.int32), jnp.abs(speed), speed],
        axis=1,
    ).astype(jnp.int32)
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    return FreewayState(
        time=i32(0),
        last_action=i32(0),
        terminal=jnp.asarray(False),
        cars=cars,
        pos=i32(GRID_SIZE - 1),
        move_timer=i32(PLAYER_SPEED),
        terminate_timer=i32(TIME_LIMIT),
    )


def move_chicken(pos: jax.Array, move_timer: jax.Array, action: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The chicken's move: one row up or down (kept in rows 0-9) when `move_timer` is 0.

    Args:
        pos: The chicken's row.
        move_timer: Steps until it may move (it moves at 0).
        action: The executed MinAtar action, 0..5 (only `u` and `d` move it).

    Returns:
        `(pos, move_timer)`: the new row, and the timer restarted at 3 after a move (else
        unchanged).
    """
    ready = move_timer == 0
    up, down = ready & (action == UP), ready & (action == DOWN)
    pos = jnp.where(up, jnp.maximum(pos - 1, 0), jnp.where(down, jnp.minimum(pos + 1, GRID_SIZE - 1), pos))
    return pos, jnp.where(up | down, PLAYER_SPEED, move_timer)


def rerandomize_speeds(cars: jax.Array, draws: CarDraws, where: jax.Array) -> jax.Array:
    """MinAtar's `_randomize_cars(initialize=False)`: new speeds (and timers), same places.

    Args:
        cars: `int32[8, 4]`, the cars.
        draws: The new speeds.
        where: Whether to redraw (bool scalar: the chicken reached the top).

    Returns:
        The cars, with `speed` and `timer = |speed|` from `draws` where `where`.
    """
    speed = draws.speeds * draws.directions
    new = cars.at[:, TIMER].set(jnp.abs(speed)).at[:, SPEED].set(speed)
    return jnp.where(where, new, cars)


def move_cars(cars: jax.Array, pos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Every car counts down and moves when its timer is 0, wrapping around the edges.

    Cars keep their rows, so only the car of the chicken's row can hit it, and a hit sends
    the chicken to row 9 where no car is.

    Args:
        cars: `int32[8, 4]`, the cars.
        pos: The chicken's row.

    Returns:
        `(cars, hit)`: the moved cars, and whether one was on the chicken's cell before or after
        its move.
    """
    x, y, timer, speed = cars[:, X], cars[:, Y], cars[:, TIMER], cars[:, SPEED]
    moves = timer == 0
    new_x = jnp.where(moves, jnp.mod(x + jnp.where(speed > 0, 1, -1), GRID_SIZE), x)
    new_timer = jnp.where(moves, jnp.abs(speed), timer - 1)
    hit = jnp.any((y == pos) & ((x == CHICKEN_X) | (new_x == CHICKEN_X)))
    return jnp.stack([new_x, y, new_timer, speed], axis=1), hit


def transition(state: FreewayState, action: jax.Array, draws: CarDraws, params=None):
    """MinAtar's `act` for the executed action; `draws` are used when the chicken reaches the top.

    Args:
        state: The state before the step.
        action: The executed MinAtar action, 0..5.
        draws: The new car speeds, used on a crossing.
        params: Unused (Freeway has no difficulty ramp).

    Returns:
        `(state, reward, terminal)`: the next state, the float32 reward (1 for a crossing) and
        whether the 2,500-step limit has run out (`terminate_timer < 0`).
    """
    pos, move_timer = move_chicken(state.pos, state.move_timer, action)
    crossed = pos == 0
    cars = rerandomize_speeds(state.cars, draws, crossed)
    pos = jnp.where(crossed, GRID_SIZE - 1, pos)
    cars, hit = move_cars(cars, pos)
    pos = jnp.where(hit, GRID_SIZE - 1, pos)
    terminate_timer = state.terminate_timer - 1
    state = state.replace(
        cars=cars,
        pos=pos,
        move_timer=move_timer - (move_timer > 0),
        terminate_timer=terminate_timer,
    )
    return state, crossed.astype(jnp.float32), terminate_timer < 0


def get_obs(state: FreewayState) -> jax.Array:
    """The observation, as MinAtar's `state()`.

    Args:
        state: The game's state.

    Returns:
        `bool[10, 10, 7]`, channels 0 chicken, 1 car, 2-6 the trail behind each car in channel
        `1 + |speed|`.
    """
    cols = jnp.arange(GRID_SIZE, dtype=jnp.int32)
    x, speed = state.cars[:, X], state.cars[:, SPEED]
    back_x = jnp.mod(x - jnp.where(speed > 0, 1, -1), GRID_SIZE)
    car_rows = x[:, None] == cols  # [8, 10]: car i on row i + 1
    trail_rows = back_x[:, None] == cols
    speed_onehot = jnp.abs(speed)[:, None] == jnp.arange(1, 6)  # [8, 5]
    lanes = jnp.concatenate([car_rows[:, :, None], trail_rows[:, :, None] & speed_onehot[:, None, :]], axis=-1)
    empty = jnp.zeros((1, GRID_SIZE, 6), jnp.bool_)
    traffic = jnp.concatenate([empty, lanes, empty], axis=0)  # rows 0 and 9 have no cars
    chicken = cell_mask(state.pos, CHICKEN_X)[:, :, None]
    return jnp.concatenate([chicken, traffic], axis=-1)


class Freeway(MinAtarEnvironment):
    """MinAtar's Freeway (`minatar.Environment("freeway")`, `minatar/environments/freeway.py`,
    MinAtar 1.0.15).

    The chicken stands in column 4 and moves one row up or down, at most once every 3 steps
    (`move_timer`). Reaching the top row gives reward 1, sends the chicken back to the bottom
    row (9) and draws new speeds for all cars (positions kept). Car `i` drives along row
    `i + 1`; its speed `s` is drawn uniformly from `{-5..-1, 1..5}` (magnitude uniform on
    1..5, direction a fair coin): it moves one cell in the direction of `s` whenever its timer
    is 0, which then restarts at `|s|`, so once every `|s| + 1` steps, wrapping around the
    screen edges. A car on the chicken's cell (before or after the car moves) sends the
    chicken back to the bottom. The game ends after 2,500 steps: MinAtar's `terminate_timer`
    starts at 2500 and the game is terminal once it is negative, so an episode lasts exactly
    2,501 steps, and ends as `terminated` (MinAtar's terminal), not truncated.

    Observation: `bool[10, 10, 7]`, channels (MinAtar's order) 0 chicken, 1 car, 2-6 the trail
    behind each car (the cell it came from), in channel `1 + |s|`: speed1 (the fastest) ..
    speed5. Actions: MinAtar's six `n, l, u, r, d, f` (minimal set `n, u, d` with
    `use_minimal_action_set=True`, id `Freeway-MinAtar-v1`).

    Params (`MinAtarParams`) and defaults: `sticky_action_prob=0.1`, `difficulty_ramping=True`
    (Freeway has no ramp; ignored, as in MinAtar), `use_minimal_action_set=False`,
    `max_steps_in_episode=10_000` (never reached: the game's own limit ends it first).

    Random numbers: 8 `uint32` words per step besides the sticky draw, and 8 at reset
    (`draw_cars`).

    Differs: `last_action` starts at no-op on every reset (MinAtar keeps it across episodes of
    one `Environment` object). MinAtar draws directions as `sign(rand() - 0.5)`, which is 0 (a
    car that never moves) with probability 2**-53; here a direction is always +-1. Inside jit
    an out-of-range action is clipped into the action set.
    """

    num_channels = NUM_CHANNELS
    minimal_actions = MINIMAL_ACTIONS
    num_draw_words = NUM_CARS

    def reset_env(self, key, params):
        state = initial_state(draw_cars(jax.random.bits(key, (NUM_CARS,), jnp.uint32)))
        return self.observe(state, params), state

    def draws_from_bits(self, bits, state, params):
        return draw_cars(bits)

    def transition(self, state, action, draws, params):
        return transition(state, action, draws, params)

    def get_obs(self, state):
        return get_obs(state)
