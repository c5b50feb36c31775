"""Pendulum drawn like gymnasium's (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r
from jaxenvs.envs.classic import _draw as d


def render(state, params, size: int = 500):
    """Draw the red rod with rounded ends and the black axle (gymnasium's picture, without its
    torque arrow).

    Args:
        state: A `PendulumState`.
        params: Its `PendulumParams` (not read: the picture's scale is gymnasium's fixed one).
        size: The picture's width and height in pixels.

    Returns:
        A `uint8[size, size, 3]` picture.
    """
    bound = 2.2
    scale = size / (bound * 2)
    offset = size // 2
    rod_length, rod_width = 1 * scale, 0.2 * scale
    angle = state.theta.astype(jnp.float32) + jnp.pi / 2
    img = r.canvas(size, size)
    rod = d.rotated_box(offset, offset, 0.0, rod_length, -rod_width / 2, rod_width / 2, angle, size)
    img = d.convex_polygon(img, rod, d.ROD)
    radius = float(int(rod_width / 2))
    img = r.circle(img, float(offset), float(size - offset), radius, d.ROD)
    end_x = jnp.floor(rod_length * jnp.cos(angle) + offset)
    end_y = jnp.floor(rod_length * jnp.sin(angle) + offset)
    img = r.circle(img, end_x, size - end_y, radius, d.ROD)
    img = r.circle(img, float(offset), float(size - offset), float(int(0.05 * scale)), d.BLACK)
    return img
