"""The `Environment` base class and the `EnvState` / `EnvParams` bases.

A subclass implements `reset_env` and `step_env` (the MDP's transition alone); the base's
`reset` and `step` resolve `params=None` and add truncation and `info["discount"]`. What happens
past the end of an episode is a layer's choice (`wrappers.AutoReset` resets, `wrappers.Absorbing`
stays): docs/batching.md.
"""

from __future__ import annotations

import functools
import inspect
import typing
from typing import Any, Generic, TypeVar

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.levels import Level, apply_level, check_level
from jaxenvs.params import ParamsMeta, integer

Array = jax.Array
PRNGKey = jax.Array


@struct.dataclass
class EnvState:
    """Base of every env state.

    Attributes:
        time: The number of steps taken in the current episode (int32 scalar).
    """

    time: Array


@struct.dataclass
class EnvParams(metaclass=ParamsMeta):
    """Base of every env's params.

    Fields that fix array shapes are static; each field declares its valid values
    (`jaxenvs.params`), which `make` and `replace` check.

    Attributes:
        max_steps_in_episode: The time limit: `step` reports `truncated` once `state.time`
            reaches it.
    """

    max_steps_in_episode: int = integer(1000, low=1)


TEnvState = TypeVar("TEnvState", bound=EnvState)
TEnvParams = TypeVar("TEnvParams", bound=EnvParams)


def check_key(key: Any, where: str) -> None:
    """Check that `key` is one JAX PRNG key.

    A typed key of shape () (`jax.random.key(seed)`) and a raw uint32[2]
    (`jax.random.PRNGKey(seed)`) pass, as does any traced value. Without this check an int key
    fails deep inside a library, and an env whose reset ignores its key takes anything.

    Args:
        key: The value to check.
        where: The name the error starts with (the env's name).

    Raises:
        TypeError: If `key` is concrete and not one PRNG key.
    """
    if isinstance(key, jax.core.Tracer):
        return
    dtype, shape = getattr(key, "dtype", None), getattr(key, "shape", None)
    if dtype is not None and jnp.issubdtype(dtype, jax.dtypes.prng_key) and tuple(shape) == ():
        return
    if dtype is not None and dtype == jnp.uint32 and tuple(shape) == (2,):
        return
    got = f"{type(key).__name__} of shape {tuple(shape)} and dtype {dtype}" if dtype is not None else repr(key)
    raise TypeError(
        f"{where}: key must be one JAX PRNG key, jax.random.key(seed) (or a raw uint32[2], "
        f"jax.random.PRNGKey(seed)), got {got[:80]}"
    )


def defaults_params(method):
    """Decorate a method so that a `params` of None (or left out) becomes `self.default_params`.

    `Environment.reset` and `step` resolve `params=None` themselves; an env decorates its own
    methods that take `params=None` (`observation_space`, `action_space`, `render`, ...) with
    this, as every built-in env and wrapper does.

    Args:
        method: A method with a `params` parameter (others are returned unchanged, as is a method
            already decorated).

    Returns:
        The decorated method.

    Example:
        >>> class Env(Environment):
        ...     @defaults_params
        ...     def action_space(self, params=None):
        ...         return spaces.Discrete(params.max_steps_in_episode)
        ...     @property
        ...     def default_params(self):
        ...         return EnvParams(max_steps_in_episode=3)
        >>> Env().action_space().n
        3
    """
    if getattr(method, "_defaults_params", False):
        return method
    names = list(inspect.signature(method).parameters)
    if "params" not in names:
        return method
    position = names.index("params") - 1  # among the arguments after `self`

    @functools.wraps(method)
    def with_params(self, *args, **kwargs):
        if len(args) > position:
            if args[position] is None:
                args = (*args[:position], self.default_params, *args[position + 1 :])
        elif kwargs.get("params") is None:
            kwargs["params"] = self.default_params
        return method(self, *args, **kwargs)

    with_params._defaults_params = True
    return with_params


