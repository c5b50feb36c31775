"""NAVIX through the jaxenvs interface: `navix/<id>` for every id in `navix.registry()`.

The raw transition is navix's `_step` (navix's `step` spends a step on each reset). See
docs/adapters.md.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.adapters._common import (
    NO_LIMIT,
    AdapterEnvironment,
    import_library,
    library_key,
    strong,
)
from jaxenvs.environment import EnvParams, EnvState, defaults_params
from jaxenvs.spaces import convert
from jaxenvs.tree import cast_like

TERMINATION = 2  # navix.environments.environment.StepType.TERMINATION


@struct.dataclass
class NavixParams(EnvParams):
    """Params of a navix env.

    Attributes:
        max_steps_in_episode: jaxenvs' own time limit; never fires by default (navix's applies).
    """

    max_steps_in_episode: int = NO_LIMIT


@struct.dataclass
class NavixState(EnvState):
    # bool[]: the library ended the last step by its own time limit (False after reset)
    """State of a navix env.

    Attributes:
        library_truncated: bool[], whether navix ended the last step by its own time limit.
        timestep: navix's `Timestep` (t, observation, action, reward, step type, state, info).
    """

    library_truncated: jax.Array = False
    # navix's Timestep: t, observation, action, reward, step_type, state (key, grid, entities,
    # events, rendering cache), info
    timestep: Any = None


# the jaxenvs space of a navix `Discrete` or `Continuous` space
translate_space = convert.from_navix


class NavixEnv(AdapterEnvironment):
    """A navix env through the jaxenvs interface.

    Args:
        env_id: The id as `navix.make` knows it (a key of `navix.registry()`).
        **kwargs: Passed to `navix.make`: `max_steps` (100 by default), `observation_fn`,
            `reward_fn`, `penality_coeff`, ...

    Raises:
        ValueError: If navix has no such env.
        ImportError: If navix is not installed.
    """

    family = "navix"

    def __init__(self, env_id: str, **kwargs: Any):
        navix = import_library("navix", "navix")
        self._set_env_id(env_id, navix.registry())
        self.navix_env = navix.make(env_id, **kwargs)
        self._rgb = navix.observations.rgb
        self._symbolic = navix.observations.symbolic

    @property
    def default_params(self) -> NavixParams:
        """The default `NavixParams`."""
        return NavixParams()

    @defaults_params
    def observation_space(self, params: NavixParams | None = None) -> spaces.Space:
        """The observation space, translated from navix's."""
        space = translate_space(self.navix_env.observation_space)
        if self.navix_env.observation_fn is self._symbolic:
            # navix 0.7 declares its symbolic observations in [0, 8] but tags the player 10
            # (EntityIds.PLAYER); its first-person symbolic space spans the uint8 range: so here
            space = spaces.Box(0, 255, shape=space.shape, dtype=space.dtype)
        return space

    @defaults_params
    def action_space(self, params: NavixParams | None = None) -> spaces.Space:
        """The action space, translated from navix's."""
        return translate_space(self.navix_env.action_space)

    def observe(self, state: NavixState, params: NavixParams | None = None) -> Any:
        """The observation of `state`: navix's, which its `Timestep` keeps.

        What `reset` and `step` return with the state, so `reset_to_level(key, Level(state=s))`
        starts exactly where `s` is.

        Args:
            state: A `NavixState`.
            params: The env's params (unused: navix keeps the observation in its timestep).

        Returns:
            The observation.
        """
        return state.timestep.observation

    def reset_env(self, key: jax.Array, params: NavixParams) -> tuple[Any, NavixState]:
        """Start an episode with navix's reset, from the key given."""
        timestep = strong(self.navix_env.reset(library_key(key)))
        timestep = timestep.replace(info={})
        state = NavixState(time=jnp.zeros((), jnp.int32), library_truncated=jnp.zeros((), jnp.bool_), timestep=timestep)
        return self.observe(state, params), state

    def step_env(
        self, key: jax.Array, state: NavixState, action: Any, params: NavixParams
    ) -> tuple[Any, NavixState, jax.Array, jax.Array, dict[str, Any]]:
        """navix's transition, no reset (docs/adapters.md says what is kept apart)."""
        del key  # navix draws from the key in its state
        timestep = self.navix_env._step(state.timestep, jnp.asarray(action, jnp.int32))
        timestep = cast_like(timestep.replace(info={}), state.timestep, f"{self.name}: the library's state")
        terminated = timestep.step_type == TERMINATION
        truncated = timestep.t >= self.navix_env.max_steps
        state = NavixState(time=state.time + 1, library_truncated=truncated, timestep=timestep)
        return self.observe(state, params), state, jnp.asarray(timestep.reward, jnp.float32), terminated, {}

    @defaults_params
    def render(self, state: NavixState, params: NavixParams | None = None) -> jax.Array:
        """navix's own jit-able RGB picture of the whole grid."""
        return jnp.asarray(self._rgb(state.timestep.state), jnp.uint8)
