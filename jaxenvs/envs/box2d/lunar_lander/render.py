"""LunarLander drawn like gymnasium's: black sky over the white moon, the lander and its legs,
the pad's two flags (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r
from jaxenvs.envs.box2d import physics
from jaxenvs.envs.box2d.lunar_lander import env as ll

BODY = (128, 102, 230)
OUTLINE = (77, 77, 128)
FLAG = (204, 204, 0)


def render(state, params, width: int = ll.VIEWPORT_W, height: int = ll.VIEWPORT_H):
    """Draw the terrain, the lander, its legs and the flags, as gymnasium's `render` does.

    Args:
        state: A `LunarLanderState`.
        params: Its `LunarLanderParams` (unused: the picture depends on the state alone).
        width: The picture's width in pixels.
        height: The picture's height in pixels.

    Returns:
        A `uint8[height, width, 3]` picture.
    """
    scale = width / ll.W
    img = r.canvas(height, width)
    cols = jnp.arange(width, dtype=jnp.float32)[None, :] + 0.5
    rows = jnp.arange(height, dtype=jnp.float32)[:, None] + 0.5
    # World coordinates of each pixel (y up).
    wx = jnp.broadcast_to(cols / scale, (height, width))
    wy = jnp.broadcast_to((height - rows) / scale, (height, width))
    ground = jnp.interp(wx, jnp.asarray(ll.CHUNK_X, jnp.float32), state.terrain_y.astype(jnp.float32))
    img = r.paint(img, wy > ground, (0, 0, 0))

    world = ll.lander_world()
    position = physics.body_position(world, state.world).astype(jnp.float32)
    for b in range(world.num_bodies):
        count = int(world.vertex_count[b])
        local = world.vertices[b, :count].astype(jnp.float32)
        corners = position[b] + physics.rotate(state.world.angle[b].astype(jnp.float32), local)
        img = r.convex(img, wx, wy, corners[:, 0], corners[:, 1], BODY)
        for i in range(count):
            a, c = corners[i] * scale, corners[(i + 1) % count] * scale
            img = r.line(img, a[0], height - a[1], c[0], height - c[1], 2.0, OUTLINE)

    for x in (ll.HELIPAD_X1, ll.HELIPAD_X2):
        px, base = x * scale, height - ll.HELIPAD_Y * scale
        img = r.line(img, px, base, px, base - 50.0, 2.0, (255, 255, 255))
        img = r.convex(
            img,
            jnp.broadcast_to(cols, (height, width)),
            jnp.broadcast_to(rows, (height, width)),
            jnp.array([px, px, px + 25.0]),
            jnp.array([base - 50.0, base - 40.0, base - 45.0]),
            FLAG,
        )
    return img
