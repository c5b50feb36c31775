"""`FrameStackObservation`: the last `stack_size` observations, oldest first.

Under auto-reset, `info["final_observation"]` holds the finished episode's stack, as
gymnasium's wrapper returns it; see docs/wrappers.md.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.normalize import batch_shape
from jaxenvs.wrappers.start import StartWrapper

PADDING_TYPES = ("reset", "zero")


def stack_space(space: spaces.Space, n: int) -> spaces.Space:
    """The space of `n` stacked members of `space` (gymnasium's `batch_space`).

    Args:
        space: A Box, Discrete, MultiDiscrete, Dict or Tuple space.
        n: The number of members stacked.

    Returns:
        The stacked space.

    Raises:
        TypeError: For any other space.
    """
    if isinstance(space, spaces.Box):
        return spaces.Box(
            np.broadcast_to(space.low, (n, *space.shape)),
            np.broadcast_to(space.high, (n, *space.shape)),
            dtype=space.dtype,
        )
    if isinstance(space, spaces.Discrete):
        if space.start == 0:
            return spaces.MultiDiscrete(np.full((n,), space.n), dtype=space.dtype)
        return spaces.Box(space.start, space.start + space.n - 1, shape=(n,), dtype=space.dtype)
    if isinstance(space, spaces.MultiDiscrete):
        return spaces.MultiDiscrete(np.broadcast_to(space.nvec, (n, *space.shape)), dtype=space.dtype)
    if isinstance(space, spaces.Dict):
        return spaces.Dict({k: stack_space(s, n) for k, s in space.spaces.items()})
    if isinstance(space, spaces.Tuple):
        return spaces.Tuple([stack_space(s, n) for s in space.spaces])
    raise TypeError(f"FrameStackObservation cannot stack a {type(space).__name__} space")


def zero_element(space: spaces.Space) -> Any:
    """The member of `space` closest to zero (gymnasium's `create_zero_array`).

    Args:
        space: A Box, Discrete, MultiDiscrete, Dict or Tuple space.

    Returns:
        The element (a tree of arrays for Dict and Tuple).

    Raises:
        TypeError: For any other space.
    """
    if isinstance(space, spaces.Box):
        return jnp.asarray(np.clip(np.zeros(space.shape), space.low, space.high), space.dtype)
    if isinstance(space, spaces.Discrete):
        return jnp.asarray(space.start, space.dtype)
    if isinstance(space, spaces.MultiDiscrete):
        return jnp.zeros(space.shape, space.dtype)
    if isinstance(space, spaces.Dict):
        return {k: zero_element(s) for k, s in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(zero_element(s) for s in space.spaces)
    raise TypeError(f"FrameStackObservation has no zero element for a {type(space).__name__} space")


@struct.dataclass
class FrameStackObservationState:
    """`FrameStackObservation`'s state.

    Attributes:
        env_state: The wrapped env's state.
        stack: The observation tree, each leaf with a leading `stack_size` axis (after the batch
            axis over `make_vec`).
    """

    env_state: object
    stack: Any


class FrameStackObservation(StartWrapper):
    """Observations stacked along a new leading axis of `stack_size`, oldest first.

    Under auto-reset the step that ends an episode returns the new episode's stack, started
    fresh, and `info["final_observation"]` is the finished episode's stack with its terminal
    observation last. Over `make_vec` each env keeps its own stack. `reset_to_level` fills a
    fresh stack from the level's first observation, as `reset` does from its own.

    Args:
        env: The env to wrap.
        stack_size: The number of observations stacked (>= 1).
        padding_type: `"reset"` (pad a new episode's stack with its first observation), `"zero"`
            (with the observation space's zero element) or an observation to pad with.

    Raises:
        TypeError: If `stack_size` is not an int, or the observation space cannot be stacked.
        ValueError: If `stack_size` < 1, or `padding_type` is neither a padding type nor an
            observation in the space.

    Examples:
        >>> import jax, jaxenvs
        >>> from jaxenvs.wrappers import FrameStackObservation
        >>> env, params = jaxenvs.make("CartPole-v1")
        >>> env = FrameStackObservation(env, stack_size=4)
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> obs.shape  # the first observation, repeated
        (4, 4)
    """

    def __init__(self, env, stack_size: int, *, padding_type: str | Any = "reset"):
        super().__init__(env)
        if isinstance(stack_size, bool) or not isinstance(stack_size, (int, np.integer)):
            raise TypeError(f"FrameStackObservation: stack_size must be an int, got {type(stack_size).__name__}")
        if stack_size < 1:
            raise ValueError(f"FrameStackObservation: stack_size must be >= 1, got {stack_size}")
        self.stack_size = int(stack_size)
        space = env.observation_space(env.default_params)
        stack_space(space, 1)  # fails early on a space it cannot stack
        if isinstance(padding_type, str):
            if padding_type not in PADDING_TYPES:
                raise ValueError(
                    f"FrameStackObservation: padding_type must be one of {PADDING_TYPES} or an observation, "
                    f"got {padding_type!r}"
                )
            self.padding_value = zero_element(space) if padding_type == "zero" else None
        else:
            if not bool(space.contains(padding_type)):
                raise ValueError(
                    f"FrameStackObservation: padding_type {padding_type!r} is neither one of {PADDING_TYPES} "
                    f"nor an observation in {space!r}"
                )
            self.padding_value = jax.tree_util.tree_map(jnp.asarray, padding_type)
            padding_type = "_custom"
        self.padding_type = padding_type
        self._batch = batch_shape(env)

    def _per_env(self, fn):
        return jax.vmap(fn) if self._batch else fn

    def _fresh(self, obs):
        """A new episode's stack: padding, then `obs` last."""

        def one(o):
            pad = o if self.padding_value is None else self.padding_value

            def leaf(p, x):
                p = jnp.broadcast_to(jnp.asarray(p, x.dtype), (self.stack_size - 1, *x.shape))
                return jnp.concatenate([p, x[None]])

            return jax.tree_util.tree_map(leaf, pad, o)

        return self._per_env(one)(obs)

    def _push(self, stack, obs):
        """`stack` with its oldest observation dropped and `obs` appended."""

        def one(s, o):
            return jax.tree_util.tree_map(lambda a, x: jnp.concatenate([a[1:], x[None].astype(a.dtype)]), s, o)

        return self._per_env(one)(stack, obs)

    def _start(self, obs, env_state, params, previous=None):
        """A fresh stack of the first observation (a stack never outlives its episode)."""
        stack = self._fresh(obs)
        return stack, FrameStackObservationState(env_state=env_state, stack=stack)

    def _env_state(self, state):
        """The wrapped env's state."""
        return state.env_state

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; the new observation pushed onto the stack."""
        obs, env_state, reward, terminated, truncated, info = self.env.step(key, state.env_state, action, params)
        if "final_observation" in info:
            # auto-reset below: `obs` begins a new episode wherever one ended
            done = jnp.logical_or(terminated, truncated)
            final = self._push(state.stack, info["final_observation"])
            ongoing = self._push(state.stack, obs)
            fresh = self._fresh(obs)

            def pick(new, old):
                return jnp.where(jnp.reshape(done, done.shape + (1,) * (old.ndim - done.ndim)), new, old)

            stack = jax.tree_util.tree_map(pick, fresh, ongoing)
            info = dict(info, final_observation=final)
        else:
            stack = self._push(state.stack, obs)
        return stack, FrameStackObservationState(env_state=env_state, stack=stack), reward, terminated, truncated, info

    @defaults_params
    def observation_space(self, params=None):
        """The space of the stacks."""
        return stack_space(self.env.observation_space(params), self.stack_size)

    @defaults_params
    def render(self, state, params=None):
        """A picture of `state`."""
        return self.env.render(state.env_state, params)
