"""XLand-MiniGrid through the jaxenvs interface: `xminigrid/<id>` for every id it registers.

XLand ids come with xminigrid's empty default ruleset; set `params.env_params` to train on
tasks. See docs/adapters.md.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import rendering, spaces
from jaxenvs.adapters._common import (
    AdapterEnvironment,
    LibraryParams,
    LibraryTruncatedState,
    import_library,
    library_key,
    library_params,
    strong,
)
from jaxenvs.environment import defaults_params
from jaxenvs.params import custom
from jaxenvs.tree import cast_like

# xminigrid.core.constants: 13 tiles, 12 colours (ids from 0)
NUM_TILES, NUM_COLORS = 13, 12
EMPTY, FLOOR, WALL = 0, 1, 2
# xminigrid.rendering.rgb_render's COLORS_MAP, by colour id
PALETTE = np.frombuffer(
    bytes.fromhex("000000 ff0000 00ff00 0000ff 7027c3 ffff00 646464 000000 ff8c00 ffffff a0522d e11493"), np.uint8
).reshape(-1, 3)
CELL_PIXELS = 12


@struct.dataclass
class XMiniGridParams(LibraryParams):
    """Params of an xminigrid env.

    Attributes:
        max_steps_in_episode: jaxenvs' own time limit; never fires by default (xminigrid's
            `max_steps` applies).
        env_params: xminigrid's params (static fields; XLand's ruleset is a pytree: vmap it for
            meta-RL); None for its defaults.
    """

    # xminigrid's EnvParams (static fields; XLand's ruleset is a pytree); None: its defaults
    env_params: Any = custom(None, library_params, "xminigrid's EnvParams (a pytree) or None")


@struct.dataclass
class XMiniGridState(LibraryTruncatedState):
    """State of an xminigrid env.

    Attributes:
        library_truncated: bool[], whether xminigrid ended the last step by its own time limit.
        timestep: xminigrid's `TimeStep` (state, step type, reward, discount, observation).
    """

    # xminigrid's TimeStep: state (key, step_num, grid uint8[H, W, 2], agent, goal and rule
    # encodings), step_type, reward, discount, observation
    timestep: Any = None


class XMiniGridEnv(AdapterEnvironment):
    """An xminigrid env through the jaxenvs interface.

    Args:
        env_id: The id as `xminigrid.make` knows it (one of `xminigrid.registered_environments()`).
        **kwargs: Fields of xminigrid's `EnvParams` to set (`max_steps`, `view_size`, ...):
            `xminigrid.make` sets them in the params that become `default_params.env_params`.

    Raises:
        ValueError: If xminigrid has no such env.
        ImportError: If xminigrid is not installed.
    """

    family = "xminigrid"

    def __init__(self, env_id: str, **kwargs: Any):
        xminigrid = import_library("xminigrid", "xminigrid")
        self._set_env_id(env_id, xminigrid.registered_environments())
        self.xminigrid_env, self._env_params = xminigrid.make(env_id, **kwargs)

    @property
    def default_params(self) -> XMiniGridParams:
        """The default `XMiniGridParams`."""
        return XMiniGridParams(env_params=self._env_params)

    # --- spaces -----------------------------------------------------------------------
    @defaults_params
    def observation_space(self, params: XMiniGridParams | None = None) -> spaces.Box:
        """The observation space, translated from xminigrid's."""
        shape = tuple(self.xminigrid_env.observation_shape(params.env_params))
        high = np.broadcast_to(np.array([NUM_TILES - 1, NUM_COLORS - 1], np.float64), shape)
        return spaces.Box(np.zeros(shape), high, shape=shape, dtype=jnp.uint8)

    @defaults_params
    def action_space(self, params: XMiniGridParams | None = None) -> spaces.Discrete:
        """The action space, translated from xminigrid's."""
        return spaces.Discrete(int(self.xminigrid_env.num_actions(params.env_params)))

    # --- transitions ------------------------------------------------------------------
    def reset_env(self, key: jax.Array, params: XMiniGridParams) -> tuple[jax.Array, XMiniGridState]:
        """Start an episode with xminigrid's reset, from the key given."""
        timestep = strong(self.xminigrid_env.reset(params.env_params, library_key(key)))
        state = XMiniGridState(
            time=jnp.zeros((), jnp.int32), library_truncated=jnp.zeros((), jnp.bool_), timestep=timestep
        )
        return jnp.asarray(timestep.observation, jnp.uint8), state

    def step_env(
        self, key: jax.Array, state: XMiniGridState, action: Any, params: XMiniGridParams
    ) -> tuple[jax.Array, XMiniGridState, jax.Array, jax.Array, dict[str, Any]]:
        """xminigrid's transition, no reset (docs/adapters.md says what is kept apart)."""
        del key  # xminigrid draws from the key in its state
        timestep = self.xminigrid_env.step(params.env_params, state.timestep, jnp.asarray(action, jnp.int32))
        timestep = cast_like(timestep, state.timestep, f"{self.name}: the library's state")
        last = timestep.step_type == 2  # StepType.LAST
        terminated = last & (timestep.discount == 0)
        truncated = last & (timestep.state.step_num >= params.env_params.max_steps)
        state = XMiniGridState(time=state.time + 1, library_truncated=truncated, timestep=timestep)
        obs = jnp.asarray(timestep.observation, jnp.uint8)
        return obs, state, jnp.asarray(timestep.reward, jnp.float32), terminated, {}

    # --- rendering --------------------------------------------------------------------
    @defaults_params
    def render(self, state: XMiniGridState, params: XMiniGridParams | None = None) -> jax.Array:
        """The whole grid (each cell in its tile's colour, the agent a red disc), jit-able."""
        grid = state.timestep.state.grid
        tile, colour = grid[..., 0].astype(jnp.int32), grid[..., 1].astype(jnp.int32)
        colour = jnp.where((tile == EMPTY) | (tile == FLOOR), 0, jnp.where(tile == WALL, 6, colour))
        img = rendering.grid_image(colour, PALETTE, CELL_PIXELS)
        row, col = state.timestep.state.agent.position[0], state.timestep.state.agent.position[1]
        centre = (CELL_PIXELS - 1) / 2
        x, y = col * CELL_PIXELS + centre, row * CELL_PIXELS + centre
        return rendering.circle(img, x, y, CELL_PIXELS / 3, (255, 0, 0))
