"""Asterix-MinAtar: collect gold and dodge enemies that cross the screen (`Asterix`, checked
against `minatar.Environment("asterix")`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.envs.minatar._common import (
    DOWN,
    GRID_SIZE,
    LEFT,
    RIGHT,
    UP,
    MinAtarEnvironment,
    MinAtarState,
    cell_mask,
    randint_from_bits,
    uniform_from_bits,
)

NUM_CHANNELS = 4
CHANNELS = ("player", "enemy", "trail", "gold")
MINIMAL_ACTIONS = (0, 1, 2, 3, 4)  # n, l, u, r, d
NUM_SLOTS = 8
RAMP_INTERVAL = 100
INIT_SPAWN_SPEED = 10
INIT_MOVE_INTERVAL = 5
X, Y, LR, GOLD = range(4)  # columns of `entities`


@struct.dataclass
class AsterixState(MinAtarState):
    """Asterix's state: MinAtar's game attributes, with its list of entities as slots.

    MinAtar's list of eight entities-or-`None` is `entities` with `entity_active`. MinAtar's
    `shot_timer` is left out: it is set to 0 at reset and never read or changed.

    Attributes:
        player_x: The player's column, 0-9 (int32 scalar).
        player_y: The player's row, 1-8 (int32 scalar).
        entities: `int32[8, 4]`, per slot `[x, y, lr, is_gold]` (columns `X, Y, LR, GOLD`):
            the column, the row `y = slot + 1`, 1 if moving right, 1 if gold. An inactive
            row's values mean nothing.
        entity_active: `bool[8]`: the slot holds an entity (false where MinAtar has `None`).
        spawn_speed: Steps between spawns (int32 scalar; 10, ramps down to 1).
        spawn_timer: Steps until the next spawn, which happens at 0 (int32 scalar).
        move_speed: Steps between entity moves (int32 scalar; 5, ramps down to 1).
        move_timer: Steps until the entities move, at 0 (int32 scalar).
        ramp_timer: Steps until the next difficulty ramp, which happens once it is below 0
            (int32 scalar, restarts at 100).
        ramp_index: The ramps so far (int32 scalar).
    """

    player_x: jax.Array
    player_y: jax.Array
    entities: jax.Array
    entity_active: jax.Array
    spawn_speed: jax.Array
    spawn_timer: jax.Array
    move_speed: jax.Array
    move_timer: jax.Array
    ramp_timer: jax.Array
    ramp_index: jax.Array


@struct.dataclass
class SpawnDraws:
    """The random numbers of one step (MinAtar's `_spawn_entity`), used only when
    `spawn_timer` is 0.

    Attributes:
        lr: The entity enters on the left moving right (bool scalar; MinAtar's
            `rand() < 1/2`).
        is_gold: Gold rather than an enemy (bool scalar; `rand() < 1/3`).
        slot_rank: Which empty slot, counting empty slots from the top (int32 scalar;
            `randint(n_free)`).
    """

    lr: jax.Array
    is_gold: jax.Array
    slot_rank: jax.Array


def initial_state() -> AsterixState:
    """The start of an episode (MinAtar's `reset`, which draws nothing).

    Returns:
        The player at column 5, row 5, no entity, the timers and speeds at their starts.
    """
    i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
    return AsterixState(
        time=i32(0),
        last_action=i32(0),
        terminal=jnp.asarray(False),
        player_x=i32(5),
        player_y=i32(5),
        entities=jnp.zeros((NUM_SLOTS, 4), jnp.int32),
        entity_active=jnp.zeros(NUM_SLOTS, jnp.bool_),
        spawn_speed=i32(INIT_SPAWN_SPEED),
        spawn_timer=i32(INIT_SPAWN_SPEED),
        move_speed=i32(INIT_MOVE_INTERVAL),
        move_timer=i32(INIT_MOVE_INTERVAL),
        ramp_timer=i32(RAMP_INTERVAL),
        ramp_index=i32(0),
    )


def draw_spawn(bits: jax.Array, entity_active: jax.Array) -> SpawnDraws:
    """A spawn's draws from 3 random words (the slot among the currently empty ones).

    Args:
        bits: `uint32[3]` random words: the side, gold, and the slot.
        entity_active: `bool[8]`, the slots taken before the step.

    Returns:
        The draws; `slot_rank` is uniform on the empty slots (0 when none is empty).
    """
    u = uniform_from_bits(bits[:2])
    n_free = jnp.maximum(jnp.sum(~entity_active), 1)
    return SpawnDraws(lr=u[0] < 0.5, is_gold=u[1] < 1.0 / 3.0, slot_rank=randint_from_bits(bits[2], n_free))


def spawn(state: AsterixState, draws: SpawnDraws) -> AsterixState:
    """MinAtar's `_spawn_entity` when `spawn_timer` is 0 (nothing if every slot is taken).

    Args:
        state: The state before the step.
        draws: The step's spawn draws.

    Returns:
        The state with the new entity in the drawn empty slot, at the left edge moving right or
        the right edge moving left, and `spawn_timer` restarted at `spawn_speed`; unchanged
        unless `spawn_timer` is 0.
    """
    now = state.spawn_timer == 0
    free = ~state.entity_active
    chosen = now & free & (jnp.cumsum(free) - 1 == draws.slot_rank)
    lr = draws.lr.astype(jnp.int32)
    slots = jnp.arange(NUM_SLOTS, dtype=jnp.int32)
    new = jnp.stack(
        [
            jnp.broadcast_to((1 - lr) * (GRID_SIZE - 1), (NUM_SLOTS,)),
            slots + 1,
            jnp.broadcast_to(lr, (NUM_SLOTS,)),
            jnp.broadcast_to(draws.is_gold.astype(jnp.int32), (NUM_SLOTS,)),
        ],
        axis=1,
    )
    return state.replace(
        entities=jnp.where(chosen[:, None], new, state.entities),
        entity_active=state.entity_active | chosen,
        spawn_timer=jnp.where(now, state.spawn_speed, state.spawn_timer),
    )


def move_player(state: AsterixState, action: jax.Array) -> AsterixState:
    """The player's move, one cell, kept in columns 0-9 and rows 1-8.

    Args:
        state: The state.
        action: The executed MinAtar action, 0..5 (`n` and `f` do nothing).

    Returns:
        The state with the player moved.
    """
    x = jnp.where(action == LEFT, jnp.maximum(state.player_x - 1, 0), state.player_x)
    x = jnp.where(action == RIGHT, jnp.minimum(x + 1, GRID_SIZE - 1), x)
    y = jnp.where(action == UP, jnp.maximum(state.player_y - 1, 1), state.player_y)
    y = jnp.where(action == DOWN, jnp.minimum(y + 1, GRID_SIZE - 2), y)
    return state.replace(player_x=x, player_y=y)


def collide(state: AsterixState, active: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Entities at columns `x` meeting the player.

    Args:
        state: The state (the player's cell and the entities' rows and kinds).
        active: `bool[8]`, the entities present.
        x: `int32[8]`, the entities' columns.

    Returns:
        `(active, reward, hit)`: `active` without the gold taken, the float32 reward (1 per
        gold taken) and whether an enemy is on the player's cell.
    """
    touching = active & (x == state.player_x) & (state.entities[:, Y] == state.player_y)
    gold = state.entities[:, GOLD] == 1
    taken = touching & gold
    return active & ~taken, jnp.sum(taken).astype(jnp.float32), jnp.any(touching & ~gold)


def move_entities(state: AsterixState) -> tuple[AsterixState, jax.Array, jax.Array]:
    """Touch the player, then (if `move_timer` is 0) move every entity one cell, drop the ones
    past the edge, and touch the player again.

    Args:
        state: The state after the player's move.

    Returns:
        `(state, reward, terminal)`: `move_timer` restarted at `move_speed` if they moved, the
        gold taken (float32) and whether an enemy touched the player.
    """
    active, reward, hit = collide(state, state.entity_active, state.entities[:, X])
    moving = state.move_timer == 0
    x = state.entities[:, X] + jnp.where(moving, 2 * state.entities[:, LR] - 1, 0)
    active = active & (x >= 0) & (x <= GRID_SIZE - 1)
    active_after, reward_after, hit_after = collide(state, active, x)
    state = state.replace(
        entities=state.entities.at[:, X].set(x),
        entity_active=active_after,
        move_timer=jnp.where(moving, state.move_speed, state.move_timer),
    )
    return state, reward + reward_after, hit | hit_after


def ramp(state: AsterixState, ramping: jax.Array) -> AsterixState:
    """The timers' decrement and the difficulty ramp that end MinAtar's `act`.

    While `spawn_speed > 1` or `move_speed > 1`, `ramp_timer` counts down; once it is below
    0, `spawn_speed` drops by 1 (down to 1), `move_speed` drops by 1 on every other ramp (odd
    `ramp_index`, down to 1), `ramp_index` counts the ramp and `ramp_timer` restarts at 100.

    Args:
        state: The state after the entities' move.
        ramping: `difficulty_ramping` (bool scalar).

    Returns:
        The state with the timers counted down and the ramp applied.
    """
    state = state.replace(spawn_timer=state.spawn_timer - 1, move_timer=state.move_timer - 1)
    can_ramp = ramping & ((state.spawn_speed > 1) | (state.move_speed > 1))
    counting = state.ramp_timer >= 0
    ramps = can_ramp & ~counting
    return state.replace(
        ramp_timer=jnp.where(can_ramp, jnp.where(counting, state.ramp_timer - 1, RAMP_INTERVAL), state.ramp_timer),
        move_speed=state.move_speed - (ramps & (state.move_speed > 1) & (state.ramp_index % 2 == 1)),
        spawn_speed=state.spawn_speed - (ramps & (state.spawn_speed > 1)),
        ramp_index=state.ramp_index + ramps,
    )


def transition(state: AsterixState, action: jax.Array, draws: SpawnDraws, params):
    """MinAtar's `act` for the executed action; `draws` are used when `spawn_timer` is 0.

    Args:
        state: The state before the step.
        action: The executed MinAtar action, 0..5.
        draws: The step's spawn draws.
        params: The game's params (`difficulty_ramping`).

    Returns:
        `(state, reward, terminal)`: the next state, the float32 reward (gold taken) and
        whether an enemy touched the player.
    """
    state = spawn(state, draws)
    state = move_player(state, action)
    state, reward, terminal = move_entities(state)
    state = ramp(state, jnp.asarray(params.difficulty_ramping, jnp.bool_))
    return state, reward, terminal


def get_obs(state: AsterixState) -> jax.Array:
    """The observation, as MinAtar's `state()`.

    Args:
        state: The game's state.

    Returns:
        `bool[10, 10, 4]`, channels 0 player, 1 enemy, 2 trail (the cell behind each entity, if
        on screen), 3 gold.
    """
    cols = jnp.arange(GRID_SIZE, dtype=jnp.int32)
    x, active = state.entities[:, X], state.entity_active
    gold = state.entities[:, GOLD] == 1
    back_x = x - (2 * state.entities[:, LR] - 1)
    here = active[:, None] & (x[:, None] == cols)  # [8, 10]: entity i on row i + 1
    trail = active[:, None] & (back_x[:, None] == cols)  # off-screen trails match no column
    lanes = jnp.stack([here & ~gold[:, None], trail, here & gold[:, None]], axis=-1)
    empty = jnp.zeros((1, GRID_SIZE, 3), jnp.bool_)
    others = jnp.concatenate([empty, lanes, empty], axis=0)
    player = cell_mask(state.player_y, state.player_x)[:, :, None]
    return jnp.concatenate([player, others], axis=-1)


class Asterix(MinAtarEnvironment):
    """MinAtar's Asterix (`minatar.Environment("asterix")`, `minatar/environments/asterix.py`,
    MinAtar 1.0.15).

    The player moves one cell left, right (columns 0-9), up or down (rows 1-8). Rows 1-8 are
    eight slots, each holding at most one entity, an enemy or gold, that enters at the left
    edge moving right or at the right edge moving left and leaves past the far edge. When
    `spawn_timer` reaches 0 a new entity appears: a side with probability 1/2 each, gold with
    probability 1/3, in a slot chosen uniformly among the empty ones (none if all are full);
    `spawn_timer` restarts at `spawn_speed`. Entities move one cell every `move_speed` steps.
    Touching gold, before or after the entities move, gives reward 1 and removes it; touching
    an enemy ends the game.

    Difficulty ramp (`difficulty_ramping`, MinAtar's `ramping`): while `spawn_speed > 1` or
    `move_speed > 1`, `ramp_timer` counts down from 100; once it is below 0, `spawn_speed`
    drops by 1 (down to 1), `move_speed` drops by 1 on every other ramp (odd `ramp_index`,
    down to 1), `ramp_index` counts the ramps and `ramp_timer` restarts at 100. Starts:
    `spawn_speed` 10, `move_speed` 5.

    Observation: `bool[10, 10, 4]`, channels (MinAtar's order) 0 player, 1 enemy, 2 trail (the
    cell behind each entity, if on screen), 3 gold. Actions: MinAtar's six `n, l, u, r, d, f`
    (minimal set `n, l, u, r, d` with `use_minimal_action_set=True`, id `Asterix-MinAtar-v1`).

    Params (`MinAtarParams`) and defaults: `sticky_action_prob=0.1`, `difficulty_ramping=True`,
    `use_minimal_action_set=False`, `max_steps_in_episode=10_000`.

    Random numbers: 3 `uint32` words per step besides the sticky draw (`draw_spawn`).

    Differs: `last_action` starts at no-op on every reset (MinAtar keeps it across episodes of
    one `Environment` object). The slot is drawn from 24 random bits (`floor(u * n_free)`), a
    bias below 8 / 2**24. Inside jit an out-of-range action is clipped into the action set.
    """

    reset_ignores_key = True  # every episode starts alike

    num_channels = NUM_CHANNELS
    minimal_actions = MINIMAL_ACTIONS
    num_draw_words = 3

    def reset_env(self, key, params):
        state = initial_state()
        return self.observe(state, params), state

    def draws_from_bits(self, bits, state, params):
        return draw_spawn(bits, state.entity_active)

    def transition(self, state, action, draws, params):
        return transition(state, action, draws, params)

    def get_obs(self, state):
        return get_obs(state)
