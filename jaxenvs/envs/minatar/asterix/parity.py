"""Parity of `Asterix-MinAtar` against `minatar.Environment("asterix")`: the game's
translation, its policies and scrambled states, and its parity spec (`SPEC`)."""

from __future__ import annotations

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.minatar import _parity as m
from jaxenvs.envs.minatar.asterix.env import SpawnDraws

INT_FIELDS = (
    "player_x",
    "player_y",
    "spawn_speed",
    "spawn_timer",
    "move_speed",
    "move_timer",
    "ramp_timer",
    "ramp_index",
)


def read_state(env: object) -> dict[str, np.ndarray]:
    """The game's state named like `AsterixState`'s fields.

    Args:
        env: A `minatar.Environment("asterix")` (its game object is `env.env`).

    Returns:
        `{field: numpy value}`; `entities` is `int32[8, 4]` with zero rows where MinAtar has
        `None`, `entity_active` marks the others.
    """
    entities = env.env.entities
    return dict(
        m.read_attrs(env, INT_FIELDS, ("terminal",)),
        entity_active=np.array([e is not None for e in entities]),
        entities=np.array([e or [0, 0, 0, 0] for e in entities], np.int32),
    )


def write_state(env: object, state: dict[str, object]) -> None:
    """Write a state read by `read_state` into the game (its inverse).

    Args:
        env: A `minatar.Environment("asterix")`.
        state: `{field: value}` as `read_state` returns it; inactive slots become `None`.
    """
    m.write_attrs(env, state, INT_FIELDS, ("terminal",))
    env.env.entities = [
        [int(e[0]), int(e[1]), bool(e[2]), bool(e[3])] if active else None
        for e, active in zip(np.asarray(state["entities"]), np.asarray(state["entity_active"]))
    ]


def mask_empty_slots(field: str, mine: np.ndarray, ref: np.ndarray, ref_next: dict) -> tuple:
    """An empty slot's row means nothing (MinAtar has `None` there): compare only the others.

    Args:
        field: The state field being compared.
        mine: The JAX side's values of it.
        ref: The reference's values of it.
        ref_next: The reference's next states (`entity_active` picks the rows kept).

    Returns:
        `(mine, ref)`, the rows of empty slots zeroed on both sides for `entities`; other
        fields unchanged.
    """
    if field != "entities":
        return mine, ref
    keep = ref_next["entity_active"][..., None]
    return np.where(keep, mine, 0), np.where(keep, ref, 0)


def draws_from_calls(calls: list, state: object):
    """The JAX draws of the reference's random calls in one step.

    MinAtar's `_spawn_entity` calls `rand()` (side), `rand()` (gold), then `randint(n_free)`
    if a slot is free; nothing is drawn on most steps.

    Args:
        calls: The step's recorded calls (`RecordingRandom.take`).
        state: The state before the step (unused).

    Returns:
        The `SpawnDraws` (all false / 0 when the step drew nothing).
    """
    assert [c[0] for c in calls] in ([], ["rand", "rand"], ["rand", "rand", "randint"]), calls
    lr, gold = (calls[0][3] < 0.5, calls[1][3] < 1 / 3) if calls else (False, False)
    rank = int(calls[2][3]) if len(calls) == 3 else 0
    return SpawnDraws(lr=np.bool_(lr), is_gold=np.bool_(gold), slot_rank=np.int32(rank))


def _danger(g: object, x: int, y: int) -> bool:
    """An enemy in row `y`, two columns from `x` at most."""
    return any(e is not None and not e[3] and e[1] == y and abs(e[0] - x) <= 2 for e in g.entities)


def dodge(env: object, rng: np.random.Generator) -> int:
    """A `Policy`: step away from an enemy about to reach the player's row neighbourhood, toward
    gold, else stay (long episodes that ramp the difficulty).

    Args:
        env: A `minatar.Environment("asterix")` (its game object is `env.env`).
        rng: The generator it draws from (ties, no safe move).

    Returns:
        The MinAtar action.
    """
    g = env.env
    moves = {0: (0, 0), 1: (-1, 0), 2: (0, -1), 3: (1, 0), 4: (0, 1)}
    safe = []
    for a, (dx, dy) in moves.items():
        x, y = min(9, max(0, g.player_x + dx)), min(8, max(1, g.player_y + dy))
        if not _danger(g, x, y):
            safe.append(a)
    if not safe:
        return int(rng.integers(5))
    golds = [e for e in g.entities if e is not None and e[3]]
    if golds:
        target = min(golds, key=lambda e: abs(e[1] - g.player_y) + abs(e[0] - g.player_x))
        want = 2 if target[1] < g.player_y else 4 if target[1] > g.player_y else (1 if target[0] < g.player_x else 3)
        if want in safe:
            return want
    return 0 if 0 in safe else safe[int(rng.integers(len(safe)))]


