"""Seaquest-MinAtar: a submarine rescues divers and shoots fish and enemy subs, on one tank of
oxygen per dive (`Seaquest`, checked against `minatar.Environment("seaquest")`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.envs.minatar._common import (
    DOWN,
    FIRE,
    GRID_SIZE,
    LEFT,
    RIGHT,
    UP,
    MinAtarEnvironment,
    MinAtarState,
    uniform_from_bits,
)

CHANNELS = (
    "sub_front",
    "sub_back",
    "friendly_bullet",
    "trail",
    "enemy_bullet",
    "enemy_fish",
    "enemy_sub",
    "oxygen_guage",
    "diver_guage",
    "diver",
)  # MinAtar's names and order (its spelling of "gauge")
MINIMAL_ACTIONS = (0, 1, 2, 3, 4, 5)

MAX_OXYGEN = 200
INIT_SPAWN_SPEED = 20  # initial steps between enemy spawns
DIVER_SPAWN_SPEED = 30  # steps between diver spawns
INIT_MOVE_INTERVAL = 5  # initial `move_speed` of enemies
SHOT_COOL_DOWN = 5  # steps between two shots of the player
ENEMY_SHOT_INTERVAL = 10  # an enemy sub's shot timer restarts here
DIVER_MOVE_INTERVAL = 5  # a diver's move timer restarts here
MAX_DIVERS = 6  # divers the submarine can carry

# capacities (see `Seaquest`'s docstring for the bounds)
NUM_F_BULLETS = 2
NUM_DIVERS = 2
NUM_ENEMIES = 31

_cols = jnp.arange(GRID_SIZE, dtype=jnp.int32)
_NO_ORDER = jnp.iinfo(jnp.int32).max


@struct.dataclass
class SeaquestState(MinAtarState):
    """Seaquest's state: MinAtar's game attributes, its object lists as fixed-capacity slots.

    Each list becomes slots with a validity mask and a spawn stamp (`*_order`: the step the
    object appeared; MinAtar's lists are in spawn order, which decides which of two objects
    sharing a cell is hit first). A free slot's values mean nothing. Scalars are int32 or bool.

    Attributes:
        oxygen: Oxygen left (200 full); the game ends once it is used up.
        diver_count: Divers on board, 0..6; negative after a six-diver bonus (see `Seaquest`).
        sub_x: The submarine's column (its front).
        sub_y: Its row, 0 (surface) .. 8.
        sub_or: Facing right (its back is then on the left).
        f_bullet_x: `int32[2]`, friendly bullets' columns (MinAtar's `f_bullets`, `[x, y, or]`).
        f_bullet_y: `int32[2]`, their rows.
        f_bullet_lr: `bool[2]`, moving right.
        f_bullet_valid: `bool[2]`, the slot holds a bullet.
        f_bullet_order: `int32[2]`, the step it was fired (list order).
        enemy_x: `int32[31]`, enemies' columns: MinAtar's `e_fish` (`[x, y, lr, move timer]`)
            and `e_subs` (`[x, y, lr, move timer, shot timer]`) in one pool.
        enemy_y: `int32[31]`, their rows, 1..8.
        enemy_lr: `bool[31]`, moving right (spawned at the left edge).
        enemy_move_timer: `int32[31]`, steps until it moves (at 0).
        enemy_shot_timer: `int32[31]`, a sub's steps until it fires (at 0); 0 for fish.
        enemy_is_sub: `bool[31]`, a sub (in `e_subs`), else a fish (in `e_fish`).
        enemy_valid: `bool[31]`, the slot holds an enemy.
        enemy_order: `int32[31]`, the step it spawned (list order).
        diver_x: `int32[2]`, divers' columns (MinAtar's `divers`, `[x, y, lr, move timer]`).
        diver_y: `int32[2]`, their rows, 1..8.
        diver_lr: `bool[2]`, moving right.
        diver_move_timer: `int32[2]`, steps until it moves (at 0).
        diver_valid: `bool[2]`, the slot holds a diver.
        diver_order: `int32[2]`, the step it spawned (list order).
        e_bullets: `bool[2, 10, 10]`, enemy bullets at `[moving right, row, column]`
            (MinAtar's `e_bullets` list as a set).
        e_spawn_speed: Steps between enemy spawns (20, ramps down to 1).
        e_spawn_timer: Steps until the next enemy spawn (at 0).
        d_spawn_timer: Steps until the next diver spawn (at 0).
        move_speed: The enemies' move timer restart value (5, ramps down to 2).
        ramp_index: The surfacings that ramped the difficulty.
        shot_timer: The player's cool-down; it may fire at 0.
        surface: At the surface and already counted as surfaced.
    """

    oxygen: jax.Array
    diver_count: jax.Array
    sub_x: jax.Array
    sub_y: jax.Array
    sub_or: jax.Array
    # friendly bullets, NUM_F_BULLETS slots
    f_bullet_x: jax.Array
    f_bullet_y: jax.Array
    f_bullet_lr: jax.Array
    f_bullet_valid: jax.Array
    f_bullet_order: jax.Array
    # enemies (fish and subs), NUM_ENEMIES slots
    enemy_x: jax.Array
    enemy_y: jax.Array
    enemy_lr: jax.Array
    enemy_move_timer: jax.Array
    enemy_shot_timer: jax.Array
    enemy_is_sub: jax.Array
    enemy_valid: jax.Array
    enemy_order: jax.Array
    # divers, NUM_DIVERS slots
    diver_x: jax.Array
    diver_y: jax.Array
    diver_lr: jax.Array
    diver_move_timer: jax.Array
    diver_valid: jax.Array
    diver_order: jax.Array
    e_bullets: jax.Array
    e_spawn_speed: jax.Array
    e_spawn_timer: jax.Array
    d_spawn_timer: jax.Array
    move_speed: jax.Array
    ramp_index: jax.Array
    shot_timer: jax.Array
    surface: jax.Array


@struct.dataclass
class SeaquestDraws:
    """The random numbers of one step (MinAtar's `_spawn_enemy` and `_spawn_diver`); used only
    when the corresponding spawn timer is out.

    Attributes:
        enemy_lr: The enemy spawns at the left edge moving right (bool scalar; `rand() < 1/2`).
        enemy_is_sub: A sub rather than a fish (bool scalar; `rand() < 1/3`).
        enemy_y: The enemy's row, 1..8 (int32 scalar; `randint(1, 9)`).
        diver_lr: The diver spawns at the left edge moving right (bool scalar).
        diver_y: The diver's row, 1..8 (int32 scalar).
    """

    enemy_lr: jax.Array
    enemy_is_sub: jax.Array
    enemy_y: jax.Array
    diver_lr: jax.Array
    diver_y: jax.Array


def draws_from_bits(word: jax.Array) -> SeaquestDraws:
    """The step's draws from one random `uint32` word.

    Bit 0 the enemy's side, bits 1-3 its row, bit 4 the diver's side, bits 5-7 its row, bits
    8-31 a 24-bit uniform for "is a sub" (`< 1/3`).

    Args:
        word: A random `uint32` scalar.

    Returns:
        The draws (rows uniform on 1..8, sides fair coins).
    """
    word = jnp.asarray(word, jnp.uint32)
    bit = lambda i: ((word >> i) & 1) == 1  # noqa: E731
    return SeaquestDraws(
        enemy_lr=bit(0),
        enemy_y=(1 + ((word >> 1) & 7)).astype(jnp.int32),
        diver_lr=bit(4),
        diver_y=(1 + ((word >> 5) & 7)).astype(jnp.int32),
        enemy_is_sub=uniform_from_bits(word) < jnp.float32(1.0 / 3.0),
    )


def initial_state() -> SeaquestState:
    """The start of an episode (MinAtar's `reset`, which draws nothing).

    Returns:
        The submarine at the surface in column 5 facing left, full oxygen, no object, the
        timers and speeds at their starts.
    """
    i32 = lambda v, n=None: jnp.full(() if n is None else (n,), v, jnp.int32)  # noqa: E731
    no = lambda n: jnp.zeros((n,), jnp.bool_)  # noqa: E731
    return SeaquestState(
        time=i32(0),
        last_action=i32(0),
        terminal=jnp.asarray(False),
        oxygen=i32(MAX_OXYGEN),
        diver_count=i32(0),
        sub_x=i32(5),
        sub_y=i32(0),
        sub_or=jnp.asarray(False),
        f_bullet_x=i32(0, NUM_F_BULLETS),
        f_bullet_y=i32(0, NUM_F_BULLETS),
        f_bullet_lr=no(NUM_F_BULLETS),
        f_bullet_valid=no(NUM_F_BULLETS),
        f_bullet_order=i32(0, NUM_F_BULLETS),
        enemy_x=i32(0, NUM_ENEMIES),
        enemy_y=i32(0, NUM_ENEMIES),
        enemy_lr=no(NUM_ENEMIES),
        enemy_move_timer=i32(0, NUM_ENEMIES),
        enemy_shot_timer=i32(0, NUM_ENEMIES),
        enemy_is_sub=no(NUM_ENEMIES),
        enemy_valid=no(NUM_ENEMIES),
        enemy_order=i32(0, NUM_ENEMIES),
        diver_x=i32(0, NUM_DIVERS),
        diver_y=i32(0, NUM_DIVERS),
        diver_lr=no(NUM_DIVERS),
        diver_move_timer=i32(0, NUM_DIVERS),
        diver_valid=no(NUM_DIVERS),
        diver_order=i32(0, NUM_DIVERS),
        e_bullets=jnp.zeros((2, GRID_SIZE, GRID_SIZE), jnp.bool_),
        e_spawn_speed=i32(INIT_SPAWN_SPEED),
        e_spawn_timer=i32(INIT_SPAWN_SPEED),
        d_spawn_timer=i32(DIVER_SPAWN_SPEED),
        move_speed=i32(INIT_MOVE_INTERVAL),
        ramp_index=i32(0),
        shot_timer=i32(0),
        surface=jnp.asarray(True),
    )


# ---------------------------------------------------------------------------------------------
# small helpers over slots


def _first_free(valid: jax.Array) -> jax.Array:
    """One-hot of the first empty slot (all false when none is free)."""
    free = ~valid
    return free & (jnp.arange(valid.shape[0]) == jnp.argmax(free))


def _earliest(mask: jax.Array, order: jax.Array) -> jax.Array:
    """One-hot of the slot in `mask` that comes first in list order (stamps are distinct)."""
    first = jnp.min(jnp.where(mask, order, _NO_ORDER))
    return mask & (order == first)


def _latest(mask: jax.Array, order: jax.Array) -> jax.Array:
    """One-hot of the slot in `mask` that comes last in list order (MinAtar iterates its lists
    in reverse, so this one is stepped first)."""
    last = jnp.max(jnp.where(mask, order, -_NO_ORDER))
    return mask & (order == last)


def _step_x(x: jax.Array, lr: jax.Array) -> jax.Array:
    return x + jnp.where(lr, 1, -1)


def _on_grid(x: jax.Array) -> jax.Array:
    return (x >= 0) & (x < GRID_SIZE)


# ---------------------------------------------------------------------------------------------
# the step's parts, in MinAtar's order


def spawn_enemy(state: SeaquestState, draws: SeaquestDraws) -> SeaquestState:
    """When the spawn timer is out: a fish or sub at an edge of the drawn row, unless an enemy
    in that row moves the other way; the timer restarts either way.

    Args:
        state: The state before the step.
        draws: The step's draws (`enemy_lr`, `enemy_is_sub`, `enemy_y`).

    Returns:
        The state with the enemy spawned, stamped with `state.time`.
    """
    due = state.e_spawn_timer == 0
    lr = jnp.asarray(draws.enemy_lr, jnp.bool_)
    y = jnp.asarray(draws.enemy_y, jnp.int32)
    blocked = jnp.any(state.enemy_valid & (state.enemy_y == y) & (state.enemy_lr != lr))
    slot = _first_free(state.enemy_valid) & due & ~blocked
    is_sub = jnp.asarray(draws.enemy_is_sub, jnp.bool_)
    return state.replace(
        enemy_x=jnp.where(slot, jnp.where(lr, 0, GRID_SIZE - 1), state.enemy_x),
        enemy_y=jnp.where(slot, y, state.enemy_y),
        enemy_lr=jnp.where(slot, lr, state.enemy_lr),
        enemy_move_timer=jnp.where(slot, state.move_speed, state.enemy_move_timer),
        enemy_shot_timer=jnp.where(slot, jnp.where(is_sub, ENEMY_SHOT_INTERVAL, 0), state.enemy_shot_timer),
        enemy_is_sub=jnp.where(slot, is_sub, state.enemy_is_sub),
        enemy_valid=state.enemy_valid | slot,
        enemy_order=jnp.where(slot, state.time, state.enemy_order),
        e_spawn_timer=jnp.where(due, state.e_spawn_speed, state.e_spawn_timer),
    )


def spawn_diver(state: SeaquestState, draws: SeaquestDraws) -> SeaquestState:
    """When the diver spawn timer is out: a diver at an edge of the drawn row (in the first free
    slot, none if both are taken); the timer restarts at 30 either way.

    Args:
        state: The state.
        draws: The step's draws (`diver_lr`, `diver_y`).

    Returns:
        The state with the diver spawned.
    """
    due = state.d_spawn_timer == 0
    lr = jnp.asarray(draws.diver_lr, jnp.bool_)
    slot = _first_free(state.diver_valid) & due
    return state.replace(
        diver_x=jnp.where(slot, jnp.where(lr, 0, GRID_SIZE - 1), state.diver_x),
        diver_y=jnp.where(slot, jnp.asarray(draws.diver_y, jnp.int32), state.diver_y),
        diver_lr=jnp.where(slot, lr, state.diver_lr),
        diver_move_timer=jnp.where(slot, DIVER_MOVE_INTERVAL, state.diver_move_timer),
        diver_valid=state.diver_valid | slot,
        diver_order=jnp.where(slot, state.time, state.diver_order),
        d_spawn_timer=jnp.where(due, DIVER_SPAWN_SPEED, state.d_spawn_timer),
    )


def move_player(state: SeaquestState, action: jax.Array) -> SeaquestState:
    """Fire forward (if `f` and cooled down: the bullet starts on the submarine's cell), or
    move; left/right also turn the submarine. `f` during the cool-down does nothing.

    Args:
        state: The state.
        action: The executed MinAtar action, 0..5.

    Returns:
        The state with the submarine moved or the bullet fired (cool-down 5).
    """
    fire = (action == FIRE) & (state.shot_timer == 0)
    slot = _first_free(state.f_bullet_valid) & fire
    sub_x = jnp.where(action == LEFT, jnp.maximum(0, state.sub_x - 1), state.sub_x)
    sub_x = jnp.where(action == RIGHT, jnp.minimum(GRID_SIZE - 1, sub_x + 1), sub_x)
    sub_or = jnp.where(action == LEFT, False, jnp.where(action == RIGHT, True, state.sub_or))
    sub_y = jnp.where(action == UP, jnp.maximum(0, state.sub_y - 1), state.sub_y)
    sub_y = jnp.where(action == DOWN, jnp.minimum(GRID_SIZE - 2, sub_y + 1), sub_y)
    return state.replace(
        f_bullet_x=jnp.where(slot, state.sub_x, state.f_bullet_x),
        f_bullet_y=jnp.where(slot, state.sub_y, state.f_bullet_y),
        f_bullet_lr=jnp.where(slot, state.sub_or, state.f_bullet_lr),
        f_bullet_valid=state.f_bullet_valid | slot,
        f_bullet_order=jnp.where(slot, state.time, state.f_bullet_order),
        shot_timer=jnp.where(fire, SHOT_COOL_DOWN, state.shot_timer),
        sub_x=sub_x,
        sub_y=sub_y,
        sub_or=sub_or,
    )


def move_f_bullets(state: SeaquestState) -> tuple[SeaquestState, jax.Array]:
    """Friendly bullets move one cell, the last fired first; off the grid they vanish; on an
    enemy's cell they destroy the first fish there, else the first sub (+1 each).

    Args:
        state: The state after the player's move.

    Returns:
        `(state, reward)`: the reward is the enemies destroyed (int32).
    """
    x = jnp.where(state.f_bullet_valid, _step_x(state.f_bullet_x, state.f_bullet_lr), state.f_bullet_x)
    alive = state.f_bullet_valid & _on_grid(x)
    enemy_valid = state.enemy_valid
    reward = jnp.zeros((), jnp.int32)
    unstepped = state.f_bullet_valid
    for _ in range(NUM_F_BULLETS):  # static: one bullet per pass, latest first
        bullet = _latest(unstepped, state.f_bullet_order)
        unstepped = unstepped & ~bullet
        bx = jnp.sum(jnp.where(bullet, x, 0))
        by = jnp.sum(jnp.where(bullet, state.f_bullet_y, 0))
        live = jnp.any(bullet & alive)
        here = enemy_valid & (state.enemy_x == bx) & (state.enemy_y == by) & live
        fish = _earliest(here & ~state.enemy_is_sub, state.enemy_order)
        sub = _earliest(here & state.enemy_is_sub, state.enemy_order)
        victim = jnp.where(jnp.any(fish), fish, sub)
        hit = jnp.any(victim)
        enemy_valid = enemy_valid & ~victim
        alive = alive & ~(bullet & hit)
        reward = reward + hit
    return state.replace(f_bullet_x=x, f_bullet_valid=alive, enemy_valid=enemy_valid), reward


def move_divers(state: SeaquestState) -> SeaquestState:
    """Divers move every 6th step and leave at the edges; a diver on the player's cell, or
    moving onto it, is picked up while fewer than 6 are aboard (the last spawned first).

    Args:
        state: The state after the friendly bullets' move.

    Returns:
        The state with the divers moved and `diver_count` counting the ones picked up.
    """
    at_player = (state.diver_x == state.sub_x) & (state.diver_y == state.sub_y)
    moves = state.diver_valid & (state.diver_move_timer == 0)
    x = jnp.where(moves, _step_x(state.diver_x, state.diver_lr), state.diver_x)
    lands = moves & (x == state.sub_x) & (state.diver_y == state.sub_y)
    candidate = state.diver_valid & (at_player | lands)
    # picked up in MinAtar's (reverse) order until the submarine is full
    ahead = jnp.sum(
        candidate[None, :] & (state.diver_order[None, :] > state.diver_order[:, None]), axis=1, dtype=jnp.int32
    )
    picked = candidate & (state.diver_count + ahead < MAX_DIVERS)
    return state.replace(
        diver_x=x,
        diver_move_timer=jnp.where(moves, DIVER_MOVE_INTERVAL, state.diver_move_timer - state.diver_valid),
        diver_valid=state.diver_valid & ~picked & _on_grid(x),
        diver_count=state.diver_count + jnp.sum(picked, dtype=jnp.int32),
    )


def _claim_bullets(
    candidates: jax.Array, x: jax.Array, state: SeaquestState, f_alive: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Enemies in `candidates` (moved to column `x`) that die on a friendly bullet, and the
    bullets left. MinAtar steps the enemies last-spawned first and each takes the first bullet
    in its new cell; the same matching: each bullet, in list order, takes the last-spawned
    candidate entering its cell that no earlier bullet took."""
    shot = jnp.zeros_like(candidates)
    unmatched = f_alive
    for _ in range(NUM_F_BULLETS):  # static: bullets in list order
        bullet = _earliest(unmatched, state.f_bullet_order)
        unmatched = unmatched & ~bullet
        bx = jnp.sum(jnp.where(bullet, state.f_bullet_x, 0))
        by = jnp.sum(jnp.where(bullet, state.f_bullet_y, 0))
        entering = candidates & ~shot & (x == bx) & (state.enemy_y == by) & jnp.any(bullet)
        victim = _latest(entering, state.enemy_order)
        shot = shot | victim
        f_alive = f_alive & ~(bullet & jnp.any(victim))
    return shot, f_alive


def move_enemies(state: SeaquestState) -> tuple[SeaquestState, jax.Array, jax.Array]:
    """MinAtar's enemy-sub loop and enemy-fish loop (its enemy-bullet loop, between them,
    touches neither enemies nor friendly bullets, so `move_e_bullets` can follow both).

    An enemy moves one cell when its move timer is out (then restarts at `move_speed`) and
    leaves at the edges; one on the player's cell, before or after moving, ends the game; one
    moving onto a friendly bullet dies with it (+1), subs claiming bullets before fish. Then
    every sub (even one that died this step) whose shot timer is out fires a bullet from its
    cell in its direction.

    Args:
        state: The state after the divers' move.

    Returns:
        `(state, reward, terminal)`: the enemies shot (int32) and whether one reached the
        player.
    """
    alive = state.enemy_valid
    at_player = alive & (state.enemy_x == state.sub_x) & (state.enemy_y == state.sub_y)
    moves = alive & (state.enemy_move_timer == 0)
    x = jnp.where(moves, _step_x(state.enemy_x, state.enemy_lr), state.enemy_x)
    off = moves & ~_on_grid(x)
    lands_on_player = moves & ~off & (x == state.sub_x) & (state.enemy_y == state.sub_y)
    can_be_shot = moves & ~off & ~lands_on_player
    subs_shot, f_alive = _claim_bullets(can_be_shot & state.enemy_is_sub, x, state, state.f_bullet_valid)
    fish_shot, f_alive = _claim_bullets(can_be_shot & ~state.enemy_is_sub, x, state, f_alive)
    subs = alive & state.enemy_is_sub
    fires = subs & (state.enemy_shot_timer == 0)
    # a dead sub that left the grid fires from off the grid: that bullet is gone at once
    e_bullets = _paint(state.e_bullets, state.enemy_lr.astype(jnp.int32), state.enemy_y, x, fires)
    state = state.replace(
        enemy_x=x,
        enemy_move_timer=jnp.where(moves, state.move_speed, state.enemy_move_timer - alive),
        enemy_shot_timer=jnp.where(fires, ENEMY_SHOT_INTERVAL, state.enemy_shot_timer - subs),
        enemy_valid=alive & ~(off | subs_shot | fish_shot),
        f_bullet_valid=f_alive,
        e_bullets=e_bullets,
    )
    reward = jnp.sum(subs_shot | fish_shot, dtype=jnp.int32)
    return state, reward, jnp.any(at_player | lands_on_player)


def move_e_bullets(state: SeaquestState) -> tuple[SeaquestState, jax.Array]:
    """Enemy bullets move one cell and leave at the edges; one on the player's cell before or
    after moving ends the game.

    Args:
        state: The state after the enemies' move.

    Returns:
        `(state, terminal)`: whether a bullet reached the player.
    """
    player = (jnp.arange(GRID_SIZE)[:, None] == state.sub_y) & (_cols[None, :] == state.sub_x)
    before = jnp.any(state.e_bullets & player)
    zero = jnp.zeros((GRID_SIZE, 1), jnp.bool_)
    left = jnp.concatenate([state.e_bullets[0, :, 1:], zero], axis=1)
    right = jnp.concatenate([zero, state.e_bullets[1, :, :-1]], axis=1)
    e_bullets = jnp.stack([left, right])
    after = jnp.any(e_bullets & player)
    return state.replace(e_bullets=e_bullets), before | after


def update_oxygen_and_surface(
    state: SeaquestState, difficulty_ramping: jax.Array
) -> tuple[SeaquestState, jax.Array, jax.Array]:
    """Timers count down, oxygen is used below the surface, and reaching the surface refills
    it (and ramps the difficulty), or ends the game without a diver aboard.

    Args:
        state: The state after the enemy bullets' move.
        difficulty_ramping: MinAtar's `ramping` (bool scalar).

    Returns:
        `(state, reward, terminal)`: the six-diver bonus `oxygen * 10 // 200` (int32, else 0)
        and whether the oxygen was used up or the submarine surfaced without a diver.
    """
    terminal = state.oxygen <= 0
    below = state.sub_y > 0
    surfacing = ~below & ~state.surface
    drowned = surfacing & (state.diver_count == 0)
    resurface = surfacing & ~drowned
    full = resurface & (state.diver_count == MAX_DIVERS)
    reward = jnp.where(full, state.oxygen * 10 // MAX_OXYGEN, 0)
    diver_count = jnp.where(full, 0, state.diver_count) - resurface
    ramp = resurface & difficulty_ramping & ((state.e_spawn_speed > 1) | (state.move_speed > 2))
    slower_moves = ramp & (state.move_speed > 2) & (state.ramp_index % 2 == 1)
    state = state.replace(
        e_spawn_timer=state.e_spawn_timer - (state.e_spawn_timer > 0),
        d_spawn_timer=state.d_spawn_timer - (state.d_spawn_timer > 0),
        shot_timer=state.shot_timer - (state.shot_timer > 0),
        oxygen=jnp.where(below, state.oxygen - 1, jnp.where(resurface, MAX_OXYGEN, state.oxygen)),
        surface=jnp.where(below, False, state.surface | resurface),
        diver_count=diver_count,
        move_speed=state.move_speed - slower_moves,
        e_spawn_speed=state.e_spawn_speed - (ramp & (state.e_spawn_speed > 1)),
        ramp_index=state.ramp_index + ramp,
    )
    return state, reward, terminal | drowned


def transition(
    state: SeaquestState, action: jax.Array, draws: SeaquestDraws, difficulty_ramping: jax.Array
) -> tuple[SeaquestState, jax.Array, jax.Array]:
    """MinAtar's `act` for an executed action with the step's draws given.

    Args:
        state: The state before the step.
        action: The executed MinAtar action, 0..5.
        draws: The step's draws, used when a spawn timer is out.
        difficulty_ramping: MinAtar's `ramping` (bool scalar).

    Returns:
        `(state, reward, terminal)`: the next state, the float32 reward and whether the game
        ended.
    """
    state = spawn_enemy(state, draws)
    state = spawn_diver(state, draws)
    state = move_player(state, action)
    state, r_bullets = move_f_bullets(state)
    state = move_divers(state)
    state, r_enemies, t_enemies = move_enemies(state)
    state, t_bullets = move_e_bullets(state)
    state, r_surface, t_surface = update_oxygen_and_surface(state, jnp.asarray(difficulty_ramping, jnp.bool_))
    reward = (r_bullets + r_enemies + r_surface).astype(jnp.float32)
    return state, reward, t_enemies | t_bullets | t_surface


# ---------------------------------------------------------------------------------------------
# observation


def _paint(grid: jax.Array, planes: jax.Array, ys: jax.Array, xs: jax.Array, mask: jax.Array) -> jax.Array:
    """`grid` (bool[P, 10, 10]) with the cells `[planes[i], ys[i], xs[i]]` of the masked objects
    set; objects off the grid are dropped. One scatter: cheaper than comparing every object
    with every cell."""
    index = (planes * GRID_SIZE + ys) * GRID_SIZE + xs
    index = jnp.where(mask & _on_grid(xs) & _on_grid(ys), index, grid.size)
    return grid.reshape(-1).at[index].set(True, mode="drop").reshape(grid.shape)


def get_obs(state: SeaquestState) -> jax.Array:
    """The observation, as MinAtar's `state()`.

    Args:
        state: The game's state.

    Returns:
        `bool[10, 10, 10]` in MinAtar's channels (`CHANNELS`): 0 sub_front, 1 sub_back,
        2 friendly_bullet, 3 trail, 4 enemy_bullet, 5 enemy_fish, 6 enemy_sub, 7 oxygen_guage,
        8 diver_guage, 9 diver.
    """
    rows = jnp.arange(GRID_SIZE, dtype=jnp.int32)[:, None]
    cols = _cols[None, :]
    back_x = jnp.where(state.sub_or, state.sub_x - 1, state.sub_x + 1) % GRID_SIZE  # numpy's -1 is column 9
    oxygen_cells = jnp.maximum(0, state.oxygen) * 10 // MAX_OXYGEN
    bottom = rows == GRID_SIZE - 1
    no = jnp.zeros((GRID_SIZE, GRID_SIZE), jnp.bool_)
    planes = jnp.stack(
        [
            (rows == state.sub_y) & (cols == state.sub_x),
            (rows == state.sub_y) & (cols == back_x),
            no,
            no,
            state.e_bullets[0] | state.e_bullets[1],
            no,
            no,
            bottom & (cols < oxygen_cells),
            bottom & (cols >= GRID_SIZE - 1 - state.diver_count) & (cols < GRID_SIZE - 1),
            no,
        ]
    )
    # every listed object and its trail in one scatter: (channel, row, column, shown)
    enemy_channel = jnp.where(state.enemy_is_sub, 6, 5)
    enemy_back = state.enemy_x - jnp.where(state.enemy_lr, 1, -1)
    diver_back = state.diver_x - jnp.where(state.diver_lr, 1, -1)
    n_b, n_e, n_d = NUM_F_BULLETS, NUM_ENEMIES, NUM_DIVERS
    channel = jnp.concatenate([jnp.full(n_b, 2), enemy_channel, jnp.full(n_e + n_d, 3), jnp.full(n_d, 9)])
    ys = jnp.concatenate([state.f_bullet_y, state.enemy_y, state.enemy_y, state.diver_y, state.diver_y])
    xs = jnp.concatenate([state.f_bullet_x, state.enemy_x, enemy_back, diver_back, state.diver_x])
    shown = jnp.concatenate(
        [state.f_bullet_valid, state.enemy_valid, state.enemy_valid, state.diver_valid, state.diver_valid]
    )
    planes = _paint(planes, channel.astype(jnp.int32), ys, xs, shown)
    return jnp.moveaxis(planes, 0, -1)


class Seaquest(MinAtarEnvironment):
    """MinAtar's Seaquest (`minatar.Environment("seaquest")`, `minatar/environments/seaquest.py`,
    MinAtar 1.0.15).

    Ids `Seaquest-MinAtar` / `-v0` and `-v1` (Seaquest's minimal set is all six actions, so both
    are the same game).

    The player's submarine (two cells: front and back, so its facing shows) moves in rows 0-8
    (row 0 is the surface) and fires bullets forward, at most every 5 steps. Enemies (fish, and
    subs that shoot) and divers cross the rows 1-8 horizontally; each is drawn with a trail cell
    behind it. One step, in MinAtar's order:

    1. when the enemy spawn timer is out, an enemy appears at the left or right edge of a random
       row 1-8 (a sub with probability 1/3), unless an enemy already in that row moves the other
       way; the timer restarts at `e_spawn_speed`. Every 30 steps a diver appears the same way;
    2. the player fires (action `f`, cooled down) or moves (`l`/`r` also turn it);
    3. friendly bullets move one cell; leaving the grid they vanish; on an enemy (the first fish
       in the list, else the first sub) both vanish, reward +1;
    4. divers move every 6th step; one on (or moving onto) the player is picked up if fewer than 6
       are on board;
    5. enemy subs move every `move_speed + 1` steps; a sub on (or moving onto) the player ends the
       game; a sub moving onto a friendly bullet dies with it (+1); every 11th step each sub
       fires a bullet in its direction (even the one that just died);
    6. enemy bullets move one cell per step; one on the player (before or after the move) ends
       the game;
    7. fish move like subs (without shooting). Here 5 and 7 are one pass over the enemies
       (`move_enemies`, subs taking bullets before fish) followed by 6: the bullets of 6 touch
       neither enemies nor friendly bullets;
    8. timers count down. With oxygen used up the game ends. Below the surface oxygen drops by 1;
       reaching the surface (after having left it) with no diver ends the game, else refills the
       oxygen, costs one diver (with six divers: all of them and a bonus of
       `oxygen * 10 // 200`), and with `difficulty_ramping` speeds the game up: enemies spawn one
       step sooner (20 down to 1) and, every second time, move one step sooner (5 down to 2).

    MinAtar's surfacing arithmetic is kept as it is: after a six-diver bonus the diver count is
    set to 0 and then decremented, so it reads -1; every later surfacing decrements it further
    and never ends the game (it ends only when the count is exactly 0: picking up divers can bring
    it back there). The diver gauge shows nothing while the count is negative.

    Observation: `bool[10, 10, 10]`, MinAtar's channels: 0 sub_front, 1 sub_back,
    2 friendly_bullet, 3 trail, 4 enemy_bullet, 5 enemy_fish, 6 enemy_sub, 7 oxygen_guage (row 9,
    one cell per 20 oxygen), 8 diver_guage (row 9, columns 9-n..8), 9 diver.

    MinAtar's variable-length lists become fixed-capacity slots with a validity mask and a spawn
    stamp (`*_order`: the step the object appeared; MinAtar's lists are in spawn order, which
    decides which of two objects sharing a cell is hit first). The capacities, and why they are
    never exceeded (`tests/envs/minatar/test_seaquest.py` drives the game to its densest state):

    - friendly bullets, 2: one shot per 5 steps at most, and a bullet leaves the 10-column grid at
      most 9 steps after its shot, so two shots (t, t+5) can be alive, never three (t+10).
    - divers, 2: one spawn per 30 steps, and a diver crosses the grid in at most 59 steps.
    - enemies (fish and subs in one pool), 31: at most one spawn per step, and an enemy spawned
      when the move interval is `m` lives at most `10 m + 9` steps (the interval never grows).
      Spawns are `e_spawn_speed` apart, and `e_spawn_speed` and `move_speed` fall together with
      the ramp (20, 5), (19, 5), (18, 4), (17, 4), (16, 3), (15, 3), (14, 2) ... (1, 2). Long-lived
      enemies are therefore spawned far apart: maximizing over every spawn schedule and ramp path
      (even letting the ramp jump any number of levels at any step) gives at most 30 alive at the
      end of a step: one enemy spawned at interval 5 (alive 59 steps), then, 20 steps later, a
      spawn on every step at interval 2, of which the last 29 are still alive. A step adds at
      most one before any leaves, so 31 slots always hold the list. (The real ramp climbs one
      level per surfacing, at most every second step, so the game stays below that; the test's
      worst schedule, ramping as fast as surfacing allows, peaks at 29.)
    - enemy bullets: no capacity. They never interact with each other, so they are kept as a
      grid per direction, `e_bullets: bool[2, 10, 10]`: MinAtar's list as a set. Its order never
      matters, nor do duplicates (two subs in one cell firing together): identical bullets move
      together and leave together, indistinguishable to the end.

    Params (`MinAtarParams`) and defaults: `sticky_action_prob=0.1`, `difficulty_ramping=True`,
    `use_minimal_action_set=False` (six actions; `-v1`'s minimal set is the same six),
    `max_steps_in_episode=10_000`.

    Random numbers: one `uint32` word per step besides the sticky draw: bit 0 the enemy's side,
    bits 1-3 its row, bit 4 the diver's side, bits 5-7 its row, bits 8-31 a 24-bit uniform for
    "is a sub" (`< 1/3`). `transition` takes them explicitly (`SeaquestDraws`).

    Differs: `last_action` starts at no-op on every reset (MinAtar keeps it across episodes of one
    `Environment` object). Inside jit an out-of-range action is clipped into the action set.
    MinAtar removes a dead object from its list by value (`list.remove`, the first equal record)
    while iterating over the list, so when a list holds two identical records it can remove the
    twin and step the dead one a second time. For fish, divers and bullets that gives the same
    records (in another list order); for an enemy sub shot while moving it would step the sub's
    shot timer twice. Here each object is stepped exactly once. Such twins need two subs agreeing
    in cell, direction and both timers; the parity runs never met one.
    """

    reset_ignores_key = True  # every episode starts alike

    num_channels = len(CHANNELS)
    minimal_actions = MINIMAL_ACTIONS
    num_draw_words = 1

    def reset_env(self, key, params):
        state = initial_state()
        return self.observe(state, params), state

    def draws_from_bits(self, bits, state, params):
        return draws_from_bits(bits[0])

    def transition(self, state, action, draws, params):
        return transition(state, action, draws, params.difficulty_ramping)

    def get_obs(self, state):
        return get_obs(state)
