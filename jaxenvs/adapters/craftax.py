"""Craftax through the jaxenvs interface: `craftax/<id>` for Craftax's four envs, adapted by
`from_gymnax` (Craftax follows gymnax's five-tuple interface). See docs/adapters.md.
"""

from __future__ import annotations

import functools
from typing import Any

import jax.numpy as jnp

from jaxenvs.adapters._common import import_library, no_such_env
from jaxenvs.adapters.gymnax import GymnaxEnv, from_gymnax

# pixels per block of `render` (Craftax's BLOCK_PIXEL_SIZE_IMG)
BLOCK_PIXEL_SIZE = 16


def craftax_time_limit(state: Any, params: Any) -> Any:
    """Craftax's time limit (`is_game_over`'s first clause).

    Args:
        state: Craftax's state.
        params: Craftax's params.

    Returns:
        Whether `state.timestep >= params.max_timesteps`.
    """
    return state.timestep >= params.max_timesteps


def make_craftax_env(env_id: str) -> GymnaxEnv:
    """The `craftax/<env_id>` entry point.

    Args:
        env_id: A Craftax env name (`Craftax-Classic-Symbolic-v1`, ...).

    Returns:
        The raw jaxenvs env, with Craftax's pixel renderer as `render` and its `get_obs` (so it
        starts from a given state: `reset_to_level(key, Level(state=s))`).

    Raises:
        ValueError: If Craftax has no such env.
        ImportError: If Craftax is not installed.
    """
    craftax_env = import_library("craftax.craftax_env", "craftax")
    try:
        env = craftax_env.make_craftax_env_from_name(env_id, auto_reset=False)
    except ValueError as e:
        from jaxenvs.adapters.registration import CRAFTAX_IDS

        raise no_such_env("Craftax", env_id, CRAFTAX_IDS) from e
    renderer = f"craftax.{'craftax_classic' if 'Classic' in env_id else 'craftax'}.renderer"

    @functools.cache
    def draw() -> Any:
        # Built at the first render, not here: building a pixel renderer makes Craftax process
        # its textures, about 1.5 minutes on a 2-core CPU the first time in an install (then
        # cached in Craftax's package), which a symbolic env that never renders need not wait for.
        return import_library(renderer, "craftax").make_craftax_pixel_renderer(BLOCK_PIXEL_SIZE)

    def render(state: Any, params: Any) -> Any:
        return jnp.clip(draw()(state), 0, 255).astype(jnp.uint8)

    def get_obs(state: Any, params: Any) -> Any:
        return env.get_obs(state)  # what Craftax's reset_env returns with its state

    return from_gymnax(
        env,
        env.default_params,
        name=f"craftax/{env_id}",
        api="0.x",
        time_limit=craftax_time_limit,
        render=render,
        get_obs=get_obs,
    )
