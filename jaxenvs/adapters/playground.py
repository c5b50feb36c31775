"""MuJoCo Playground through the jaxenvs interface: `playground/<name>` for its DM Control
Suite, locomotion and manipulation envs.

Reference: `mujoco_playground.registry.load(name, config_overrides=...)` (playground >= 0.1),
an `MjxEnv` with `reset(rng) -> State` and `step(state, action) -> State` (`State`: MJX
`data`, `obs`, `reward`, `done`, `metrics`, `info`), used bare: none of Playground's training
wrappers. Its `wrap_for_brax_training` stacks brax's `EpisodeWrapper` (the time limit sets
`done`, with the reason only in `info["truncation"]`) and an auto-reset that restarts every
episode from the first episode's cached initial state and overwrites the terminal observation.
Here:

- an invalid action inside `jit` (eagerly it raises): NaN taken as 0, the rest clipped to the
  action space, as brax's adapter does;
- `terminated` is Playground's `done` (the task failed, or the simulation diverged: NaN
  positions); `truncated` is the time limit, `params.max_steps_in_episode`, by default the
  env's `config.episode_length` (1000 for most), counted in env steps (Playground's configs use
  `action_repeat` 1 except where noted in them; the adapter does not repeat actions). The two
  stay apart, and jaxenvs' `AutoReset` keeps the terminal observation in
  `info["final_observation"]` and resets each episode with a fresh key.
- observations stay as Playground gives them: an array, or a dict of arrays (e.g. `state` and
  `privileged_state` for the locomotion envs) as a `Dict` space; float32, unbounded.
- the action space is `Box(-1, 1)` of `action_size`: Playground's envs take normalised actions.
- `impl` (a constructor argument) picks MJX's implementation: "jax" by default (pure JAX MJX:
  jit-able and vmap-able everywhere); Playground 0.2's own default is "warp" (MuJoCo Warp
  kernels). Other config fields can be overridden with `config_overrides`.
- `info["metrics"]` holds Playground's per-step metrics (the same keys at every step).
- `render` draws a side view (x right, z up) of the bodies (`data.xpos`) and the links to their
  parents, centred on the first moving body, jit-able; Playground's own renderer is MuJoCo's,
  which is not.
- the locomotion and manipulation envs need MuJoCo Menagerie's models, which Playground clones
  from GitHub on first use (`NEEDS_DOWNLOAD` in the registration lists them).
"""

from __future__ import annotations

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
    import_library,
    library_key,
    register_dataclass_serialization,
    side_view,
    strong,
)
from jaxenvs.environment import EnvParams, EnvState
from jaxenvs.tree import cast_like

DEFAULT_IMPL = "jax"


@struct.dataclass
class PlaygroundParams(EnvParams):
    max_steps_in_episode: int = 1000


@struct.dataclass
class PlaygroundState(EnvState):
    # mujoco_playground's State: data (MJX Data: qpos, qvel, xpos, ...), obs, reward, done
    # (float, 1.0 when terminated), metrics (dict of float scalars), info (its rng and
    # task-specific fields)
    playground_state: Any


class PlaygroundEnv(AdapterEnvironment):
    """Playground env `name` (a key of `mujoco_playground.registry`)."""

    def __init__(self, name: str, impl: str = DEFAULT_IMPL, config_overrides: dict[str, Any] | None = None):
        registry = import_library("mujoco_playground", "playground").registry
        if name not in registry.ALL_ENVS:
            raise ValueError(f"MuJoCo Playground has no env {name!r}; it has: {', '.join(registry.ALL_ENVS)}")
        self._pg_name = name
        overrides = {"impl": impl, **(config_overrides or {})}
        self.config = registry.get_default_config(name)
        self.config.update(overrides)
        with jax.ensure_compile_time_eval():
            self.playground_env = registry.load(name, config=self.config)
        self._episode_length = int(self.config.get("episode_length", 1000))
        self._obs_shape = None

    @property
    def name(self) -> str:
        return f"playground/{self._pg_name}"

    @property
    def default_params(self) -> PlaygroundParams:
        return PlaygroundParams(max_steps_in_episode=self._episode_length)

    # --- spaces -----------------------------------------------------------------------
    def observation_space(self, params: PlaygroundParams | None = None) -> spaces.Space:
        if self._obs_shape is None:
            state = jax.eval_shape(self.playground_env.reset, jax.ShapeDtypeStruct((2,), jnp.uint32))
            self._obs_shape = state.obs
        shape = self._obs_shape
        return float_obs_space(shape)

    def action_space(self, params: PlaygroundParams | None = None) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, shape=(int(self.playground_env.action_size),), dtype=jnp.float32)

    # --- transitions ------------------------------------------------------------------
    @staticmethod
    def _observe(pg_state: Any) -> Any:
        return float_obs(pg_state.obs)

    def reset_env(self, key: jax.Array, params: PlaygroundParams) -> tuple[Any, PlaygroundState]:
        pg_state = strong(self.playground_env.reset(library_key(key)))
        register_dataclass_serialization(pg_state)  # MJX's Data is a plain dataclass
        return self._observe(pg_state), PlaygroundState(time=jnp.zeros((), jnp.int32), playground_state=pg_state)

    def step_env(
        self, key: jax.Array, state: PlaygroundState, action: jax.Array, params: PlaygroundParams
    ) -> tuple[Any, PlaygroundState, jax.Array, jax.Array, dict[str, Any]]:
        del key  # Playground keeps the randomness it needs in its state's info["rng"]
        previous = state.playground_state.replace(
            metrics=dict(state.playground_state.metrics), info=dict(state.playground_state.info)
        )
        # an invalid action inside jit: NaN taken as 0, the rest clipped to the action space
        space = self.action_space(params)
        action = spaces.clip_action(jnp.asarray(action, jnp.float32), space.low, space.high)
        pg_state = self.playground_env.step(previous, action)
        pg_state = cast_like(pg_state, state.playground_state, f"{self.name}: the library's state")
        state = PlaygroundState(time=state.time + 1, playground_state=pg_state)
        info = {"metrics": dict(pg_state.metrics)}
        return self._observe(pg_state), state, pg_state.reward.astype(jnp.float32), pg_state.done > 0.5, info

    # --- rendering --------------------------------------------------------------------
    def render(self, state: PlaygroundState, params: PlaygroundParams | None = None) -> jax.Array:
        pos = jnp.reshape(state.playground_state.data.xpos, (-1, 3))[1:]  # body 0 is the world
        parents = np.asarray(self.playground_env.mj_model.body_parentid)[1:] - 1
        return side_view(pos, parents.tolist(), ground=jnp.minimum(pos[0, 2], 0.0))
