"""What the toy-text envs share: the "no time limit" sentinel and grid-picture helpers."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

# gymnasium registers CliffWalking and Blackjack without `max_episode_steps`. jaxenvs needs a
# number: the largest int32, which `state.time` (int32) reaches only after 2**31 - 1 steps.
NO_TIME_LIMIT = 2**31 - 1

GRID_LINE = (180, 200, 230)


def tile_background(cell_colors: np.ndarray, cell: int, line_color=GRID_LINE) -> np.ndarray:
    """A picture of per-cell colours with a one-pixel grid line around each cell.

    Computed once per layout at trace time; the jitted renders paint only what moves on it.
    """
    img = np.repeat(np.repeat(np.asarray(cell_colors, np.uint8), cell, axis=0), cell, axis=1).copy()
    img[::cell, :] = line_color
    img[:, ::cell] = line_color
    img[-1, :] = line_color
    img[:, -1] = line_color
    return img


def cell_center(index: jnp.ndarray, ncol: int, cell: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """The pixel centre of a cell of a grid."""
    row, col = jnp.divmod(index, ncol)
    return (col.astype(jnp.float32) + 0.5) * cell, (row.astype(jnp.float32) + 0.5) * cell


# A 3 x 5 pixel font: the digits 0-9, then "A" (index 10).
_FONT_ROWS = (
    ("111", "101", "101", "101", "111"),
    ("010", "110", "010", "010", "111"),
    ("111", "001", "111", "100", "111"),
    ("111", "001", "111", "001", "111"),
    ("101", "101", "111", "001", "001"),
    ("111", "100", "111", "001", "111"),
    ("111", "100", "111", "101", "111"),
    ("111", "001", "001", "001", "001"),
    ("111", "101", "111", "101", "111"),
    ("111", "101", "111", "001", "111"),
    ("010", "101", "111", "101", "101"),
)
FONT = np.array([[[c == "1" for c in row] for row in glyph] for glyph in _FONT_ROWS])  # bool[11, 5, 3]
GLYPH_A = 10


def glyph(img: jnp.ndarray, index, x0: int, y0: int, scale: int, color, show=True) -> jnp.ndarray:
    """Draw one glyph of the 3 x 5 pixel font (`FONT`)."""
    mask = jnp.asarray(FONT)[index]
    mask = jnp.repeat(jnp.repeat(mask, scale, axis=0), scale, axis=1) & show
    region = img[y0 : y0 + 5 * scale, x0 : x0 + 3 * scale]
    painted = jnp.where(mask[..., None], jnp.asarray(color, jnp.uint8), region)
    return img.at[y0 : y0 + 5 * scale, x0 : x0 + 3 * scale].set(painted)


def number(img: jnp.ndarray, value, x0: int, y0: int, scale: int, color, show=True) -> jnp.ndarray:
    """Draw a number in two glyph places, the tens place left blank below 10."""
    value = jnp.clip(jnp.asarray(value, jnp.int32), 0, 99)
    img = glyph(img, value // 10, x0, y0, scale, color, show=show & (value >= 10))
    return glyph(img, value % 10, x0 + 4 * scale, y0, scale, color, show=show)