def defines(env: Any, method: str) -> bool:
    """Whether `env`'s class defines a method.

    For the optional methods (`observe`, `is_terminal`), so that code can ask an env whether it
    has them, as `make_vec` and the gymnax export do.

    Args:
        env: An environment.
        method: The method's name.

    Returns:
        True if `type(env)` has a callable attribute of that name other than `Environment`'s
        stub (which raises `NotImplementedError`).
    """
    found = getattr(type(env), method, None)
    return callable(found) and found is not getattr(Environment, method, None)


@functools.cache
def _declared_params_class(cls: type) -> type | None:
    """The `EnvParams` subclass in the `Environment[State, Params]` base of `cls` or its nearest ancestor."""
    for klass in cls.__mro__:
        for base in klass.__dict__.get("__orig_bases__", ()):
            origin = typing.get_origin(base)
            if not (isinstance(origin, type) and issubclass(origin, Environment)):
                continue
            for arg in typing.get_args(base):
                if isinstance(arg, type) and issubclass(arg, EnvParams):
                    return arg
    return None


def float_dtype() -> jnp.dtype:
    """The float dtype continuous dynamics compute in.

    Returns:
        float64 when `jax_enable_x64` is on (as the numpy references compute), else float32.
    """
    return jnp.result_type(float)


