"""`AutoReset`: a finished episode is reset in the same step, keeping what it ended on.

Gymnasium's SAME_STEP mode, gymnax's behaviour. Stepped alone, the reset sits in `lax.cond`;
under `jax.vmap` a batching rule (`batched_reset.reset_if_done_fn`) resets only the envs that
finished, each from its own reset key, so a finished env gets, bit for bit, the reset state it
would get alone. Gradients go through the plain `cond`.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxenvs.environment import check_key, stepping_live_states
from jaxenvs.wrappers.base import Wrapper
from jaxenvs.wrappers.batched_reset import final_info, reset_if_done_fn


class AutoReset(Wrapper):
    """Resets a finished episode in the step that ends it.

    The step returns the finished episode's `reward`, `terminated` and `truncated` with the new
    episode's first observation and state, and adds to `info`: `final_observation` (the
    observation the raw step produced: the terminal one when the episode ended, for
    bootstrapping truncated episodes), `final_terminated` and `final_truncated` (the raw step's
    flags, kept even if a wrapper above rewrites the returned ones). An env whose `info` has
    `action_mask` and that defines `action_mask(state, params)` gets the mask of the returned
    state, so after a reset it is the new episode's.

    Args:
        env: the env to reset (no auto-reset of its own).
        reset_capacity: under `jax.vmap`, how many finished envs one reset pass handles
            (default: a sixteenth of the batch, at least 16); None for the default.
    """

    def __init__(self, env: Any, reset_capacity: int | None = None):
        super().__init__(env)
        self.reset_capacity = reset_capacity

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_resets"}  # a closure, built again

    def _reset_if_done(self) -> Any:
        """`batched_reset.reset_if_done_fn(self.env)`, built once (it caches what it learns)."""
        resets = self.__dict__.get("_resets")
        if resets is None:
            resets = self.__dict__["_resets"] = reset_if_done_fn(self.env, self.__dict__.get("reset_capacity"))
        return resets

    def step(self, key, state, action, params=None):
        """One step, resetting a finished episode in it.

        Args:
            key: a JAX PRNG key (split into the step's and the reset's).
            state: the env's state.
            action: the action.
            params: the env's params (default: its `default_params`).

        Returns:
            `(obs, state, reward, terminated, truncated, info)`: after a finished episode, the
            new episode's observation and state with the finished one's reward and flags.

        Raises:
            TypeError: `key` is not one JAX PRNG key.
        """
        check_key(key, self.name)  # before the split, which would fail with JAX's own message
        key_step, key_reset = jax.random.split(key)
        return self.step_with_keys(key_step, key_reset, state, action, params)

    def step_with_keys(self, key_step, key_reset, state, action, params, reset_index=None):
        """`step` with its keys given.

        Args:
            key_step: the raw step draws from it.
            key_reset: a reset draws from it.
            state: the env's state.
            action: the action.
            params: the env's params (None: its `default_params`).
            reset_index: a reset draws from `fold_in(key_reset, reset_index)` instead (how
                `make_vec` gives each env its own reset key while deriving only the finished
                envs').

        Returns:
            `(obs, state, reward, terminated, truncated, info)`, as `step`.
        """
        params = self.default_params if params is None else params
        with stepping_live_states():  # a finished episode never reaches the step: it was reset
            obs, next_state, reward, terminated, truncated, info = self.env.step(key_step, state, action, params)
        done = jnp.logical_or(terminated, truncated)
        obs_out, state_out = self._reset_if_done()(done, key_reset, obs, next_state, params, reset_index)
        info = final_info(self.env, info, obs, terminated, truncated, state_out, params)
        return obs_out, state_out, reward, terminated, truncated, info
