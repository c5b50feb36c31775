"""Drawing helpers shared by the classic-control renderings (each env's own is in its folder)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r

BLACK = (0, 0, 0)
POLE = (202, 152, 101)
AXLE = (129, 132, 203)
LINK = (0, 204, 204)
JOINT = (204, 204, 0)
WHEEL = (128, 128, 128)
ROD = (204, 77, 77)


def pixel_centres(height: int, width: int):
    """The coordinates of every pixel's centre.

    Args:
        height: The picture's height in pixels.
        width: The picture's width in pixels.

    Returns:
        `(xs, ys)`, two `float32[height, width]` arrays: column + 0.5 and row + 0.5.
    """
    ys, xs = jnp.mgrid[0:height, 0:width]
    return xs.astype(jnp.float32) + 0.5, ys.astype(jnp.float32) + 0.5


def convex_polygon(img, points, color):
    """Fill a convex polygon.

    A pixel is filled when its centre lies inside or on an edge.

    Args:
        img: A `uint8[H, W, 3]` picture.
        points: The corners, `(x, y)` pixel pairs in order (either winding); the values may
            be traced.
        color: The RGB fill colour.

    Returns:
        `img` with the polygon painted.
    """
    xs, ys = pixel_centres(*img.shape[:2])
    left = right = jnp.ones(xs.shape, jnp.bool_)
    for i in range(len(points)):
        (x0, y0), (x1, y1) = points[i], points[(i + 1) % len(points)]
        cross = (x1 - x0) * (ys - y0) - (y1 - y0) * (xs - x0)
        left &= cross >= 0
        right &= cross <= 0
    return r.paint(img, left | right, color)


def rotated_box(cx, cy, left, right, bottom, top, angle, height):
    """The corners of gymnasium's `(l, b), (l, t), (r, t), (r, b)` box, rotated and placed.

    The box is rotated by `angle` about the origin and moved to `(cx, cy)` in gymnasium's
    y-up surface coordinates, then returned as image pixels (the surface flipped vertically,
    as gymnasium flips it).

    Args:
        cx: Where the box's origin goes, x (pixels, y-up surface).
        cy: Where the box's origin goes, y (pixels, y-up surface).
        left: The box's left edge before rotation (gymnasium's `l`).
        right: Its right edge (`r`).
        bottom: Its bottom edge (`b`).
        top: Its top edge (`t`).
        angle: The rotation (rad, counterclockwise in the y-up surface).
        height: The picture's height in pixels (for the flip).

    Returns:
        The four corners as `(x, y)` image pixel pairs, for `convex_polygon`.
    """
    c, s = jnp.cos(angle), jnp.sin(angle)
    out = []
    for x, y in ((left, bottom), (left, top), (right, top), (right, bottom)):
        out.append((x * c - y * s + cx, height - (x * s + y * c + cy)))
    return out
