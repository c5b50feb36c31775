"""`AutoReset`: a finished episode is reset in the same step, keeping what it ended on.

The step returns the finished episode's `reward`, `terminated` and `truncated` with the new
episode's first observation and state (gymnasium's SAME_STEP mode, gymnax's behaviour), and
adds to `info`:

- `final_observation`: the observation the raw step produced (the terminal observation when
  the episode ended; equal to the returned observation otherwise), for bootstrapping
  truncated episodes;
- `final_terminated`, `final_truncated`: the raw step's flags, kept even if a wrapper above
  rewrites the returned ones.

The reset sits in `lax.cond`, so an env that did not finish skips it when stepped alone
under `jit`; under `vmap` both branches run (use `jaxenvs.make_vec`, which resets only the
envs that finished).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs.wrappers.base import Wrapper


def _like(new, old):
    """Cast `new`'s leaves to `old`'s dtypes so both `cond` branches agree exactly."""
    return jax.tree_util.tree_map(lambda n, o: jnp.asarray(n, dtype=jnp.asarray(o).dtype), new, old)


class AutoReset(Wrapper):
    def step(self, key, state, action, params=None):
        params = self._params(params)
        key_step, key_reset = jax.random.split(key)
        obs, next_state, reward, terminated, truncated, info = self._env.step(
            key_step, state, action, params
        )
        done = jnp.logical_or(terminated, truncated)

        def reset(_):
            return _like(self._env.reset(key_reset, params), (obs, next_state))

        def keep(_):
            return obs, next_state

        obs_out, state_out = jax.lax.cond(done, reset, keep, None)
        info = dict(info)
        info["final_observation"] = obs
        info["final_terminated"] = terminated
        info["final_truncated"] = truncated
        return obs_out, state_out, reward, terminated, truncated, info
