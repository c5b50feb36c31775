"""A jaxenvs env as a `dm_env.Environment` (the API Acme and other DeepMind code consume).

Discount 0 on termination and 1 on truncation; a `step` after `LAST` starts a new episode.
dm_env's `reset()` takes no argument, so levels come only from a sampler given when the env is
made (`levels=`). See docs/export.md.
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

from jaxenvs.export._bridge import Reconstructs, check_actions, check_not_forked, compiled, host, key_from_seed
from jaxenvs.spaces import convert
from jaxenvs.spaces.convert import cast

__all__ = ["JaxDmEnv", "spec_from_space"]


# the dm_env spec of a space: its old name here, `jaxenvs.spaces.convert.to_dm_env` now
spec_from_space = convert.to_dm_env


def _numpy(x: Any) -> Any:
    return jax.tree_util.tree_map(np.array, host(x))


class JaxDmEnv(Reconstructs, dm_env.Environment):
    """One jaxenvs env as a `dm_env.Environment`; reset and step are jitted, observations numpy.

    `reset()` gives `StepType.FIRST` (reward and discount None); `step` gives `MID` with
    discount 1, or `LAST` when the episode ends, with discount 0 on termination and 1 on
    truncation (the time limit). A `step` after `LAST` starts a new episode (dm_env's rule), its
    action ignored. It pickles by reconstruction (the id, params and overrides, and its run:
    key and state), so a copy steps on exactly as the original; in a process forked after JAX
    started it raises a `RuntimeError` (start worker processes with "spawn").

    dm_env's `reset()` takes no argument: a level cannot be given to one. Every episode starts
    from a level of a sampler given here (`levels=`, as `make_vec(levels=...)`), or use the
    gymnasium export (`reset(options={"level": level})`).

    Args:
        env_id: A registered id, or a raw `jaxenvs.Environment` (with `params`).
        params: The raw env's params; its `default_params` when None.
        seed: The seed of the key stream (every reset and step draws from it).
        levels: `sample(key) -> Level`: every episode starts from its own sampled level and runs
            under it (the state a `wrappers.LevelState`). Define it at module level for the env
            to pickle.
        **overrides: Params fields, e.g. `max_steps_in_episode=100`.

    Raises:
        ValueError: If `replay_levels` is given (make_vec's option).
    """

    PICKLED = ("_key", "_state", "_ended")

    def __init__(self, env_id: Any, params: Any = None, seed: int = 0, levels: Any = None, **overrides: Any):
        check_not_forked(env_id)
        self.remember_arguments(env_id, params=params, seed=seed, levels=levels, **overrides)
        self._fns = compiled(env_id, params, overrides, levels=levels)
        env, params = self.jax_env, self.params = self._fns.env, self._fns.params
        self._obs_space = env.observation_space(params)
        self._action_space = env.action_space(params)
        self._key = key_from_seed(seed)
        self._state: Any = None
        self._ended = True

    def reset(self) -> dm_env.TimeStep:
        """Start an episode.

        Returns:
            A `FIRST` time step.
        """
        check_not_forked(self.jax_env.name)
        self._key, obs, self._state = self._fns.reset(self._key)
        self._ended = False
        return dm_env.restart(_numpy(obs))

    def step(self, action: Any) -> dm_env.TimeStep:
        # checked first: after LAST the action is ignored (dm_env starts a new episode), but an
        # invalid one is still a caller's bug
        """One step, or a new episode after `LAST`.

        Args:
            action: An action of `action_spec()` (numpy or Python).

        Returns:
            A `MID` or `LAST` time step (`FIRST` after `LAST`).

        Raises:
            ValueError: For an action outside the action space (checked before the step).
        """
        check_not_forked(self.jax_env.name)
        check_actions(action, self._action_space, self.jax_env.name)
        if self._ended:
            return self.reset()
        self._key, obs, self._state, reward, terminated, truncated, _ = self._fns.step(
            self._key, self._state, cast(action, self._action_space)
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
        """The spec of the observations.

        Returns:
            The spec (a dict or tuple of specs for Dict and Tuple spaces).
        """
        return spec_from_space(self._obs_space, "observation")

    def action_spec(self) -> Any:
        """The spec of the actions.

        Returns:
            The spec (a dict or tuple of specs for Dict and Tuple spaces).
        """
        return spec_from_space(self._action_space, "action")

    def reward_spec(self) -> specs.Array:
        """The spec of the rewards.

        Returns:
            A float32 scalar `Array` spec.
        """
        return specs.Array((), np.float32, name="reward")

    def discount_spec(self) -> specs.BoundedArray:
        """The spec of the discounts.

        Returns:
            A float32 scalar `BoundedArray` spec in [0, 1].
        """
        return specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    @property
    def state(self) -> Any:
        """The current JAX state (for inspection; do not mutate)."""
        return self._state
