"""Swimmer drawn from above: the urchins, the goal, the swimmer (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r


def render(state, size: int = 300):
    """Swimmer from above over [-1.5, 1.5]^2: the urchins in purple, the goal in green, the swimmer in red.

    Args:
        state: A `SwimmerState`.
        size: The image's side in pixels.

    Returns:
        A `uint8[size, size, 3]` image.
    """
    scale = size / 3.0  # world [-1.5, 1.5]^2

    def px(p):
        p = p.astype(jnp.float32)
        return (p[..., 0] + 1.5) * scale, (1.5 - p[..., 1]) * scale

    img = r.canvas(size, size, (225, 238, 250))
    ys, xs = jnp.mgrid[0:size, 0:size].astype(jnp.float32) + 0.5
    ux, uy = px(state.urchin_xys)
    near = ((xs[None] - ux[:, None, None]) ** 2 + (ys[None] - uy[:, None, None]) ** 2) <= (0.08 * scale) ** 2
    img = r.paint(img, jnp.any(near, axis=0), (90, 40, 110))
    gx, gy = px(state.goal_xy)
    img = r.circle(img, gx, gy, 0.06 * scale, (50, 170, 70))
    sx, sy = px(state.xy)
    return r.circle(img, sx, sy, 0.05 * scale, (220, 50, 50))
