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
    """The coordinates of every pixel's centre."""
    ys, xs = jnp.mgrid[0:height, 0:width]
    return xs.astype(jnp.float32) + 0.5, ys.astype(jnp.float32) + 0.5


def convex_polygon(img, points, color):
    """Fill a convex polygon.

    A pixel is filled when its centre lies inside or on an edge.
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
    """
    c, s = jnp.cos(angle), jnp.sin(angle)
    out = []
    for x, y in ((left, bottom), (left, top), (right, top), (right, bottom)):
        out.append((x * c - y * s + cx, height - (x * s + y * c + cy)))
    return out
