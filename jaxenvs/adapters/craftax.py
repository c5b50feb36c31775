"""Craftax through the jaxenvs interface: `craftax/<id>` for Craftax's four envs.

Reference: `craftax.craftax_env.make_craftax_env_from_name(id, auto_reset=False)` (craftax >=
1.4), adapted by `from_gymnax` (Craftax follows gymnax's first, five-tuple interface). What
Craftax's own envs and wrappers do that this keeps apart:

- Craftax's `done` is `timestep >= max_timesteps` or the player died (or, in Craftax, beat the
  boss); its `discount` is 0 for both. Here a `done` at `params.env_params.max_timesteps` is a
  truncation, the rest terminations (on the very step where the player dies at the time limit,
  the truncation alone is reported: Craftax's flag cannot tell).
- Craftax's `AutoReset` envs (and PureJaxRL's wrappers for them) compute a fresh world for every
  env on every step and drop the terminal observation; jaxenvs' `AutoReset` / `make_vec` reset
  only the envs that finished and keep `final_observation`.
- the info keys (`Achievements/...`) are Craftax's, minus `discount`.
- `render` is Craftax's jit-able pixel renderer (16 pixels per block), as uint8.

The `*-AutoReset-v1` names are the same envs with Craftax's auto-reset; they are not listed.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from jaxenvs.adapters._common import import_library
from jaxenvs.adapters.gymnax import GymnaxEnv, from_gymnax

# pixels per block of `render` (Craftax's BLOCK_PIXEL_SIZE_IMG)
BLOCK_PIXEL_SIZE = 16


def craftax_time_limit(state: Any, params: Any) -> Any:
    """Craftax's time limit (`is_game_over`'s first clause)."""
    return state.timestep >= params.max_timesteps


def make_craftax_env(env_id: str) -> GymnaxEnv:
    """The `craftax/<env_id>` entry point."""
    craftax_env = import_library("craftax.craftax_env", "craftax")
    try:
        env = craftax_env.make_craftax_env_from_name(env_id, auto_reset=False)
    except ValueError as e:
        from jaxenvs.adapters.registration import CRAFTAX_IDS

        raise ValueError(f"Craftax has no env {env_id!r}; it has: {', '.join(CRAFTAX_IDS)}") from e
    classic = "Classic" in env_id
    renderer = import_library(f"craftax.{'craftax_classic' if classic else 'craftax'}.renderer", "craftax")
    draw = renderer.make_craftax_pixel_renderer(BLOCK_PIXEL_SIZE)

    def render(state: Any, params: Any) -> Any:
        return jnp.clip(draw(state), 0, 255).astype(jnp.uint8)

    return from_gymnax(
        env, env.default_params, name=f"craftax/{env_id}", api="0.x", time_limit=craftax_time_limit, render=render
    )
