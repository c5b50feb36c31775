"""Parity of `Seaquest-MinAtar` against `minatar.Environment("seaquest")`: the game's
translation (its object lists to and from the JAX slots), its policies and scrambled states,
and its parity spec (`SPEC`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import jax
import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.minatar import _parity as m
from jaxenvs.envs.minatar.seaquest.env import NUM_DIVERS, NUM_ENEMIES, NUM_F_BULLETS, Seaquest, SeaquestDraws
from jaxenvs.parity import collect

INT_FIELDS = (
    "oxygen",
    "diver_count",
    "sub_x",
    "sub_y",
    "e_spawn_speed",
    "e_spawn_timer",
    "d_spawn_timer",
    "move_speed",
    "ramp_index",
    "shot_timer",
)
BOOL_FIELDS = ("sub_or", "surface", "terminal")
# MinAtar list -> (record width, capacity: the JAX state's slots, NUM_*); rows padded with -1
LISTS = {"f_bullets": (3, 2), "e_fish": (4, 31), "e_subs": (5, 31), "divers": (4, 2)}


def _pad(records: list, width: int, capacity: int) -> np.ndarray:
    if len(records) > capacity:
        raise AssertionError(f"a MinAtar list holds {len(records)} objects, over the capacity {capacity}")
    out = np.full((capacity, width), -1, np.int32)
    out[: len(records)] = np.reshape(np.asarray(records, np.int32), (-1, width))
    return out


def _bullet_grid(records: list) -> np.ndarray:
    grid = np.zeros((2, 10, 10), bool)
    for x, y, lr in records:
        grid[int(bool(lr)), y, x] = True
    return grid


def read_state(env: Any) -> dict[str, np.ndarray]:
    """The game's state: its scalars named like `SeaquestState`'s fields, its lists as arrays.

    Args:
        env: A `minatar.Environment("seaquest")` (its game object is `env.env`).

    Returns:
        `{name: numpy value}`: the scalars, each list of `LISTS` in list order as
        `int32[capacity, width]` padded with -1, and `e_bullets` as `bool[2, 10, 10]`
        (`[moving right, row, column]`).

    Raises:
        AssertionError: If a list holds more objects than its capacity.
    """
    lists = {name: _pad(getattr(env.env, name), *shape) for name, shape in LISTS.items()}
    return dict(m.read_attrs(env, INT_FIELDS, BOOL_FIELDS), **lists, e_bullets=_bullet_grid(env.env.e_bullets))


def write_state(env: Any, state: dict[str, Any]) -> None:
    """Write a state read by `read_state` into the game (its inverse; enemy bullets from their
    grid, in row-major order).

    Args:
        env: A `minatar.Environment("seaquest")`.
        state: `{name: value}` as `read_state` returns it; rows starting with -1 are padding.
    """
    m.write_attrs(env, state, INT_FIELDS, BOOL_FIELDS)
    for name in LISTS:  # records [x, y, lr, ...]: the side is a bool in MinAtar
        rows = [r for r in np.asarray(state[name]) if r[0] >= 0]
        setattr(env.env, name, [[int(r[0]), int(r[1]), bool(r[2]), *(int(v) for v in r[3:])] for r in rows])
    env.env.e_bullets = [[int(x), int(y), bool(lr)] for lr, y, x in np.argwhere(np.asarray(state["e_bullets"]))]


def to_jax(state: dict[str, Any], params: Any):
    """The JAX state of reference states: each list into slots in list order, fish then subs
    in the enemy pool, the stamps (`*_order`) counting up to -1 so that every object spawned
    later sorts after them.

    Args:
        state: Reference states as `read_state` reads them (with `time` and `last_action`), a
            dict of arrays, batched or not.
        params: The env's params.

    Returns:
        A `SeaquestState`, batched if `state` is.

    Raises:
        AssertionError: If a list holds more objects than its capacity.
    """

    def slots(records: np.ndarray, capacity: int):
        """Left-pack the rows of `records` [..., n, w] that are not padding into `capacity` slots."""
        valid = records[..., 0] >= 0
        perm = np.argsort(~valid, axis=-1, kind="stable")
        records = np.take_along_axis(records, perm[..., None], axis=-2)
        valid = np.take_along_axis(valid, perm, axis=-1)
        if valid[..., capacity:].any():
            raise AssertionError(f"a MinAtar list holds more objects than the capacity {capacity}")
        records, valid = records[..., :capacity, :], valid[..., :capacity]
        order = np.arange(capacity) - valid.sum(axis=-1, keepdims=True)
        return np.where(valid[..., None], records, 0), valid, order

    # fish then subs, as records [x, y, lr, move timer, shot timer (0 for a fish), is_sub]
    enemies = np.concatenate([np.insert(state["e_fish"], [4, 4], 0, -1), np.insert(state["e_subs"], 5, 1, -1)], -2)
    # (prefix, records, capacity, the JAX fields of the records' columns) of each slot pool
    pools = (
        ("f_bullet", state["f_bullets"], NUM_F_BULLETS, ("x", "y", "lr")),
        ("enemy", enemies, NUM_ENEMIES, ("x", "y", "lr", "move_timer", "shot_timer", "is_sub")),
        ("diver", state["divers"], NUM_DIVERS, ("x", "y", "lr", "move_timer")),
    )
    fields = dict(state)
    for prefix, records, capacity, columns in pools:
        records, valid, order = slots(records, capacity)
        fields |= {f"{prefix}_{k}": records[..., i] for i, k in enumerate(columns)}
        fields |= {f"{prefix}_valid": valid, f"{prefix}_order": order}
    return collect.default_to_jax(Seaquest(), params)(fields, params)


def _list_from_slots(s: Any, prefix: str, columns: tuple[str, ...], valid: np.ndarray | None = None) -> np.ndarray:
    """A slot pool's `columns` (of the valid slots, default `{prefix}_valid`) as `int32[..., slots,
    width]`, in list (stamp) order, padded with -1."""
    valid = getattr(s, f"{prefix}_valid") if valid is None else valid
    perm = np.argsort(np.where(valid, getattr(s, f"{prefix}_order"), np.iinfo(np.int32).max), axis=-1, kind="stable")
    records = np.stack([getattr(s, f"{prefix}_{k}") for k in columns], axis=-1).astype(np.int32)
    records = np.where(valid[..., None], records, -1)
    return np.take_along_axis(records, perm[..., None], axis=-2)


def from_jax(state: Any) -> dict[str, np.ndarray]:
    """A JAX state read as `read_state` reads the reference's (`to_jax`'s inverse).

    Args:
        state: A `SeaquestState`, batched or not.

    Returns:
        `{name: numpy value}`: the slots as lists in stamp order padded with -1 (fish and subs
        split by `enemy_is_sub`), the other fields as they are.
    """
    s = jax.tree_util.tree_map(np.asarray, state)
    out = {k: getattr(s, k) for k in INT_FIELDS + BOOL_FIELDS + ("time", "last_action", "e_bullets")}
    out["f_bullets"] = _list_from_slots(s, "f_bullet", ("x", "y", "lr"))
    out["divers"] = _list_from_slots(s, "diver", ("x", "y", "lr", "move_timer"))
    fish = ("x", "y", "lr", "move_timer")
    out["e_fish"] = _list_from_slots(s, "enemy", fish, s.enemy_valid & ~s.enemy_is_sub)
    out["e_subs"] = _list_from_slots(s, "enemy", fish + ("shot_timer",), s.enemy_valid & s.enemy_is_sub)
    return out


def draws_from_calls(calls: list, state: dict[str, Any]):
    """The JAX draws of the reference's random calls in one step, in MinAtar's order:
    `_spawn_enemy` (rand: side, rand: sub?, randint: row) when its timer is out, then
    `_spawn_diver` (rand, randint).

    Args:
        calls: The step's recorded calls (`RecordingRandom.take`).
        state: The state before the step (its spawn timers say which calls to expect).

    Returns:
        The `SeaquestDraws` (defaults where a spawn drew nothing).

    Raises:
        AssertionError: If the calls are not the ones the state's timers call for.
    """
    calls = list(calls)

    def take(method):
        if not calls or calls[0][0] != method:
            raise AssertionError(f"seaquest: expected a {method} call, got {calls[:1]}")
        return calls.pop(0)[3]

    draws = dict(enemy_lr=False, enemy_is_sub=False, enemy_y=1, diver_lr=False, diver_y=1)  # where nothing spawns
    if not state["terminal"]:
        if state["e_spawn_timer"] == 0:
            draws.update(enemy_lr=take("rand") < 1 / 2, enemy_is_sub=take("rand") < 1 / 3, enemy_y=int(take("randint")))
        if state["d_spawn_timer"] == 0:
            draws.update(diver_lr=take("rand") < 1 / 2, diver_y=int(take("randint")))
    if calls:
        raise AssertionError(f"seaquest: unexpected random calls {calls}")
    return SeaquestDraws(**{k: np.int32(v) if k.endswith("_y") else np.bool_(v) for k, v in draws.items()})


# ---------------------------------------------------------------------------------------------
# policies that reach the rare events


def _survives(env: Any, plan: tuple[int, ...]) -> bool:
    """Whether the game survives the actions of `plan` (played ahead, the game put back)."""
    return not any(terminal for _, terminal in m.lookahead(env, plan))


def diver_collector(drown: bool = False) -> m.Policy:
    """Head for the nearest diver, shoot what is in the way, surface with six divers (or low
    on oxygen with some aboard, never with none); every move is checked two steps ahead in a
    copy of the game and replaced by one that survives if it would die.

    Args:
        drown: Never surface: the dive ends when the oxygen runs out.

    Returns:
        A `Policy`, `(minatar env, rng) -> MinAtar action`.
    """

    def desired(g: Any) -> int:
        can_surface = g.diver_count != 0 and not drown
        if can_surface and (g.diver_count >= 6 or g.diver_count < 0 or g.oxygen < 60):
            return 2
        if g.divers:
            dx, dy = min((abs(d[0] - g.sub_x) + abs(d[1] - g.sub_y), d[0], d[1]) for d in g.divers)[1:]
            if dy != g.sub_y and dy >= 1:
                return 4 if dy > g.sub_y else 2
            if dx != g.sub_x:
                return 3 if dx > g.sub_x else 1
        if g.sub_y == 0:
            return 4
        ahead = [e for e in g.e_fish + g.e_subs if e[1] == g.sub_y and (e[0] > g.sub_x) == g.sub_or]
        return 5 if ahead and g.shot_timer == 0 else 0

    def policy(env: Any, rng: np.random.Generator) -> int:
        want = desired(env.env)
        options = [want] + [a for a in (5, 0, 1, 3, 2, 4) if a != want]
        if drown or env.env.diver_count == 0:
            options = [a for a in options if not (a == 2 and env.env.sub_y == 1)] or options
        for a in options:
            if any(_survives(env, (a, b)) for b in (0, 1, 3, 2, 4)):
                return a
        return want

    return policy


def _random_enemy(rng: np.random.Generator, move_speed: int, near: tuple[int, int] | None, is_sub: bool) -> list:
    if near is not None and rng.random() < 0.5:
        x = int(np.clip(near[0] + rng.integers(-2, 3), 0, 9))
        y = int(np.clip(near[1] + rng.integers(-1, 2), 1, 8))
    else:
        x, y = int(rng.integers(10)), int(rng.integers(1, 9))
    rec = [x, y, bool(rng.random() < 0.5), int(rng.integers(0, move_speed + 1)) if rng.random() < 0.6 else 0]
    if is_sub:
        rec.append(int(rng.integers(0, 11)) if rng.random() < 0.6 else 0)
    return rec


def scramble(env: Any, rng: np.random.Generator) -> None:
    """Write a random state the game can reach into the game: the submarine anywhere (facing
    consistent with the walls), every ramp level (spawn speed and move speed together), every
    diver count from -3 to 6, oxygen from empty to full, spawn timers often out, and enemies,
    divers and bullets scattered, many next to the submarine.

    Args:
        env: A `minatar.Environment("seaquest")`.
        rng: The generator to draw the state from.
    """
    level = int(rng.integers(0, 21))
    spawn_speed, move_speed = max(1, 20 - level), max(2, 5 - level // 2)  # every second ramp slows it, to 2
    sub_x, sub_y = int(rng.integers(10)), int(rng.integers(9)) if rng.random() < 0.8 else int(rng.integers(2))
    sub_or = bool(rng.random() < 0.5) if 0 < sub_x < 9 else sub_x == 9
    near = (sub_x, max(1, sub_y))
    fish, subs = [], []
    for _ in range(int(rng.integers(0, 14))):
        is_sub = bool(rng.random() < 1 / 3)
        rec = _random_enemy(rng, move_speed, near, is_sub)
        if rec not in fish + subs:  # two identical records would hit MinAtar's list.remove quirk
            (subs if is_sub else fish).append(rec)
    divers = [
        [int(rng.integers(10)), int(rng.integers(1, 9)), bool(rng.random() < 0.5), int(rng.integers(0, 6))]
        for _ in range(int(rng.integers(0, 3)))
    ]
    if divers and rng.random() < 0.5:
        divers[0][:2] = [int(np.clip(sub_x + rng.integers(-1, 2), 0, 9)), max(1, sub_y)]
    f_bullets = {
        (int(rng.integers(10)), int(rng.integers(9)), bool(rng.random() < 0.5)) for _ in range(int(rng.integers(0, 3)))
    }
    f_bullets = [list(b) for b in f_bullets]
    e_bullets = [
        [int(rng.integers(10)), int(rng.integers(1, 9)), bool(rng.random() < 0.5)]
        for _ in range(int(rng.integers(0, 6)))
    ]
    if rng.random() < 0.3:
        e_bullets.append([int(np.clip(sub_x + rng.choice([-1, 1]), 0, 9)), max(1, sub_y), bool(rng.random() < 0.5)])
    diver_count = int(rng.choice([-3, -1, 0, 1, 2, 3, 4, 5, 5, 6, 6, 6]))
    oxygen = int(rng.choice([0, 1, 2, int(rng.integers(0, 201)), 200]))
    names = ("oxygen", "diver_count", "sub_x", "sub_y", "sub_or", "f_bullets", "e_bullets", "e_fish", "e_subs")
    values = (oxygen, diver_count, sub_x, sub_y, sub_or, f_bullets, e_bullets, fish, subs)
    attrs = dict(zip(names, values), divers=divers, e_spawn_speed=spawn_speed, move_speed=move_speed, ramp_index=level)
    attrs["e_spawn_timer"] = 0 if rng.random() < 0.5 else int(rng.integers(0, spawn_speed + 1))
    # as in play: with two divers (bullets) out, the next spawn (shot) cannot be due
    attrs["d_spawn_timer"] = int(rng.integers(1, 31)) if len(divers) == 2 or rng.random() < 0.7 else 0
    attrs["shot_timer"] = int(rng.integers(1, 5)) if len(f_bullets) == 2 else int(rng.integers(0, 6))
    vars(env.env).update(attrs, surface=bool(sub_y == 0 and rng.random() < 0.5), terminal=False)


def _rare_events(s: dict, a: int, s2: dict, r: float, t: bool, calls: list) -> dict[str, bool]:
    """The rare branches of the reference's step one transition took (`_parity.count_events`)."""
    if s["terminal"]:  # nothing happens from a terminal state
        return {}
    surfaced, count = not s["surface"] and s2["surface"], s2["diver_count"]
    drowned = t and s2["sub_y"] == 0 and not s2["surface"] and count == 0 and s["sub_y"] > 0
    blocked = False
    if s["e_spawn_timer"] == 0 and calls:  # a spawn moving against a foe in its row
        lr, y = calls[0][3] < 0.5, calls[2][3]
        foes = [e for e in np.concatenate([s["e_fish"][:, [1, 2]], s["e_subs"][:, [1, 2]]]) if e[0] >= 0]
        blocked = any(e[0] == y and bool(e[1]) != lr for e in foes)
    diver_here = any(d[0] == s2["sub_x"] and d[1] == s2["sub_y"] for d in s2["divers"] if d[0] >= 0)
    return dict(
        six_diver_bonus=surfaced and count == -1 and s["diver_count"] == 6,
        surface_refill=surfaced and 0 <= count < 5,
        surface_negative_count=surfaced and (count < -1 or (count == -1 and s["diver_count"] < 0)),
        surface_no_diver=drowned,
        oxygen_out=t and s["oxygen"] <= 0,
        ramp=s2["ramp_index"] > s["ramp_index"],
        move_speed_ramp=s2["move_speed"] < s["move_speed"],
        spawn_blocked=blocked,
        diver_pickup=not surfaced and count > s["diver_count"],
        pickup_refused_full=s["diver_count"] == 6 and diver_here,
        enemy_shot=r >= 1 and not surfaced,
        sub_fires=any(sub[4] == 0 for sub in s["e_subs"] if sub[0] >= 0),
        death_by_enemy_or_bullet=t and s["oxygen"] > 0 and not drowned,
    )


def _spawn_state() -> dict[str, Any]:
    """Both spawn timers out, the submarine safe at the surface, and a fish in row 3 moving
    left (so a right-moving spawn in row 3 is blocked), as the reference reads it."""
    sub = dict(sub_x=5, sub_y=0, sub_or=False, surface=True, terminal=False, oxygen=200, diver_count=0, shot_timer=0)
    objects = dict(f_bullets=[], e_bullets=[], e_fish=[[5, 3, False, 3]], e_subs=[], divers=[])
    timers = dict(e_spawn_speed=20, move_speed=5, ramp_index=0, e_spawn_timer=0, d_spawn_timer=0)
    game = SimpleNamespace(env=SimpleNamespace(**sub, **objects, **timers))
    return dict(read_state(game), time=np.int32(0), last_action=np.int32(0))


def _new_enemy(t: m.Transitions) -> list[tuple]:
    """The new enemy: its kind, column, row and side, or none."""
    out = []
    for fish, subs in zip(t.next_states["e_fish"], t.next_states["e_subs"]):
        fish, subs = [f for f in fish if f[0] >= 0], [f for f in subs if f[0] >= 0]
        enemy = ("fish", *fish[-1][:3]) if len(fish) > 1 else ("sub", *subs[-1][:3]) if subs else ("none",)
        out.append(tuple(int(v) if not isinstance(v, str) else v for v in enemy))
    return out


def _new_diver(t: m.Transitions) -> list[tuple]:
    """The new diver: its column, row and side."""
    return [tuple(int(v) for v in [d for d in divers if d[0] >= 0][-1][:3]) for divers in t.next_states["divers"]]


_SPAWN = [(_spawn_state(), 0)]
# the new enemy and the new diver by distribution (chi-square)
SPAWNS = p.on(
    m.no_sticky,
    p.step_distribution(_SPAWN, _new_enemy, 8000, 1000, label="enemy spawn (kind, column, row, side; blocked row)"),
    p.step_distribution(_SPAWN, _new_diver, 8000, 1000, label="diver spawn (column, row, side)"),
)

GAME = m.Game("seaquest", read_state, write_state, scramble, _rare_events, draws_from_calls, to_jax, from_jax)

# What SPEC checks:
# - every transition exact (all state fields, observation, reward, terminal) by injecting the
#   reference's state and replaying the reference's own random draws (recorded by the
#   `RecordingRandom` proxy: spawn side, kind and row) through `Seaquest.act`: a uniform random
#   policy from resets, a diver collector that looks two steps ahead in a copy of the
#   reference's game to dodge (it surfaces with six divers, refills, ramps the difficulty, and
#   drowns when it finds no diver), and scrambled states (dense enemies and bullets next to the
#   player, every ramp level, every diver count and oxygen level, spawns due) with ramping on
#   and off. The object lists are compared in order (`f_bullets`, `e_fish`, `e_subs`,
#   `divers`, padded to the JAX capacities) and the enemy bullets as a set (see `Seaquest`'s
#   docstring); the run fails if a rare event (six-diver bonus, surfacing without a diver,
#   oxygen out, a blocked spawn, a refused pickup, ...) never happened;
# - whole episodes free-running: the random-policy and diver-collector episodes replayed from
#   the JAX reset with the reference's actions and draws, never re-injected, equal step by step;
# - the spawns by distribution: from one state with both spawn timers out and one row
#   blocked, the new enemy (kind, row, side, or none) and the new diver (row, side), chi-square;
# - random play and the sticky draw (`_parity.random_play`).
SPEC = m.spec(
    GAME,
    # the game's own policies (divers surfaced, refills, ramps; drownings), and scrambled states
    # with ramping off too; whole episodes from reset, free-running: this exercises what
    # injection cannot, the JAX spawn stamps (`*_order`) and slots over whole episodes
    m.replayed(
        GAME,
        {
            "diver collector": (lambda n: 2 * n, m.with_noise(diver_collector(), 0.05)),
            "drowning diver": (lambda n: n // 2, m.with_noise(diver_collector(drown=True), 0.05)),
        },
        without_ramping=True,
        free_running=("random policy", "diver collector"),
    ),
    m.time_limit(GAME),
    m.RESET_STATE,  # MinAtar's reset draws nothing: the whole reset state is compared
    SPAWNS,
    m.random_play(GAME, 2000, 300, 1000),
)
