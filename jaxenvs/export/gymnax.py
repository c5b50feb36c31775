"""Any jaxenvs id as a real gymnax `Environment`, for code written against gymnax.

`make(id, step_api="gymnax1" | "gymnax0", settings="gymnax" | "reference")` builds it. An id
gymnax defines is gymnax's task by default (its settings, action set, observation dtype, state
field names and info keys: `_gymnax_tasks.GYMNAX_TASKS`); `settings="reference"` gives the task
`jaxenvs.make(id)` gives. Importing this module registers every id that can be built here with
gymnax as `"jaxenvs/<id>"`. See docs/from-gymnax.md.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import check_key, resolve_params
from jaxenvs.export import missing_extra
from jaxenvs.export._gymnax_tasks import GYMNAX_TASKS, GymnaxTask
from jaxenvs.extras import install_line
from jaxenvs.levels import Level, apply_level
from jaxenvs.registry import UnknownEnvError
from jaxenvs.spaces import convert

try:
    import gymnax
    from gymnax.environments import environment as gymnax_environment
    from gymnax.environments import spaces as gymnax_spaces
except ImportError as e:
    raise missing_extra(e, "clients", __name__) from e

from jaxenvs.wrappers.absorbing import unguarded
from jaxenvs.wrappers.autoreset import ResetRule, autoreset_step

STEP_APIS = ("gymnax1", "gymnax0")
SETTINGS = ("gymnax", "reference")
NAMESPACE = "jaxenvs"

__all__ = [
    "GYMNAX_TASKS",
    "NAMESPACE",
    "SETTINGS",
    "STEP_APIS",
    "GymnaxTask",
    "GymnaxExport",
    "GymnaxExportState",
    "UnknownGymnaxEnvError",
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


# the gymnax space of a jaxenvs space: the one converter in `jaxenvs.spaces.convert`
gymnax_space = convert.to_gymnax


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


def _check_choice(name: str, value: Any, choices: tuple, what: str, where: str) -> Any:
    """`value`, or a `ValueError` naming `name`'s valid `choices` (and what they mean)."""
    if value not in choices:
        raise ValueError(f"{where}: {name} must be one of {', '.join(map(repr, choices))} ({what}), got {value!r}")
    return value


def _check_step_api(step_api: Any, where: str) -> str:
    what = "gymnax 1.x's six-value step or gymnax 0.x's five-value one"
    return _check_choice("step_api", step_api, STEP_APIS, what, where)


