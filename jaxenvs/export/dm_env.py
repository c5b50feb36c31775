"""A jaxenvs env as a `dm_env.Environment` (the API Acme and other DeepMind code consume).

    from jaxenvs.export.dm_env import JaxDmEnv
    env = JaxDmEnv("Catch-bsuite", seed=0)
    timestep = env.reset()
    while not timestep.last():
        timestep = env.step(0)

Time steps follow dm_env: `reset()` gives `StepType.FIRST` (reward and discount `None`);
`step` gives `MID` with discount 1, or `LAST` when the episode ends, with discount 0 on
termination and 1 on truncation (the time limit), so a learner bootstraps exactly where
gymnasium's `truncated` says it should. A `step` after `LAST` starts a new episode (dm_env's
rule), its action ignored. Specs come from the env's spaces: Discrete -> `DiscreteArray`
(`BoundedArray` if it does not start at 0), Box and MultiDiscrete -> `BoundedArray`, Dict and
Tuple -> dicts and tuples of specs. Observations are numpy arrays; reset and step are jitted.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from jaxenvs.export import missing_extra

try:
    import dm_env
    from dm_env import specs
except ImportError as e:
    raise missing_extra(e, "export", __name__) from e

from jaxenvs import spaces
from jaxenvs.export._bridge import check_actions, compiled, host, key_from_seed, to_jax

__all__ = ["JaxDmEnv", "spec_from_space"]


def spec_from_space(space: spaces.Space, name: str) -> Any:
    """The dm_env spec holding the values of a jaxenvs space."""
    if isinstance(space, spaces.Dict):
        return {k: spec_from_space(s, k) for k, s in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(spec_from_space(s, f"{name}_{i}") for i, s in enumerate(space.spaces))
    dtype = np.dtype(space.dtype)
    if isinstance(space, spaces.Discrete):
        if space.start == 0:
            return specs.DiscreteArray(space.n, dtype=dtype, name=name)
        return specs.BoundedArray((), dtype, space.start, space.start + space.n - 1, name=name)
    if isinstance(space, spaces.MultiDiscrete):
        return specs.BoundedArray(space.shape, dtype, np.zeros(space.shape, dtype), space.nvec - 1, name=name)
    if isinstance(space, spaces.Box):
        if dtype == np.bool_:
            return specs.Array(space.shape, dtype, name=name)
        return specs.BoundedArray(space.shape, dtype, space.low.astype(dtype), space.high.astype(dtype), name=name)
    raise TypeError(f"no dm_env spec for {space!r}")


def _numpy(x: Any) -> Any:
    return jax.tree_util.tree_map(np.array, host(x))


class JaxDmEnv(dm_env.Environment):
    """One jaxenvs env (an id, or a raw env with `params`) as a `dm_env.Environment`.

    seed: the seed of the key stream (every reset and step draws from it).
    overrides: params fields, e.g. `max_steps_in_episode=100`.
    """

    def __init__(self, env_id: Any, params: Any = None, seed: int = 0, **overrides: Any):
        self._fns = compiled(env_id, params, overrides)
        env, params = self.jax_env, self.params = self._fns.env, self._fns.params
        self._obs_space = env.observation_space(params)
        self._action_space = env.action_space(params)
        self._key = key_from_seed(seed)
        self._state: Any = None
        self._ended = True

    def reset(self) -> dm_env.TimeStep:
        self._key, obs, self._state = self._fns.reset(self._key)
        self._ended = False
        return dm_env.restart(_numpy(obs))

    def step(self, action: Any) -> dm_env.TimeStep:
        # checked first: after LAST the action is ignored (dm_env starts a new episode), but an
        # invalid one is still a caller's bug
        check_actions(action, self._action_space, self.jax_env.name)
        if self._ended:
            return self.reset()
        self._key, obs, self._state, reward, terminated, truncated, _ = self._fns.step(
            self._key, self._state, to_jax(action, self._action_space)
        )
        obs, reward, terminated, truncated = _numpy((obs, reward, terminated, truncated))
        reward = np.float32(reward)
        if terminated:
            self._ended = True
            # not dm_env.termination: its discount is a float64 0.0, the spec says float32
            return dm_env.TimeStep(dm_env.StepType.LAST, reward, np.float32(0.0), obs)
        if truncated:
            self._ended = True
            return dm_env.truncation(reward, obs, discount=np.float32(1.0))
        return dm_env.transition(reward, obs, discount=np.float32(1.0))

    def observation_spec(self) -> Any:
        return spec_from_space(self._obs_space, "observation")

    def action_spec(self) -> Any:
        return spec_from_space(self._action_space, "action")

    def reward_spec(self) -> specs.Array:
        return specs.Array((), np.float32, name="reward")

    def discount_spec(self) -> specs.BoundedArray:
        return specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    @property
    def state(self) -> Any:
        """The current JAX state (for inspection; do not mutate)."""
        return self._state
