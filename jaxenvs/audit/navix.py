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
