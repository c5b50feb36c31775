"""Pictures of bsuite states (pure JAX, on `jaxenvs.rendering` canvases)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs import rendering as r

BACKGROUND = (255, 255, 255)
INK = (30, 30, 30)
ACCENT = (66, 133, 244)
WARN = (219, 68, 55)
GOOD = (15, 157, 88)


def board(cells: jax.Array, cell_size: int = 24) -> jax.Array:
    """A grid of cells, dark where `cells` is non-zero (catch's board, deep sea's grid)."""
    palette = jnp.asarray([BACKGROUND, INK], jnp.uint8)
    img = r.grid_image((cells != 0).astype(jnp.int32), palette, cell_size)
    # faint grid lines so the empty board shows its size
    h, w = img.shape[:2]
    ys, xs = jnp.mgrid[0:h, 0:w]
    lines = (xs % cell_size == 0) | (ys % cell_size == 0)
    return r.paint(img, lines & (cells.repeat(cell_size, 0).repeat(cell_size, 1) == 0), (210, 210, 210))


def bars(
    values: jax.Array, low: float, high: float, colors: jax.Array | None = None, bar_width: int = 24, height: int = 120
) -> jax.Array:
    """One vertical bar per value, its height the value's place in `[low, high]`."""
    n = values.shape[0]
    img = r.canvas(height, n * bar_width, BACKGROUND)
    ys, xs = jnp.mgrid[0:height, 0 : n * bar_width]
    index = xs // bar_width
    frac = jnp.clip((values.astype(jnp.float32) - low) / (high - low), 0.0, 1.0)
    filled = (ys >= height - frac[index] * height) & (xs % bar_width >= 2) & (xs % bar_width < bar_width - 2)
    if colors is None:
        colors = jnp.broadcast_to(jnp.asarray(ACCENT, jnp.uint8), (n, 3))
    return jnp.where(filled[..., None], jnp.asarray(colors, jnp.uint8)[index], img)


def cartpole(x, theta, x_threshold, pole_length, width: int = 480, height: int = 240) -> jax.Array:
    """A cart on a track, its pole at an angle."""
    scale = width / (2.0 * x_threshold)
    track_y = height * 0.55
    cart_x = jnp.asarray(x, jnp.float32) * scale + width / 2.0
    img = r.canvas(height, width, BACKGROUND)
    img = r.line(img, 0.0, track_y, float(width), track_y, 1.0, INK)
    img = r.rect(img, cart_x - 24.0, track_y - 14.0, cart_x + 24.0, track_y + 14.0, INK)
    theta = jnp.asarray(theta, jnp.float32)
    tip_x = cart_x + 2.0 * pole_length * scale * jnp.sin(theta)
    tip_y = track_y - 2.0 * pole_length * scale * jnp.cos(theta)
    img = r.line(img, cart_x, track_y, tip_x, tip_y, 8.0, (202, 152, 101))
    return r.circle(img, cart_x, track_y, 4.0, ACCENT)
