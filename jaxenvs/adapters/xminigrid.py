"""XLand-MiniGrid through the jaxenvs interface: `xminigrid/<id>` for every id it registers.

Reference: `xminigrid.make(id)` (xminigrid >= 0.8), whose env is `reset(params, key) ->
TimeStep` and `step(params, timestep, action) -> TimeStep` with dm_env step types. Here:

- `terminated` is a LAST step with discount 0 (the goal reached); `truncated` is the library's
  own time limit, `state.step_num >= params.max_steps` (a LAST step with discount 1), kept in
  `state.library_truncated` and reported even when the goal is reached on that step.
  xminigrid's `GymAutoResetWrapper` replaces the terminal observation by the reset one and keeps
  no copy ("TODO: add last_obs somewhere"); its `DmEnvAutoResetWrapper` spends one extra step
  per episode on the reset, ignoring that step's action. jaxenvs' `AutoReset` / `make_vec` keep
  `final_observation` and reset on the step that ends.
- `params.env_params` is xminigrid's params (grid size, view size, `max_steps`, static; and for
  XLand ids the `ruleset`, a pytree: vmap it for meta-RL). XLand ids come with xminigrid's
  default ruleset, which is empty (no goal, no rules: episodes end only at `max_steps`); load
  a benchmark's rulesets (`xminigrid.load_benchmark`, a download) and set one to train on tasks.
- the observation is xminigrid's egocentric view, `uint8[view, view, 2]` (tile id, colour id);
  the space is a `Box` with the largest ids as its high bounds. The action is `Discrete(6)`.
- keys reach xminigrid as raw `uint32[2]`; it keeps its own key in its state, the step key is
  not used.
- `render` draws the whole grid (each cell in its tile's colour, walls grey, floor black, the
  agent a red disc), jit-able; xminigrid's own renderer is numpy, not jit-able.
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
    # xminigrid's EnvParams (static fields; XLand's ruleset is a pytree); None: its defaults
    env_params: Any = custom(None, library_params, "xminigrid's EnvParams (a pytree) or None")


@struct.dataclass
class XMiniGridState(LibraryTruncatedState):
    # xminigrid's TimeStep: state (key, step_num, grid uint8[H, W, 2], agent, goal and rule
    # encodings), step_type, reward, discount, observation
    timestep: Any = None


class XMiniGridEnv(AdapterEnvironment):
    """xminigrid env `env_id` (as `xminigrid.make` knows it); `kwargs` go to `xminigrid.make`."""

    def __init__(self, env_id: str, **kwargs: Any):
        xminigrid = import_library("xminigrid", "xminigrid")
        if env_id not in xminigrid.registered_environments():
            raise ValueError(
                f"xminigrid has no env {env_id!r}; it has: {', '.join(xminigrid.registered_environments())}"
            )
        self._env_id = env_id
        self.xminigrid_env, self._env_params = xminigrid.make(env_id, **kwargs)

    @property
    def name(self) -> str:
        return f"xminigrid/{self._env_id}"

    @property
    def default_params(self) -> XMiniGridParams:
        return XMiniGridParams(env_params=self._env_params)

    # --- spaces -----------------------------------------------------------------------
    def observation_space(self, params: XMiniGridParams | None = None) -> spaces.Box:
        shape = tuple(self.xminigrid_env.observation_shape(params.env_params))
        high = np.broadcast_to(np.array([NUM_TILES - 1, NUM_COLORS - 1], np.float64), shape)
        return spaces.Box(np.zeros(shape), high, shape=shape, dtype=jnp.uint8)

    def action_space(self, params: XMiniGridParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(int(self.xminigrid_env.num_actions(params.env_params)))

    # --- transitions ------------------------------------------------------------------
    def reset_env(self, key: jax.Array, params: XMiniGridParams) -> tuple[jax.Array, XMiniGridState]:
        timestep = strong(self.xminigrid_env.reset(params.env_params, library_key(key)))
        state = XMiniGridState(
            time=jnp.zeros((), jnp.int32), library_truncated=jnp.zeros((), jnp.bool_), timestep=timestep
        )
        return jnp.asarray(timestep.observation, jnp.uint8), state

    def step_env(
        self, key: jax.Array, state: XMiniGridState, action: Any, params: XMiniGridParams
    ) -> tuple[jax.Array, XMiniGridState, jax.Array, jax.Array, dict[str, Any]]:
        del key  # xminigrid draws from the key in its state
        timestep = self.xminigrid_env.step(params.env_params, state.timestep, jnp.asarray(action, jnp.int32))
        timestep = cast_like(timestep, state.timestep, f"{self.name}: the library's state")
        last = timestep.step_type == 2  # StepType.LAST
        terminated = last & (timestep.discount == 0)
        truncated = last & (timestep.state.step_num >= params.env_params.max_steps)
        state = XMiniGridState(time=state.time + 1, library_truncated=truncated, timestep=timestep)
        obs = jnp.asarray(timestep.observation, jnp.uint8)
        return obs, state, jnp.asarray(timestep.reward, jnp.float32), terminated, {}

    def library_truncated(self, state: XMiniGridState) -> jax.Array:
        return state.library_truncated

    # --- rendering --------------------------------------------------------------------
    def render(self, state: XMiniGridState, params: XMiniGridParams | None = None) -> jax.Array:
        grid = state.timestep.state.grid
        tile, colour = grid[..., 0].astype(jnp.int32), grid[..., 1].astype(jnp.int32)
        colour = jnp.where((tile == EMPTY) | (tile == FLOOR), 0, jnp.where(tile == WALL, 6, colour))
        img = rendering.grid_image(colour, PALETTE, CELL_PIXELS)
        row, col = state.timestep.state.agent.position[0], state.timestep.state.agent.position[1]
        centre = (CELL_PIXELS - 1) / 2
        x, y = col * CELL_PIXELS + centre, row * CELL_PIXELS + centre
        return rendering.circle(img, x, y, CELL_PIXELS / 3, (255, 0, 0))
