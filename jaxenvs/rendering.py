"""Pure-JAX drawing on `uint8[H, W, 3]` canvases, so `render` is jit-able and vmap-able.

Shapes are drawn by evaluating a mask over the pixel grid (signed distances), which costs
`O(H * W)` per shape but stays a few fused XLA ops. Coordinates are in pixels, origin at the
top-left, `x` to the right and `y` down.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp


def canvas(height: int, width: int, color: Sequence[int] = (255, 255, 255)) -> jax.Array:
    return jnp.broadcast_to(jnp.asarray(color, jnp.uint8), (height, width, 3))


def _grid(img: jax.Array) -> tuple[jax.Array, jax.Array]:
    h, w = img.shape[:2]
    ys, xs = jnp.mgrid[0:h, 0:w]
    return xs.astype(jnp.float32) + 0.5, ys.astype(jnp.float32) + 0.5


def paint(img: jax.Array, mask: jax.Array, color: Sequence[int] | jax.Array) -> jax.Array:
    """`img` with `color` where `mask` is true."""
    return jnp.where(mask[..., None], jnp.asarray(color, jnp.uint8), img)


def rect(img, x0, y0, x1, y1, color):
    """Axis-aligned rectangle between corners (x0, y0) and (x1, y1)."""
    xs, ys = _grid(img)
    mask = (xs >= jnp.minimum(x0, x1)) & (xs <= jnp.maximum(x0, x1))
    mask &= (ys >= jnp.minimum(y0, y1)) & (ys <= jnp.maximum(y0, y1))
    return paint(img, mask, color)


def circle(img, cx, cy, radius, color):
    xs, ys = _grid(img)
    return paint(img, (xs - cx) ** 2 + (ys - cy) ** 2 <= radius**2, color)


def line(img, x0, y0, x1, y1, width, color):
    """A segment of the given width (a capsule: rounded ends)."""
    xs, ys = _grid(img)
    dx, dy = x1 - x0, y1 - y0
    t = jnp.clip(((xs - x0) * dx + (ys - y0) * dy) / jnp.maximum(dx * dx + dy * dy, 1e-9), 0.0, 1.0)
    dist2 = (xs - (x0 + t * dx)) ** 2 + (ys - (y0 + t * dy)) ** 2
    return paint(img, dist2 <= (width / 2.0) ** 2, color)


def polyline(img, xs_pts, ys_pts, width, color):
    """Consecutive segments through the points (static count)."""
    for i in range(len(xs_pts) - 1):
        img = line(img, xs_pts[i], ys_pts[i], xs_pts[i + 1], ys_pts[i + 1], width, color)
    return img


def grid_image(cells: jax.Array, palette: jax.Array, cell_size: int) -> jax.Array:
    """An image of a grid of palette indices `int[H, W]`, each cell `cell_size` pixels wide."""
    img = jnp.asarray(palette, jnp.uint8)[cells]
    return jnp.repeat(jnp.repeat(img, cell_size, axis=0), cell_size, axis=1)
