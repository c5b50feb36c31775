"""Any jaxenvs id as a real gymnax `Environment`, for code written against gymnax.

`make(id, step_api="gymnax1" | "gymnax0")` builds it; importing this module registers every
id with gymnax as `"jaxenvs/<id>"`. See docs/from-gymnax.md.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import check_key, defines
from jaxenvs.export import missing_extra
from jaxenvs.extras import install_line

try:
    import gymnax
    from gymnax.environments import environment as gymnax_environment
    from gymnax.environments import spaces as gymnax_spaces
except ImportError as e:
    raise missing_extra(e, "clients", __name__) from e

from jaxenvs.wrappers.absorbing import Absorbing
from jaxenvs.wrappers.autoreset import final_info, reset_if_done_fn

STEP_APIS = ("gymnax1", "gymnax0")
NAMESPACE = "jaxenvs"

__all__ = [
    "NAMESPACE",
    "STEP_APIS",
    "GymnaxExport",
    "GymnaxExportState",
    "gymnax_id",
    "gymnax_space",
    "make",
    "register_gymnax_envs",
]


@struct.dataclass
class GymnaxExportState:
    """The export's state: the jaxenvs state, and what the env cannot recompute from it.

    Attributes:
        env_state: The jaxenvs env's state.
        obs: The current observation, kept only where the env has no `observe`.
        terminated: bool[], whether the last step terminated, kept only where the env has no
            `is_terminal`.
    """

    env_state: Any  # the jaxenvs env's state
    obs: Any = None  # the current observation, kept only where the env has no `observe`
    terminated: Any = None  # bool[]: the last step terminated, kept only where the env has no `is_terminal`

    @property
    def time(self) -> jax.Array:
        """Steps taken in the current episode (gymnax's `EnvState.time`)."""
        return self.env_state.time


# --- spaces ---------------------------------------------------------------------------------


@functools.singledispatch
def gymnax_space(space: spaces.Space, where: str = "") -> Any:
    """The gymnax space (gymnax's own classes) holding the values of a jaxenvs space.

    Args:
        space: A jaxenvs `Discrete`, `MultiDiscrete`, `Box`, `Dict` or `Tuple`.
        where: The env id, named in the error for a space gymnax cannot express.

    Returns:
        A `gymnax.environments.spaces` `Discrete`, `Box`, `Dict` or `Tuple`; `MultiDiscrete(nvec)`
        becomes the integer `Box(0, nvec - 1, nvec.shape, int32)`.

    Raises:
        ValueError: For a `Discrete` that does not start at 0 (gymnax's always does).
        TypeError: For any other kind of space.
    """
    raise TypeError(f"{where}: cannot express {space!r} as a gymnax space")


def _discrete_dtype(dtype: Any) -> Any:
    # gymnax's Discrete takes int32 or int64 (with x64) only
    return jnp.int64 if jnp.dtype(dtype) == jnp.int64 and jax.config.read("jax_enable_x64") else jnp.int32


@gymnax_space.register
def _(space: spaces.Discrete, where: str = "") -> Any:
    if space.start != 0:
        raise ValueError(
            f"{where}: its space {space!r} starts at {space.start}; gymnax's Discrete starts at 0, "
            "so jaxenvs.export.gymnax cannot express it without changing the values"
        )
    return gymnax_spaces.Discrete(space.n, dtype=_discrete_dtype(space.dtype))


@gymnax_space.register
def _(space: spaces.MultiDiscrete, where: str = "") -> Any:
    return gymnax_spaces.Box(np.zeros(space.shape, np.int32), (space.nvec - 1).astype(np.int32), space.shape, jnp.int32)


@gymnax_space.register
def _(space: spaces.Box, where: str = "") -> Any:
    dtype = jnp.dtype(space.dtype)
    if space.traced:  # bounds computed from traced params (inside a client's jit)
        low, high = space.low, space.high
    elif dtype == jnp.bool_:
        low, high = np.zeros(space.shape, np.bool_), np.ones(space.shape, np.bool_)
    elif jnp.issubdtype(dtype, jnp.integer):
        low, high = space.integer_bounds()
    else:
        low, high = space.low.astype(dtype), space.high.astype(dtype)
    return gymnax_spaces.Box(low, high, space.shape, dtype)


@gymnax_space.register
def _(space: spaces.Dict, where: str = "") -> Any:
    return gymnax_spaces.Dict({k: gymnax_space(s, where) for k, s in space.spaces.items()})


@gymnax_space.register
def _(space: spaces.Tuple, where: str = "") -> Any:
    return gymnax_spaces.Tuple([gymnax_space(s, where) for s in space.spaces])


def _leaf_space(leaf: Any) -> Any:
    dtype = jnp.dtype(leaf.dtype)
    if jnp.issubdtype(dtype, jax.dtypes.prng_key):
        dtype, shape = jnp.dtype(jnp.uint32), tuple(leaf.shape) + jax.random.key_data(jax.random.key(0)).shape
    else:
        shape = tuple(leaf.shape)
    if dtype == jnp.bool_:
        return gymnax_spaces.Box(False, True, shape, dtype)
    info = jnp.iinfo(dtype) if jnp.issubdtype(dtype, jnp.integer) else None
    if info is not None:
        return gymnax_spaces.Box(info.min, info.max, shape, dtype)
    return gymnax_spaces.Box(-np.inf, np.inf, shape, dtype)


def _tree_space(tree: Any) -> Any:
    """A gymnax space shaped like a pytree of `ShapeDtypeStruct`s: dataclasses and dicts as
    `Dict`s (keyed by field name), tuples and lists as `Tuple`s, arrays as unbounded `Box`es."""
    if dataclasses.is_dataclass(tree):
        fields = [f.name for f in dataclasses.fields(tree) if f.metadata.get("pytree_node", True)]
        return gymnax_spaces.Dict({k: _tree_space(getattr(tree, k)) for k in fields if getattr(tree, k) is not None})
    if isinstance(tree, dict):
        return gymnax_spaces.Dict({k: _tree_space(v) for k, v in tree.items()})
    if isinstance(tree, (tuple, list)):
        return gymnax_spaces.Tuple([_tree_space(v) for v in tree])
    if hasattr(tree, "shape") and hasattr(tree, "dtype"):
        return _leaf_space(tree)
    leaves = jax.tree_util.tree_leaves(tree)
    return gymnax_spaces.Tuple([_leaf_space(leaf) for leaf in leaves])


# --- the environment ------------------------------------------------------------------------


def _check_step_api(step_api: Any, where: str) -> str:
    if step_api not in STEP_APIS:
        raise ValueError(
            f"{where}: step_api must be one of {', '.join(map(repr, STEP_APIS))} "
            f"(gymnax 1.x's six-value step or gymnax 0.x's five-value one), got {step_api!r}"
        )
    return step_api


class GymnaxExport(gymnax_environment.Environment):
    """A jaxenvs env as a gymnax 1.x `Environment`; build it with `make`.

    Its `step` auto-resets as gymnax 1.x's `Environment.step` does (the key split into a step key
    and a reset key), computing the reset only where an episode ended.

    Args:
        env: A raw jaxenvs env (no `AutoReset`: the export resets itself), as
            `jaxenvs.make(id, autoreset=False)` gives.
        params: Its params (the export's `default_params`).
        step_api: `"gymnax1"` (six values) or `"gymnax0"` (five values).
        name: The env's name (the jaxenvs id); `env.name` by default.
        identity: What makes two exports equal (and their hash): `make` passes the id, the step
            API and the overrides, so exports of the same id share compiled functions; None
            compares by object identity.

    Raises:
        ValueError: For an unknown `step_api`, or an env that auto-resets.
    """

    def __init__(self, env: Any, params: Any, step_api: str = "gymnax1", name: str | None = None, identity: Any = None):
        from jaxenvs.export._bridge import reject_autoreset

        reject_autoreset(env)
        env = env.env if isinstance(env, Absorbing) else env  # the export resets every finished episode
        self._env, self._params = env, params
        self._name = env.name if name is None else str(name)
        self.step_api = _check_step_api(step_api, self._name)
        self._identity = identity
        raw = env.unwrapped
        # the env's own answers where it has them; else the export keeps them in its state
        self._observe = _observe_fn(env)
        self._is_terminal = raw.is_terminal if defines(raw, "is_terminal") else None
        self._reset_if_done = reset_if_done_fn(_Resets(self))
        self._masks = _Masks(raw) if callable(getattr(raw, "action_mask", None)) else None

    # --- identity: a static argument of jax.jit (rejax, gymnax's own jitted methods) --------
    def __eq__(self, other: Any) -> bool:
        if self._identity is None or not isinstance(other, GymnaxExport):
            return self is other
        return self._identity == other._identity

    def __hash__(self) -> int:
        return id(self) if self._identity is None else hash(self._identity)

    def __repr__(self) -> str:
        return f"GymnaxExport({self._name!r}, step_api={self.step_api!r})"

    # --- gymnax's interface --------------------------------------------------------------
    @property
    def default_params(self) -> Any:
        """The env's params given at construction."""
        return self._params

    @property
    def name(self) -> str:
        """The env's name (the jaxenvs id)."""
        return self._name

    @property
    def num_actions(self) -> int:
        """The env's number of actions."""
        return self._env.num_actions

    @property
    def jax_env(self) -> Any:
        """The jaxenvs env inside (raw: it never resets by itself)."""
        return self._env

    def _wrap(self, obs: Any, env_state: Any, terminated: Any) -> GymnaxExportState:
        return GymnaxExportState(
            env_state=env_state,
            obs=None if self._observe is not None else obs,
            terminated=None if self._is_terminal is not None else jnp.asarray(terminated, jnp.bool_),
        )

    def reset_env(self, key: jax.Array, params: Any) -> tuple[Any, GymnaxExportState]:
        """The env's reset.

        Args:
            key: A JAX PRNG key.
            params: The env's params.

        Returns:
            `(obs, GymnaxExportState)`.
        """
        obs, env_state = self._env.reset(key, params)
        return obs, self._wrap(obs, env_state, False)

    def step_env(
        self, key: jax.Array, state: GymnaxExportState, action: Any, params: Any
    ) -> tuple[Any, GymnaxExportState, jax.Array, jax.Array, dict[str, Any]]:
        """The env's transition, no reset.

        Args:
            key: A JAX PRNG key.
            state: The current `GymnaxExportState`.
            action: An action of `action_space(params)`.
            params: The env's params.

        Returns:
            gymnax 1.x's `(obs, state, reward, terminated, info)`.
        """
        obs, env_state, reward, terminated, _, info = self._env.step(key, state.env_state, action, params)
        return obs, self._wrap(obs, env_state, terminated), reward, terminated, info

    def reset(self, key: jax.Array, params: Any = None) -> tuple[Any, GymnaxExportState]:
        """A new episode.

        Args:
            key: A JAX PRNG key.
            params: The env's params; `default_params` when None.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: If `key` is not one PRNG key (raised before tracing: inside `jit` JAX's own
                error would name neither the env nor the key).
        """
        check_key(key, f"{self._name}.reset")
        return self._reset(key, params)

    @functools.partial(jax.jit, static_argnames=("self",))
    def _reset(self, key: jax.Array, params: Any = None) -> tuple[Any, GymnaxExportState]:
        if params is None:
            params = self.default_params
        return self.reset_env(key, params)

    def step(self, key: jax.Array, state: GymnaxExportState, action: Any, params: Any = None) -> tuple:
        """One step with auto-reset, as gymnax 1.x's `Environment.step`.

        Args:
            key: A JAX PRNG key (split into the step's and the reset's).
            state: The current `GymnaxExportState`.
            action: An action of `action_space(params)`.
            params: The env's params; `default_params` when None.

        Returns:
            gymnax1: `(obs, state, reward, terminated, truncated, info)`;
            gymnax0: `(obs, state, reward, done, info)`. `info` holds the env's keys plus
            `terminated`, `truncated` and `final_observation`.

        Raises:
            TypeError: If `key` is not one PRNG key.
        """
        check_key(key, f"{self._name}.step")
        return self._step(key, state, action, params)

    @functools.partial(jax.jit, static_argnames=("self",))
    def _step(self, key: jax.Array, state: GymnaxExportState, action: Any, params: Any = None) -> tuple:
        if params is None:
            params = self.default_params
        key_step, key_reset = jax.random.split(key)
        obs, env_state, reward, terminated, truncated, info = self._env.step(key_step, state.env_state, action, params)
        stepped = self._wrap(obs, env_state, terminated)
        done = jnp.logical_or(terminated, truncated)
        obs_out, state_out = self._reset_if_done(done, key_reset, obs, stepped, params)
        info = final_info(self._masks, info, obs, terminated, truncated, state_out, params)
        del info["final_terminated"], info["final_truncated"]  # gymnax 1.x's names:
        info["terminated"], info["truncated"] = terminated, truncated
        if self.step_api == "gymnax0":
            return obs_out, state_out, reward, done, info
        return obs_out, state_out, reward, terminated, truncated, info

    def get_obs(self, state: GymnaxExportState, params: Any = None, key: Any = None) -> Any:
        """The observation of `state` (recomputed where the env can, else the one kept).

        Args:
            state: A `GymnaxExportState`.
            params: The env's params; `default_params` when None.
            key: Unused (gymnax's signature).

        Returns:
            The observation.
        """
        if self._observe is None:
            return state.obs
        return self._observe(state.env_state, self.default_params if params is None else params)

    def is_terminated(self, state: GymnaxExportState, params: Any = None) -> jax.Array:
        """Whether `state` is terminal (natural termination, not the time limit: gymnax 1.x's).

        Args:
            state: A `GymnaxExportState` (its `terminated` is read where the env has no `is_terminal`).
            params: The env's params; `default_params` when None.

        Returns:
            A bool scalar.
        """
        if self._is_terminal is None:
            return state.terminated
        return jnp.asarray(self._is_terminal(state.env_state, self.default_params if params is None else params))

    def is_terminal(self, state: GymnaxExportState, params: Any = None) -> jax.Array:
        """gymnax 1.x's name for `is_terminated`: the same arguments, the same result."""
        return self.is_terminated(state, params)

    def is_truncated(self, state: GymnaxExportState, params: Any = None) -> jax.Array:
        """Whether the episode of `state` is cut short (the time limit, or an adapter's library).

        Args:
            state: The `GymnaxExportState` a step reached.
            params: The env's params; `default_params` when None.

        Returns:
            A bool scalar.
        """
        return self._env.unwrapped.truncation(state.env_state, self.default_params if params is None else params)

    def discount(self, state: GymnaxExportState, params: Any = None) -> jax.Array:
        """The discount of `state`, as gymnax's.

        Args:
            state: A `GymnaxExportState`.
            params: The env's params; `default_params` when None.

        Returns:
            0.0 where `state` is terminal, else 1.0.
        """
        return 1.0 - self.is_terminated(state, params).astype(jnp.float32)

    def action_space(self, params: Any = None) -> Any:
        """The action space as a gymnax space.

        Returns:
            A gymnax space (see `gymnax_space`).
        """
        return gymnax_space(self._env.action_space(params), self._name)

    def observation_space(self, params: Any = None) -> Any:
        """The observation space as a gymnax space.

        Returns:
            A gymnax space (see `gymnax_space`).
        """
        return gymnax_space(self._env.observation_space(params), self._name)

    def state_space(self, params: Any = None) -> Any:
        """A gymnax space shaped like the state.

        Args:
            params: The env's params; `default_params` when None.

        Returns:
            A `Dict` of each field's space by name, arrays as unbounded `Box`es of their shape and
            dtype (jaxenvs declares no bounds for states).
        """
        params = self.default_params if params is None else params
        key = jax.ShapeDtypeStruct((), jax.random.key(0).dtype)
        _, state = jax.eval_shape(lambda k: self.reset_env(k, params), key)
        return _tree_space(state)

    def render(self, state: GymnaxExportState, params: Any = None) -> jax.Array:
        """A picture of `state` (jit-able), where the env draws one.

        Args:
            state: A `GymnaxExportState`.
            params: The env's params; `default_params` when None.

        Returns:
            A `uint8[H, W, 3]` image.
        """
        return self._env.render(state.env_state, params)


def _observe_fn(env: Any) -> Any:
    """The raw env's `observe(state, params)` (`obs_from_state` in older jaxenvs), when every
    wrapper between `env` and it declares `keeps_observation = True` (as `VecEnv` asks); else None."""
    layer = env
    while layer is not layer.unwrapped:
        if not getattr(type(layer), "keeps_observation", False):
            return None
        layer = layer.env
    for name in ("observe", "obs_from_state"):
        if defines(layer, name):
            return getattr(layer, name)
    return None


class _Resets:
    """The export's reset as the `env` that `reset_if_done_fn` resets with."""

    def __init__(self, export: GymnaxExport):
        self.reset = export.reset_env


class _Masks:
    """The env's `action_mask` on the export's state, for `final_info`."""

    def __init__(self, raw: Any):
        self._raw = raw

    def action_mask(self, state: GymnaxExportState, params: Any) -> jax.Array:
        return self._raw.action_mask(state.env_state, params)


# --- make and the registry ------------------------------------------------------------------


def make(env_id: str, step_api: str = "gymnax1", **overrides: Any) -> tuple[GymnaxExport, Any]:
    """Any jaxenvs id as a gymnax 1.x `Environment`.

    Args:
        env_id: a registered jaxenvs id (built-in or adapted, e.g. `"CartPole-v1"`, `"brax/ant"`).
        step_api: `"gymnax1"` (default; `step` returns gymnax 1.x's six values) or `"gymnax0"`
            (gymnax 0.x's five: `(obs, state, reward, done, info)`).
        **overrides: params fields to change, e.g. `max_steps_in_episode=200`.

    Returns:
        `(env, params)`: a `GymnaxExport` (a `gymnax.environments.environment.Environment`)
        and its default params.

    Raises:
        jaxenvs.UnknownEnvError: an unknown id (naming the closest ones).
        ValueError: an unknown `step_api`, or a space gymnax cannot express.
        TypeError: an unknown override (naming the valid ones).
    """
    from jaxenvs.registry import make as jaxenvs_make

    _check_step_api(step_api, str(env_id))
    env, params = jaxenvs_make(env_id, autoreset=False, **overrides)
    try:
        identity = (env_id, step_api, tuple(sorted(overrides.items())))
        hash(identity)
    except TypeError:  # an unhashable override value (an array): compare by identity
        identity = None
    export = GymnaxExport(env, params, step_api=step_api, name=env_id, identity=identity)
    # gymnax's spaces, built once here, so a space gymnax cannot express fails at make
    export.action_space(params)
    export.observation_space(params)
    return export, params


def gymnax_id(env_id: str, namespace: str = NAMESPACE) -> str:
    """The gymnax registry id of a jaxenvs id.

    Args:
        env_id: a jaxenvs id.
        namespace: the prefix.

    Returns:
        `"<namespace>/<id>"`, e.g. `"jaxenvs/CartPole-v1"`.
    """
    return f"{namespace}/{env_id}"


def _factory(env_id: str, **kwargs: Any) -> GymnaxExport:
    # gymnax.make calls this with its keyword arguments and returns (env, env.default_params)
    return make(env_id, **kwargs)[0]


def register_gymnax_envs(ids: list[str] | None = None, namespace: str = NAMESPACE) -> list[str]:
    """Register jaxenvs ids with gymnax's registry (`gymnax.register`) as `"<namespace>/<id>"`.

    Args:
        ids: the jaxenvs ids; every registered one by default.
        namespace: the prefix of the gymnax ids.

    Returns:
        The gymnax ids now registered (ids already in gymnax's registry are left as they are).
    """
    from jaxenvs.registry import registered_envs

    ids = registered_envs() if ids is None else list(ids)
    done = []
    for env_id in ids:
        gid = gymnax_id(env_id, namespace)
        if gid not in gymnax.registered_envs:
            gymnax.register(gid, functools.partial(_factory, env_id))
        done.append(gid)
    return done


if not callable(getattr(gymnax, "register", None)):
    raise ImportError(
        f"{__name__} needs gymnax >= 1.0.1 (its public gymnax.register); installed: "
        f"{getattr(gymnax, '__version__', 'older')}: {install_line('clients')}"
    )
register_gymnax_envs()
