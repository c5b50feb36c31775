"""CartPole drawn like gymnasium's: the track, the cart, the pole and its axle (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r
from jaxenvs.envs.classic import _draw as d


def render(state, params, width: int = 600, height: int = 400):
    """Draw the track, the cart, the pole and its axle, as gymnasium's `render` does.

    Args:
        state: A `CartPoleState`.
        params: Its `CartPoleParams` (`x_threshold` sets the scale, `length` the pole's).
        width: The picture's width in pixels.
        height: The picture's height in pixels.

    Returns:
        A `uint8[height, width, 3]` picture.
    """
    world_width = params.x_threshold * 2
    scale = width / world_width
    pole_len = scale * (2 * params.length)
    cart_w, cart_h, cart_y = 50.0, 30.0, height - 100.0
    cart_x = state.x.astype(jnp.float32) * scale + width / 2.0
    img = r.canvas(height, width)
    img = r.line(img, 0.0, cart_y, float(width), cart_y, 1.0, d.BLACK)
    img = r.rect(img, cart_x - cart_w / 2, cart_y - cart_h / 2, cart_x + cart_w / 2, cart_y + cart_h / 2, d.BLACK)
    theta = state.theta.astype(jnp.float32)
    tip_x = cart_x + pole_len * jnp.sin(theta)
    tip_y = cart_y - cart_h / 4 - pole_len * jnp.cos(theta)
    img = r.line(img, cart_x, cart_y - cart_h / 4, tip_x, tip_y, 10.0, d.POLE)
    img = r.circle(img, cart_x, cart_y - cart_h / 4, 5.0, d.AXLE)
    return img
