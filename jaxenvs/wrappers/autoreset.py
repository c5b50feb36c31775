"""`AutoReset`: a finished episode is reset in the same step, keeping what it ended on.

The step returns the finished episode's `reward`, `terminated` and `truncated` with the new
episode's first observation and state (gymnasium's SAME_STEP mode, gymnax's behaviour), and
adds to `info`:

- `final_observation`: the observation the raw step produced (the terminal observation when
  the episode ended; equal to the returned observation otherwise), for bootstrapping
  truncated episodes;
- `final_terminated`, `final_truncated`: the raw step's flags, kept even if a wrapper above
  rewrites the returned ones.

An env whose `info` has `action_mask` and that defines `action_mask(state, params)` gets the
mask of the returned state, so after a reset it is the new episode's, as gymnasium's is.

Stepped alone, the reset sits in `lax.cond`: an env that did not finish skips it. Under
`jax.vmap` (gymnax's way of batching) a `cond` would turn into computing a reset, with fresh
random numbers, for every env at every step; here a batching rule (`jax.custom_batching`)
resets only the envs that finished instead (`batched_reset.reset_where_done`), each from its own reset key,
so the vmapped step returns exactly what stepping each env alone returns; an env whose reset
ignores its key gets one reset, selected where an env finished. Gradients go
through the plain `cond` (a `custom_jvp`), so `jax.grad` works as before, batched or not.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs.environment import check_key, stepping_live_states
from jaxenvs.wrappers.base import Wrapper
from jaxenvs.wrappers.batched_reset import final_info, reset_if_done_fn


class AutoReset(Wrapper):
    """Resets a finished episode in the step that ends it (see the module docstring)."""

    def step(self, key, state, action, params=None):
        check_key(key, self.name)  # before the split, which would fail with JAX's own message
        key_step, key_reset = jax.random.split(key)
        with stepping_live_states():  # a finished episode never reaches the step: it was reset
            obs, next_state, reward, terminated, truncated, info = self.env.step(key_step, state, action, params)
        done = jnp.logical_or(terminated, truncated)
        obs_out, state_out = reset_if_done_fn(self.env)(done, key_reset, obs, next_state, params)
        info = final_info(self.env, info, obs, terminated, truncated, state_out, params)
        return obs_out, state_out, reward, terminated, truncated, info
