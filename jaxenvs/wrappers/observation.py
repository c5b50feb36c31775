"""`FlattenObservation`: observations as one float32 vector (dicts and tuples concatenated).

A dict is laid out in sorted key order, as `jax.tree_util` orders a plain dict, whatever the
order of the Dict space or of the observation (an `OrderedDict` too): the flattened space's
bounds and the flattened values follow the same keys.
"""

from __future__ import annotations

from jaxenvs import spaces
from jaxenvs.wrappers.base import Wrapper


class FlattenObservation(Wrapper):
    def reset(self, key, params=None):
        obs, state = self.env.reset(key, params)
        return spaces.flatten(obs), state

    def step(self, key, state, action, params=None):
        obs, state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        if "final_observation" in info:
            info = dict(info, final_observation=spaces.flatten(info["final_observation"]))
        return spaces.flatten(obs), state, reward, terminated, truncated, info

    def observation_space(self, params=None):
        return spaces.flatten_space(self.env.observation_space(params))
