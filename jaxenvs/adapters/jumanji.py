"""jumanji tasks through the jaxenvs interface: `jumanji/<id>` for every id jumanji registers.

Terminations and jumanji's time limit are told apart by the LAST step's discount; the action
mask moves to `info["action_mask"]`. See docs/adapters.md.
"""

from __future__ import annotations

import dataclasses
import math
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
    rebuild,
    register_dataclass_serialization,
    strong,
)
from jaxenvs.environment import EnvParams, EnvState, defaults_params
from jaxenvs.params import flag
from jaxenvs.spaces import convert
from jaxenvs.tree import cast_like

MAX_JOINT_ACTIONS = 2**22


@struct.dataclass
class JumanjiParams(EnvParams):
    """Params of a jumanji env.

    Attributes:
        max_steps_in_episode: jaxenvs' own time limit; never fires by default (jumanji's applies).
        flat: One float32 vector observation instead of a dict (static).
        joint_action: A `Discrete` over every combination of a MultiDiscrete action (static).
        time_limit_truncates: Report a LAST step at jumanji's `time_limit` as a truncation,
            whatever its discount (static).
    """

    max_steps_in_episode: int = NO_LIMIT
    flat: bool = flag(False, static=True)
    joint_action: bool = flag(False, static=True)
    # report a LAST step at jumanji's `time_limit` as a truncation, whatever its discount
    time_limit_truncates: bool = flag(False, static=True)


@struct.dataclass
class JumanjiState(EnvState):
    # the jumanji env's state (a chex dataclass; holds jumanji's own key)
    """State of a jumanji env.

    Attributes:
        jumanji_state: jumanji's state (a chex dataclass; holds jumanji's own key).
        library_truncated: bool[], whether jumanji ended the episode by its time limit.
        action_mask: jumanji's action mask of the current observation (None if the task has none).
        observation: The current observation, as a dict of arrays without the action mask and
            before `flat` (jumanji builds it in `reset` and `step` and keeps no copy: `observe`
            reads it here).
    """

    jumanji_state: Any
    # bool[]: jumanji ended the episode by its time limit (a LAST step with a non-zero discount)
    library_truncated: jax.Array = False
    # bool[...]: jumanji's action mask of the current observation (None if the task has none)
    action_mask: Any = None
    # the current observation (dicts of arrays, no action mask, not flattened)
    observation: Any = None


def _spec(env: Any, name: str) -> Any:
    """A spec that is a property (jumanji >= 0.3) or a method (before)."""
    value = getattr(env, name)
    return value() if callable(value) and not hasattr(value, "_specs") else value


def spec_to_space(spec: Any, specs: Any = None) -> spaces.Space:
    """The jaxenvs space of a jumanji spec (kept for callers of the old name).

    Args:
        spec: A jumanji spec.
        specs: Unused (the `jumanji.specs` module, no longer needed).

    Returns:
        `jaxenvs.spaces.convert.from_jumanji(spec)`.
    """
    return convert.from_jumanji(spec)


def to_dict(obs: Any) -> Any:
    """A jumanji observation (named tuples, dataclasses, arrays) as nested dicts of arrays.

    Args:
        obs: The observation.

    Returns:
        Nested dicts with sorted keys, arrays at the leaves.
    """
    if isinstance(obs, tuple) and hasattr(obs, "_asdict"):
        return {k: to_dict(v) for k, v in sorted(obs._asdict().items())}
    if dataclasses.is_dataclass(obs) and not isinstance(obs, type):
        return {f.name: to_dict(getattr(obs, f.name)) for f in sorted(dataclasses.fields(obs), key=lambda f: f.name)}
    if isinstance(obs, dict):
        return {k: to_dict(v) for k, v in sorted(obs.items())}
    return obs


