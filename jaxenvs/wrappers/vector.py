"""`VecEnv`: a batch of `num_envs` copies of an env behind one key per call (`make_vec`).

`reset(key, params)` and `step(key, state, actions, params)` return batched arrays in the
six-tuple; finished envs are reset in the same step (SAME_STEP, like `AutoReset`), with
`info["final_observation"]`, `info["final_terminated"]` and `info["final_truncated"]`.
`params` is shared by the batch.

Why it is fast: `jax.vmap(AutoReset(env).step)` (gymnax's way) computes a reset, with fresh
random numbers, for every env at every step, and throws most of them away. Here the step's
key is split once for the batch, and only the envs that finished are reset: the indices of
at most `reset_capacity` finished envs are gathered (`jnp.nonzero` with a static size), that
many resets are computed and scattered into place. In the rare step where more envs finish
than that, a full batched reset runs instead (a real branch: `lax.cond` on a scalar). Every
finished env gets its own fresh reset from its own key, so episodes are distributed exactly
as on the per-env path.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from jaxenvs.environment import Environment


def _select(done, new, old):
    def pick(n, o):
        d = jnp.reshape(done, done.shape + (1,) * (o.ndim - done.ndim))
        return jnp.where(d, n.astype(o.dtype), o)

    return jax.tree_util.tree_map(pick, new, old)


def _scatter(index, new, old):
    """`old` with rows `index` replaced by `new`'s rows; out-of-range indices are dropped."""
    return jax.tree_util.tree_map(lambda n, o: o.at[index].set(n.astype(o.dtype), mode="drop"), new, old)


class VecEnv:
    """`num_envs` copies of `env` (a raw env: no auto-reset of its own).

    reset_capacity: how many finished envs one step resets on the fast path (default: an
        eighth of the batch, at least 1); more finishing at once takes the full-reset branch.
    """

    def __init__(self, env: Environment, num_envs: int, reset_capacity: int | None = None):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.env = env
        self.num_envs = int(num_envs)
        if reset_capacity is None:
            reset_capacity = max(1, math.ceil(self.num_envs / 8))
        if not 1 <= int(reset_capacity) <= self.num_envs:
            raise ValueError(f"reset_capacity must be in [1, num_envs], got {reset_capacity}")
        self.reset_capacity = int(reset_capacity)

    @property
    def default_params(self):
        return self.env.default_params

    @property
    def name(self) -> str:
        return self.env.name

    @property
    def num_actions(self) -> int:
        return self.env.num_actions

    @property
    def unwrapped(self) -> Environment:
        return self.env.unwrapped

    def observation_space(self, params=None):
        """The space of ONE env's observation (the batch adds a leading axis)."""
        return self.env.observation_space(params)

    def action_space(self, params=None):
        """The space of ONE env's action (the batch adds a leading axis)."""
        return self.env.action_space(params)

    def sample_actions(self, key, params=None):
        """One action per env from the action space, drawn with one key."""
        space = self.env.action_space(params)
        from jaxenvs import spaces

        if isinstance(space, spaces.Discrete):
            return jax.random.randint(key, (self.num_envs,), space.start, space.start + space.n, space.dtype)
        return jax.vmap(space.sample)(jax.random.split(key, self.num_envs))

    def _reset_batch(self, key, params, n):
        return jax.vmap(self.env.reset, in_axes=(0, None))(jax.random.split(key, n), params)

    def reset(self, key, params=None):
        params = self.env.default_params if params is None else params
        return self._reset_batch(key, params, self.num_envs)

    def step(self, key, state, actions, params=None):
        params = self.env.default_params if params is None else params
        key_step, key_reset = jax.random.split(key)
        obs, next_state, reward, terminated, truncated, info = jax.vmap(
            self.env.step, in_axes=(0, 0, 0, None)
        )(jax.random.split(key_step, self.num_envs), state, actions, params)
        done = jnp.logical_or(terminated, truncated)
        info = dict(info)
        info["final_observation"] = obs
        info["final_terminated"] = terminated
        info["final_truncated"] = truncated

        capacity = self.reset_capacity

        def few_finished(_):
            (index,) = jnp.nonzero(done, size=capacity, fill_value=self.num_envs)
            reset_obs, reset_state = self._reset_batch(key_reset, params, capacity)
            return _scatter(index, reset_obs, obs), _scatter(index, reset_state, next_state)

        def many_finished(_):
            reset_obs, reset_state = self._reset_batch(key_reset, params, self.num_envs)
            return _select(done, reset_obs, obs), _select(done, reset_state, next_state)

        if capacity == self.num_envs:
            obs_out, state_out = many_finished(None)
        else:
            obs_out, state_out = jax.lax.cond(jnp.sum(done) <= capacity, few_finished, many_finished, None)
        return obs_out, state_out, reward, terminated, truncated, info

    def render(self, state, params=None):
        return jax.vmap(self.env.render, in_axes=(0, None))(state, params)

    def __repr__(self) -> str:
        return f"VecEnv({self.env!r}, num_envs={self.num_envs})"
