"""`VecEnv`: a batch of `num_envs` copies of an env behind one key per call.

`reset(key, params)` and `step(key, state, actions, params)` return batched arrays in the
six-tuple; finished envs are reset in the same step (SAME_STEP, like `AutoReset`), with
`info["final_observation"]`, `info["final_terminated"]` and `info["final_truncated"]`.
`params` is shared by the batch.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs.environment import Environment


def _select(done, new, old):
    def pick(n, o):
        d = jnp.reshape(done, done.shape + (1,) * (o.ndim - done.ndim))
        return jnp.where(d, n.astype(o.dtype), o)

    return jax.tree_util.tree_map(pick, new, old)


class VecEnv:
    def __init__(self, env: Environment, num_envs: int):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.env = env
        self.num_envs = int(num_envs)

    @property
    def default_params(self):
        return self.env.default_params

    @property
    def name(self) -> str:
        return self.env.name

    @property
    def num_actions(self) -> int:
        return self.env.num_actions

    def observation_space(self, params=None):
        return self.env.observation_space(params)

    def action_space(self, params=None):
        return self.env.action_space(params)

    def sample_actions(self, key, params=None):
        """One action per env, from the action space, with one key."""
        keys = jax.random.split(key, self.num_envs)
        return jax.vmap(self.env.action_space(params).sample)(keys)

    def reset(self, key, params=None):
        params = self.env.default_params if params is None else params
        keys = jax.random.split(key, self.num_envs)
        return jax.vmap(self.env.reset, in_axes=(0, None))(keys, params)

    def step(self, key, state, actions, params=None):
        params = self.env.default_params if params is None else params
        step_keys = jax.random.split(key, 2 * self.num_envs)
        obs, next_state, reward, terminated, truncated, info = jax.vmap(
            self.env.step, in_axes=(0, 0, 0, None)
        )(step_keys[: self.num_envs], state, actions, params)
        done = jnp.logical_or(terminated, truncated)
        reset_obs, reset_state = jax.vmap(self.env.reset, in_axes=(0, None))(
            step_keys[self.num_envs :], params
        )
        info = dict(info)
        info["final_observation"] = obs
        info["final_terminated"] = terminated
        info["final_truncated"] = truncated
        obs = _select(done, reset_obs, obs)
        next_state = _select(done, reset_state, next_state)
        return obs, next_state, reward, terminated, truncated, info

    def render(self, state, params=None):
        return jax.vmap(self.env.render, in_axes=(0, None))(state, params)

    def __repr__(self) -> str:
        return f"VecEnv({self.env!r}, num_envs={self.num_envs})"
