"""`Absorbing`: past the end of an episode, a step changes nothing (the raw env of `make`).

The builder (`jaxenvs.registry.apply_layers`) applies it for `make(id, autoreset=False)`;
`AutoReset`, `make_vec` and the gymnax export never need it, since they reset an episode in the
step that ends it: `unguarded` takes it off an env given to them.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.base import Wrapper


class Absorbing(Wrapper):
    """A step from a finished state returns it unchanged, with reward 0 and the same flags.

    "Finished" is read from the state: the env's `is_terminal` or its `truncation`. For an env
    without `observe`, `is_terminal` and `truncation` (or under a layer that changes states),
    the step passes through unchanged.

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
        env = self.env
        if env.observe is None or env.is_terminal is None or env.truncation is None:
            return obs, next_state, reward, terminated, truncated, info
        was_terminated = jnp.asarray(env.is_terminal(state, params), jnp.bool_)
        was_truncated = jnp.asarray(env.truncation(state, params), jnp.bool_)
        over = was_terminated | was_truncated
        obs, next_state = jax.tree_util.tree_map(
            lambda old, new: jnp.where(over, jnp.asarray(old, new.dtype), new),
            (env.observe(state, params), state),
            (obs, next_state),
        )
        terminated = jnp.where(over, was_terminated, terminated)
        truncated = jnp.where(over, was_truncated, truncated)
        info = dict(info)
        info["discount"] = 1.0 - terminated.astype(jnp.float32)
        return obs, next_state, jnp.where(over, jnp.float32(0), reward), terminated, truncated, info


def unguarded(env: Any) -> Any:
    """`env` without an `Absorbing` layer on top: what an auto-resetting layer wraps.

    Args:
        env: An env, raw or wrapped.

    Returns:
        `env.env` where `env` is `Absorbing`, else `env`.
    """
    return env.env if isinstance(env, Absorbing) else env
