"""Test helpers: a seeded random-action rollout of any env (single or batched), and a
gymnasium env that replays a recorded one, so gymnasium's own wrappers can run on exactly the
observations, rewards and flags a jaxenvs env produced."""

from __future__ import annotations

import gymnasium
import jax
import numpy as np


def rollout(env, params, num_steps: int, seed: int = 0, num_envs: int | None = None):
    """`(reset_obs, steps)`: `steps` is `(obs, reward, terminated, truncated, info)` stacked over
    `num_steps` (time first). Actions and keys depend on `seed` only, so a wrapper that passes
    keys and actions through gets the same inner trajectory."""
    space = env.action_space(params)

    def sample(key):
        if num_envs is None:
            return space.sample(key)
        return jax.vmap(space.sample)(jax.random.split(key, num_envs))

    def run(key):
        k_reset, k_steps = jax.random.split(key)
        obs, state = env.reset(k_reset, params)

        def body(state, k):
            k_act, k_step = jax.random.split(k)
            obs, state, reward, terminated, truncated, info = env.step(k_step, state, sample(k_act), params)
            return state, (obs, reward, terminated, truncated, info)

        _, steps = jax.lax.scan(body, state, jax.random.split(k_steps, num_steps))
        return obs, steps

    return jax.tree_util.tree_map(np.asarray, jax.jit(run)(jax.random.key(seed)))


class ReplayEnv(gymnasium.Env):
    """Replays episodes: `episodes[i]` is `(first_obs, [(obs, reward, terminated, truncated), ...])`;
    each `reset` starts the next episode."""

    def __init__(self, episodes, observation_space):
        self.episodes = list(episodes)
        self.observation_space = observation_space
        self.action_space = gymnasium.spaces.Discrete(1)
        self._episode = -1

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._episode += 1
        self._t = 0
        return self.episodes[self._episode][0], {}

    def step(self, action):
        obs, reward, terminated, truncated = self.episodes[self._episode][1][self._t]
        self._t += 1
        return obs, float(reward), bool(terminated), bool(truncated), {}


def stream_episode(reset_obs, obs, reward):
    """One never-ending episode replaying the observations and rewards in order (no flags)."""
    return [(reset_obs, [(o, r, False, False) for o, r in zip(obs, reward)])]


def split_episodes(reset_obs, obs, reward, terminated, truncated, final_obs):
    """The episodes of one env's auto-reset rollout, as gymnasium's manual-reset loop sees them:
    a finished episode's last observation is `final_obs`, the next one starts from `obs`."""
    episodes, first, steps = [], reset_obs, []
    for t in range(len(obs)):
        done = terminated[t] or truncated[t]
        steps.append((final_obs[t] if done else obs[t], reward[t], terminated[t], truncated[t]))
        if done:
            episodes.append((first, steps))
            first, steps = obs[t], []
    episodes.append((first, steps))
    return episodes
