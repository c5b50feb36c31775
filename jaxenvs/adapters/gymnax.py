"""Any env with gymnax's interface (0.x or 1.x) through the jaxenvs interface: `from_gymnax(env, params)`.

Termination and the library's time limit are kept apart; see docs/adapters.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.adapters._common import (
    AdapterEnvironment,
    LibraryParams,
    LibraryTruncatedState,
    import_library,
    library_key,
    no_such_env,
    register_dataclass_serialization,
    strong,
)
from jaxenvs.environment import defaults_params
from jaxenvs.spaces import convert
from jaxenvs.tree import cast_like

APIS = ("1.x", "0.x")


@struct.dataclass
class GymnaxParams(LibraryParams):
    """Params of an env adapted from gymnax's interface.

    Attributes:
        max_steps_in_episode: jaxenvs' own time limit; never fires by default (the library's
            limit applies), set it to cut episodes shorter.
        env_params: The library's own params (a pytree: vmap-able where the library's are);
            None for its defaults.
    """


@struct.dataclass
class GymnaxState(LibraryTruncatedState):
    """State of an env adapted from gymnax's interface.

    Attributes:
        library_truncated: bool[], whether the library ended the last step by its own time limit.
        env_state: The library's env state (a flax or chex dataclass).
    """

    # the library's env state (a flax or chex dataclass)
    env_state: Any = None


# the jaxenvs space of a gymnax-style space (gymnax's, Craftax's or a copy of them)
translate_space = convert.from_gymnax


def gymnax_time_limit(state: Any, params: Any) -> jax.Array:
    """gymnax 0.x's time limit, counted in the state's `time`.

    Args:
        state: The library's state.
        params: The library's params.

    Returns:
        Whether `state.time >= params.max_steps_in_episode`.
    """
    return state.time >= params.max_steps_in_episode


class GymnaxEnv(AdapterEnvironment):
    """A gymnax-API env through the jaxenvs interface; build it with `from_gymnax`.

    Args:
        env: An env with gymnax's interface.
        env_params: Its default params; `env.default_params` when None.
        name: The env's name; `gymnax/<env.name>` by default.
        api: "1.x" or "0.x"; detected from the arity of its `step` when None.
        time_limit: `fn(env_state, env_params) -> bool`, the library's time limit.
        render: A jit-able `fn(env_state, env_params) -> uint8[H, W, 3]`.
        clip_actions: Clip a continuous action outside the action space (NaN taken as 0) before
            the library sees it; False passes every action as given.
        get_obs: `fn(env_state, env_params) -> obs`, the library's observation of a state (what
            its `reset_env` returns with it); with it the env starts from a given state
            (`reset_to_level(key, Level(state=s))`), without it it cannot.

    Raises:
        TypeError: If `env` lacks one of gymnax's methods.
        ValueError: For an unknown `api`.
    """

    def __init__(
        self,
        env: Any,
        env_params: Any = None,
        *,
        name: str | None = None,
        api: str | None = None,
        time_limit: Callable[[Any, Any], jax.Array] | None = None,
        render: Callable[[Any, Any], jax.Array] | None = None,
        clip_actions: bool = True,
        get_obs: Callable[[Any, Any], Any] | None = None,
    ):
        for method in ("reset_env", "step_env", "observation_space", "action_space"):
            if not callable(getattr(env, method, None)):
                raise TypeError(f"from_gymnax needs an env with gymnax's interface; {env!r} has no {method}()")
        if api is not None and api not in APIS:
            raise ValueError(f"api must be one of {APIS} (or None to detect it), got {api!r}")
        self.gymnax_env = env
        self._env_params = env.default_params if env_params is None else env_params
        self._name = name or f"gymnax/{getattr(env, 'name', type(env).__name__)}"
        self._api = api
        self._time_limit = time_limit
        self._render = render
        self.clip_actions = bool(clip_actions)
        self._get_obs = get_obs
        self._obs_space: spaces.Space | None = None

    @property
    def name(self) -> str:
        """The env's name."""
        return self._name

    @property
    def default_params(self) -> GymnaxParams:
        """The default `GymnaxParams` (the library's default params inside)."""
        return GymnaxParams(env_params=self._env_params)

    @property
    def api(self) -> str:
        """ "1.x" (six-tuple step: termination and truncation apart) or "0.x" (five-tuple)."""
        if self._api is None:
            key = jax.ShapeDtypeStruct((2,), jnp.uint32)
            _, state = jax.eval_shape(self.gymnax_env.reset, key, self._env_params)
            action = jax.eval_shape(self.action_space().sample, key)
            out = jax.eval_shape(self.gymnax_env.step, key, state, action, self._env_params)
            self._api = "1.x" if len(out) == 6 else "0.x"
        return self._api

    def time_limit(self, env_state: Any, env_params: Any) -> jax.Array | None:
        """Whether the library's time limit is reached (what tells a 0.x `done` apart).

        Args:
            env_state: The library's state.
            env_params: The library's params.

        Returns:
            A bool scalar, or None where the adapter cannot tell.
        """
        if self._time_limit is not None:
            return self._time_limit(env_state, env_params)
        if hasattr(env_state, "time") and hasattr(env_params, "max_steps_in_episode"):
            return gymnax_time_limit(env_state, env_params)
        return None

    # --- spaces -----------------------------------------------------------------------
    def _space_params(self, params: GymnaxParams) -> Any:
        # params passed into jit are tracers: the library's bounds cannot become numbers then,
        # so inside jit the space is the default params' (same shapes and dtypes)
        if any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(params.env_params)):
            return self.default_params.env_params
        return params.env_params

    @defaults_params
    def observation_space(self, params: GymnaxParams | None = None) -> spaces.Space:
        # the library computes bounds with jnp: evaluated now, also when asked inside jit
        """The observation space, translated from the library's."""
        with jax.ensure_compile_time_eval():
            return translate_space(self.gymnax_env.observation_space(self._space_params(params)))

    @defaults_params
    def action_space(self, params: GymnaxParams | None = None) -> spaces.Space:
        """The action space, translated from the library's."""
        with jax.ensure_compile_time_eval():
            return translate_space(self.gymnax_env.action_space(self._space_params(params)))

    # --- transitions ------------------------------------------------------------------
    def _observe(self, obs: Any) -> Any:
        # dtypes from the default params' space: under jit the params' bounds are tracers
        if self._obs_space is None:
            self._obs_space = self.observation_space()
        return convert.cast(obs, self._obs_space, jnp)

    @property
    def start_observation(self) -> Callable[[jax.Array, GymnaxState, GymnaxParams], Any] | None:
        """The first observation of an episode started at a given state: the library's `get_obs`
        of it (`from_gymnax(get_obs=...)`), or None where none was given.

        Not `observe`: the library builds observations in its step (Craftax renders its map), and a
        batch with `observe` would build every env's observation a second time each step.
        """
        if self._get_obs is None:
            return None

        def start_observation(key: jax.Array, state: GymnaxState, params: GymnaxParams) -> Any:
            del key  # the library's observation is a function of its state
            return self._observe(self._get_obs(state.env_state, params.env_params))

        return start_observation

    def reset_env(self, key: jax.Array, params: GymnaxParams) -> tuple[Any, GymnaxState]:
        """Start an episode with the library's reset, from the key given."""
        obs, env_state = self.gymnax_env.reset_env(library_key(key), params.env_params)
        env_state = strong(env_state)
        register_dataclass_serialization(env_state)
        state = GymnaxState(
            time=jnp.zeros((), jnp.int32), library_truncated=jnp.zeros((), jnp.bool_), env_state=env_state
        )
        return self._observe(obs), state

    def step_env(
        self, key: jax.Array, state: GymnaxState, action: Any, params: GymnaxParams
    ) -> tuple[Any, GymnaxState, jax.Array, jax.Array, dict[str, Any]]:
        """The library's transition, no reset (docs/adapters.md says what is kept apart)."""
        space = self.action_space(params)
        if self.clip_actions and isinstance(space, spaces.Box):
            # an invalid continuous action (only reachable inside jit): NaN taken as 0, then
            # clipped to the box, as the continuous envs of jaxenvs do
            action = spaces.clip_action(jnp.asarray(action, space.dtype), space.low, space.high)
        obs, env_state, reward, done, info = self.gymnax_env.step_env(
            library_key(key), state.env_state, action, params.env_params
        )
        env_state = cast_like(env_state, state.env_state, f"{self.name}: the library's state")
        done = jnp.asarray(done, jnp.bool_)
        if self.api == "1.x":
            terminated = done
            truncated = jnp.asarray(self.gymnax_env.is_truncated(env_state, params.env_params), jnp.bool_)
        else:
            at_limit = self.time_limit(env_state, params.env_params)
            truncated = jnp.zeros((), jnp.bool_) if at_limit is None else jnp.asarray(at_limit, jnp.bool_)
            terminated = done & ~truncated
        info = strong({k: v for k, v in dict(info).items() if k != "discount"})
        state = GymnaxState(time=state.time + 1, library_truncated=truncated, env_state=env_state)
        return self._observe(obs), state, jnp.asarray(reward, jnp.float32), terminated, info

    # --- rendering --------------------------------------------------------------------
    @defaults_params
    def render(self, state: GymnaxState, params: GymnaxParams | None = None) -> jax.Array:
        """The picture drawn by the `render` given to `from_gymnax`.

        Raises:
            NotImplementedError: If no `render` was given (gymnax's own envs draw with matplotlib,
                which is not jit-able).
        """
        if self._render is None:
            raise NotImplementedError(f"{self.name}: the library has no jit-able render (none given to from_gymnax)")
        return jnp.asarray(self._render(state.env_state, params.env_params), jnp.uint8)


