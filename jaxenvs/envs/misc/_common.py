"""Pieces shared by the misc envs: grid maps and moves, gymnax's time encoding, drawing."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import rendering as r

# Moves of the grid envs, as (row, column) offsets: 0 up, 1 right, 2 down, 3 left (gymnax's
# FourRooms / MetaMaze order, and gymnasium CliffWalking's).
DIRECTIONS = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], dtype=np.int32)

# the largest action magnitude Reacher and Swimmer apply (an invalid action inside jit): an
# out-of-range action up to it is applied as given, as gymnax does; NaN is 0
APPLIED_ACTION_LIMIT = 1e6

WALL = (60, 60, 60)
FLOOR = (240, 240, 240)
AGENT = (220, 50, 50)
GOAL = (50, 170, 70)


def parse_map(text: str) -> np.ndarray:
    """A map drawn in text, as a boolean array."""
    rows = [row for row in text.split("\n") if row]
    return np.array([[c == " " for c in row] for row in rows], dtype=bool)


def open_cells(open_map: np.ndarray) -> np.ndarray:
    """The coordinates of the open cells, in row-major order."""
    return np.argwhere(open_map).astype(np.int32)


def grid_move(open_map: np.ndarray, pos: jax.Array, action: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The cell after moving `pos` by `action`, staying put where the target is a wall.

    The maps keep a wall border, so the target is always inside the array.
    """
    target = pos + jnp.asarray(DIRECTIONS)[action]
    moved = jnp.asarray(open_map)[target[0], target[1]]
    return jnp.where(moved, target, pos), moved


def time_normalization(t: jax.Array, min_lim: float = -1.0, max_lim: float = 1.0, t_max: float = 100.0) -> jax.Array:
    """gymnax's time encoding: step `t` mapped linearly so that 0 -> `min_lim`, `t_max` -> `max_lim`."""
    return (max_lim - min_lim) * t / t_max + min_lim


def time_feature(time: jax.Array, normalize: jax.Array, min_lim=-1.0, max_lim=1.0, t_max=100.0) -> jax.Array:
    """The time entry of a misc env's observation, as gymnax computes it."""
    t = time.astype(jnp.float32)
    return jnp.where(normalize, time_normalization(t, min_lim, max_lim, t_max), t)


def time_bounds(normalize: bool, max_steps: float, min_lim=-1.0, max_lim=1.0, t_max=100.0) -> tuple[float, float]:
    """The observation bounds of `time_feature` over an episode."""
    if normalize:
        ends = (float(min_lim), float(time_normalization(float(max_steps), min_lim, max_lim, t_max)))
    else:
        ends = (0.0, float(max_steps))
    lo, hi = min(ends), max(ends)
    return lo - 1e-6 * (1.0 + abs(lo)), hi + 1e-6 * (1.0 + abs(hi))


def one_hot(index: jax.Array, n: int) -> jax.Array:
    """A one-hot vector."""
    return (jnp.arange(n) == index).astype(jnp.float32)


def draw_grid(open_map: np.ndarray, pos: jax.Array, goal: jax.Array, cell: int = 24) -> jax.Array:
    """A maze with the goal cell and the agent drawn on it."""
    h, w = open_map.shape
    rows, cols = jnp.arange(h)[:, None], jnp.arange(w)[None, :]
    cells = jnp.where(jnp.asarray(open_map), 1, 0)
    cells = jnp.where((rows == goal[0]) & (cols == goal[1]), 2, cells)
    palette = jnp.asarray([WALL, FLOOR, GOAL], jnp.uint8)
    img = r.grid_image(cells, palette, cell)
    cx = (pos[1].astype(jnp.float32) + 0.5) * cell
    cy = (pos[0].astype(jnp.float32) + 0.5) * cell
    return r.circle(img, cx, cy, cell * 0.35, AGENT)


def draw_bandit(
    values: jax.Array, lo: float, hi: float, last_action: jax.Array, width: int = 200, height: int = 150
) -> jax.Array:
    """One bar per arm from the zero line to its value; the arm pulled last is drawn in red."""
    n = values.shape[0]
    img = r.canvas(height, width)
    margin = 10.0
    span = height - 2 * margin

    def y_of(v):
        return margin + (hi - jnp.clip(v.astype(jnp.float32), lo, hi)) / (hi - lo) * span

    zero = y_of(jnp.zeros(()))
    bar_w = (width - 2 * margin) / n
    for arm in range(n):
        x0 = margin + arm * bar_w + 0.15 * bar_w
        x1 = margin + (arm + 1) * bar_w - 0.15 * bar_w
        color = jnp.where(last_action == arm, jnp.asarray(AGENT, jnp.uint8), jnp.asarray(WALL, jnp.uint8))
        img = r.rect(img, x0, zero, x1, y_of(values[arm]), color)
    return r.line(img, margin, zero, width - margin, zero, 1.0, (0, 0, 0))
