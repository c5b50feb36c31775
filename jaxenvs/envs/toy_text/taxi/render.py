"""Taxi drawn from above: the road with its walls and tinted stands, the destination as a ring,
the taxi, and the passenger (inside the taxi while aboard) (pure JAX on a background computed
once)."""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from jaxenvs import rendering
from jaxenvs.envs.toy_text.taxi.layout import EAST_OPEN, IN_TAXI, LOC_COLORS, LOCS

CELL = 48
ROAD, WALL, TAXI, PASSENGER = (225, 225, 225), (40, 40, 40), (250, 200, 20), (200, 30, 160)


def render(state, params=None):
    """Draw the grid from above: walls, tinted stands, the destination as a ring, the taxi as
    a yellow square, and the passenger as a disc (a smaller one inside the taxi while aboard).

    Args:
        state: A `TaxiState`.
        params: Its params (not read).

    Returns:
        A `uint8[240, 240, 3]` picture (48 pixels a cell).
    """
    cell = CELL
    img = jnp.asarray(_taxi_background())
    stands = jnp.asarray(LOCS)
    colors = jnp.asarray(LOC_COLORS, jnp.uint8)
    # the destination: a ring in its stand's colour
    dy, dx = stands[state.dest_idx]
    cx, cy = (dx + 0.5) * cell, (dy + 0.5) * cell
    img = rendering.circle(img, cx, cy, 0.42 * cell, colors[state.dest_idx])
    img = rendering.circle(img, cx, cy, 0.32 * cell, ROAD)
    # the taxi, with the passenger drawn inside while aboard
    tx, ty = state.taxi_col * cell, state.taxi_row * cell
    img = rendering.rect(img, tx + 0.22 * cell, ty + 0.22 * cell, tx + 0.78 * cell, ty + 0.78 * cell, TAXI)
    aboard = state.pass_loc == IN_TAXI
    py, px = stands[jnp.minimum(state.pass_loc, 3)]
    px = jnp.where(aboard, state.taxi_col, px)
    py = jnp.where(aboard, state.taxi_row, py)
    radius = jnp.where(aboard, 0.12, 0.18) * cell
    return rendering.circle(img, (px + 0.5) * cell, (py + 0.5) * cell, radius, PASSENGER)


@functools.lru_cache(maxsize=1)
def _taxi_background() -> np.ndarray:
    """The static picture: road, stands tinted in their colours, walls."""
    img = np.empty((5 * CELL, 5 * CELL, 3), np.uint8)
    img[:] = ROAD
    for (r, c), color in zip(LOCS, LOC_COLORS):
        tint = (np.asarray(ROAD) + np.asarray(color)) // 2
        img[r * CELL : (r + 1) * CELL, c * CELL : (c + 1) * CELL] = tint
    img[::CELL, :] = (200, 200, 200)
    img[:, ::CELL] = (200, 200, 200)
    half = 3
    for r in range(5):
        for c in range(4):
            if not EAST_OPEN[r, c]:
                x = (c + 1) * CELL
                img[r * CELL : (r + 1) * CELL, x - half : x + half] = WALL
    img[:half], img[-half:], img[:, :half], img[:, -half:] = WALL, WALL, WALL, WALL
    return img
