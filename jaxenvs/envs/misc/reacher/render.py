"""Reacher drawn from above: the goal, the arm's links and joints, the tip in red (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r


def render(num_joints: int, state, size: int = 300):
    """Reacher from above: the goal in green, the links, the joints, and the tip in red.

    The view is centred on the base and spans the reachable disc of radius `num_joints`, plus
    a margin of half a link on each side.

    Args:
        num_joints: The number of links.
        state: A `ReacherState`.
        size: The image's side in pixels.

    Returns:
        A `uint8[size, size, 3]` image.
    """
    n = num_joints
    scale = size / (2.0 * n + 1.0)  # the reachable disc of radius n, plus a margin
    center = size / 2.0
    angles = state.angles.astype(jnp.float32)
    xs = jnp.concatenate([jnp.zeros(1), jnp.cumsum(jnp.cos(angles))]) * scale + center
    ys = center - jnp.concatenate([jnp.zeros(1), jnp.cumsum(jnp.sin(angles))]) * scale
    img = r.canvas(size, size)
    goal = state.goal_xy.astype(jnp.float32)
    img = r.circle(img, goal[0] * scale + center, center - goal[1] * scale, 0.12 * scale, (50, 170, 70))
    img = r.polyline(img, xs, ys, 0.12 * scale, (60, 60, 60))
    for i in range(n + 1):
        img = r.circle(img, xs[i], ys[i], 0.08 * scale, (220, 50, 50) if i == n else (129, 132, 203))
    return img
