"""`Env` (the runtime interface), `Environment` (the base env authors subclass), `EnvState` / `EnvParams`.

Users, wrappers and the batch engine call `Env`'s methods. An `Environment` subclass
implements `reset_env` and `step_env` (the MDP's transition alone); the base's `reset` and `step`
resolve `params=None` and add truncation and `info["discount"]`. What happens past the end of
an episode is a layer's choice (`wrappers.AutoReset` resets, `wrappers.Absorbing` stays):
docs/batching.md.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
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


def resolve_params(env: Any, params: Any) -> Any:
    """What `params=None` means everywhere in jaxenvs: `env.default_params`.

    The one rule: `Environment.reset`, `step` and `reset_to_level`, every method decorated with
    `defaults_params`, and the exports call this.

    Args:
        env: The env whose defaults stand in.
        params: The params given, or None.

    Returns:
        `params`, or `env.default_params` where it is None.
    """
    return env.default_params if params is None else params


def defaults_params(method):
    """Decorate a method so that a `params` of None (or left out) becomes `self.default_params`.

    An env decorates its own methods that take `params=None` (`observation_space`,
    `action_space`, `render`, ...) with this, as every built-in env and wrapper does; it is
    `resolve_params` at the method's door.

    Args:
        method: A method with a `params` parameter (others are returned unchanged, as is a method
            already decorated).

    Returns:
        The decorated method.

    Example:
        >>> class Tiny(Environment):
        ...     @defaults_params
        ...     def action_space(self, params=None):
        ...         return spaces.Discrete(params.max_steps_in_episode)
        ...     @property
        ...     def default_params(self):
        ...         return EnvParams(max_steps_in_episode=3)
        >>> Tiny().action_space().n
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
            args = (*args[:position], resolve_params(self, args[position]), *args[position + 1 :])
        else:
            kwargs["params"] = resolve_params(self, kwargs.get("params"))
        return method(self, *args, **kwargs)

    with_params._defaults_params = True
    return with_params


@functools.cache
def declared_types(cls: type) -> tuple[type | None, type | None]:
    """The state and params classes named in the `Environment[State, Params]` base of `cls`.

    Args:
        cls: An `Environment` subclass.

    Returns:
        `(state_class, params_class)`, from `cls` or its nearest ancestor that names them; None
        for one it names nowhere.
    """
    state_class = params_class = None
    for klass in cls.__mro__:
        for base in klass.__dict__.get("__orig_bases__", ()):
            origin = typing.get_origin(base)
            if not (isinstance(origin, type) and issubclass(origin, Environment)):
                continue
            for arg in typing.get_args(base):
                if isinstance(arg, type) and issubclass(arg, EnvParams) and params_class is None:
                    params_class = arg
                elif isinstance(arg, type) and issubclass(arg, EnvState) and state_class is None:
                    state_class = arg
    return state_class, params_class


def _check_type(value: Any, expected: type | None, what: str, where: str) -> None:
    """A `TypeError` naming both types when `value` (params or a state) is another env's."""
    if expected is None or isinstance(value, expected):
        return
    raise TypeError(
        f"{where}: {what} must be a {expected.__name__} (or a subclass), got a {type(value).__name__}: "
        f"{what} of another env?"
    )


def float_dtype() -> jnp.dtype:
    """The float dtype continuous dynamics compute in.

    Returns:
        float64 when `jax_enable_x64` is on (as the numpy references compute), else float32.
    """
    return jnp.result_type(float)