def episode_end(is_last: jax.Array, discount: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The flags of a jumanji step.

    Args:
        is_last: Whether the step is LAST.
        discount: The step's discount (one per agent in multi-agent tasks).

    Returns:
        `(terminated, truncated)`: a LAST step terminates when every agent's discount is 0, else
        (jumanji's time limit) truncates.
    """
    terminated = is_last & jnp.all(jnp.asarray(discount) == 0)
    return terminated, is_last & ~terminated


def _tsp_position_starts_at_minus_one(obs_space: spaces.Dict) -> spaces.Dict:
    # TSP's reset sets `position` to -1 (no city yet); its spec says [0, num_cities)
    n = obs_space["position"].n
    return spaces.Dict(dict(obs_space.spaces, position=spaces.Box(-1, n - 1, shape=(), dtype=jnp.int32)))


# Observation specs of jumanji 1.1.2 that its observations break, corrected (by env class
# name); tests check that each correction is still needed.
OBSERVATION_SPEC_FIXES = {"TSP": _tsp_position_starts_at_minus_one}


def _as_multi_discrete(space: spaces.Space) -> spaces.Space:
    """An integer `Box` from 0 (jumanji's integer `BoundedArray` actions) as `MultiDiscrete`."""
    if (
        isinstance(space, spaces.Box)
        and jnp.issubdtype(space.dtype, jnp.integer)
        and space.shape
        and (space.low == 0).all()
        and np.isfinite(space.high).all()
    ):
        return spaces.MultiDiscrete(space.high.astype(np.int64) + 1, dtype=space.dtype)
    return space


class JumanjiEnv(AdapterEnvironment):
    """A jumanji env through the jaxenvs interface.

    Args:
        env_id: The id as `jumanji.make` knows it.
        **jumanji_kwargs: Passed to `jumanji.make`.

    Raises:
        ImportError: If jumanji is not installed.
    """

    family = "jumanji"

    def __init__(self, env_id: str, **jumanji_kwargs: Any):
        jumanji = import_library("jumanji", "jumanji")
        self._types = import_library("jumanji.types", "jumanji")
        self._env_id = env_id
        self._jumanji_kwargs = dict(jumanji_kwargs)
        self.jumanji_env = jumanji.make(env_id, **jumanji_kwargs)
        obs_spec = _spec(self.jumanji_env, "observation_spec")
        full = convert.from_jumanji(obs_spec)
        self._has_mask = isinstance(full, spaces.Dict) and "action_mask" in full.spaces
        self._obs_space = (
            spaces.Dict({k: s for k, s in full.spaces.items() if k != "action_mask"}) if self._has_mask else full
        )
        fix = OBSERVATION_SPEC_FIXES.get(type(self.jumanji_env).__name__)
        if fix is not None:
            self._obs_space = fix(self._obs_space)
        self._vector_action_space = _as_multi_discrete(convert.from_jumanji(_spec(self.jumanji_env, "action_spec")))
        state, timestep = jax.eval_shape(self.jumanji_env.reset, jax.ShapeDtypeStruct((2,), jnp.uint32))
        self._agent_rewards = tuple(timestep.reward.shape) != ()
        # the time limit, where jumanji has one and counts steps in its state
        limit = getattr(self.jumanji_env, "time_limit", None)
        self._time_limit = limit if isinstance(limit, int) and hasattr(state, "step_count") else None
        register_dataclass_serialization(state)

    def __reduce__(self) -> tuple:
        return rebuild, (type(self), (self._env_id,), self._jumanji_kwargs)

    @property
    def default_params(self) -> JumanjiParams:
        """The default `JumanjiParams`."""
        return JumanjiParams()

    # --- spaces -----------------------------------------------------------------------
    @defaults_params
    def observation_space(self, params: JumanjiParams | None = None) -> spaces.Space:
        """The observation space, translated from jumanji's."""
        if params.flat:
            return spaces.flatten_space(self._obs_space)
        return self._obs_space

    @defaults_params
    def action_space(self, params: JumanjiParams | None = None) -> spaces.Space:
        """The action space: jumanji's spec converted, or a `Discrete` over combinations under `joint_action`.

        Raises:
            ValueError: Under `joint_action`, for actions that are not MultiDiscrete or have more than
                2**22 combinations.
        """
        space = self._vector_action_space
        if not params.joint_action:
            return space
        if not isinstance(space, spaces.MultiDiscrete):
            raise ValueError(f"{self.name}: joint_action needs MultiDiscrete actions, not {space}")
        n = math.prod(int(v) for v in space.nvec.ravel())
        if n > MAX_JOINT_ACTIONS:
            raise ValueError(
                f"{self.name}: joint_action would give {n:,} actions (over {MAX_JOINT_ACTIONS:,}); "
                "use the MultiDiscrete actions"
            )
        return spaces.Discrete(n, dtype=space.dtype)

    # --- observations, actions and masks ------------------------------------------------
    def _split_observation(self, observation: Any) -> tuple[Any, Any]:
        """(jumanji's observation as dicts of arrays without the mask, cast to the space; the mask or None)."""
        obs = to_dict(observation)
        mask = jnp.asarray(obs.pop("action_mask"), jnp.bool_) if self._has_mask else None
        return convert.cast(obs, self._obs_space, jnp), mask

    @defaults_params
    def observe(self, state: JumanjiState, params: JumanjiParams | None = None) -> Any:
        """The observation of `state`, what `reset` and `step` return with it.

        jumanji builds its observations in `reset` and `step` only; the state keeps the last one
        (`JumanjiState.observation`), so `reset_to_level(key, Level(state=s))` starts exactly
        where `s` is.

        Args:
            state: A `JumanjiState`.
            params: The env's params (`flat` gives one float32 vector).

        Returns:
            The observation.
        """
        return spaces.flatten(state.observation) if params.flat else state.observation

    @defaults_params
    def action_mask(self, state: JumanjiState, params: JumanjiParams | None = None) -> jax.Array | None:
        """The action mask of `state`'s observation (joint under `joint_action`).

        Under `AutoReset`, `info["action_mask"]` belongs to the observation the raw step produced
        (`final_observation`); this gives the mask of any state, a reset one included.

        Args:
            state: A `JumanjiState`.
            params: The env's params; None means `default_params`.

        Returns:
            A bool array, or None if the task has no mask.

        Raises:
            ValueError: If a joint mask cannot be built from jumanji's mask's shape.
        """
        if state.action_mask is None or not params.joint_action:
            return state.action_mask
        return self._joint_mask(state.action_mask)

    def _joint_mask(self, mask: jax.Array) -> jax.Array:
        nvec = tuple(int(v) for v in self._vector_action_space.nvec.ravel())
        if mask.shape == nvec:
            return mask.ravel()
        if mask.ndim == 2 and mask.shape[0] == len(nvec):
            # one row per component: a combination is legal when each component is
            joint = jnp.ones((), jnp.bool_)
            for i, n in enumerate(nvec):
                joint = joint[..., None] & mask[i, :n]
            return joint.ravel()
        raise ValueError(f"{self.name}: cannot build a joint action mask from a mask of shape {mask.shape}")

    def _to_jumanji_action(self, action: Any, params: JumanjiParams) -> Any:
        space = self._vector_action_space
        if params.joint_action:
            nvec = tuple(int(v) for v in space.nvec.ravel())
            parts = jnp.unravel_index(jnp.asarray(action), nvec)
            return jnp.stack(parts).reshape(space.shape).astype(space.dtype)
        return jnp.asarray(action).astype(space.dtype)

    # --- transitions ------------------------------------------------------------------
    def reset_env(self, key: jax.Array, params: JumanjiParams) -> tuple[Any, JumanjiState]:
        """Start an episode with jumanji's reset, from the key given."""
        jumanji_state, timestep = self.jumanji_env.reset(library_key(key))
        obs, mask = self._split_observation(timestep.observation)
        state = JumanjiState(
            time=jnp.zeros((), jnp.int32),
            jumanji_state=strong(jumanji_state),
            library_truncated=jnp.zeros((), jnp.bool_),
            action_mask=mask,
            observation=obs,
        )
        return self.observe(state, params), state

    def step_env(
        self, key: jax.Array, state: JumanjiState, action: Any, params: JumanjiParams
    ) -> tuple[Any, JumanjiState, jax.Array, jax.Array, dict[str, Any]]:
        """jumanji's transition, no reset (docs/adapters.md says what is kept apart)."""
        del key  # jumanji draws from the key in its state
        jumanji_state, timestep = self.jumanji_env.step(state.jumanji_state, self._to_jumanji_action(action, params))
        jumanji_state = cast_like(jumanji_state, state.jumanji_state, f"{self.name}: the library's state")
        obs, mask = self._split_observation(timestep.observation)
        is_last = timestep.step_type == self._types.StepType.LAST
        terminated, truncated = episode_end(is_last, timestep.discount)
        if params.time_limit_truncates and self._time_limit is not None:
            at_limit = is_last & (jumanji_state.step_count >= self._time_limit)
            terminated, truncated = terminated & ~at_limit, truncated | at_limit
        reward = jnp.asarray(timestep.reward, jnp.float32)
        info: dict[str, Any] = {"extras": strong(dict(timestep.extras))}
        if self._agent_rewards:
            info["agent_rewards"] = reward
            reward = jnp.sum(reward)
        state = JumanjiState(
            time=state.time + 1,
            jumanji_state=jumanji_state,
            library_truncated=jnp.asarray(truncated, jnp.bool_),
            action_mask=mask,
            observation=obs,
        )
        if mask is not None:
            info["action_mask"] = self.action_mask(state, params)
        return self.observe(state, params), state, reward, terminated, info
