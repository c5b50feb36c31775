"""NAVIX under the audit: its ports of MiniGrid's envs against `minigrid` itself.

The rows are MiniGrid ids; the checks are `jaxenvs.audit.minigrid`'s (layout solvability,
reset distributions, random-policy episodes, transitions from copied states). NAVIX is set
to MiniGrid's time limit and, through its own `penality_coeff=0.9`, to MiniGrid's reward
`1 - 0.9 * t / max_steps` on termination.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxenvs.audit import minigrid as mg

LIBRARY = "navix"
REFERENCES = ("minigrid",)
ABOUT = (
    "NAVIX's ports of MiniGrid envs (through our adapter, navix's `_step`) against Farama's "
    "`minigrid` of the same id: both sides' reset states read into MiniGrid's cell encoding, "
    "then the fraction of layouts whose goal is reachable (breadth-first search; locked doors "
    "open once a key of their colour is reachable), the agent's start and each object's cells "
    "(chi-square), random-policy episode length, return and success (uniform over MiniGrid's 7 "
    "actions, MiniGrid's time limit, NAVIX's `penality_coeff=0.9` giving MiniGrid's reward "
    "`1 - 0.9 t / max_steps`), and each action's step from NAVIX states copied into `minigrid` "
    "(agent cell, direction, carried object, cell in front, reward, termination: exact)."
)
PAIRS = {
    "MiniGrid-Empty-5x5-v0": "Navix-Empty-5x5-v0",
    "MiniGrid-Empty-8x8-v0": "Navix-Empty-8x8-v0",
    "MiniGrid-Empty-Random-6x6-v0": "Navix-Empty-Random-6x6-v0",
    "MiniGrid-DoorKey-5x5-v0": "Navix-DoorKey-5x5-v0",
    "MiniGrid-DoorKey-8x8-v0": "Navix-DoorKey-Random-8x8-v0",
    "MiniGrid-FourRooms-v0": "Navix-FourRooms-v0",
    "MiniGrid-LavaGapS5-v0": "Navix-LavaGapS5-v0",
    "MiniGrid-LavaGapS7-v0": "Navix-LavaGapS7-v0",
    "MiniGrid-SimpleCrossingS9N1-v0": "Navix-SimpleCrossingS9N1-v0",
    "MiniGrid-SimpleCrossingS9N2-v0": "Navix-SimpleCrossingS9N2-v0",
    "MiniGrid-SimpleCrossingS11N5-v0": "Navix-SimpleCrossingS11N5-v0",
    "MiniGrid-DistShift1-v0": "Navix-DistShift1-v0",
    "MiniGrid-Dynamic-Obstacles-6x6-v0": "Navix-Dynamic-Obstacles-6x6-v0",
    "MiniGrid-KeyCorridorS3R1-v0": "Navix-KeyCorridorS3R1-v0",
    "MiniGrid-GoToDoor-5x5-v0": "Navix-GoToDoor-5x5-v0",
}
NO_TRANSITIONS = {
    "MiniGrid-Dynamic-Obstacles-6x6-v0": "minigrid moves the obstacles at random in every step",
    "MiniGrid-KeyCorridorS3R1-v0": "success is picking up minigrid's target object, which no layout holds",
    "MiniGrid-GoToDoor-5x5-v0": "success is `done` at the door the mission names, which no layout holds",
}
DROP_BUG = (
    "A bug in `drop`: navix places the carried key in front of the agent but never empties the pocket "
    "(`drop` moves the entity and returns without `player.replace(pocket=...)`), so after a drop the agent "
    "both holds the key and sees it on the floor (`step carried object`, drop); the `pickup` mismatches of "
    "the cell in front follow from it: navix's `pickup` takes a key while the pocket is full (\"if the "
    'pocket has something else, we overwrite it"), where minigrid refuses.'
)
FINDINGS = {
    "MiniGrid-Empty-Random-6x6-v0": (
        "A bug and a design choice. The bug: the agent can start on the goal (16 of 250 resets, 6.4%; "
        "minigrid never), because `player_pos, goal_pos = random_positions(k1, grid, n=2)` draws both "
        "cells with replacement (`jax.random.categorical(key, jnp.log(probs), shape=(n,))`). The design "
        "choice: navix's Empty-Random also draws the goal anywhere, where minigrid keeps it in the "
        "bottom-right corner and draws only the agent (`reset goal cells`)."
    ),
    "MiniGrid-DoorKey-5x5-v0": (
        "Design choices and a bug. navix's Navix-DoorKey-5x5-v0 starts the agent at (1, 1) facing east "
        "(`player_pos = jnp.asarray([1, 1])` unless `random_start`) where minigrid places it anywhere "
        "left of the wall, facing anywhere (`place_agent(size=(splitIdx, height))`): the `agent start` "
        "and `key cells` frequencies and the higher random-policy success. The door's row is drawn from "
        "1 to height - 2 (`jax.random.randint(k3, (), 1, self.height - 1)`) where minigrid's "
        "`_rand_int(1, height - 2)` never uses the bottom row (`door cells`: 72 of 250 layouts have a "
        "door minigrid cannot produce); a harmless range slip. " + DROP_BUG
    ),
    "MiniGrid-DoorKey-8x8-v0": (
        "Audited through Navix-DoorKey-Random-8x8-v0 (the variant with minigrid's random start). It also "
        "draws the goal anywhere in the second room (`goal_pos = random_positions(k2, second_room)`) "
        "where minigrid's goal is always bottom-right (a design choice of the variant), and the door's "
        "row from 1 to height - 2 where minigrid's stops at height - 3 (see DoorKey-5x5). " + DROP_BUG
    ),
    "MiniGrid-LavaGapS5-v0": (
        "A design choice of navix's reward option: `penality_coeff` (the audit sets 0.9 to get "
        "minigrid's `1 - 0.9 t / max_steps` on reaching the goal) is taken off every termination, "
        "`reward - self.penality_coeff * (t / self.max_steps)` when `step_type == "
        "StepType.TERMINATION`, so a fall into lava pays `-0.9 t / max_steps` where minigrid pays 0 "
        "(`step reward`, forward into lava only; navix's default, `penality_coeff=0`, pays 1 on the "
        "goal instead of minigrid's time-discounted reward). Layouts, resets, episodes and every other "
        "field of the step agree."
    ),
    "MiniGrid-LavaGapS7-v0": (
        "The same as LavaGapS5: navix's `penality_coeff` is charged on every termination, so a fall into "
        "lava pays `-0.9 t / max_steps` where minigrid pays 0 (a design choice of the option); the rest "
        "agrees."
    ),
    "MiniGrid-SimpleCrossingS9N1-v0": (
        "A different generator (a bug where it leaves no path, see S11N5). navix's Crossings draws whole "
        "rows or columns of the interior as walls (`all_obstacles_pos` from `jnp.mgrid`, "
        "`jax.random.choice(k1, all_obstacles_pos, (num_obstacles,), replace=False)`) and then carves a "
        "random staircase of ten 3-cell segments from the top-left corner "
        "(`jax.lax.dynamic_update_slice(grid, jnp.zeros((1, step_size)), ...)`), where minigrid puts "
        "N walls on even rows/columns, each with one opening on a path to the goal. The layouts differ "
        "in kind: the `interior obstacle count` takes values minigrid never produces (0, 2, 3 cells "
        "where minigrid always has 6)."
    ),
    "MiniGrid-SimpleCrossingS9N2-v0": (
        "navix's Crossings generator differs from minigrid's (see S9N1): whole interior rows/columns "
        "walled, then a random staircase carved from the corner, instead of walls with one opening each "
        "on a path; obstacle counts minigrid never produces. No unsolvable layout was seen at this size."
    ),
    "MiniGrid-SimpleCrossingS11N5-v0": (
        "A bug: 12 of 250 layouts (4.8%) have no path from the agent to the goal (`layout solvable`; "
        "minigrid 0 of 250, it opens every wall on a path by construction). navix's Crossings carves its "
        "path as a staircase of ten 3-cell segments from the corner with `dynamic_update_slice`, whose "
        "start indices are clamped to the grid, so the carved path need not cross every wall it drew "
        "(the first mismatch shows one); besides, the layouts differ from minigrid's in kind (see S9N1)."
    ),
    "MiniGrid-DistShift1-v0": (
        "A bug: lava does not end the episode. navix registers DistShift with "
        '`termination_fn=kwargs.pop("termination_fn", terminations.on_goal_reached)`, which leaves out '
        "`on_lava_fall`, so the agent walks through lava (`step terminated`: 14 forward steps into lava "
        "that end minigrid's episode go on in navix), and random-policy episodes last 229 steps on "
        "average against minigrid's 89."
    ),
    "MiniGrid-Dynamic-Obstacles-6x6-v0": (
        "A bug: obstacles can be drawn onto the same cell, so some resets have fewer balls than "
        "minigrid's (`object counts`: 52 of 250 with 1 or 2 instead of 3): `ball_pos = "
        "random_positions(k3, grid, n=self.n_obstacles, exclude=exclude)` samples the cells with "
        "replacement (`jax.random.categorical(..., shape=(n,))`)."
    ),
    "MiniGrid-KeyCorridorS3R1-v0": (
        "A bug: the door of the ball's room is created open, so the key is never needed. navix builds it "
        "with `lambda: (key_id, key_colour, jnp.asarray(2))` as `(requires, colour, open)`: 2 is "
        "minigrid's state index for \"locked\", but navix's `Door.open` is a flag (`walkable` returns "
        "`self.open`), so the door reads as open (`door cells`: every navix layout has an open door where "
        "minigrid's has a locked one). Also a design difference: minigrid's `place_agent` for KeyCorridor "
        "redraws until the agent faces a wall or an empty cell, navix does not (`agent start`: 71 of 250 "
        "navix starts face the door east of (1, 3), never minigrid's). Random-policy success was 0 of 250 "
        "in navix against 19 of 250 in minigrid, a gap the permutation test's floor (p 2e-4) leaves "
        "undecided at this size."
    ),
    "MiniGrid-GoToDoor-5x5-v0": (
        "A design choice: minigrid's GoToDoor ends the episode on any `done` and on any `toggle` "
        "(`if action == self.actions.done: ... terminated = True`), rewarding only the `done` in front "
        "of the named door, where navix ends it only on `done` at the right door "
        "(`terminations.on_door_done`): random-policy episodes last 73.5 steps against minigrid's 3.2."
    ),
}
# navix's PALETTE is MiniGrid's colour order; its ids are (row, col) and its directions
# MiniGrid's (0 east, 1 south, 2 west, 3 north)
COLOURED = {"key": mg.KEY, "ball": mg.BALL, "box": mg.BOX}


def make(peer_id: str, max_steps: int) -> tuple[Any, Any]:
    """NAVIX's env through our adapter, at MiniGrid's time limit and reward (`penality_coeff=0.9`),
    with no observations (the audit reads states).

    Args:
        peer_id: NAVIX's id (a value of `PAIRS`).
        max_steps: MiniGrid's time limit.

    Returns:
        `(env, params)`.
    """
    import navix

    from jaxenvs.adapters.navix import NavixEnv

    env = NavixEnv(peer_id, max_steps=max_steps, penality_coeff=0.9, observation_fn=navix.observations.none)
    return env, env.default_params


def layouts(states: Any) -> dict[str, np.ndarray]:
    """A batch of the adapter's NAVIX states in MiniGrid's encoding: navix's entities drawn onto
    its wall grid, the key carried found by its id (navix's directions are MiniGrid's).

    Args:
        states: batched `NavixState`s.

    Returns:
        `{"grid", "agent", "dir", "carrying", "step"}` (see `minigrid.Peer`).
    """
    state = states.timestep.state
    base = np.asarray(state.grid)
    n, height, width = base.shape
    grid = np.zeros((n, height, width, 3), np.uint8)
    grid[..., 0] = np.where(base < 0, mg.WALL, mg.EMPTY)
    grid[..., 1] = np.where(base < 0, 5, 0)
    ents = {k: {f: np.asarray(getattr(v, f)) for f in v.__dataclass_fields__} for k, v in state.entities.items()}

    def put(name: str, code: Any) -> None:
        if name not in ents:
            return
        pos = ents[name]["position"].reshape(n, -1, 2)
        for j in range(pos.shape[1]):
            rows, cols = pos[:, j, 0], pos[:, j, 1]
            inside = np.flatnonzero((rows >= 0) & (cols >= 0) & (rows < height) & (cols < width))
            grid[inside, rows[inside], cols[inside]] = code(j)[inside]

    def colour(name: str, j: int) -> np.ndarray:
        return ents[name]["colour"].reshape(n, -1)[:, j].astype(np.uint8)

    def const(*values: int) -> Any:
        return lambda j: np.broadcast_to(np.asarray(values, np.uint8), (n, 3))

    put("wall", const(mg.WALL, 5, 0))
    put("lava", const(mg.LAVA, 0, 0))
    if "goal" in ents and type(state.entities["goal"]).__name__ == "Ball":
        # KeyCorridor's target is a ball kept under the name "goal"
        put("goal", lambda j: np.stack([np.full(n, mg.BALL), colour("goal", j), np.zeros(n)], 1))
    else:
        put("goal", const(mg.GOAL, 1, 0))
    for name, kind in COLOURED.items():
        put(name, lambda j, name=name, kind=kind: np.stack([np.full(n, kind), colour(name, j), np.zeros(n)], 1))
    if "door" in ents:

        def door(j: int) -> np.ndarray:
            is_open = ents["door"]["open"].reshape(n, -1)[:, j]
            locked = ents["door"]["requires"].reshape(n, -1)[:, j] != -1
            door_state = np.where(is_open, mg.OPEN, np.where(locked, mg.LOCKED, mg.CLOSED))
            return np.stack([np.full(n, mg.DOOR), colour("door", j), door_state], 1)

        put("door", door)
    player = ents["player"]
    pocket = player["pocket"].reshape(n)
    carrying = np.zeros((n, 3), np.uint8)
    if "key" in ents:
        key_ids = ents["key"]["id"].reshape(n, -1)
        key_colours = ents["key"]["colour"].reshape(n, -1)
        for i in np.flatnonzero(pocket != -1):
            match = np.flatnonzero(key_ids[i] == pocket[i])
            carrying[i] = (mg.KEY, key_colours[i, match[0]] if len(match) else 0, 0)
    return {
        "grid": grid,
        "agent": player["position"].reshape(n, 2),
        "dir": player["direction"].reshape(n) % 4,
        "carrying": carrying,
        "step": np.asarray(states.timestep.t).reshape(n),
    }


PEER = mg.Peer("navix", PAIRS, make, layouts, tuple(range(7)), NO_TRANSITIONS)
# the audit's interface (`jaxenvs.audit.PEERS`): the rows, and one stage of a row
ids, audit = PEER.ids, PEER.audit
