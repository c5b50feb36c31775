"""NAVIX through the jaxenvs interface: `navix/<id>` for every id in `navix.registry()`.

Reference: `navix.make(id)` (navix >= 0.7), whose env is `reset(key) -> Timestep` and
`step(timestep, action) -> Timestep` with `step_type` 0 (transition), 1 (truncation), 2
(termination). Here:

- the raw transition is navix's `_step`: navix's `step` auto-resets dm_env style, spending the
  step after an episode's end on the reset (that step's action is ignored and its reward is 0).
  jaxenvs' `AutoReset` / `make_vec` reset on the step that ends and keep `final_observation`.
- `terminated` is step type 2; `truncated` is navix's own time limit, `t >= env.max_steps`
  (100 by default, as `navix.make`), kept in `state.library_truncated`. navix's step type
  reports a termination alone when both happen on one step; the truncation is kept here too.
- spaces: navix's `Discrete` of shape () -> `Discrete`; of a shape (symbolic or RGB
  observations) -> an integer `Box` with its bounds; `Continuous` -> `Box`. The symbolic
  observation's space (the default observation) is widened to the uint8 range: navix declares
  it in [0, 8] but its own observations tag the player 10.
- keys reach navix as raw `uint32[2]`; navix keeps its own key in its state, the step key is
  not used. navix's `info["return"]` is dropped (`LogWrapper` counts returns).
- `render` is navix's own jit-able RGB renderer (`navix.observations.rgb`, the whole grid).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.adapters._common import (
    NO_LIMIT,
    AdapterEnvironment,
    import_library,
    library_key,
    strong,
)
from jaxenvs.environment import EnvParams, EnvState
from jaxenvs.tree import cast_like

TERMINATION = 2  # navix.environments.environment.StepType.TERMINATION


@struct.dataclass
class NavixParams(EnvParams):
    max_steps_in_episode: int = NO_LIMIT


@struct.dataclass
class NavixState(EnvState):
    # bool[]: the library ended the last step by its own time limit (False after reset)
    library_truncated: jax.Array = False
    # navix's Timestep: t, observation, action, reward, step_type, state (key, grid, entities,
    # events, rendering cache), info
    timestep: Any = None


def translate_space(space: Any) -> spaces.Space:
    """The jaxenvs space of a navix `Discrete` or `Continuous` space."""
    shape = tuple(int(s) for s in space.shape)
    low, high = np.asarray(space.minimum, np.float64), np.asarray(space.maximum, np.float64)
    if type(space).__name__ == "Discrete" and shape == ():
        return spaces.Discrete(int(high) - int(low) + 1, start=int(low), dtype=space.dtype)
    return spaces.Box(np.broadcast_to(low, shape), np.broadcast_to(high, shape), shape=shape, dtype=space.dtype)


class NavixEnv(AdapterEnvironment):
    """navix env `env_id` (as `navix.make` knows it); `kwargs` go to `navix.make`."""

    def __init__(self, env_id: str, **kwargs: Any):
        navix = import_library("navix", "navix")
        if env_id not in navix.registry():
            raise ValueError(f"navix has no env {env_id!r}; it has: {', '.join(navix.registry())}")
        self._env_id = env_id
        self.navix_env = navix.make(env_id, **kwargs)
        self._rgb = navix.observations.rgb
        self._symbolic = navix.observations.symbolic

    @property
    def name(self) -> str:
        return f"navix/{self._env_id}"

    @property
    def default_params(self) -> NavixParams:
        return NavixParams()

    def observation_space(self, params: NavixParams | None = None) -> spaces.Space:
        space = translate_space(self.navix_env.observation_space)
        if self.navix_env.observation_fn is self._symbolic:
            # navix 0.7 declares its symbolic observations in [0, 8] but tags the player 10
            # (EntityIds.PLAYER); its first-person symbolic space spans the uint8 range: so here
            space = spaces.Box(0, 255, shape=space.shape, dtype=space.dtype)
        return space

    def action_space(self, params: NavixParams | None = None) -> spaces.Space:
        return translate_space(self.navix_env.action_space)

    def reset_env(self, key: jax.Array, params: NavixParams) -> tuple[Any, NavixState]:
        timestep = strong(self.navix_env.reset(library_key(key)))
        timestep = timestep.replace(info={})
        state = NavixState(time=jnp.zeros((), jnp.int32), library_truncated=jnp.zeros((), jnp.bool_), timestep=timestep)
        return timestep.observation, state

    def step_env(
        self, key: jax.Array, state: NavixState, action: Any, params: NavixParams
    ) -> tuple[Any, NavixState, jax.Array, jax.Array, dict[str, Any]]:
        del key  # navix draws from the key in its state
        timestep = self.navix_env._step(state.timestep, jnp.asarray(action, jnp.int32))
        timestep = cast_like(timestep.replace(info={}), state.timestep, f"{self.name}: the library's state")
        terminated = timestep.step_type == TERMINATION
        truncated = timestep.t >= self.navix_env.max_steps
        state = NavixState(time=state.time + 1, library_truncated=truncated, timestep=timestep)
        return timestep.observation, state, jnp.asarray(timestep.reward, jnp.float32), terminated, {}

    def library_truncated(self, state: NavixState) -> jax.Array:
        return state.library_truncated

    def render(self, state: NavixState, params: NavixParams | None = None) -> jax.Array:
        return jnp.asarray(self._rgb(state.timestep.state), jnp.uint8)