def from_gymnax(
    env: Any,
    params: Any = None,
    *,
    name: str | None = None,
    api: str | None = None,
    time_limit: Callable[[Any, Any], jax.Array] | None = None,
    render: Callable[[Any, Any], jax.Array] | None = None,
    clip_actions: bool = True,
    get_obs: Callable[[Any, Any], Any] | None = None,
) -> GymnaxEnv:
    """`env` (gymnax's interface, 0.x or 1.x) as a raw jaxenvs env.

    Wrap the result as any env (`AutoReset`, `VecEnv`, `LogWrapper`);
    `jaxenvs.make("gymnax/<id>")` does so for gymnax's own envs.

    Args:
        env: An env with gymnax's interface.
        params: Its default params; `env.default_params` when None.
        name: The env's name; `gymnax/<env.name>` by default.
        api: "1.x" or "0.x"; detected when None.
        time_limit: `fn(env_state, env_params) -> bool`, the library's time limit, which tells a
            0.x env's truncations from its terminations.
        render: A jit-able `fn(env_state, env_params) -> uint8[H, W, 3]`.
        clip_actions: Clip a continuous action outside the action space (NaN taken as 0)
            before the library sees it, as jaxenvs' own continuous envs do; False passes every
            action as given (`jaxenvs.audit` does, to check the library itself).
        get_obs: `fn(env_state, env_params) -> obs`, the library's observation of a state, so
            that the env can start from a given state (`reset_to_level`); gymnax's envs have
            `env.get_obs(state, params)`.

    Returns:
        A `GymnaxEnv`.
    """
    return GymnaxEnv(
        env,
        params,
        name=name,
        api=api,
        time_limit=time_limit,
        render=render,
        clip_actions=clip_actions,
        get_obs=get_obs,
    )


