"""The `Environment` base class and the `EnvState` / `EnvParams` bases.

An environment is a set of pure functions over explicit state: `reset(key, params)` and
`step(key, state, action, params)`. A subclass implements `reset_env` and `step_env` (the MDP's
transition alone); this base adds the truncation (`truncation(state, params)`: by default the
time limit `params.max_steps_in_episode`, counted in `state.time`, like gymnasium's TimeLimit;
an adapter answers from its library too) and the `discount` info key.

`params=None` is resolved to `default_params` here, once, for every subclass's `reset`, `step`,
`observation_space`, `action_space`, `render` and `action_mask`: their bodies always see params.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Generic, TypeVar

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.params import ParamsMeta, integer

Array = jax.Array
PRNGKey = jax.Array


@struct.dataclass
class EnvState:
    """Base of every env state: `time` counts the steps taken in the current episode."""

    time: Array


@struct.dataclass
class EnvParams(metaclass=ParamsMeta):
    """Base of every env's params. Fields that fix array shapes are declared static; each
    field declares its valid values (`jaxenvs.params`), which `make` and `replace` check."""

    max_steps_in_episode: int = integer(1000, low=1)


TEnvState = TypeVar("TEnvState", bound=EnvState)
TEnvParams = TypeVar("TEnvParams", bound=EnvParams)


def check_key(key: Any, where: str) -> None:
    """A `TypeError` naming `where` unless `key` is one JAX PRNG key: a typed key of shape ()
    (`jax.random.key(seed)`) or a raw uint32[2] (`jax.random.PRNGKey(seed)`). Without it an
    int key fails deep inside a library, and an env whose reset ignores its key takes anything."""
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


# methods whose `params=None` means `self.default_params`, in every subclass
PARAMS_DEFAULTED = ("reset", "step", "observation_space", "action_space", "render", "action_mask")


def defaults_params(method):
    """`method` with a `params` of None (or left out) replaced by `self.default_params`.

    Applied to every subclass's `PARAMS_DEFAULTED` methods; decorate an env's own extra
    methods that take `params=None` with it too."""
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


def float_dtype() -> jnp.dtype:
    """float64 when `jax_enable_x64` is on (as the numpy references compute), else float32."""
    return jnp.result_type(float)


class Environment(Generic[TEnvState, TEnvParams]):
    """A pure-function environment.

    Subclasses implement `default_params`, `reset_env`, `step_env`, `observation_space`,
    `action_space`, and usually `render`. `step_env` returns
    `(obs, state, reward, terminated, info)`; `step` adds `truncation(state, params)` and
    `info["discount"]`.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in PARAMS_DEFAULTED:
            if name in cls.__dict__ and callable(cls.__dict__[name]):
                setattr(cls, name, defaults_params(cls.__dict__[name]))

    # --- to implement -------------------------------------------------------------------
    @property
    def default_params(self) -> TEnvParams:
        raise NotImplementedError

    def reset_env(self, key: PRNGKey, params: TEnvParams) -> tuple[Array, TEnvState]:
        raise NotImplementedError

    def step_env(
        self, key: PRNGKey, state: TEnvState, action: Any, params: TEnvParams
    ) -> tuple[Array, TEnvState, Array, Array, dict[str, Any]]:
        raise NotImplementedError

    def observation_space(self, params: TEnvParams | None = None) -> spaces.Space:
        raise NotImplementedError

    def action_space(self, params: TEnvParams | None = None) -> spaces.Space:
        raise NotImplementedError

    def render(self, state: TEnvState, params: TEnvParams | None = None) -> Array:
        """A `uint8[H, W, 3]` picture of `state`; jit-able."""
        raise NotImplementedError(f"{self.name} has no render yet")

    def truncation(self, state: TEnvState, params: TEnvParams) -> Array:
        """Whether the episode of `state` (just stepped into) is cut short: by default the
        time limit, `state.time >= params.max_steps_in_episode`. An adapter adds its
        library's own truncation, kept in its state."""
        return state.time >= params.max_steps_in_episode

    # --- provided -----------------------------------------------------------------------
    @defaults_params
    def reset(self, key: PRNGKey, params: TEnvParams | None = None) -> tuple[Array, TEnvState]:
        check_key(key, self.name)
        return self.reset_env(key, params)

    @defaults_params
    def step(
        self,
        key: PRNGKey,
        state: TEnvState,
        action: Any,
        params: TEnvParams | None = None,
    ) -> tuple[Array, TEnvState, Array, Array, Array, dict[str, Any]]:
        """One transition, no reset: `(obs, state, reward, terminated, truncated, info)`."""
        check_key(key, self.name)
        self._check_action_eagerly(action, params)
        obs, state, reward, terminated, info = self.step_env(key, state, action, params)
        terminated = jnp.asarray(terminated, dtype=jnp.bool_)
        truncated = jnp.asarray(self.truncation(state, params), dtype=jnp.bool_)
        info = dict(info)
        info["discount"] = 1.0 - terminated.astype(jnp.float32)
        return obs, state, jnp.asarray(reward, jnp.float32), terminated, truncated, info

    @property
    def name(self) -> str:
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