class GymnaxExport(gymnax_environment.Environment):
    """A jaxenvs env as a gymnax 1.x `Environment`; build it with `make`.

    Its `step` auto-resets as gymnax 1.x's `Environment.step` does (the key split into a step key
    and a reset key), computing the reset only where an episode ended. As gymnax 1.x's envs, it
    stops gradients through the transition's observation and state unless
    `with_transition_gradients()` made it (where `supports_transition_gradients`).

    The state is the env's own state object (gymnax's own state class where `task` renames its
    fields), and `step`, `get_obs` and the other methods also take gymnax's own `EnvState` of
    the id, translated by field name at the boundary (a renaming: nothing is computed under jit).
    Where the env can rebuild neither its observation nor its termination from its state (some
    adapters), the state is a `GymnaxExportState` holding them.

    Args:
        env: A raw jaxenvs env (no `AutoReset`: the export resets itself), as
            `jaxenvs.make(id, autoreset=False)` gives.
        params: Its params (the export's `default_params`).
        step_api: `"gymnax1"` (six values) or `"gymnax0"` (five values).
        name: The env's name (the id); `env.name` by default.
        identity: What makes two exports equal (and their hash): `make` passes the id, the step
            API, the settings and the overrides, so exports of the same id share compiled
            functions; None compares by object identity.
        task: gymnax's task of the id (observation dtype and shape, state names, info keys,
            gradients), or None for the env as it is.

    Raises:
        ValueError: For an unknown `step_api`, or an env that auto-resets.
    """

    def __init__(
        self,
        env: Any,
        params: Any,
        step_api: str = "gymnax1",
        name: str | None = None,
        identity: Any = None,
        task: GymnaxTask | None = None,
    ):
        from jaxenvs.export._bridge import reject_autoreset

        reject_autoreset(env)
        env = unguarded(env)  # the export resets every finished episode
        self._env, self._params = env, params
        self._name = env.name if name is None else str(name)
        self.step_api = _check_step_api(step_api, self._name)
        self._identity = identity
        self.task = task
        # the env's own answers where it has them; else the export keeps them in its state
        self._observe = env.observe
        self._is_terminal = env.is_terminal
        # gymnax's task is served on the env's own state; another env missing either answer
        # keeps it in a GymnaxExportState
        self._nested = task is None and (self._observe is None or self._is_terminal is None)
        # AutoReset's rule on the export's states: a batch resets state rows only and observes
        # the states it returns, where the env observes its states
        mask = env.action_mask
        self._rule = ResetRule(
            name=self._name,
            reset=self.reset_env,
            observe=None if self._observe is None else self._observe_export,
            action_mask=None if mask is None else (lambda state, params: mask(self.env_state(state), params)),
            ignores_key=env.reset_ignores_key,
        )
        key = jax.ShapeDtypeStruct((), jax.random.key(0).dtype)
        self._state_shape = jax.eval_shape(lambda k: env.reset(k, params)[1], key)
        self._gymnax_state = None if task is None or task.gymnax_state is None else _load(task.gymnax_state)
        if task is not None:
            self._supports_transition_gradients = task.gradients
        else:  # arithmetic on a continuous action differentiates; a discrete choice does not
            action = env.action_space(params)
            self._supports_transition_gradients = isinstance(action, spaces.Box) and jnp.issubdtype(
                action.dtype, jnp.floating
            )

    # --- identity: a static argument of jax.jit (rejax, gymnax's own jitted methods) --------
    def _key(self) -> Any:
        return (self._identity, self.transition_gradients_enabled)

    def __eq__(self, other: Any) -> bool:
        if self._identity is None or not isinstance(other, GymnaxExport):
            return self is other
        return self._key() == other._key()

    def __hash__(self) -> int:
        return id(self) if self._identity is None else hash(self._key())

    def __repr__(self) -> str:
        if self.task is None:
            return f"GymnaxExport({self._name!r}, step_api={self.step_api!r})"
        return f"GymnaxExport({self._name!r}, settings='gymnax', step_api={self.step_api!r})"

    # --- pickling (and copying): by reconstruction ------------------------------------------
    def __reduce__(self) -> tuple:
        """Pickle by reconstruction: the constructor's arguments (the raw env, its params, the
        step API, name, identity and task) and whether transition gradients are enabled, never
        the compiled reset rule; `copy.copy` (gymnax's `with_transition_gradients`) builds the
        same way."""
        arguments = (self._env, self._params, self.step_api, self._name, self._identity, self.task)
        return type(self), arguments, {"_transition_gradients_enabled": self.transition_gradients_enabled}

    # --- gymnax's interface --------------------------------------------------------------
    @property
    def default_params(self) -> Any:
        """The env's params given at construction."""
        return self._params

    @property
    def name(self) -> str:
        """The env's name (the id)."""
        return self._name

    @property
    def num_actions(self) -> int:
        """The env's number of actions (of its default params: MinAtar's minimal set where chosen)."""
        action = self._env.action_space(self._params)
        return int(action.n) if isinstance(action, spaces.Discrete) else self._env.num_actions

    @property
    def jax_env(self) -> Any:
        """The jaxenvs env inside (raw: it never resets by itself)."""
        return self._env

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """The observation's shape (gymnax's MinAtar envs' attribute, which its visualizer reads)."""
        return tuple(self.observation_space(self._params).shape)

    def __getattr__(self, name: str) -> Any:
        # gymnax's public helpers (its visualizer) read an env's own attributes, as Catch's
        # `rows` and `columns`: the jaxenvs env's, where it has them
        env = self.__dict__.get("_env")
        if env is None or name.startswith("_"):
            raise AttributeError(name)
        try:
            return getattr(env.unwrapped, name)
        except AttributeError:
            raise AttributeError(f"{type(self).__name__} ({self._name}) has no attribute {name!r}") from None

    # --- the boundary: gymnax's layout <-> the env's -------------------------------------
    def _obs(self, obs: Any) -> Any:
        task = self.task
        if task is None:
            return obs
        if task.obs_dtype is not None:
            obs = obs.astype(task.obs_dtype)
        if task.obs_shape is not None:
            obs = obs.reshape(task.obs_shape)
        return obs

    def _info(self, info: dict) -> dict:
        task = self.task
        if task is None or not (task.info_names or task.info_absent):
            return info
        return {task.info_names.get(k, k): v for k, v in info.items() if k not in task.info_absent}

    def _wrap(self, obs: Any, env_state: Any, terminated: Any, action: Any = None, params: Any = None) -> Any:
        if not self._nested:
            if self._gymnax_state is None:
                return env_state
            task = self.task
            names = task.state_names
            fields = dataclasses.fields(self._gymnax_state)
            values = {f.name: getattr(env_state, names.get(f.name, f.name), None) for f in fields}
            if task.step_fields is not None:  # gymnax's fields computed from the step (zero at reset)
                params = resolve_params(self, params)
                if action is None:
                    like = self._env.action_space(params)
                    extra = task.step_fields(jnp.zeros(like.shape, like.dtype), params)
                    extra = {k: jnp.zeros_like(v) for k, v in extra.items()}
                else:
                    extra = task.step_fields(action, params)
                values.update(extra)
            return self._gymnax_state(**values)
        return GymnaxExportState(
            env_state=env_state,
            obs=None if self._observe is not None else obs,
            terminated=None if self._is_terminal is not None else jnp.asarray(terminated, jnp.bool_),
        )

    def env_state(self, state: Any) -> Any:
        """The jaxenvs env's state of an export state, or of gymnax's own `EnvState` of the id.

        A gymnax state's fields are read by name (renamed as `task.state_names` says) and cast to
        the env's dtypes; fields the env has and gymnax's state lacks are zero (MinAtar's
        `last_action`, which matters only with sticky actions).

        Args:
            state: The export's state, or gymnax's.

        Returns:
            The env's state.

        Raises:
            TypeError: For a state that has none of the env's fields but `time`.
        """
        if isinstance(state, GymnaxExportState):
            return state.env_state
        if type(state) is type(self._state_shape):
            return state
        if self._nested:
            raise TypeError(f"{self._name}: expected a GymnaxExportState, got {type(state).__name__}")
        names = {ours: theirs for theirs, ours in self.task.state_names.items()} if self.task else {}
        given = dict(self.task.from_gymnax(state)) if self.task and self.task.from_gymnax else {}
        values, found = {}, bool(given)
        for f in dataclasses.fields(self._state_shape):
            like = getattr(self._state_shape, f.name)
            if not f.metadata.get("pytree_node", True):
                values[f.name] = like
                continue
            value = given.get(f.name, getattr(state, names.get(f.name, f.name), None))
            found = found or (value is not None and f.name != "time")
            if value is None:
                value = jnp.zeros(like.shape, like.dtype)
            values[f.name] = jnp.broadcast_to(jnp.asarray(value, like.dtype), like.shape)
        if not found:
            raise TypeError(
                f"{self._name}: cannot read a state from {type(state).__name__}: it has none of the fields of "
                f"{type(self._state_shape).__name__}"
            )
        return type(self._state_shape)(**values)

    def _observe_export(self, state: Any, params: Any) -> Any:
        """The env's `observe` on the export's state, in gymnax's layout."""
        return self._obs(self._observe(self.env_state(state), params))

    def reset_env(self, key: jax.Array, params: Any) -> tuple[Any, Any]:
        """The env's reset.

        Args:
            key: A JAX PRNG key.
            params: The env's params.

        Returns:
            `(obs, state)`.
        """
        obs, env_state = self._env.reset(key, params)
        return self._obs(obs), self._wrap(obs, env_state, False, params=params)

    def step_env(
        self, key: jax.Array, state: Any, action: Any, params: Any
    ) -> tuple[Any, Any, jax.Array, jax.Array, dict]:
        """The env's transition, no reset.

        Args:
            key: A JAX PRNG key.
            state: The current state (the export's, or gymnax's own `EnvState` of the id).
            action: An action of `action_space(params)`.
            params: The env's params.

        Returns:
            gymnax 1.x's `(obs, state, reward, terminated, info)`; gradients through `obs` and
            `state` stopped unless `transition_gradients_enabled`.
        """
        obs, stepped, reward, terminated, _, info = self._transition(key, state, action, params)
        return obs, stepped, reward, terminated, info

    def _terminated(self, terminated: Any, info: dict) -> tuple[Any, dict]:
        """The step's `terminated` and `info` as gymnax's env reports them: never terminated
        (and a discount of 1) where gymnax's env never terminates."""
        if self.task is None or self.task.terminates:
            return terminated, info
        if "discount" in info:
            info = {**info, "discount": jnp.ones_like(info["discount"])}
        return jnp.zeros_like(terminated), info

    def reset(self, key: jax.Array, params: Any = None) -> tuple[Any, Any]:
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
    def _reset(self, key: jax.Array, params: Any = None) -> tuple[Any, Any]:
        return self.reset_env(key, resolve_params(self, params))

    def reset_to_level(self, key: jax.Array, level: Level, params: Any = None) -> tuple[Any, Any]:
        """A new episode from a level: settings, a start state, or both (`jaxenvs.levels`).

        The env's own `reset_to_level`, in gymnax's layout: a start state may be the export's,
        or gymnax's own `EnvState` of the id (translated by field name, as `step` translates
        it). As with the env's, the settings hold for this reset only: step the episode with
        `jaxenvs.levels.apply_level(params, level)`, as gymnax's envs take their params at every
        call (the auto-reset of `step` then starts the next episode under them too).

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level`.
            params: The env's params; `default_params` when None.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: If `key` is not one PRNG key; as the env's `reset_to_level` (a level that
                is not a `Level`, a value or state of the wrong dtype or tree).
            ValueError: As the env's `reset_to_level`: a field that may not vary per episode, a
                wrong shape, a concrete value outside its field's range.
        """
        check_key(key, f"{self._name}.reset_to_level")
        params = resolve_params(self, params)
        if isinstance(level, Level) and level.state is not None:
            level = Level(settings=level.settings, state=self.env_state(level.state))
        obs, env_state = self._env.reset_to_level(key, level, params)
        return self._obs(obs), self._wrap(obs, env_state, False, params=apply_level(params, level))

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple:
        """One step with auto-reset, as gymnax 1.x's `Environment.step`.

        Args:
            key: A JAX PRNG key (split into the step's and the reset's).
            state: The current state (the export's, or gymnax's own `EnvState` of the id).
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
    def _step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple:
        params = resolve_params(self, params)
        key_step, key_reset = jax.random.split(key)
        obs_out, state_out, reward, terminated, truncated, info = autoreset_step(
            self._rule, self._transition, key_step, key_reset, state, action, params
        )
        del info["final_terminated"], info["final_truncated"]  # gymnax 1.x's names:
        info["terminated"], info["truncated"] = terminated, truncated
        if self.step_api == "gymnax0":
            return obs_out, state_out, reward, jnp.logical_or(terminated, truncated), info
        return obs_out, state_out, reward, terminated, truncated, info

    def _transition(self, key: jax.Array, state: Any, action: Any, params: Any) -> tuple:
        """The env's step in gymnax's layout: `step_env` with `truncated`."""
        obs, env_state, reward, terminated, truncated, info = self._env.step(key, self.env_state(state), action, params)
        terminated, info = self._terminated(terminated, info)
        stepped = self._wrap(obs, env_state, terminated, action, params)
        obs, stepped = self._apply_transition_gradient_policy(self._obs(obs), stepped)
        return obs, stepped, reward, terminated, truncated, self._info(info)

    def get_obs(self, state: Any, params: Any = None, key: Any = None) -> Any:
        """The observation of `state` (recomputed where the env can, else the one kept).

        Args:
            state: The export's state, or gymnax's own `EnvState` of the id.
            params: The env's params; `default_params` when None.
            key: Unused (gymnax's signature).

        Returns:
            The observation.

        Raises:
            NotImplementedError: The env has no `observe` and `state` is gymnax's own (no
                observation kept in it).
        """
        if self._observe is None:
            if not isinstance(state, GymnaxExportState):
                raise NotImplementedError(f"{self._name}: the env cannot rebuild its observation from a state")
            return state.obs
        return self._observe_export(state, resolve_params(self, params))

    def is_terminated(self, state: Any, params: Any = None) -> jax.Array:
        """Whether `state` is terminal (natural termination, not the time limit: gymnax 1.x's).

        Args:
            state: The export's state (its `terminated` is read where the env has no
                `is_terminal`), or gymnax's own `EnvState` of the id.
            params: The env's params; `default_params` when None.

        Returns:
            A bool scalar.

        Raises:
            NotImplementedError: The env has no `is_terminal` and `state` is gymnax's own (no
                flag kept in it).
        """
        if self.task is not None and not self.task.terminates:
            return jnp.zeros((), jnp.bool_)
        if self._is_terminal is None:
            if not isinstance(state, GymnaxExportState):
                raise NotImplementedError(f"{self._name}: the env cannot tell termination from a state")
            return state.terminated
        return jnp.asarray(self._is_terminal(self.env_state(state), resolve_params(self, params)))

    def is_terminal(self, state: Any, params: Any = None) -> jax.Array:
        """gymnax 1.x's name for `is_terminated`: the same arguments, the same result."""
        return self.is_terminated(state, params)

    def is_truncated(self, state: Any, params: Any = None) -> jax.Array:
        """Whether the episode of `state` is cut short (the time limit, or an adapter's library).

        Args:
            state: The state a step reached.
            params: The env's params; `default_params` when None.

        Returns:
            A bool scalar.
        """
        return self._env.unwrapped.truncation(self.env_state(state), resolve_params(self, params))

    def discount(self, state: Any, params: Any = None) -> jax.Array:
        """The discount of `state`, as gymnax's.

        Args:
            state: The export's state, or gymnax's own `EnvState` of the id.
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
        """The observation space as a gymnax space (gymnax's dtype and shape for gymnax's task).

        Returns:
            A gymnax space (see `gymnax_space`).
        """
        space = gymnax_space(self._env.observation_space(params), self._name)
        task = self.task
        if task is None or (task.obs_dtype is None and task.obs_shape is None):
            return space
        dtype = space.dtype if task.obs_dtype is None else task.obs_dtype
        shape = space.shape if task.obs_shape is None else task.obs_shape
        low, high = (jnp.asarray(b).astype(dtype) for b in (space.low, space.high))
        return gymnax_spaces.Box(
            jnp.broadcast_to(low, space.shape).reshape(shape),
            jnp.broadcast_to(high, space.shape).reshape(shape),
            shape,
            dtype,
        )

    def state_space(self, params: Any = None) -> Any:
        """A gymnax space shaped like the state.

        Args:
            params: The env's params; `default_params` when None.

        Returns:
            A `Dict` of each field's space by name, arrays as unbounded `Box`es of their shape and
            dtype (jaxenvs declares no bounds for states).
        """
        params = resolve_params(self, params)
        key = jax.ShapeDtypeStruct((), jax.random.key(0).dtype)
        _, state = jax.eval_shape(lambda k: self.reset_env(k, params), key)
        return _tree_space(state)

    def render(self, state: Any, params: Any = None) -> jax.Array:
        """A picture of `state` (jit-able), where the env draws one.

        Args:
            state: The export's state, or gymnax's own `EnvState` of the id.
            params: The env's params; `default_params` when None.

        Returns:
            A `uint8[H, W, 3]` image.
        """
        return self._env.render(self.env_state(state), params)


def _load(path: str) -> Any:
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


# --- make and the registry ------------------------------------------------------------------


def _check_settings(settings: Any, where: str) -> str:
    what = "gymnax's task of an id gymnax defines, or the reference's task that jaxenvs.make gives"
    return _check_choice("settings", settings, SETTINGS, what, where)


def _build(env_id: str, task: GymnaxTask | None, overrides: dict[str, Any]) -> tuple[Any, Any]:
    """The env and params of `env_id` (the jaxenvs id's, or gymnax's task of it), by the registry's
    one builder. As `gymnax.make` passes its keyword arguments to the env's constructor, an
    override that names a constructor argument of the env (FrozenLake's `map_name`) goes there,
    and the env then keeps its own default params, as gymnax's constructor gives them (the 8x8
    map's time limit of 200, not `FrozenLake-v1`'s registered 100)."""
    from jaxenvs.registry import build, resolve, spec

    jaxenvs_id = env_id if task is None else task.jaxenvs_id
    try:
        accepted = inspect.signature(resolve(spec(jaxenvs_id).entry_point)).parameters
    except ImportError:  # a missing library: `build` names its extra
        accepted = {}
    env_kwargs = {k: v for k, v in overrides.items() if k in accepted}
    params = {k: v for k, v in overrides.items() if k not in accepted}
    registered = not env_kwargs
    if task is not None:
        env_kwargs = {**task.env_kwargs, **(task.data() if task.data is not None else {}), **env_kwargs}
        params = {**task.params, **params}
    return build(jaxenvs_id, env_kwargs=env_kwargs, registered_params=registered, **params)


def make(
    env_id: str, step_api: str = "gymnax1", settings: str = "gymnax", **overrides: Any
) -> tuple[GymnaxExport, Any]:
    """Any jaxenvs id as a gymnax 1.x `Environment`; an id gymnax defines as gymnax's task.

    For the ids gymnax defines (`GYMNAX_TASKS`), the default is gymnax's task: gymnax's settings
    (MinAtar's minimal action sets, no sticky actions and gymnax's step limits; bsuite's
    shorter limits), observation dtype and shape, state field names and info keys, so code
    ported from gymnax trains on the task it trained on. `settings="reference"` gives the task
    `jaxenvs.make(env_id)` gives (the reference's). gymnax's `FrozenLake-misc` is gymnasium's
    `FrozenLake-v1` with gymnax's state and info names.

    Args:
        env_id: a registered jaxenvs id (built-in or adapted, e.g. `"CartPole-v1"`, `"brax/ant"`),
            or `"FrozenLake-misc"`.
        step_api: `"gymnax1"` (default; `step` returns gymnax 1.x's six values) or `"gymnax0"`
            (gymnax 0.x's five: `(obs, state, reward, done, info)`).
        settings: `"gymnax"` (default: gymnax's task where gymnax defines the id) or
            `"reference"` (the jaxenvs id's task, as `jaxenvs.make`).
        **overrides: params fields to change, e.g. `max_steps_in_episode=200`.

    Returns:
        `(env, params)`: a `GymnaxExport` (a `gymnax.environments.environment.Environment`)
        and its default params. An id that only gymnax's registry holds (one a user registered
        with `gymnax.register`, or `"jaxenvs/<id>"`) is gymnax's own `make` of it, so this
        function can stand in for `gymnax.make`.

    Raises:
        UnknownGymnaxEnvError: an id neither jaxenvs nor gymnax registers (naming the closest
            ones; a `jaxenvs.UnknownEnvError` and, as `gymnax.make` raises, a `ValueError`).
        ValueError: an unknown `step_api` or `settings`, or a space gymnax cannot express.
        TypeError: an unknown override (naming the valid ones).

    >>> from jaxenvs.export import gymnax as jaxenvs_gymnax
    >>> env, params = jaxenvs_gymnax.make("Breakout-MinAtar")
    >>> env, env.num_actions, params.max_steps_in_episode
    (GymnaxExport('Breakout-MinAtar', settings='gymnax', step_api='gymnax1'), 3, 1000)
    >>> jaxenvs_gymnax.make("Breakout-MinAtar", settings="reference")[0].num_actions
    6
    """
    from jaxenvs.registry import spec

    _check_step_api(step_api, str(env_id))
    _check_settings(settings, str(env_id))
    if env_id not in GYMNAX_TASKS:
        try:
            spec(env_id)
        except UnknownEnvError as e:
            if env_id in gymnax.registration.registered_envs:  # only gymnax knows it (gymnax.register)
                return _gymnax_make(env_id, **overrides)
            raise UnknownGymnaxEnvError(
                f"{env_id} is not in registered gymnax environments, nor a jaxenvs id. {e}",
                env_id=env_id,
                closest=e.closest,
            ) from None
    task = GYMNAX_TASKS.get(env_id) if settings == "gymnax" else None
    if settings == "reference" and env_id in GYMNAX_TASKS:
        env_id_built = GYMNAX_TASKS[env_id].jaxenvs_id
    else:
        env_id_built = env_id
    env, params = _build(env_id_built, task, overrides)
    try:
        identity = (env_id, step_api, settings, tuple(sorted(overrides.items())))
        hash(identity)
    except TypeError:  # an unhashable override value (an array): compare by identity
        identity = None
    export = GymnaxExport(env, params, step_api=step_api, name=env_id, identity=identity, task=task)
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

    gymnax's own entries keep their order; ours are appended after them. By default only the ids
    that can be built here are registered (`jaxenvs.registry.availability`: an id whose library
    is missing or whose construction downloads data is left out, so a loop over
    `gymnax.registered_envs` makes every entry), plus gymnax's `FrozenLake-misc`.

    Args:
        ids: the jaxenvs ids; by default every registered one that can be built here.
        namespace: the prefix of the gymnax ids.

    Returns:
        The gymnax ids now registered (ids already in gymnax's registry are left as they are).
    """
    from jaxenvs.registry import availability, registered_envs

    if ids is None:
        ids = [i for i in registered_envs() if availability(i).runnable]
        ids += [i for i in GYMNAX_TASKS if i not in ids and availability(GYMNAX_TASKS[i].jaxenvs_id).runnable]
    done = []
    for env_id in ids:
        gid = gymnax_id(env_id, namespace)
        if gid not in gymnax.registered_envs:
            gymnax.register(gid, functools.partial(_factory, env_id))
        done.append(gid)
    return done


class UnknownGymnaxEnvError(UnknownEnvError, ValueError):
    """An id neither jaxenvs nor gymnax registers: a `jaxenvs.UnknownEnvError` (a `KeyError`),
    and the `ValueError` that `gymnax.make` raises, so code written for either catches it."""


if not callable(getattr(gymnax, "register", None)):
    raise ImportError(
        f"{__name__} needs gymnax >= 1.0.1 (its public gymnax.register); installed: "
        f"{getattr(gymnax, '__version__', 'older')}: {install_line('clients')}"
    )
_gymnax_make = gymnax.registration.make  # gymnax's own, for the ids only its registry holds
register_gymnax_envs()
