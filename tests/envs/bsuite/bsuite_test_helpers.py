"""Shared by the bsuite env tests."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def play(env, params, actions, state=None, key=0):
    """Step the raw env through `actions` under jit from `state` (or a reset); returns the
    observations, rewards, terminated flags and states after each step."""
    step = jax.jit(env.step)
    if state is None:
        _, state = env.reset(jax.random.key(key), params)
    out = {"obs": [], "reward": [], "terminated": [], "state": []}
    keys = jax.random.split(jax.random.key(key + 1), len(actions))
    for k, a in zip(keys, actions):
        obs, state, reward, terminated, truncated, _ = step(k, state, jnp.int32(a), params)
        assert not bool(truncated)
        out["obs"].append(np.asarray(obs))
        out["reward"].append(float(reward))
        out["terminated"].append(bool(terminated))
        out["state"].append(state)
    return out
