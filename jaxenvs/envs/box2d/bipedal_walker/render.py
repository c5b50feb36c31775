"""BipedalWalker drawn like gymnasium's: the view following the hull, pale sky over the green
terrain, the hardcore course's obstacles, the walker's legs and hull, the start flag (pure JAX).
Not drawn: the clouds (the reference draws them at random, for looks) and the lidar's
flickering ray."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import rendering as r
from jaxenvs.envs.box2d import physics
from jaxenvs.envs.box2d.bipedal_walker import env as bw
from jaxenvs.envs.box2d.bipedal_walker import terrain as tr

SKY = (215, 215, 255)
GROUND = (102, 153, 76)
GRASS = (76, 230, 76)
HULL = ((127, 51, 229), (76, 76, 127))
FLAG = (230, 51, 0)
OBSTACLE = ((255, 255, 255), (153, 153, 153))


def _leg_colors(i: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The reference's colours of the leg `i` (-1 left, +1 right)."""
    return (153 - i * 25, 76 - i * 25, 127 - i * 25), (102 - i * 25, 51 - i * 25, 76 - i * 25)


def render(state, params, width: int = bw.VIEWPORT_W, height: int = bw.VIEWPORT_H):
    """Draw the course, the walker and the flag, the view scrolled to the hull as the
    reference's (`scroll = hull x - VIEWPORT_W / SCALE / 5`).

    Args:
        state: A `BipedalWalkerState`.
        params: Its `BipedalWalkerParams` (unused: the picture depends on the state alone).
        width: The picture's width in pixels.
        height: The picture's height in pixels.

    Returns:
        A `uint8[height, width, 3]` picture.
    """
    world = bw.walker_world()
    scale = width / (bw.VIEWPORT_W / bw.SCALE)
    position = physics.body_position(world, state.world).astype(jnp.float32)
    scroll = position[bw.HULL, 0] - bw.VIEWPORT_W / bw.SCALE / 5
    img = r.canvas(height, width, SKY)
    cols = jnp.arange(width, dtype=jnp.float32)[None, :] + 0.5
    rows = jnp.arange(height, dtype=jnp.float32)[:, None] + 0.5
    # World coordinates of each pixel (y up).
    wx = jnp.broadcast_to(cols / scale + scroll, (height, width))
    wy = jnp.broadcast_to((height - rows) / scale, (height, width))
    terrain = state.terrain
    ground = jnp.interp(wx, terrain.terrain_x.astype(jnp.float32), terrain.terrain_y.astype(jnp.float32))
    img = r.paint(img, wy <= ground, GROUND)
    img = r.paint(img, jnp.abs(wy - ground) * scale <= 1.0, GRASS)

    # The obstacles (axis-aligned rectangles): white, outlined in grey, all at once.
    v = terrain.obstacle_vertices.astype(jnp.float32)
    x1, x2, y1, y2 = v[..., 0].min(-1), v[..., 0].max(-1), v[..., 1].min(-1), v[..., 1].max(-1)
    px_x, px_y = wx[..., None], wy[..., None]

    def within(margin):
        return (px_x >= x1 + margin) & (px_x <= x2 - margin) & (px_y >= y1 + margin) & (px_y <= y2 - margin)

    inside = within(0.0) & terrain.obstacle_mask
    img = r.paint(img, inside.any(-1), OBSTACLE[0])
    img = r.paint(img, (inside & ~within(1.0 / scale)).any(-1), OBSTACLE[1])

    # The flag at the start, as the reference draws it (pixels above the terrain's height).
    flag_x = (tr.TERRAIN_STEP * 3 - scroll) * scale
    base = height - tr.TERRAIN_HEIGHT * scale
    img = r.line(img, flag_x, base, flag_x, base - 50.0, 1.5, (0, 0, 0))
    px, py = jnp.broadcast_to(cols, (height, width)), jnp.broadcast_to(rows, (height, width))
    img = r.convex(
        img,
        px,
        py,
        jnp.stack([flag_x, flag_x, flag_x + 25.0]),
        jnp.array([base - 50.0, base - 40.0, base - 45.0]),
        FLAG,
    )

    # The bodies in the reference's drawing order: the legs (left upper, left lower, right
    # upper, right lower), then the hull.
    colors = {bw.HULL: HULL}
    for leg, i in enumerate((-1, 1)):
        colors[bw.UPPER[leg]] = colors[bw.LOWER[leg]] = _leg_colors(i)
    for b in (*range(1, world.num_bodies), bw.HULL):
        count = int(world.vertex_count[b])
        local = world.vertices[b, :count].astype(jnp.float32)
        corners = position[b] + physics.rotate(state.world.angle[b].astype(jnp.float32), local)
        fill, outline = colors[b]
        img = r.convex(img, wx, wy, corners[:, 0], corners[:, 1], fill)
        for k in range(count):
            a, c = (
                (corners[k] - jnp.stack([scroll, 0.0])) * scale,
                (corners[(k + 1) % count] - jnp.stack([scroll, 0.0])) * scale,
            )
            img = r.line(img, a[0], height - a[1], c[0], height - c[1], 1.5, outline)
    return img
