"""Space Invaders (MinAtar): shoot down a wave of aliens before they or their bullets reach you
(`SpaceInvaders`, checked against `minatar.Environment("space_invaders")`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.envs.minatar._common import FIRE, LEFT, RIGHT, MinAtarEnvironment, MinAtarState

SHOT_COOL_DOWN = 5  # steps between two shots of the cannon
ENEMY_MOVE_INTERVAL = 12  # initial steps between two moves of the alien block
ENEMY_SHOT_INTERVAL = 10  # the alien-shot timer restarts here after each alien shot
MIN_MOVE_INTERVAL = 6  # ramping stops once the move interval is down to this

CHANNELS = ("cannon", "alien", "alien_left", "alien_right", "friendly_bullet", "enemy_bullet")
MINIMAL_ACTIONS = (0, 1, 3, 5)  # n, l, r, f

_rows = jnp.arange(10, dtype=jnp.int32)


@struct.dataclass
class SpaceInvadersState(MinAtarState):
    """Space Invaders' state: MinAtar's game attributes, with its names (its float maps as
    booleans).

    Attributes:
        pos: The cannon's column (int32 scalar); its row is always 9.
        f_bullet_map: `bool[10, 10]`, friendly bullets at `[row, column]`.
        e_bullet_map: `bool[10, 10]`, alien bullets.
        alien_map: `bool[10, 10]`, aliens.
        alien_dir: The block's direction (int32 scalar): -1 left, +1 right.
        enemy_move_interval: The block's move interval (int32 scalar; 12, ramps down to 6).
        alien_move_timer: Steps until the block moves, at 0 (int32 scalar).
        alien_shot_timer: Steps until the nearest alien shoots, at 0 (int32 scalar).
        ramp_index: Waves cleared while ramping (int32 scalar; MinAtar's `difficulty_ramp()`).
        shot_timer: The cannon's cool-down (int32 scalar); it may fire at 0.
    """

    pos: jax.Array
    f_bullet_map: jax.Array
    e_bullet_map: jax.Array
    alien_map: jax.Array
    alien_dir: jax.Array
    enemy_move_interval: jax.Array
    alien_move_timer: jax.Array
    alien_shot_timer: jax.Array
    ramp_index: jax.Array
    shot_timer: jax.Array


def initial_alien_map() -> jax.Array:
    """A wave: aliens in rows 0-3, columns 2-7.

    Returns:
        `bool[10, 10]`, the 24 aliens' cells.
    """
    return (_rows[:, None] < 4) & (_rows[None, :] >= 2) & (_rows[None, :] < 8)


def initial_state() -> SpaceInvadersState:
    """The start of an episode (MinAtar's `reset`, which draws nothing).

    Returns:
        The cannon in column 5, a full wave moving left, no bullet, the timers at their starts.
    """
    zeros = jnp.zeros((10, 10), jnp.bool_)
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    return SpaceInvadersState(
        time=i32(0),
        last_action=i32(0),
        terminal=jnp.asarray(False),
        pos=i32(5),
        f_bullet_map=zeros,
        e_bullet_map=zeros,
        alien_map=initial_alien_map(),
        alien_dir=i32(-1),
        enemy_move_interval=i32(ENEMY_MOVE_INTERVAL),
        alien_move_timer=i32(ENEMY_MOVE_INTERVAL),
        alien_shot_timer=i32(ENEMY_SHOT_INTERVAL),
        ramp_index=i32(0),
        shot_timer=i32(0),
    )


# ---------------------------------------------------------------------------------------------
# the step's parts, in MinAtar's order


def move_cannon(state: SpaceInvadersState, action: jax.Array) -> SpaceInvadersState:
    """Fire (if `f` and cooled down) or move one column left/right; `f` during the cool-down
    does nothing (MinAtar's `if f and cooled: ... elif l: ... elif r: ...`).

    Args:
        state: The state before the step.
        action: The executed MinAtar action, 0..5.

    Returns:
        The state with the cannon moved, or a bullet in its cell and the cool-down at 5.
    """
    fire = (action == FIRE) & (state.shot_timer == 0)
    new_bullet = (_rows[:, None] == 9) & (_rows[None, :] == state.pos)
    pos = jnp.where(action == LEFT, jnp.maximum(0, state.pos - 1), state.pos)
    pos = jnp.where(action == RIGHT, jnp.minimum(9, pos + 1), pos)
    return state.replace(
        pos=pos,
        f_bullet_map=state.f_bullet_map | (fire & new_bullet),
        shot_timer=jnp.where(fire, SHOT_COOL_DOWN, state.shot_timer),
    )


def move_bullets(f_bullet_map: jax.Array, e_bullet_map: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Friendly bullets up one row, enemy bullets down one row; those leaving the grid vanish.

    Args:
        f_bullet_map: `bool[10, 10]`, friendly bullets.
        e_bullet_map: `bool[10, 10]`, alien bullets.

    Returns:
        `(f_bullet_map, e_bullet_map)`, moved.
    """
    empty_row = jnp.zeros((1, 10), jnp.bool_)
    f_bullet_map = jnp.concatenate([f_bullet_map[1:], empty_row], axis=0)
    e_bullet_map = jnp.concatenate([empty_row, e_bullet_map[:-1]], axis=0)
    return f_bullet_map, e_bullet_map


def move_aliens(state: SpaceInvadersState) -> tuple[SpaceInvadersState, jax.Array]:
    """The block's move when its timer is out: sideways, or one row down with the direction
    reversed when an alien touches the wall it moves towards; the timer restarts at
    `min(number of aliens, enemy_move_interval)`.

    Args:
        state: The state after the bullets' move.

    Returns:
        `(state, hit)`: whether an alien reached the cannon or stepped down from the bottom row
        (both end the game).
    """
    alien_map = state.alien_map
    moves = state.alien_move_timer == 0
    count = jnp.sum(alien_map, dtype=jnp.int32)
    at_wall = (jnp.any(alien_map[:, 0]) & (state.alien_dir < 0)) | (jnp.any(alien_map[:, 9]) & (state.alien_dir > 0))
    step_down = moves & at_wall
    sideways = moves & ~at_wall
    # np.roll wraps around: a row leaving the bottom re-enters at the top (the game has ended then)
    down = jnp.roll(alien_map, 1, axis=0)
    across = jnp.where(state.alien_dir < 0, jnp.roll(alien_map, -1, axis=1), jnp.roll(alien_map, 1, axis=1))
    new_map = jnp.where(step_down, down, jnp.where(sideways, across, alien_map))
    hit = (step_down & jnp.any(alien_map[9])) | (moves & new_map[9, state.pos])
    return (
        state.replace(
            alien_map=new_map,
            alien_dir=jnp.where(step_down, -state.alien_dir, state.alien_dir),
            alien_move_timer=jnp.where(moves, jnp.minimum(count, state.enemy_move_interval), state.alien_move_timer),
        ),
        hit,
    )


def nearest_alien(alien_map: jax.Array, pos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The alien that shoots: MinAtar searches the columns by distance to the cannon (a stable
    sort, so the left one of two equidistant columns first) and takes the lowest alien of the
    first column holding one.

    Args:
        alien_map: `bool[10, 10]`, the aliens; never empty when it is asked.
        pos: The cannon's column.

    Returns:
        `(row, column)` of the alien (int32 scalars).
    """
    occupied = jnp.any(alien_map, axis=0)
    rank = jnp.abs(_rows - pos) * 16 + _rows
    column = jnp.argmin(jnp.where(occupied, rank, 1 << 20))
    row = jnp.max(jnp.where(alien_map[:, column], _rows, -1))
    return row, column


def alien_shot(state: SpaceInvadersState) -> SpaceInvadersState:
    """When the shot timer is out, the nearest alien (`nearest_alien`) drops a bullet in its
    own cell and the timer restarts at 10.

    Args:
        state: The state after the block's move.

    Returns:
        The state with the bullet added.
    """
    shoots = state.alien_shot_timer == 0
    row, column = nearest_alien(state.alien_map, state.pos)
    new_bullet = (_rows[:, None] == row) & (_rows[None, :] == column)
    return state.replace(
        e_bullet_map=state.e_bullet_map | (shoots & new_bullet),
        alien_shot_timer=jnp.where(shoots, ENEMY_SHOT_INTERVAL, state.alien_shot_timer),
    )


def resolve_hits(state: SpaceInvadersState) -> tuple[SpaceInvadersState, jax.Array]:
    """Aliens and friendly bullets sharing a cell destroy each other, +1 per alien.

    Args:
        state: The state after the alien shot.

    Returns:
        `(state, reward)`: the aliens destroyed (float32).
    """
    kills = state.alien_map & state.f_bullet_map
    reward = jnp.sum(kills, dtype=jnp.int32).astype(jnp.float32)
    return state.replace(alien_map=state.alien_map & ~kills, f_bullet_map=state.f_bullet_map & ~kills), reward


def tick_and_respawn(state: SpaceInvadersState, difficulty_ramping: jax.Array) -> SpaceInvadersState:
    """Timers count down; a cleared wave is replaced (and the block sped up when ramping).

    Args:
        state: The state after the hits.
        difficulty_ramping: MinAtar's `ramping` (bool scalar): a cleared wave lowers
            `enemy_move_interval` by 1 (down to 6) and counts in `ramp_index`.

    Returns:
        The state.
    """
    cleared = ~jnp.any(state.alien_map)
    ramp = cleared & (state.enemy_move_interval > MIN_MOVE_INTERVAL) & difficulty_ramping
    return state.replace(
        shot_timer=state.shot_timer - (state.shot_timer > 0),
        alien_move_timer=state.alien_move_timer - 1,
        alien_shot_timer=state.alien_shot_timer - 1,
        enemy_move_interval=state.enemy_move_interval - ramp,
        ramp_index=state.ramp_index + ramp,
        alien_map=state.alien_map | (cleared & initial_alien_map()),
    )


def transition(
    state: SpaceInvadersState, action: jax.Array, difficulty_ramping: jax.Array
) -> tuple[SpaceInvadersState, jax.Array, jax.Array]:
    """MinAtar's `act` for an executed action (the game draws no random numbers).

    Args:
        state: The state before the step.
        action: The executed MinAtar action, 0..5.
        difficulty_ramping: MinAtar's `ramping` (bool scalar).

    Returns:
        `(state, reward, terminal)`: the next state, the float32 reward (aliens destroyed) and
        whether a bullet or an alien reached the cannon.
    """
    state = move_cannon(state, action)
    f_bullet_map, e_bullet_map = move_bullets(state.f_bullet_map, state.e_bullet_map)
    state = state.replace(f_bullet_map=f_bullet_map, e_bullet_map=e_bullet_map)
    terminal = e_bullet_map[9, state.pos] | state.alien_map[9, state.pos]
    state, crushed = move_aliens(state)
    state = alien_shot(state)
    state, reward = resolve_hits(state)
    state = tick_and_respawn(state, jnp.asarray(difficulty_ramping, jnp.bool_))
    return state, reward, terminal | crushed


def get_obs(state: SpaceInvadersState) -> jax.Array:
    """The observation, as MinAtar's `state()`.

    Args:
        state: The game's state.

    Returns:
        `bool[10, 10, 6]`, channels 0 cannon, 1 alien, 2 alien_left, 3 alien_right,
        4 friendly_bullet, 5 enemy_bullet (the direction channels repeat the alien map in the
        channel of the block's direction).
    """
    cannon = (_rows[:, None] == 9) & (_rows[None, :] == state.pos)
    left = state.alien_dir < 0
    return jnp.stack(
        [
            cannon,
            state.alien_map,
            state.alien_map & left,
            state.alien_map & ~left,
            state.f_bullet_map,
            state.e_bullet_map,
        ],
        axis=-1,
    )


class SpaceInvaders(MinAtarEnvironment):
    """MinAtar's Space Invaders (`minatar.environments.space_invaders`, MinAtar 1.0.15, played
    through `minatar.Environment("space_invaders")`).

    Ids `SpaceInvaders-MinAtar` / `-v0` (six actions) and `-v1` (MinAtar's minimal set
    `n, l, r, f`).

    The rules, as MinAtar plays them, one step in this order:

    1. the cannon (bottom row) fires if the action is `f` and its cool-down is over (a bullet
       appears in its cell, cool-down 5), else moves one column left or right;
    2. friendly bullets rise one row (leaving at the top), enemy bullets fall one row (leaving at
       the bottom); an enemy bullet or an alien on the cannon's cell ends the game;
    3. the alien block moves when its timer is out: sideways in its direction, or, if an alien
       touches the wall it moves towards, one row down with the direction reversed (ending the
       game if an alien was already on the bottom row; so does an alien moving onto the
       cannon). The timer restarts at `min(number of aliens, enemy_move_interval)`: the last
       aliens move faster, the very last one every step;
    4. every 10 steps (the first time on the 11th) the alien nearest to the cannon (by column
       distance, ties to the left; the lowest alien of that column) drops a bullet in its own cell;
    5. every alien sharing a cell with a friendly bullet dies with it, reward +1 each;
    6. timers count down; when the wave is cleared a new block of 4 x 6 aliens appears, and with
       `difficulty_ramping` the move interval shrinks by one (12 down to 6) and `ramp_index`
       counts the waves cleared.

    Observation: `bool[10, 10, 6]`, MinAtar's channels 0 cannon, 1 alien, 2 alien_left,
    3 alien_right, 4 friendly_bullet, 5 enemy_bullet (the direction channels repeat the alien map
    in the channel of the block's direction). The game draws no random numbers of its own: the
    only random draw of a step is the sticky action.

    Params (`MinAtarParams`) and defaults: `sticky_action_prob=0.1`, `difficulty_ramping=True`,
    `use_minimal_action_set=False` (six actions; `-v1`: `n, l, r, f`),
    `max_steps_in_episode=10_000`.

    Differs: `last_action` starts at no-op on every reset (MinAtar keeps it across episodes of one
    `Environment` object). Inside jit an out-of-range action is clipped into the action set.
    MinAtar keeps the maps as float arrays; they are booleans here.
    """

    reset_ignores_key = True  # every episode starts alike

    num_channels = len(CHANNELS)
    minimal_actions = MINIMAL_ACTIONS
    num_draw_words = 0

    def reset_env(self, key, params):
        state = initial_state()
        return self.observe(state, params), state

    def transition(self, state, action, draws, params):
        return transition(state, action, params.difficulty_ramping)

    def get_obs(self, state):
        return get_obs(state)
