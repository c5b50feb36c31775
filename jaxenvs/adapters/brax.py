"""brax tasks through the jaxenvs interface: `brax/<name>` for every env in brax's registry.

brax's env is used bare (none of its training wrappers); `params.backend` picks the physics
pipeline; a level may scale friction, masses and gravity per episode (the physics tasks'
`BraxPhysicsParams`). See docs/adapters.md and docs/levels.md.
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
    rebuild,
    scale_physics,
    side_view,
    strong,
)
from jaxenvs.environment import EnvParams, EnvState, defaults_params
from jaxenvs.params import choice
from jaxenvs.tree import cast_like

# brax envs that map an action in [-1, 1] onto the control range in their own `step`; a
# test reads brax's source to keep this list true.
RESCALES_ACTIONS = ("humanoid", "humanoidstandup", "inverted_pendulum", "pusher")

# Backends an env accepts other than the default (others raise in brax's constructor).
ONLY_BACKEND = {"swimmer": "generalized"}
DEFAULT_BACKEND = "spring"
BACKENDS = ("spring", "positional", "generalized", "mjx")


@struct.dataclass
class BraxParams(EnvParams):
    """Params of a brax env.

    Attributes:
        max_steps_in_episode: The time limit (brax's `episode_length`).
        backend: The physics pipeline (static): "spring", "positional", "generalized" or "mjx".
    """

    max_steps_in_episode: int = 1000
    backend: str = choice(DEFAULT_BACKEND, BACKENDS)


@struct.dataclass
class BraxPhysicsParams(BraxParams):
    """Params of a brax task with physics (every brax env but `fast`): per-episode physics.

    The scales multiply the values of brax's `System` (`sys`) for an episode, as brax's own
    domain randomisation replaces `sys` (`DomainRandomizationVmapWrapper`); a level may set
    each (`Level(settings={"friction_scale": jnp.float32(0.8)})`).

    Attributes:
        max_steps_in_episode: The time limit (brax's `episode_length`).
        backend: The physics pipeline (static).
        friction_scale: Multiplies every geom's sliding friction (>= 0).
        mass_scale: Multiplies every body's mass and inertia (> 0).
        gravity_scale: Multiplies gravity (>= 0).
    """

    friction_scale: float = friction_scale()
    mass_scale: float = mass_scale()
    gravity_scale: float = gravity_scale()


@struct.dataclass
class BraxState(EnvState):
    # brax.envs.State: pipeline_state (positions, velocities, contacts of the bodies), obs,
    # reward, done (float, 1.0 when terminated), metrics (dict of float scalars), info
    """State of a brax env.

    Attributes:
        brax_state: brax's `State` (pipeline state, obs, reward, done, metrics, info).
    """

    brax_state: Any


class BraxEnv(AdapterEnvironment):
    """A brax env through the jaxenvs interface.

    Args:
        name: The brax env's name (a key of brax's registry).
        **brax_kwargs: Passed to its constructor.

    Raises:
        ValueError: If brax has no env `name`.
        ImportError: If brax is not installed.
    """

    family = "brax"

    def __init__(self, name: str, **brax_kwargs: Any):
        self._envs_module = import_library("brax.envs", "brax")
        self._set_env_id(name, sorted(self._envs_module._envs))
        self._brax_kwargs = dict(brax_kwargs)
        self._built: dict[str, Any] = {}
        self._obs_shapes: dict[str, Any] = {}

    def __reduce__(self) -> tuple:
        return rebuild, (type(self), (self._env_id,), self._brax_kwargs)

    def brax_env(self, backend: str | None = None) -> Any:
        """The bare brax env for a backend, built on first use.

        Args:
            backend: The physics pipeline; this env's default backend when None.

        Returns:
            The brax env.

        Raises:
            ValueError: For an unknown backend.
        """
        backend = self.default_params.backend if backend is None else backend
        if backend not in BACKENDS:
            raise ValueError(f"{self.name}: backend must be one of {BACKENDS}, got {backend!r}")
        if backend not in self._built:
            # built eagerly even when first asked for inside jit or vmap: the env keeps the
            # arrays of its model, which must not be tracers
            with jax.ensure_compile_time_eval():
                self._built[backend] = self._envs_module.get_environment(
                    self._env_id, backend=backend, **self._brax_kwargs
                )
        return self._built[backend]

    @property
    def default_params(self) -> BraxParams:
        """The default params: `BraxPhysicsParams` for a task with physics, `BraxParams` for `fast`."""
        backend = ONLY_BACKEND.get(self._env_id, DEFAULT_BACKEND)
        if getattr(self.brax_env(backend), "sys", None) is None:
            return BraxParams(backend=backend)
        return BraxPhysicsParams(backend=backend)

    def physics_env(self, params: BraxParams) -> Any:
        """The brax env that runs an episode under `params`: for a task with physics, a copy
        whose `sys` has the params' friction, mass and gravity scales.

        Args:
            params: The env's params.

        Returns:
            A brax env (the shared one is never changed).
        """
        env = self.brax_env(params.backend)
        if not isinstance(params, BraxPhysicsParams):
            return env
        env = copy.copy(env)  # brax's envs read their physics from `self.sys`
        env.sys = scale_physics(env.sys, params.friction_scale, params.mass_scale, params.gravity_scale)
        return env

    # --- spaces -----------------------------------------------------------------------
    def _obs_shape(self, backend: str) -> Any:
        if backend not in self._obs_shapes:
            env = self.brax_env(backend)
            state = jax.eval_shape(env.reset, jax.ShapeDtypeStruct((2,), jnp.uint32))
            self._obs_shapes[backend] = state.obs
        return self._obs_shapes[backend]

    @defaults_params
    def observation_space(self, params: BraxParams | None = None) -> spaces.Space:
        """The observation space, translated from brax's."""
        shape = self._obs_shape(params.backend)
        return float_obs_space(shape)

    @defaults_params
    def action_space(self, params: BraxParams | None = None) -> spaces.Box:
        """A `Box` over the actuators' control range ([-1, 1] for envs that rescale actions themselves)."""
        env = self.brax_env(params.backend)
        size = int(env.action_size)
        sys = getattr(env, "sys", None)
        if sys is None or self._env_id in RESCALES_ACTIONS or sys.actuator.ctrl_range.shape[0] != size:
            return spaces.Box(-1.0, 1.0, shape=(size,), dtype=jnp.float32)
        ctrl = np.asarray(sys.actuator.ctrl_range, dtype=np.float64)
        return spaces.Box(ctrl[:, 0], ctrl[:, 1], shape=(size,), dtype=jnp.float32)

    # --- transitions ------------------------------------------------------------------
    def observe(self, state: BraxState, params: BraxParams | None = None) -> Any:
        """The observation of `state`: brax's, which its state keeps (`State.obs`), in float32.

        What `reset` and `step` return with the state, so `reset_to_level(key, Level(state=s))`
        starts exactly where `s` is.

        Args:
            state: A `BraxState`.
            params: The env's params (unused: brax keeps the observation in its state).

        Returns:
            The observation (an array, or a dict of arrays).
        """
        return float_obs(state.brax_state.obs)

    def reset_env(self, key: jax.Array, params: BraxParams) -> tuple[Any, BraxState]:
        """Start an episode with brax's reset, from the key given."""
        brax_state = strong(self.physics_env(params).reset(library_key(key)))
        state = BraxState(time=jnp.zeros((), jnp.int32), brax_state=brax_state)
        return self.observe(state, params), state

    def step_env(
        self, key: jax.Array, state: BraxState, action: jax.Array, params: BraxParams
    ) -> tuple[Any, BraxState, jax.Array, jax.Array, dict[str, Any]]:
        """brax's transition, no reset (an invalid action is clipped to the box, NaN taken as 0)."""
        del key  # brax keeps the randomness it needs in its state
        # an invalid action (only reachable inside jit): NaN taken as 0, then clipped to the box
        space = self.action_space(params)
        action = spaces.clip_action(jnp.asarray(action, jnp.float32), space.low, space.high)
        # a copy of `metrics`: brax's step updates that dict in place
        previous = state.brax_state.replace(metrics=dict(state.brax_state.metrics))
        brax_state = self.physics_env(params).step(previous, action)
        brax_state = cast_like(brax_state, state.brax_state, f"{self.name}: the library's state")
        state = BraxState(time=state.time + 1, brax_state=brax_state)
        terminated = brax_state.done > 0.5
        info = {"metrics": dict(brax_state.metrics)}
        return self.observe(state, params), state, brax_state.reward.astype(jnp.float32), terminated, info

    # --- rendering --------------------------------------------------------------------
    @defaults_params
    def render(self, state: BraxState, params: BraxParams | None = None) -> jax.Array:
        """A side view (x right, z up) of the bodies and their links, centred on the first body; jit-able."""
        pos = jnp.reshape(state.brax_state.pipeline_state.x.pos, (-1, 3))
        sys = getattr(self.brax_env(params.backend), "sys", None)
        parents = np.asarray(sys.link_parents) if sys is not None else np.full(pos.shape[0], -1)
        return side_view(pos, parents.tolist())
