"""MountainCar (and MountainCarContinuous) drawn like gymnasium's (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r
from jaxenvs.envs.classic import _draw as d


def _height(xs):
    """The valley's height at positions `xs`, gymnasium's `_height`."""
    return jnp.sin(3 * xs) * 0.45 + 0.55


def render(state, params, width: int = 600, height: int = 400):
    """Draw the valley curve, the black car with grey wheels, and the goal flag (gymnasium's
    picture).

    Args:
        state: A `MountainCarState` or `MountainCarContinuousState`.
        params: Its params (the positions set the scale and the flag's place).
        width: The picture's width in pixels.
        height: The picture's height in pixels.

    Returns:
        A `uint8[height, width, 3]` picture.
    """
    min_position = jnp.asarray(params.min_position, jnp.float32)
    max_position = jnp.asarray(params.max_position, jnp.float32)
    goal_position = jnp.asarray(params.goal_position, jnp.float32)
    scale = width / (max_position - min_position)
    car_width, car_height, clearance = 40.0, 20.0, 10.0
    img = r.canvas(height, width)

    # the track, about a pixel wide measured across the curve (gymnasium's anti-aliased line)
    xs, ys = d.pixel_centres(height, width)
    world_x = xs / scale + min_position
    curve_y = height - _height(world_x) * scale
    slope = 3 * 0.45 * jnp.cos(3 * world_x)
    img = r.paint(img, jnp.abs(ys - curve_y) <= 0.6 * jnp.sqrt(1 + slope**2), d.BLACK)

    # the flag
    flag_x = jnp.floor((goal_position - min_position) * scale)
    flag_y1 = jnp.floor(_height(goal_position) * scale)
    flag_y2 = flag_y1 + 50
    img = r.rect(img, flag_x, height - flag_y1, flag_x + 1, height - flag_y2, d.BLACK)
    flag = [(flag_x, height - flag_y2), (flag_x, height - (flag_y2 - 10)), (flag_x + 25, height - (flag_y2 - 5))]
    img = d.convex_polygon(img, flag, d.JOINT)

    # the car, tilted by cos(3 x) radians as gymnasium tilts it
    pos = state.position.astype(jnp.float32)
    angle = jnp.cos(3 * pos)
    base_x = (pos - min_position) * scale
    base_y = clearance + _height(pos) * scale
    body = d.rotated_box(base_x, base_y, -car_width / 2, car_width / 2, 0.0, car_height, angle, height)
    img = d.convex_polygon(img, body, d.BLACK)
    c, s = jnp.cos(angle), jnp.sin(angle)
    for dx in (car_width / 4, -car_width / 4):
        wheel_x = jnp.floor(dx * c + base_x)
        wheel_y = jnp.floor(dx * s + base_y)
        img = r.circle(img, wheel_x, height - wheel_y, float(int(car_height / 2.5)), d.WHEEL)
    return img
