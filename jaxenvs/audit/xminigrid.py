"""XLand-MiniGrid under the audit: its ports of MiniGrid's envs against `minigrid` itself.

The rows are MiniGrid ids; the checks are `jaxenvs.audit.minigrid`'s (layout solvability,
reset distributions, random-policy episodes, transitions from copied states). xminigrid's
reward is MiniGrid's `1 - 0.9 * t / max_steps`; its time limit is set to MiniGrid's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxenvs.audit import minigrid as mg

LIBRARY = "xminigrid"
REFERENCES = ("minigrid",)
PAIRS = {
    "MiniGrid-Empty-5x5-v0": "MiniGrid-Empty-5x5",
    "MiniGrid-Empty-8x8-v0": "MiniGrid-Empty-8x8",
    "MiniGrid-Empty-16x16-v0": "MiniGrid-Empty-16x16",
    "MiniGrid-Empty-Random-6x6-v0": "MiniGrid-EmptyRandom-6x6",
    "MiniGrid-DoorKey-5x5-v0": "MiniGrid-DoorKey-5x5",
    "MiniGrid-DoorKey-8x8-v0": "MiniGrid-DoorKey-8x8",
    "MiniGrid-DoorKey-16x16-v0": "MiniGrid-DoorKey-16x16",
    "MiniGrid-FourRooms-v0": "MiniGrid-FourRooms",
    "MiniGrid-LockedRoom-v0": "MiniGrid-LockedRoom",
    "MiniGrid-Unlock-v0": "MiniGrid-Unlock",
    "MiniGrid-UnlockPickup-v0": "MiniGrid-UnlockPickUp",
    "MiniGrid-BlockedUnlockPickup-v0": "MiniGrid-BlockedUnlockPickUp",
}
NO_TRANSITIONS = {
    "MiniGrid-Unlock-v0": "success is opening minigrid's own door object, which no layout holds",
    "MiniGrid-UnlockPickup-v0": "success is picking up minigrid's target object, which no layout holds",
    "MiniGrid-BlockedUnlockPickup-v0": "success is picking up minigrid's target object, which no layout holds",
}
# xminigrid.core.constants.Tiles -> MiniGrid's (type, state); colours 1..6 (red, green, blue,
# purple, yellow, grey) are MiniGrid's 0..5; its directions are 0 up, 1 right, 2 down, 3 left
TILES = {
    0: (mg.EMPTY, 0),
    1: (mg.EMPTY, 0),
    2: (mg.WALL, 0),
    3: (mg.BALL, 0),
    4: (mg.BOX, 0),
    5: (mg.BOX, 0),
    6: (mg.GOAL, 0),
    7: (mg.KEY, 0),
    8: (mg.DOOR, mg.LOCKED),
    9: (mg.DOOR, mg.CLOSED),
    10: (mg.DOOR, mg.OPEN),
    11: (mg.BOX, 0),
    12: (mg.BOX, 0),
}
# MiniGrid's action -> xminigrid's (0 forward, 1 turn right, 2 turn left, 3 pick up, 4 put
# down, 5 toggle)
ACTIONS = (2, 1, 0, 3, 4, 5)


def make(peer_id: str, max_steps: int) -> tuple[Any, Any]:
    """xminigrid's env through our adapter, at MiniGrid's time limit (its reward is MiniGrid's).

    Args:
        peer_id: xminigrid's id (a value of `PAIRS`).
        max_steps: MiniGrid's time limit.

    Returns:
        `(env, params)`.
    """
    from jaxenvs.adapters.xminigrid import XMiniGridEnv

    env = XMiniGridEnv(peer_id, max_steps=max_steps)
    return env, env.default_params


def _encode(tiles: np.ndarray) -> np.ndarray:
    """`[..., 2]` xminigrid (tile, colour) -> `[..., 3]` MiniGrid (type, colour, state)."""
    kind = np.zeros(tiles.shape[:-1], np.uint8)
    state = np.zeros(tiles.shape[:-1], np.uint8)
    for tile, (k, s) in TILES.items():
        hit = tiles[..., 0] == tile
        kind[hit], state[hit] = k, s
    colour = tiles[..., 1].astype(np.int64)
    colour = np.where((colour >= 1) & (colour <= 6), colour - 1, 5).astype(np.uint8)
    colour = np.where(kind == mg.EMPTY, 0, np.where(kind == mg.WALL, 5, np.where(kind == mg.GOAL, 1, colour)))
    return np.stack([kind, colour.astype(np.uint8), state], -1)


def layouts(states: Any) -> dict[str, np.ndarray]:
    """A batch of the adapter's xminigrid states in MiniGrid's encoding: tiles through `TILES`,
    colours and directions shifted to MiniGrid's.

    Args:
        states: batched `XMiniGridState`s.

    Returns:
        `{"grid", "agent", "dir", "carrying", "step"}` (see `minigrid.Peer`).
    """
    state = states.timestep.state
    grid = _encode(np.asarray(state.grid))
    n = grid.shape[0]
    pocket = np.asarray(state.agent.pocket).reshape(n, 2)
    carrying = _encode(pocket)
    carrying[carrying[:, 0] == mg.EMPTY] = 0
    return {
        "grid": grid,
        "agent": np.asarray(state.agent.position).reshape(n, 2),
        "dir": (np.asarray(state.agent.direction).reshape(n) + 3) % 4,
        "carrying": carrying,
        "step": np.asarray(state.step_num).reshape(n),
    }


PEER = mg.Peer("xminigrid", PAIRS, make, layouts, ACTIONS, NO_TRANSITIONS)
# the audit's interface (`jaxenvs.audit.PEERS`): the rows, and one stage of a row
ids, audit = PEER.ids, PEER.audit
