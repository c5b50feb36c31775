"""`FlattenObservation`: observations as one float32 vector (dicts and tuples concatenated).

A dict is laid out in sorted key order, as `jax.tree_util` orders a plain dict, whatever the
order of the Dict space or of the observation (an `OrderedDict` too): the flattened space's
bounds and the flattened values follow the same keys.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import spaces
from jaxenvs.wrappers.base import Wrapper


def _flat_size(space: spaces.Space) -> int:
    if isinstance(space, spaces.Dict):
        return sum(_flat_size(s) for s in space.spaces.values())
    if isinstance(space, spaces.Tuple):
        return sum(_flat_size(s) for s in space.spaces)
    return math.prod(space.shape)


def _flat_bounds(space: spaces.Space) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(space, (spaces.Dict, spaces.Tuple)):
        if isinstance(space, spaces.Dict):
            subs = [space.spaces[k] for k in sorted(space.spaces)]
        else:
            subs = space.spaces
        lows, highs = zip(*(_flat_bounds(s) for s in subs))
        return np.concatenate(lows), np.concatenate(highs)
    if isinstance(space, spaces.Discrete):
        return np.array([space.start], float), np.array([space.start + space.n - 1], float)
    if isinstance(space, spaces.MultiDiscrete):
        return np.zeros(space.nvec.size), (space.nvec - 1).ravel().astype(float)
    return space.low.ravel().astype(float), space.high.ravel().astype(float)


def _leaves(obs) -> list:
    """The leaves of `obs`, every mapping's in sorted key order (`tree_leaves` would keep an
    OrderedDict's insertion order)."""
    if isinstance(obs, Mapping):
        return [leaf for k in sorted(obs) for leaf in _leaves(obs[k])]
    if isinstance(obs, (tuple, list)):
        return [leaf for item in obs for leaf in _leaves(item)]
    return jax.tree_util.tree_leaves(obs)


def flatten(obs) -> jax.Array:
    """Concatenate every leaf of `obs` (dicts in sorted key order) as float32."""
    return jnp.concatenate([jnp.ravel(leaf).astype(jnp.float32) for leaf in _leaves(obs)])


class FlattenObservation(Wrapper):
    def reset(self, key, params=None):
        obs, state = self._env.reset(key, self._params(params))
        return flatten(obs), state

    def step(self, key, state, action, params=None):
        obs, state, reward, terminated, truncated, info = self._env.step(key, state, action, self._params(params))
        if "final_observation" in info:
            info = dict(info, final_observation=flatten(info["final_observation"]))
        return flatten(obs), state, reward, terminated, truncated, info

    def observation_space(self, params=None):
        inner = self._env.observation_space(self._params(params))
        low, high = _flat_bounds(inner)
        return spaces.Box(low, high, shape=(_flat_size(inner),), dtype=jnp.float32)
