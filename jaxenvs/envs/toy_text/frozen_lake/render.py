"""FrozenLake drawn as its map: ice, holes, start and goal, the player as a disc, darker in a
hole (pure JAX on a background computed once per map)."""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from jaxenvs import rendering
from jaxenvs.envs.toy_text import _common

ICE, HOLE, GOAL, START = (200, 230, 250), (30, 60, 110), (60, 180, 75), (170, 120, 70)
PLAYER, PLAYER_IN_HOLE = (220, 40, 40), (120, 20, 20)


def render(state, params):
    """Draw the map in flat colours (ice, holes, start, goal) and the player as a red disc,
    darker in a hole.

    Args:
        state: A `FrozenLakeState`.
        params: Its params (the map, `desc`).

    Returns:
        A `uint8[rows * cell, cols * cell, 3]` picture, a cell `256 // max(rows, cols)`
        pixels (4 to 64).
    """
    nrow, ncol = len(params.desc), len(params.desc[0])
    cell = max(4, min(64, 256 // max(nrow, ncol)))
    img = jnp.asarray(_lake_background(params.desc, cell))
    x, y = _common.cell_center(state.s, ncol, cell)
    in_hole = jnp.asarray(_holes(params.desc))[state.s]
    color = jnp.where(in_hole, jnp.asarray(PLAYER_IN_HOLE, jnp.uint8), jnp.asarray(PLAYER, jnp.uint8))
    return rendering.circle(img, x, y, 0.3 * cell, color)


@functools.lru_cache(maxsize=16)
def _lake_background(desc: tuple[str, ...], cell: int) -> np.ndarray:
    colors = {"F": ICE, "H": HOLE, "G": GOAL, "S": START}
    cells = np.array([[colors[c] for c in row] for row in desc], np.uint8)
    return _common.tile_background(cells, cell)


@functools.lru_cache(maxsize=16)
def _holes(desc: tuple[str, ...]) -> np.ndarray:
    """`bool[rows * cols]`: the map's holes, cell by cell."""
    return np.array([c == "H" for row in desc for c in row])
