"""Acrobot drawn like gymnasium's (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r
from jaxenvs.envs.classic import _draw as d


def render(state, params, size: int = 500):
    """Draw two cyan links with yellow joints and the black target line (gymnasium's picture).

    Args:
        state: An `AcrobotState`.
        params: Its `AcrobotParams` (the link lengths set the scale).
        size: The picture's width and height in pixels.

    Returns:
        A `uint8[size, size, 3]` picture.
    """
    l1 = jnp.asarray(params.link_length_1, jnp.float32)
    l2 = jnp.asarray(params.link_length_2, jnp.float32)
    bound = l1 + l2 + 0.2
    scale = size / (bound * 2)
    offset = size / 2
    theta1 = state.theta1.astype(jnp.float32)
    theta2 = state.theta2.astype(jnp.float32)
    img = r.canvas(size, size)
    line_y = size - (1 * scale + offset)
    img = r.line(img, -2.2 * scale + offset, line_y, 2.2 * scale + offset, line_y, 1.0, d.BLACK)
    joints = ((0.0, 0.0), (l1 * jnp.sin(theta1) * scale, -l1 * jnp.cos(theta1) * scale))
    angles = (theta1 - jnp.pi / 2, theta1 + theta2 - jnp.pi / 2)
    for (x, y), angle, length in zip(joints, angles, (l1 * scale, l2 * scale)):
        corners = d.rotated_box(x + offset, y + offset, 0.0, length, -0.1 * scale, 0.1 * scale, angle, size)
        img = d.convex_polygon(img, corners, d.LINK)
        radius = jnp.floor(0.1 * scale)
        img = r.circle(img, jnp.floor(x + offset), size - jnp.floor(y + offset), radius, d.JOINT)
    return img