def scramble(env: object, rng: np.random.Generator) -> None:
    """Write a random mid-game state into the game: entities in any slots (sometimes all
    eight), the player anywhere, speeds and timers anywhere in range, timers often at 0 and the
    ramp often due.

    Args:
        env: A `minatar.Environment("asterix")`.
        rng: The generator to draw the state from.
    """
    fill = rng.choice([0.3, 0.7, 1.0])
    active = rng.random(8) < fill
    lr = rng.random(8) < 0.5
    entities = np.stack([rng.integers(0, 10, 8), np.arange(1, 9), lr, rng.random(8) < 1 / 3], axis=1)
    spawn_speed, move_speed = int(rng.integers(1, 11)), int(rng.integers(1, 6))
    write_state(
        env,
        dict(
            entities=entities,
            entity_active=active,
            player_x=int(rng.integers(0, 10)),
            player_y=int(rng.integers(1, 9)),
            spawn_speed=spawn_speed,
            move_speed=move_speed,
            spawn_timer=0 if rng.random() < 0.5 else int(rng.integers(0, spawn_speed + 1)),
            move_timer=0 if rng.random() < 0.5 else int(rng.integers(0, move_speed + 1)),
            ramp_timer=int(rng.choice([-1, 0, int(rng.integers(0, 101))])),
            ramp_index=int(rng.integers(0, 20)),
            terminal=False,
        ),
    )


def _rare_events(s: dict, a: int, s2: dict, r: float, t: bool, calls: list) -> dict[str, bool]:
    """The rare branches of the reference's step one transition took (`_parity.count_events`)."""
    return dict(
        gold=r > 0,
        enemy=t,
        spawn_full=len(calls) == 2,
        spawn=len(calls) == 3,
        ramp=s2["ramp_index"] > s["ramp_index"],
        ramp_move_speed=s2["move_speed"] < s["move_speed"],
        entity_leaves=np.any(s["entity_active"] & ~s2["entity_active"]) and r == 0,
    )


_TAKEN = np.array([0, 0, 1, 0, 0, 1, 1, 0], bool)  # the slots taken before the spawn


def _spawn_case(ctx: p.Context) -> list[tuple]:
    """Slots 2, 5 and 6 taken, the spawn timer out, the player out of the way."""
    entities = np.stack([np.full(8, 3), np.arange(1, 9), np.ones(8), np.zeros(8)], axis=1).astype(np.int32)
    start = dict(
        m.start_state(ctx), entities=entities, entity_active=_TAKEN, player_x=np.int32(5), player_y=np.int32(8)
    )
    return [(dict(start, spawn_timer=np.int32(0), move_timer=np.int32(3)), 0)]


def _spawned(t: m.Transitions) -> list[tuple]:
    """The spawned entity: its slot, column, side and gold, or none."""
    out = []
    for ents, act in zip(t.next_states["entities"], t.next_states["entity_active"]):
        new = np.flatnonzero(act & ~_TAKEN)
        out.append(("none",) if len(new) != 1 else (int(new[0]), *(int(ents[new[0]][k]) for k in (0, 2, 3))))
    return out


# the spawned entity by distribution (chi-square)
SPAWNS = p.on(m.no_sticky, p.step_distribution(_spawn_case, _spawned, 6000, 600, label="spawn (slot, x, lr, gold)"))

# the game's own policy, 10% of its actions random: long episodes that ramp the difficulty
DODGING = {"dodging policy": (lambda n: 3 * n, m.with_noise(dodge, 0.1))}

GAME = m.Game("asterix", read_state, write_state, scramble, _rare_events, draws_from_calls)

# What SPEC checks:
# - every transition exact (all state fields, observation, reward, terminal) by injecting the
#   reference's state, with the reference's recorded spawn draws (side, gold, slot) fed to the
#   JAX transition: a uniform random policy and an enemy-dodging policy from resets (long
#   episodes, so the difficulty ramps several times), and scrambled states (entities in any
#   slots including all eight full, timers at 0, the ramp about to fire, with ramping on and
#   off); the run fails if a rare event (gold taken before and after a move, an enemy hit
#   before and after a move, a spawn with no free slot, a ramp changing `move_speed`) never
#   happened;
# - spawns by distribution: from states with a few slots taken, the joint (side, gold, slot)
#   outcome by chi-square, the JAX outcomes always in the reference's support;
# - random play, with the minimal action set too (`_parity.random_play`).
SPEC = m.spec(
    GAME,
    # the game's own policy (reaching its rare events), and scrambled states with ramping off too
    m.replayed(GAME, DODGING, without_ramping=True, mask=mask_empty_slots),
    m.time_limit(GAME),
    m.RESET_STATE,  # MinAtar's reset draws nothing: the whole reset state is compared
    SPAWNS,
    # random play: the defaults, and the minimal action set (ids -v1), as minatar's gym wrapper maps it
    m.random_play(GAME, 2000, 300, 3000),
    m.random_play(GAME, 500, 100, 3000, seed_offset=1, use_minimal_action_set=True),
)
