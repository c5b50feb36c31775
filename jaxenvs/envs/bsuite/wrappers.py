"""bsuite's reward-noise and reward-scale variants, as wrappers of any jaxenvs env.

Reference: bsuite `utils/wrappers.py` `RewardNoise` and `RewardScale`, used by the
`*_noise` experiments (noise_scale 0.1, 0.3, 1, 3, 10) and the `*_scale` experiments
(reward_scale 0.001, 0.03, 1, 30, 1000).

- `RewardNoise(env, noise_scale)`: every step's reward plus `noise_scale * N(0, 1)`.
- `RewardScale(env, reward_scale)`: every step's reward times `reward_scale`.

bsuite leaves the first timestep of an episode (which has no reward) alone; a jaxenvs step
never returns one (reset does), so every step is changed. The scale is a constructor
argument, fixed for the wrapped env (as in bsuite), and readable as `env.noise_scale` /
`env.reward_scale`. Wrap the raw env; `AutoReset` and `LogWrapper` go outside (as
`jaxenvs.make` does), so logged returns include the noise or the scale.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs.environment import check_key, defaults_params
from jaxenvs.wrappers.base import Wrapper


def add_reward_noise(key: jax.Array, reward: jax.Array, noise_scale: float) -> jax.Array:
    """A reward plus Gaussian noise, as bsuite's `RewardNoise` adds it.

    Args:
        key: A JAX PRNG key.
        reward: The reward, a float32 scalar.
        noise_scale: The noise's standard deviation.

    Returns:
        `reward + noise_scale * N(0, 1)`, float32.
    """
    return reward + noise_scale * jax.random.normal(key, (), jnp.float32)


class RewardNoise(Wrapper):
    """Adds `noise_scale * N(0, 1)` to every reward (bsuite's `RewardNoise`).

    Args:
        env: The env to wrap (the raw env: `AutoReset` and `LogWrapper` go outside).
        noise_scale: The noise's standard deviation, fixed for the wrapped env (bsuite's
            `noise_scale`: 0.1, 0.3, 1, 3 or 10 in its sweeps).
    """

    def __init__(self, env, noise_scale: float):
        super().__init__(env)
        self.noise_scale = float(noise_scale)

    @defaults_params
    def step(self, key, state, action, params=None):
        """The wrapped env's step, its reward plus `noise_scale * N(0, 1)` (from a key split off `key`)."""
        check_key(key, self.name)  # before the split, which would fail with JAX's own message
        key_env, key_noise = jax.random.split(key)
        obs, state, reward, terminated, truncated, info = self.env.step(key_env, state, action, params)
        return obs, state, add_reward_noise(key_noise, reward, self.noise_scale), terminated, truncated, info

    def __repr__(self) -> str:
        return f"RewardNoise({self.env!r}, noise_scale={self.noise_scale:g})"


class RewardScale(Wrapper):
    """Multiplies every reward by `reward_scale` (bsuite's `RewardScale`).

    Args:
        env: The env to wrap (the raw env: `AutoReset` and `LogWrapper` go outside).
        reward_scale: The factor, fixed for the wrapped env (bsuite's `reward_scale`: 0.001,
            0.03, 1, 30 or 1000 in its sweeps).
    """

    def __init__(self, env, reward_scale: float):
        super().__init__(env)
        self.reward_scale = float(reward_scale)

    @defaults_params
    def step(self, key, state, action, params=None):
        """The wrapped env's step, its reward times `reward_scale` (float32)."""
        obs, state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        return obs, state, (reward * self.reward_scale).astype(jnp.float32), terminated, truncated, info

    def __repr__(self) -> str:
        return f"RewardScale({self.env!r}, reward_scale={self.reward_scale:g})"
