"""CliffWalking drawn in flat colours: checkered grass, the cliff, start and goal, the player as
a disc (pure JAX on a background computed once)."""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from jaxenvs import rendering
from jaxenvs.envs.toy_text import _common
from jaxenvs.envs.toy_text.cliff_walking.layout import GOAL, SHAPE, START, cliff_mask

GRASS, GRASS_DARK, CLIFF, START_COLOR, GOAL_COLOR = (
    (150, 200, 110),
    (130, 185, 95),
    (90, 60, 40),
    (170, 120, 70),
    (240, 200, 60),
)
PLAYER = (220, 40, 40)


def render(state, params=None):
    """Draw the grid in flat colours (grass, cliff, start, goal) and the player as a red disc.

    Args:
        state: A `CliffWalkingState`.
        params: Its params (not read).

    Returns:
        A `uint8[128, 384, 3]` picture (32 pixels a cell).
    """
    cell = 32
    img = jnp.asarray(_cliff_background(cell))
    x, y = _common.cell_center(state.s, SHAPE[1], cell)
    return rendering.circle(img, x, y, 0.3 * cell, PLAYER)


@functools.lru_cache(maxsize=4)
def _cliff_background(cell: int) -> np.ndarray:
    rows, cols = np.divmod(np.arange(SHAPE[0] * SHAPE[1]), SHAPE[1])
    colors = np.where(((rows + cols) % 2 == 0)[:, None], GRASS, GRASS_DARK)
    colors[cliff_mask()] = CLIFF
    colors[START] = START_COLOR
    colors[GOAL] = GOAL_COLOR
    return _common.tile_background(colors.reshape(*SHAPE, 3).astype(np.uint8), cell)
