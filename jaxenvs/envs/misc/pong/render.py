"""Pong drawn from its observation's channels, one colour a channel, `cell` pixels a cell (pure JAX)."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs.rendering import grid_image


def render(env, state, cell: int = 10):
    """Pong's board from its observation: paddles light grey, ball orange, its previous cell brown.

    Args:
        env: The `Pong` env (its `get_obs`).
        state: A `PongState`.
        cell: Each cell's side in pixels.

    Returns:
        A `uint8[height * cell, width * cell, 3]` image.
    """
    obs = env.get_obs(state) > 0
    cells = jnp.where(obs[..., 1], 2, jnp.where(obs[..., 2], 3, jnp.where(obs[..., 0], 1, 0)))
    palette = jnp.asarray([(0, 0, 0), (236, 236, 236), (255, 140, 0), (110, 60, 10)], jnp.uint8)
    return grid_image(cells, palette, cell)
