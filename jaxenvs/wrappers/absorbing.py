"""`Absorbing`: past the end of an episode, a step changes nothing (the raw env of `make`).

`make(id, autoreset=False)` applies it; `AutoReset` and `make_vec` never need it, since they
reset an episode in the step that ends it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs.environment import defaults_params, defines
from jaxenvs.wrappers.base import Wrapper, transparent_raw


class Absorbing(Wrapper):
    """A step from a finished state returns it unchanged, with reward 0 and the same flags.

    "Finished" is read from the state: the raw env's `is_terminal` or its `truncation`. For an
    env without `observe` and `is_terminal` (or under a layer that changes states), the step
    passes through unchanged.

    Args:
        env: The env (no auto-reset of its own).
    """

    keeps_observation = True  # a finished state's observation is the raw env's `observe`

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; from a finished state, the same state and observation, reward 0.

        Returns:
            `(obs, state, reward, terminated, truncated, info)`.
        """
        obs, next_state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        raw = transparent_raw(self.env)
        if raw is None or not (defines(raw, "is_terminal") and defines(raw, "observe")):
            return obs, next_state, reward, terminated, truncated, info
        was_terminated = jnp.asarray(raw.is_terminal(state, params), jnp.bool_)
        was_truncated = jnp.asarray(raw.truncation(state, params), jnp.bool_)
        over = was_terminated | was_truncated
        obs, next_state = jax.tree_util.tree_map(
            lambda old, new: jnp.where(over, jnp.asarray(old, new.dtype), new),
            (raw.observe(state, params), state),
            (obs, next_state),
        )
        terminated = jnp.where(over, was_terminated, terminated)
        truncated = jnp.where(over, was_truncated, truncated)
        info = dict(info)
        info["discount"] = 1.0 - terminated.astype(jnp.float32)
        return obs, next_state, jnp.where(over, jnp.float32(0), reward), terminated, truncated, info
