"""`TransformObservation` and `TransformReward`: a function applied to each observation or reward.

`func` must be a JAX function (it runs under `jit`); over `make_vec` it receives the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from jaxenvs import spaces
from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.start import StartWrapper


def _check_callable(wrapper: str, func: Any) -> None:
    if not callable(func):
        raise TypeError(f"{wrapper}: func must be callable (a JAX function), got {type(func).__name__}")


class TransformObservation(StartWrapper):
    """Observations replaced by `func(obs)` (gymnasium's and PureJaxRL's wrapper of the same name).

    Unlike gymnasium's, it also transforms `info["final_observation"]` (the terminal observation
    kept by auto-reset), so that it stays comparable to the observations returned.

    Args:
        env: The env to wrap.
        func: A JAX function of an observation (of the batch, over `make_vec`).
        observation_space: The space of the transformed observations; None keeps the wrapped
            env's (right only when `func` keeps observations inside it, e.g. a clip).

    Raises:
        TypeError: If `func` is not callable, or `observation_space` is neither a
            `jaxenvs.spaces.Space` nor None.

    Examples:
        >>> import jax, jax.numpy as jnp, jaxenvs
        >>> from jaxenvs.wrappers import TransformObservation
        >>> env, params = jaxenvs.make("CartPole-v1")
        >>> env = TransformObservation(env, lambda obs: jnp.clip(obs, -0.01, 0.01))
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> float(abs(obs).max()) <= 0.01
        True
    """

    def __init__(self, env, func: Callable[[Any], Any], observation_space: spaces.Space | None = None):
        super().__init__(env)
        _check_callable("TransformObservation", func)
        if observation_space is not None and not isinstance(observation_space, spaces.Space):
            raise TypeError(
                "TransformObservation: observation_space must be a jaxenvs.spaces.Space or None, "
                f"got {type(observation_space).__name__}"
            )
        self.func = func
        self._observation_space = observation_space

    def _start(self, obs, env_state, params, previous=None):
        """The first observation transformed (from `reset` and `reset_to_level` alike)."""
        return self.func(obs), env_state

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; the observation (and `info["final_observation"]`) transformed."""
        obs, state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        if "final_observation" in info:
            info = dict(info, final_observation=self.func(info["final_observation"]))
        return self.func(obs), state, reward, terminated, truncated, info

    @defaults_params
    def observation_space(self, params=None):
        """The space given to the constructor, else the wrapped env's."""
        if self._observation_space is not None:
            return self._observation_space
        return self.env.observation_space(params)


class TransformReward(StartWrapper):
    """Rewards replaced by `func(reward)` (returned as float32).

    Args:
        env: The env to wrap.
        func: A JAX function of a reward (of the batch's rewards, over `make_vec`).

    Raises:
        TypeError: If `func` is not callable.

    Examples:
        >>> import jax, jaxenvs
        >>> from jaxenvs.wrappers import TransformReward
        >>> env, params = jaxenvs.make("CartPole-v1")
        >>> env = TransformReward(env, lambda reward: 0.1 * reward)
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> obs, state, reward, *_ = env.step(jax.random.key(1), state, 0, params)
        >>> round(float(reward), 6)
        0.1
    """

    def __init__(self, env, func: Callable[[Any], Any]):
        super().__init__(env)
        _check_callable("TransformReward", func)
        self.func = func

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; the reward transformed."""
        obs, state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        return obs, state, jnp.asarray(self.func(reward), jnp.float32), terminated, truncated, info
