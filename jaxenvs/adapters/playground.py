"""MuJoCo Playground through the jaxenvs interface: `playground/<name>` for its DM Control
Suite, locomotion and manipulation envs, used bare (none of its training wrappers); a level may
scale friction, masses and gravity per episode. See docs/adapters.md and docs/levels.md.
"""

from __future__ import annotations

import copy
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.adapters._common import (
    AdapterEnvironment,
    float_obs,
    float_obs_space,
    friction_scale,
    gravity_scale,
    import_library,
    library_key,
    mass_scale,
    register_dataclass_serialization,
    scale_physics,
    side_view,
    strong,
)
from jaxenvs.environment import EnvParams, EnvState, defaults_params
from jaxenvs.tree import cast_like

DEFAULT_IMPL = "jax"


@struct.dataclass
class PlaygroundParams(EnvParams):
    """Params of a Playground env.

    The scales multiply the values of the env's MJX model for an episode, as Playground's own
    domain randomisation replaces the model (`BraxDomainRandomizationVmapWrapper`); a level may
    set each (`Level(settings={"mass_scale": jnp.float32(1.2)})`).

    Attributes:
        max_steps_in_episode: The time limit in env steps (the env's `config.episode_length`).
        friction_scale: Multiplies every geom's sliding friction (>= 0).
        mass_scale: Multiplies every body's mass and inertia (> 0).
        gravity_scale: Multiplies gravity (>= 0).
    """

    max_steps_in_episode: int = 1000
    friction_scale: float = friction_scale()
    mass_scale: float = mass_scale()
    gravity_scale: float = gravity_scale()


@struct.dataclass
class PlaygroundState(EnvState):
    # mujoco_playground's State: data (MJX Data: qpos, qvel, xpos, ...), obs, reward, done
    # (float, 1.0 when terminated), metrics (dict of float scalars), info (its rng and
    # task-specific fields)
    """State of a Playground env.

    Attributes:
        playground_state: Playground's `State` (MJX data, obs, reward, done, metrics, info).
    """

    playground_state: Any


class PlaygroundEnv(AdapterEnvironment):
    """A Playground env through the jaxenvs interface.

    Args:
        name: The env's name (a key of `mujoco_playground.registry`).
        impl: MJX's implementation: "jax" (pure JAX, jit-able and vmap-able everywhere) by default.
        config_overrides: Other config fields to override.

    Raises:
        ValueError: If Playground has no such env.
        ImportError: If Playground is not installed.
    """

    family = "playground"

    def __init__(self, name: str, impl: str = DEFAULT_IMPL, config_overrides: dict[str, Any] | None = None):
        registry = import_library("mujoco_playground", "playground").registry
        self._set_env_id(name, registry.ALL_ENVS, library="MuJoCo Playground")
        overrides = {"impl": impl, **(config_overrides or {})}
        self.config = registry.get_default_config(name)
        self.config.update(overrides)
        with jax.ensure_compile_time_eval():
            self.playground_env = registry.load(name, config=self.config)
        self._episode_length = int(self.config.get("episode_length", 1000))
        self._obs_shape = None

    @property
    def default_params(self) -> PlaygroundParams:
        """The default `PlaygroundParams`."""
        return PlaygroundParams(max_steps_in_episode=self._episode_length)

    # --- spaces -----------------------------------------------------------------------
    @defaults_params
    def observation_space(self, params: PlaygroundParams | None = None) -> spaces.Space:
        """The observation space, translated from Playground's."""
        if self._obs_shape is None:
            state = jax.eval_shape(self.playground_env.reset, jax.ShapeDtypeStruct((2,), jnp.uint32))
            self._obs_shape = state.obs
        shape = self._obs_shape
        return float_obs_space(shape)

    @defaults_params
    def action_space(self, params: PlaygroundParams | None = None) -> spaces.Box:
        """`Box(-1, 1)` of `action_size` (Playground's envs take normalised actions)."""
        return spaces.Box(-1.0, 1.0, shape=(int(self.playground_env.action_size),), dtype=jnp.float32)

    # --- transitions ------------------------------------------------------------------
    def physics_env(self, params: PlaygroundParams) -> Any:
        """The Playground env that runs an episode under `params`: a copy whose MJX model has the
        params' friction, mass and gravity scales.

        Args:
            params: The env's params.

        Returns:
            A Playground env (the shared one is never changed).
        """
        env = copy.copy(self.playground_env)
        # Playground's envs read their physics from `self.mjx_model`, i.e. `_mjx_model`, which
        # its own domain randomisation replaces the same way
        env._mjx_model = scale_physics(env.mjx_model, params.friction_scale, params.mass_scale, params.gravity_scale)
        return env

    def observe(self, state: PlaygroundState, params: PlaygroundParams | None = None) -> Any:
        """The observation of `state`: Playground's, which its state keeps (`State.obs`), in float32.

        What `reset` and `step` return with the state, so `reset_to_level(key, Level(state=s))`
        starts exactly where `s` is.

        Args:
            state: A `PlaygroundState`.
            params: The env's params (unused: Playground keeps the observation in its state).

        Returns:
            The observation (an array, or a dict of arrays).
        """
        return float_obs(state.playground_state.obs)

    def reset_env(self, key: jax.Array, params: PlaygroundParams) -> tuple[Any, PlaygroundState]:
        """Start an episode with Playground's reset, from the key given."""
        pg_state = strong(self.physics_env(params).reset(library_key(key)))
        register_dataclass_serialization(pg_state)  # MJX's Data is a plain dataclass
        state = PlaygroundState(time=jnp.zeros((), jnp.int32), playground_state=pg_state)
        return self.observe(state, params), state

    def step_env(
        self, key: jax.Array, state: PlaygroundState, action: jax.Array, params: PlaygroundParams
    ) -> tuple[Any, PlaygroundState, jax.Array, jax.Array, dict[str, Any]]:
        """Playground's transition, no reset (an invalid action is clipped, NaN taken as 0)."""
        del key  # Playground keeps the randomness it needs in its state's info["rng"]
        previous = state.playground_state.replace(
            metrics=dict(state.playground_state.metrics), info=dict(state.playground_state.info)
        )
        # an invalid action inside jit: NaN taken as 0, the rest clipped to the action space
        space = self.action_space(params)
        action = spaces.clip_action(jnp.asarray(action, jnp.float32), space.low, space.high)
        pg_state = self.physics_env(params).step(previous, action)
        pg_state = cast_like(pg_state, state.playground_state, f"{self.name}: the library's state")
        state = PlaygroundState(time=state.time + 1, playground_state=pg_state)
        info = {"metrics": dict(pg_state.metrics)}
        return self.observe(state, params), state, pg_state.reward.astype(jnp.float32), pg_state.done > 0.5, info

    # --- rendering --------------------------------------------------------------------
    @defaults_params
    def render(self, state: PlaygroundState, params: PlaygroundParams | None = None) -> jax.Array:
        """A side view (x right, z up) of the bodies and the links to their parents, jit-able."""
        pos = jnp.reshape(state.playground_state.data.xpos, (-1, 3))[1:]  # body 0 is the world
        parents = np.asarray(self.playground_env.mj_model.body_parentid)[1:] - 1
        return side_view(pos, parents.tolist(), ground=jnp.minimum(pos[0, 2], 0.0))
