"""PointRobot drawn from above: the half circle of goals, the goal's radius, the robot (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r


def render(state, params, width: int = 300, height: int = 180):
    """PointRobot from above: the goals' half circle, the goal's disc and the robot.

    The view spans x in [-1.25, 1.25] and y from 1.25 down, `width / 2.5` pixels a unit.

    Args:
        state: A `PointRobotState`.
        params: Its `PointRobotParams` (`circle_radius`, `goal_radius`).
        width: The image's width in pixels.
        height: The image's height in pixels.

    Returns:
        A `uint8[height, width, 3]` image.
    """
    scale = width / 2.5  # world x in [-1.25, 1.25], y in [-0.25, 1.25]

    def to_px(p):
        p = p.astype(jnp.float32)
        return (p[0] + 1.25) * scale, (1.25 - p[1]) * scale

    img = r.canvas(height, width)
    ys, xs = jnp.mgrid[0:height, 0:width].astype(jnp.float32) + 0.5
    wx, wy = xs / scale - 1.25, 1.25 - ys / scale
    ring = jnp.abs(jnp.sqrt(wx**2 + wy**2) - params.circle_radius) <= 1.0 / scale
    img = r.paint(img, ring & (wy >= 0), (0, 0, 0))
    gx, gy = to_px(state.goal)
    img = r.circle(img, gx, gy, params.goal_radius * scale, (170, 200, 240))
    px, py = to_px(state.pos)
    return r.circle(img, px, py, 0.05 * scale, (220, 50, 50))
