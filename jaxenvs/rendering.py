"""Pure-JAX drawing on `uint8[H, W, 3]` canvases, so `render` is jit-able and vmap-able.

Shapes are masks over the pixel grid (`O(H * W)` per shape, a few fused XLA ops).
Coordinates are in pixels, origin at the top-left, `x` to the right and `y` down.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp


def canvas(height: int, width: int, color: Sequence[int] = (255, 255, 255)) -> jax.Array:
    """A blank image.

    Args:
        height: Its height in pixels.
        width: Its width in pixels.
        color: The RGB fill color.

    Returns:
        A `uint8[height, width, 3]` array.
    """
    return jnp.broadcast_to(jnp.asarray(color, jnp.uint8), (height, width, 3))


def _grid(img: jax.Array) -> tuple[jax.Array, jax.Array]:
    h, w = img.shape[:2]
    ys, xs = jnp.mgrid[0:h, 0:w]
    return xs.astype(jnp.float32) + 0.5, ys.astype(jnp.float32) + 0.5


def paint(img: jax.Array, mask: jax.Array, color: Sequence[int] | jax.Array) -> jax.Array:
    """`img` with `color` where `mask` is true.

    Args:
        img: A `uint8[H, W, 3]` image.
        mask: A `bool[H, W]` mask.
        color: An RGB color.

    Returns:
        The painted image.
    """
    return jnp.where(mask[..., None], jnp.asarray(color, jnp.uint8), img)


def rect(img, x0, y0, x1, y1, color):
    """Draw an axis-aligned rectangle between corners (x0, y0) and (x1, y1), filled.

    Args:
        img: A `uint8[H, W, 3]` image.
        x0: The first corner's x.
        y0: The first corner's y.
        x1: The opposite corner's x.
        y1: The opposite corner's y.
        color: An RGB color.

    Returns:
        The image with the rectangle.
    """
    xs, ys = _grid(img)
    mask = (xs >= jnp.minimum(x0, x1)) & (xs <= jnp.maximum(x0, x1))
    mask &= (ys >= jnp.minimum(y0, y1)) & (ys <= jnp.maximum(y0, y1))
    return paint(img, mask, color)


def circle(img, cx, cy, radius, color):
    """Draw a filled circle.

    Args:
        img: A `uint8[H, W, 3]` image.
        cx: The center's x.
        cy: The center's y.
        radius: The radius in pixels.
        color: An RGB color.

    Returns:
        The image with the circle.
    """
    xs, ys = _grid(img)
    return paint(img, (xs - cx) ** 2 + (ys - cy) ** 2 <= radius**2, color)


def line(img, x0, y0, x1, y1, width, color):
    """Draw a segment of the given width (a capsule: rounded ends).

    Args:
        img: A `uint8[H, W, 3]` image.
        x0: The start's x.
        y0: The start's y.
        x1: The end's x.
        y1: The end's y.
        width: The line's width in pixels.
        color: An RGB color.

    Returns:
        The image with the segment.
    """
    xs, ys = _grid(img)
    dx, dy = x1 - x0, y1 - y0
    t = jnp.clip(((xs - x0) * dx + (ys - y0) * dy) / jnp.maximum(dx * dx + dy * dy, 1e-9), 0.0, 1.0)
    dist2 = (xs - (x0 + t * dx)) ** 2 + (ys - (y0 + t * dy)) ** 2
    return paint(img, dist2 <= (width / 2.0) ** 2, color)


def polyline(img, xs_pts, ys_pts, width, color):
    """Draw consecutive segments through the points.

    Args:
        img: A `uint8[H, W, 3]` image.
        xs_pts: The points' x coordinates (a static count).
        ys_pts: The points' y coordinates.
        width: The line's width in pixels.
        color: An RGB color.

    Returns:
        The image with the segments.
    """
    for i in range(len(xs_pts) - 1):
        img = line(img, xs_pts[i], ys_pts[i], xs_pts[i + 1], ys_pts[i + 1], width, color)
    return img


def convex(img, xs, ys, corner_x, corner_y, color):
    """Fill a convex polygon (either winding) over a grid of points.

    Args:
        img: A `uint8[H, W, 3]` image.
        xs: `[H, W]` each pixel's x in the corners' frame (pixels, or world units).
        ys: `[H, W]` each pixel's y in that frame.
        corner_x: `[n]` the polygon's corners' x, in order around it.
        corner_y: `[n]` their y.
        color: An RGB color.

    Returns:
        The image with the polygon filled.
    """
    left = right = jnp.ones(xs.shape, bool)
    n = corner_x.shape[0]
    for i in range(n):
        x0, y0, x1, y1 = corner_x[i], corner_y[i], corner_x[(i + 1) % n], corner_y[(i + 1) % n]
        side = (x1 - x0) * (ys - y0) - (y1 - y0) * (xs - x0)
        left, right = left & (side >= 0), right & (side <= 0)
    return paint(img, left | right, color)


def grid_image(cells: jax.Array, palette: jax.Array, cell_size: int) -> jax.Array:
    """An image of a grid of palette indices.

    Args:
        cells: The grid, `int[H, W]` indices into `palette`.
        palette: The colors, `uint8[K, 3]`.
        cell_size: Each cell's side in pixels.

    Returns:
        A `uint8[H * cell_size, W * cell_size, 3]` image.
    """
    img = jnp.asarray(palette, jnp.uint8)[cells]
    return jnp.repeat(jnp.repeat(img, cell_size, axis=0), cell_size, axis=1)