def make_gymnax_env(env_id: str, clip_actions: bool = True, **kwargs: Any) -> GymnaxEnv:
    """The `gymnax/<env_id>` entry point: `gymnax.make(env_id, **kwargs)` through `from_gymnax`.

    Args:
        env_id: A gymnax id.
        clip_actions: As in `from_gymnax`.
        **kwargs: Passed to `gymnax.make`.

    Returns:
        A `GymnaxEnv`.

    Raises:
        ValueError: If gymnax has no such env.
        ImportError: If gymnax is not installed.
    """
    gymnax = import_library("gymnax", "gymnax")
    if env_id not in gymnax.registered_envs:
        own = [i for i in gymnax.registered_envs if not i.startswith("jaxenvs/")]  # not jaxenvs' exports
        raise no_such_env("gymnax", env_id, own)
    env, env_params = gymnax.make(env_id, **kwargs)
    api = "1.x" if _is_gymnax_1(env) else "0.x"
    get_obs = None if env_id in OBSERVATION_NOISE else gymnax_get_obs(env)
    return from_gymnax(env, env_params, name=f"gymnax/{env_id}", api=api, clip_actions=clip_actions, get_obs=get_obs)


# gymnax ids whose observation holds noise drawn from the key, which the state does not keep:
# they cannot start from a given state
OBSERVATION_NOISE = ("UmbrellaChain-bsuite",)


def gymnax_get_obs(env: Any) -> Callable[[Any, Any], Any]:
    """A gymnax env's observation of a state, `fn(env_state, env_params) -> obs`.

    gymnax 1.0.1 has `observe(key, state, action, params)` (which calls the older
    `get_obs(state, params, key)` where an env has only that); before, `get_obs`. The key is
    None: only envs listed in `OBSERVATION_NOISE` draw from it.

    Args:
        env: A gymnax env.

    Returns:
        The function.
    """
    observe = getattr(env, "observe", None)
    if callable(observe):
        return lambda state, env_params: observe(None, state, None, env_params)
    return lambda state, env_params: env.get_obs(state, env_params)


def _is_gymnax_1(env: Any) -> bool:
    # gymnax 1.0 added `is_truncated` with the six-tuple step; 0.x has neither
    return callable(getattr(env, "is_truncated", None))