class Env(Generic[TEnvState, TEnvParams]):
    """The runtime interface: what training code, wrappers and the batch engine call.

    `reset`, `step`, `reset_to_level`, the spaces, `render` and `default_params`. Env authors
    subclass `Environment`, which implements them from a few hooks; a `wrappers.Wrapper`
    implements them around another `Env`.

    Optional capabilities are declared here once, with their defaults; an env or wrapper that
    has one sets it (an env by defining the method, a wrapper by answering for the env it
    wraps). Code asks `env.observe is not None`; it never probes classes.

    Attributes:
        observe: `observe(state, params) -> obs`, the observation of a state (what `reset` and
            `step` return with it), or None where states do not determine observations. A
            batch rebuilds its observations from its states with it.
        is_terminal: `is_terminal(state, params) -> bool`, whether a state ended its episode by
            the MDP's own termination, or None.
        truncation: `truncation(state, params) -> bool`, whether the episode of a state just
            stepped into is cut short, or None where it cannot be read from the state.
        action_mask: `action_mask(state, params) -> bool[num_actions]`, the legal actions of a
            state, or None (every action is legal).
        reset_after: `reset_after(key, finished_state, params) -> (obs, state)`, the reset that
            follows a finished episode where it depends on that episode (`wrappers.Levels`'
            replay), or None: auto-reset then calls `reset(key, params)`.
        reset_ignores_key: True declares that `reset` gives the same episode start whatever its
            key (DeepSea, Asterix, Pong), so a batch's auto-reset computes one reset instead of
            one per finished env. `testing.check_env` checks it.
        reset_rows: Declared by a family whose raw env is already a batch with its own
            emulators: `reset_rows(done, key, obs, state, params) -> (obs, state)` resets the
            rows where `done` and keeps the others. The builder then adds no batch layer, and
            auto-reset calls it instead of resetting env by env.
    """

    observe: Callable[[Any, Any], Any] | None = None
    is_terminal: Callable[[Any, Any], Array] | None = None
    truncation: Callable[[Any, Any], Array] | None = None
    action_mask: Callable[[Any, Any], Array] | None = None
    reset_after: Callable[[PRNGKey, Any, Any], tuple[Any, Any]] | None = None
    reset_ignores_key: bool = False
    reset_rows: Callable[[Array, PRNGKey, Any, Any, Any], tuple[Any, Any]] | None = None

    @property
    def default_params(self) -> TEnvParams:
        """The env's default params (what `params=None` means)."""
        raise NotImplementedError

    def reset(self, key: PRNGKey, params: TEnvParams | None = None) -> tuple[Any, TEnvState]:
        """Start an episode.

        Args:
            key: A JAX PRNG key.
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state)`.

        Raises:
            NotImplementedError: In the interface (an env or wrapper implements it).
        """
        raise NotImplementedError

    def step(
        self, key: PRNGKey, state: TEnvState, action: Any, params: TEnvParams | None = None
    ) -> tuple[Any, TEnvState, Array, Array, Array, dict[str, Any]]:
        """One transition.

        Args:
            key: A JAX PRNG key.
            state: The current state.
            action: An action from `action_space(params)`.
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state, reward, terminated, truncated, info)`.

        Raises:
            NotImplementedError: In the interface (an env or wrapper implements it).
        """
        raise NotImplementedError

    def reset_to_level(self, key: PRNGKey, level: Level, params: TEnvParams | None = None) -> tuple[Any, TEnvState]:
        """Start an episode from a level: settings, a start state, or both (`jaxenvs.levels`).

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level`.
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state)`.

        Raises:
            NotImplementedError: In the interface (an env or wrapper implements it).
        """
        raise NotImplementedError

    def observation_space(self, params: TEnvParams | None = None) -> spaces.Space:
        """The space of the observations `reset` and `step` return.

        Args:
            params: The env's params; None means `default_params`.

        Returns:
            A `jaxenvs.spaces.Space`.

        Raises:
            NotImplementedError: In the interface (an env or wrapper implements it).
        """
        raise NotImplementedError

    def action_space(self, params: TEnvParams | None = None) -> spaces.Space:
        """The space of the actions `step` takes.

        Args:
            params: The env's params; None means `default_params`.

        Returns:
            A `jaxenvs.spaces.Space`.

        Raises:
            NotImplementedError: In the interface (an env or wrapper implements it).
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
    def unwrapped(self) -> Env:
        """The innermost env (the env itself; a wrapper answers its inner env's)."""
        return self

    def __repr__(self) -> str:
        return f"{self.name}()"


class Environment(Env[TEnvState, TEnvParams]):
    """The base an env author subclasses: a pure-function environment.

    Subclasses implement `reset_env`, `step_env`, `observation_space`, `action_space`, and
    usually `render`; `default_params` is `Params()`, of the params class named in
    `Environment[State, Params]`, unless the env overrides it. `step_env` returns
    `(obs, state, reward, terminated, info)`; `step` adds `truncation(state, params)` and
    `info["discount"]`. `step` is the transition alone, also from a finished state: what comes
    after the end of an episode is a layer's choice (`wrappers.AutoReset` resets,
    `wrappers.Absorbing` stays; `make(id)` and `make(id, autoreset=False)` apply them).

    Optional hooks, declared on `Env` with the default None (an env without them works, with
    less), gymnax 1.x's names where gymnax has them:

    - `observe(state, params)`: the observation of `state`, what `reset` and `step` return with
      it. It is the one method to override to change an observation: a built-in env's
      `reset_env` and `step_env` build their observation with it, and `make_vec` rebuilds the
      batch's observations with it (override `observation_space` to match).
    - `is_terminal(state, params)`: whether `state` ended its episode by the MDP's own
      termination (the time limit is `truncation`).
    - `start_observation(key, state, params)`: the first observation of an episode started at a
      given state (`reset_to_level`), where it holds noise the state does not (UmbrellaChain);
      `observe` otherwise.
    - `action_mask(state, params)`: the legal actions of a state.
    - `reset_ignores_key = True`: `reset` gives the same start whatever its key.

    `params=None` means `default_params` (`resolve_params`) in `reset`, `step` and
    `reset_to_level`; decorate an env's own methods that take `params=None` with
    `defaults_params`. Params or a state of another env is a `TypeError` naming both types
    (the classes named in `Environment[State, Params]`; subclasses pass).

    Attributes:
        start_observation: `start_observation(key, state, params) -> obs`, the first observation
            of an episode started at a given state, or None (`observe` then).
        default_params: The env's default params.
        name: The env's name (its class name).
        num_actions: The number of discrete actions (the flattened size for a continuous one).
        unwrapped: The innermost env.
    """

    start_observation: Callable[[PRNGKey, Any, Any], Any] | None = None

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
        params_class = declared_types(type(self))[1]
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
    def _checked(self, key: Any, params: Any, state: Any = None) -> Any:
        """The resolved params, after checking the key, and that params and state are this env's."""
        check_key(key, self.name)
        params = resolve_params(self, params)
        state_class, params_class = declared_types(type(self))
        _check_type(params, params_class, "params", self.name)
        if state is not None:
            _check_type(state, state_class, "state", self.name)
        return params

    def reset(self, key: PRNGKey, params: TEnvParams | None = None) -> tuple[Array, TEnvState]:
        """Start an episode.

        Args:
            key: A JAX PRNG key.
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: If `key` is not one PRNG key, or `params` are another env's.
        """
        params = self._checked(key, params)
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
            TypeError: If `key` is not one PRNG key, or `params` or `state` are another env's.
            ValueError: If `action` is concrete and outside the action space, or has the wrong shape.
        """
        params = self._checked(key, params, state)
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
        (`observe`, unless the env defines `start_observation`): from the state `reset(key,
        params)` returns, exactly `reset(key, params)`. Step the episode with
        `apply_level(params, level)` (`wrappers.Levels` does it for you).

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level`; its settings may set only the fields the params
                declare `per_episode=True` (`jaxenvs.levels.level_fields`).
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state)`.

        Raises:
            TypeError: `key` is not one PRNG key; `params` are another env's; the level is not a
                `Level`, or a value or state leaf has the wrong dtype or tree; the level has a
                state and the env defines neither `observe` nor `start_observation`.
            ValueError: a setting names a field that may not vary per episode, has the wrong
                shape, or (concrete) is outside its field's range.
        """
        params = self._checked(key, params)
        has_state = isinstance(level, Level) and level.state is not None
        if has_state and self.observe is None and self.start_observation is None:
            raise TypeError(
                f"{self.name} defines neither observe nor start_observation, so it cannot start from a "
                "given state (a level with settings only can)"
            )
        check_level(level, params, self.name, lambda: jax.eval_shape(self.reset_env, key, params)[1])
        params = apply_level(params, level)
        if not has_state:
            return self.reset_env(key, params)
        if self.start_observation is not None:
            return self.start_observation(key, level.state, params), level.state
        return self.observe(level.state, params), level.state

    def _check_action_eagerly(self, action: Any, params: TEnvParams) -> None:
        """A clear `ValueError` for an action the reference refuses (`spaces.check_action`):
        exactly, when the action is concrete (even while `step` is traced: a constant in a
        scan); by its shape alone when it is traced (shapes are static: a wrong one must not
        broadcast into garbage). A finite number outside a float Box passes, eagerly as under
        `jit`: the step does with it what the reference does (the continuous envs clip it)."""
        leaves = jax.tree_util.tree_leaves(action)
        space = self.action_space(params)
        if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
            spaces.check_action_shape(space, action, self.name)
            return
        spaces.check_action(space, action, self.name)