class Environment(Generic[TEnvState, TEnvParams]):
    """A pure-function environment.

    Subclasses implement `reset_env`, `step_env`, `observation_space`, `action_space`, and
    usually `render`; `default_params` is `Params()`, of the params class named in
    `Environment[State, Params]`, unless the env overrides it. `step_env` returns
    `(obs, state, reward, terminated, info)`; `step` adds `truncation(state, params)` and
    `info["discount"]`. `step` is the transition alone, also from a finished state: what comes
    after the end of an episode is a layer's choice (`wrappers.AutoReset` resets,
    `wrappers.Absorbing` stays; `make(id)` and `make(id, autoreset=False)` apply them).

    Two optional methods, with gymnax 1.x's names (an env without them works, with less):

    - `observe(state, params)`: the observation of `state`, what `reset` and `step` return with
      it. It is the one method to override to change an observation: a built-in env's
      `reset_env` and `step_env` build their observation with it, and `make_vec` rebuilds the
      batch's observations with it (override `observation_space` to match).
    - `is_terminal(state, params)`: whether `state` ended its episode by the MDP's own
      termination (the time limit is `truncation`).

    `params=None` means `default_params` in `reset` and `step`; decorate an env's own methods
    that take `params=None` with `defaults_params`.

    Attributes:
        reset_ignores_key: A class attribute: True declares that `reset` gives the same episode
            start whatever its key (DeepSea, Asterix, Pong), so a batch's auto-reset computes
            one reset instead of one per finished env. `testing.check_env` checks it.
        default_params: The env's default params.
        name: The env's name (its class name).
        num_actions: The number of discrete actions (the flattened size for a continuous one).
        unwrapped: The innermost env.
    """

    reset_ignores_key: bool = False

    # --- to implement -------------------------------------------------------------------
    @property
    def default_params(self) -> TEnvParams:
        """The env's default params.

        By default the params class named in the class's `Environment[State, Params]` base (or
        its nearest base class's), called with no arguments: `class Env(Environment[EnvState,
        MyParams])` gets `MyParams()`. An env whose defaults take arguments overrides it.

        Returns:
            An instance of the env's params class (an `EnvParams` subclass).

        Raises:
            NotImplementedError: If the class names no params class and does not override it.
        """
        params_class = _declared_params_class(type(self))
        if params_class is None:
            raise NotImplementedError
        return params_class()

    def reset_env(self, key: PRNGKey, params: TEnvParams) -> tuple[Array, TEnvState]:
        """Start an episode; subclasses implement it (`reset` calls it).

        Args:
            key: A JAX PRNG key.
            params: The env's params (never None here).

        Returns:
            `(obs, state)`.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def step_env(
        self, key: PRNGKey, state: TEnvState, action: Any, params: TEnvParams
    ) -> tuple[Array, TEnvState, Array, Array, dict[str, Any]]:
        """The MDP's transition alone, without truncation; subclasses implement it (`step` calls it).

        Args:
            key: A JAX PRNG key.
            state: The current state.
            action: An action from `action_space(params)`.
            params: The env's params (never None here).

        Returns:
            `(obs, state, reward, terminated, info)`.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def observe(self, state: TEnvState, params: TEnvParams) -> Any:
        """The observation of `state`, what `reset` and `step` return with it (optional).

        An env that defines it builds its observations with it, and `make_vec` rebuilds a
        batch's observations with it: it is the one method to override to change an observation
        (and `observation_space` to match). `defines(env, "observe")` says whether an env has it.

        Args:
            state: The state.
            params: The env's params.

        Returns:
            The observation, an element of `observation_space(params)`.

        Raises:
            NotImplementedError: For an env that does not define it.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define observe")

    def start_observation(self, key: PRNGKey, state: TEnvState, params: TEnvParams) -> Any:
        """The first observation of an episode started at `state` (`reset_to_level` with a start state).

        It is `observe(state, params)`. An env whose observation holds noise its state does not
        (UmbrellaChain's distractor bits, drawn afresh each step) defines this instead of
        `observe`, drawing the noise from `key` as its reset would.

        Args:
            key: The reset's key.
            state: The start state.
            params: The env's params.

        Returns:
            The observation, an element of `observation_space(params)`.

        Raises:
            NotImplementedError: For an env that defines neither this nor `observe`.
        """
        return self.observe(state, params)

    def is_terminal(self, state: TEnvState, params: TEnvParams) -> Array:
        """Whether `state` ended its episode by the MDP's own termination (optional).

        The `terminated` of the step into `state`; the time limit is `truncation`.
        `defines(env, "is_terminal")` says whether an env has it.

        Args:
            state: The state.
            params: The env's params.

        Returns:
            A bool scalar.

        Raises:
            NotImplementedError: For an env that does not define it.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define is_terminal")

    def observation_space(self, params: TEnvParams | None = None) -> spaces.Space:
        """The space of the observations `reset` and `step` return; subclasses implement it.

        Args:
            params: The env's params; None means `default_params`.

        Returns:
            A `jaxenvs.spaces.Space`, usually a `Box` (a `Dict` or `Tuple` for a structured observation).

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def action_space(self, params: TEnvParams | None = None) -> spaces.Space:
        """The space of the actions `step` takes; subclasses implement it.

        Args:
            params: The env's params; None means `default_params`.

        Returns:
            A `jaxenvs.spaces.Space`, usually a `Discrete` (a `Box` for continuous control).

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def render(self, state: TEnvState, params: TEnvParams | None = None) -> Array:
        """A picture of `state`; jit-able.

        Args:
            state: The state to draw.
            params: The env's params; None means `default_params`.

        Returns:
            A `uint8[H, W, 3]` array.

        Raises:
            NotImplementedError: If the env has no render.
        """
        raise NotImplementedError(f"{self.name} has no render yet")

    def truncation(self, state: TEnvState, params: TEnvParams) -> Array:
        """Whether the episode of `state` (just stepped into) is cut short.

        By default the time limit, `state.time >= params.max_steps_in_episode`. An adapter adds its
        library's own truncation, kept in its state.

        Args:
            state: The state the step reached.
            params: The env's params.

        Returns:
            A bool scalar.
        """
        return state.time >= params.max_steps_in_episode

    # --- provided -----------------------------------------------------------------------
    def reset(self, key: PRNGKey, params: TEnvParams | None = None) -> tuple[Array, TEnvState]:
        """Start an episode.

        Args:
            key: A JAX PRNG key.
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: If `key` is not one PRNG key.
        """
        check_key(key, self.name)
        params = self.default_params if params is None else params
        return self.reset_env(key, params)

    def step(
        self,
        key: PRNGKey,
        state: TEnvState,
        action: Any,
        params: TEnvParams | None = None,
    ) -> tuple[Array, TEnvState, Array, Array, Array, dict[str, Any]]:
        """One transition, no reset: the MDP's, from any state (a finished one too).

        Args:
            key: A JAX PRNG key.
            state: The current state.
            action: An action from `action_space(params)`.
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state, reward, terminated, truncated, info)`, `info` holding `discount`
            (`1 - terminated`) besides the env's own keys.

        Raises:
            TypeError: If `key` is not one PRNG key.
            ValueError: If `action` is concrete and outside the action space, or has the wrong shape.
        """
        check_key(key, self.name)
        params = self.default_params if params is None else params
        self._check_action_eagerly(action, params)
        obs, next_state, reward, terminated, info = self.step_env(key, state, action, params)
        terminated = jnp.asarray(terminated, dtype=jnp.bool_)
        truncated = jnp.asarray(self.truncation(next_state, params), dtype=jnp.bool_)
        reward = jnp.asarray(reward, jnp.float32)
        info = dict(info)
        info["discount"] = 1.0 - terminated.astype(jnp.float32)
        return obs, next_state, reward, terminated, truncated, info

    def reset_to_level(self, key: PRNGKey, level: Level, params: TEnvParams | None = None) -> tuple[Array, TEnvState]:
        """Start an episode from a level: settings, a start state, or both (`jaxenvs.levels`).

        With `level.state` None it is `reset(key, apply_level(params, level))`: at a level whose
        settings equal `params`' own values, exactly `reset(key, params)`. With a state, the
        episode starts there, its observation `start_observation(key, state, params)`
        (`observe`, unless the env says otherwise): from the state `reset(key, params)`
        returns, exactly `reset(key, params)`. Step the episode with
        `apply_level(params, level)` (`wrappers.Levels` does it for you).

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level`; its settings may set only the fields the params
                declare `per_episode=True` (`jaxenvs.levels.level_fields`).
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: `key` is not one PRNG key; the level is not a `Level`, or a value or
                state leaf has the wrong dtype or tree; the level has a state and the env
                defines neither `observe` nor `start_observation`.
            ValueError: a setting names a field that may not vary per episode, has the wrong
                shape, or (concrete) is outside its field's range.
        """
        check_key(key, self.name)
        params = self.default_params if params is None else params
        has_state = isinstance(level, Level) and level.state is not None
        if has_state and not (defines(self, "observe") or defines(self, "start_observation")):
            raise TypeError(
                f"{self.name} defines neither observe nor start_observation, so it cannot start from a "
                "given state (a level with settings only can)"
            )
        check_level(level, params, self.name, lambda: jax.eval_shape(self.reset_env, key, params)[1])
        params = apply_level(params, level)
        if not has_state:
            return self.reset_env(key, params)
        return self.start_observation(key, level.state, params), level.state

    @property
    def name(self) -> str:
        """The env's name (its class name)."""
        return type(self).__name__

    @property
    def num_actions(self) -> int:
        """The number of discrete actions (the flattened size for a continuous action)."""
        space = self.action_space(self.default_params)
        if isinstance(space, spaces.Discrete):
            return space.n
        if isinstance(space, spaces.MultiDiscrete):
            return int(jnp.prod(jnp.asarray(space.nvec)))
        return int(jnp.prod(jnp.asarray(space.shape)))

    @property
    def unwrapped(self) -> Environment:
        """The innermost env (the env itself; a wrapper answers its inner env's)."""
        return self

    def _check_action_eagerly(self, action: Any, params: TEnvParams) -> None:
        """A clear `ValueError` for an action outside the space: exactly, when the action is
        concrete (even while `step` is traced: a constant in a scan); by its shape alone
        when it is traced (shapes are static: a wrong one must not broadcast into garbage)."""
        leaves = jax.tree_util.tree_leaves(action)
        space = self.action_space(params)
        if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
            spaces.check_action_shape(space, action, self.name)
            return
        spaces.check_action(space, action, self.name)

    def __repr__(self) -> str:
        return f"{self.name}()"
