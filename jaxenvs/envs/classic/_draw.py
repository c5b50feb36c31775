"""Renderings of the classic-control states, drawn like gymnasium's (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r

BLACK = (0, 0, 0)
POLE = (202, 152, 101)
AXLE = (129, 132, 203)


def cartpole(state, params, width: int = 600, height: int = 400):
    world_width = params.x_threshold * 2
    scale = width / world_width
    pole_len = scale * (2 * params.length)
    cart_w, cart_h, cart_y = 50.0, 30.0, height - 100.0
    cart_x = state.x.astype(jnp.float32) * scale + width / 2.0
    img = r.canvas(height, width)
    img = r.line(img, 0.0, cart_y, float(width), cart_y, 1.0, BLACK)
    img = r.rect(img, cart_x - cart_w / 2, cart_y - cart_h / 2, cart_x + cart_w / 2, cart_y + cart_h / 2, BLACK)
    theta = state.theta.astype(jnp.float32)
    tip_x = cart_x + pole_len * jnp.sin(theta)
    tip_y = cart_y - cart_h / 4 - pole_len * jnp.cos(theta)
    img = r.line(img, cart_x, cart_y - cart_h / 4, tip_x, tip_y, 10.0, POLE)
    img = r.circle(img, cart_x, cart_y - cart_h / 4, 5.0, AXLE)
    return img


# --- shared helpers -------------------------------------------------------------------------

LINK = (0, 204, 204)
JOINT = (204, 204, 0)
WHEEL = (128, 128, 128)
ROD = (204, 77, 77)


def _pixel_centres(height: int, width: int):
    ys, xs = jnp.mgrid[0:height, 0:width]
    return xs.astype(jnp.float32) + 0.5, ys.astype(jnp.float32) + 0.5


def convex_polygon(img, points, color):
    """Fill the convex polygon through `points` ((x, y) pixel pairs, either winding)."""
    xs, ys = _pixel_centres(*img.shape[:2])
    left = right = jnp.ones(xs.shape, jnp.bool_)
    for i in range(len(points)):
        (x0, y0), (x1, y1) = points[i], points[(i + 1) % len(points)]
        cross = (x1 - x0) * (ys - y0) - (y1 - y0) * (xs - x0)
        left &= cross >= 0
        right &= cross <= 0
    return r.paint(img, left | right, color)


def _rotated_box(cx, cy, left, right, bottom, top, angle, height):
    """Corners of gymnasium's `(l, b), (l, t), (r, t), (r, b)` box rotated by `angle` about the
    origin and moved to (cx, cy), in y-up surface coordinates, returned as image pixels (the
    surface is flipped vertically, as gymnasium does)."""
    c, s = jnp.cos(angle), jnp.sin(angle)
    out = []
    for x, y in ((left, bottom), (left, top), (right, top), (right, bottom)):
        out.append((x * c - y * s + cx, height - (x * s + y * c + cy)))
    return out


# --- Acrobot --------------------------------------------------------------------------------


def acrobot(state, params, size: int = 500):
    """Two cyan links with yellow joints and the black target line (gymnasium's picture)."""
    l1 = jnp.asarray(params.link_length_1, jnp.float32)
    l2 = jnp.asarray(params.link_length_2, jnp.float32)
    bound = l1 + l2 + 0.2
    scale = size / (bound * 2)
    offset = size / 2
    theta1 = state.theta1.astype(jnp.float32)
    theta2 = state.theta2.astype(jnp.float32)
    img = r.canvas(size, size)
    line_y = size - (1 * scale + offset)
    img = r.line(img, -2.2 * scale + offset, line_y, 2.2 * scale + offset, line_y, 1.0, BLACK)
    joints = ((0.0, 0.0), (l1 * jnp.sin(theta1) * scale, -l1 * jnp.cos(theta1) * scale))
    angles = (theta1 - jnp.pi / 2, theta1 + theta2 - jnp.pi / 2)
    for (x, y), angle, length in zip(joints, angles, (l1 * scale, l2 * scale)):
        corners = _rotated_box(x + offset, y + offset, 0.0, length, -0.1 * scale, 0.1 * scale, angle, size)
        img = convex_polygon(img, corners, LINK)
        radius = jnp.floor(0.1 * scale)
        img = r.circle(img, jnp.floor(x + offset), size - jnp.floor(y + offset), radius, JOINT)
    return img


# --- MountainCar and MountainCarContinuous ---------------------------------------------------


def _height(xs):
    return jnp.sin(3 * xs) * 0.45 + 0.55


def mountain_car(state, params, width: int = 600, height: int = 400):
    """The valley curve, the black car with grey wheels, and the goal flag (gymnasium's picture)."""
    min_position = jnp.asarray(params.min_position, jnp.float32)
    max_position = jnp.asarray(params.max_position, jnp.float32)
    goal_position = jnp.asarray(params.goal_position, jnp.float32)
    scale = width / (max_position - min_position)
    car_width, car_height, clearance = 40.0, 20.0, 10.0
    img = r.canvas(height, width)

    # the track, about a pixel wide measured across the curve (gymnasium's anti-aliased line)
    xs, ys = _pixel_centres(height, width)
    world_x = xs / scale + min_position
    curve_y = height - _height(world_x) * scale
    slope = 3 * 0.45 * jnp.cos(3 * world_x)
    img = r.paint(img, jnp.abs(ys - curve_y) <= 0.6 * jnp.sqrt(1 + slope**2), BLACK)

    # the flag
    flag_x = jnp.floor((goal_position - min_position) * scale)
    flag_y1 = jnp.floor(_height(goal_position) * scale)
    flag_y2 = flag_y1 + 50
    img = r.rect(img, flag_x, height - flag_y1, flag_x + 1, height - flag_y2, BLACK)
    flag = [(flag_x, height - flag_y2), (flag_x, height - (flag_y2 - 10)), (flag_x + 25, height - (flag_y2 - 5))]
    img = convex_polygon(img, flag, JOINT)

    # the car, tilted by cos(3 x) radians as gymnasium tilts it
    pos = state.position.astype(jnp.float32)
    angle = jnp.cos(3 * pos)
    base_x = (pos - min_position) * scale
    base_y = clearance + _height(pos) * scale
    body = _rotated_box(base_x, base_y, -car_width / 2, car_width / 2, 0.0, car_height, angle, height)
    img = convex_polygon(img, body, BLACK)
    c, s = jnp.cos(angle), jnp.sin(angle)
    for dx in (car_width / 4, -car_width / 4):
        wheel_x = jnp.floor(dx * c + base_x)
        wheel_y = jnp.floor(dx * s + base_y)
        img = r.circle(img, wheel_x, height - wheel_y, float(int(car_height / 2.5)), WHEEL)
    return img


# --- Pendulum -------------------------------------------------------------------------------


def pendulum(state, params, size: int = 500):
    """The red rod with rounded ends and the black axle (gymnasium's picture, no torque arrow)."""
    bound = 2.2
    scale = size / (bound * 2)
    offset = size // 2
    rod_length, rod_width = 1 * scale, 0.2 * scale
    angle = state.theta.astype(jnp.float32) + jnp.pi / 2
    img = r.canvas(size, size)
    rod = _rotated_box(offset, offset, 0.0, rod_length, -rod_width / 2, rod_width / 2, angle, size)
    img = convex_polygon(img, rod, ROD)
    radius = float(int(rod_width / 2))
    img = r.circle(img, float(offset), float(size - offset), radius, ROD)
    end_x = jnp.floor(rod_length * jnp.cos(angle) + offset)
    end_y = jnp.floor(rod_length * jnp.sin(angle) + offset)
    img = r.circle(img, end_x, size - end_y, radius, ROD)
    img = r.circle(img, float(offset), float(size - offset), float(int(0.05 * scale)), BLACK)
    return img
