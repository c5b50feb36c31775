"""`PixelObservation`: the observation is the env's picture, `env.render(state)`.

    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    env = AutoReset(PixelObservation(env, shape=(84, 84)))   # uint8[84, 84, 3] observations

The observation space is `Box(0, 255, (H, W, 3), uint8)`; `shape=(h, w)` resizes every frame
with `jax.image.resize` (bilinear, antialiased when shrinking) to that static shape. Rendering
is pure JAX, so a vmapped batch of pixel envs renders inside the same jitted step.

Wrap the raw env and put `AutoReset` outside: under an auto-reset the terminal state is gone
by the time this wrapper sees the step, so its `final_observation` could not be drawn (the
constructor refuses an env that auto-resets).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

from jaxenvs import spaces
from jaxenvs.wrappers.autoreset import AutoReset
from jaxenvs.wrappers.base import Wrapper, find_wrapper


def resize(image: jax.Array, shape: tuple[int, int]) -> jax.Array:
    """`uint8[H, W, 3]` -> `uint8[h, w, 3]` (bilinear, antialiased)."""
    if tuple(image.shape[:2]) == tuple(shape):
        return image
    out = jax.image.resize(image.astype(jnp.float32), (*shape, image.shape[2]), method="bilinear")
    return jnp.clip(jnp.round(out), 0, 255).astype(jnp.uint8)


class PixelObservation(Wrapper):
    """Observations are `uint8[H, W, 3]` renders of the state (optionally resized to `shape`)."""

    def __init__(self, env, shape: Sequence[int] | None = None):
        if find_wrapper(env, AutoReset) is not None:
            raise ValueError(
                "PixelObservation must wrap an env that does not auto-reset: use "
                "AutoReset(PixelObservation(jaxenvs.make(id, autoreset=False)[0]))"
            )
        super().__init__(env)
        if shape is not None:
            shape = tuple(int(s) for s in shape)
            if len(shape) != 2 or min(shape) < 1:
                raise ValueError(f"shape must be (height, width) with positive sizes, got {shape}")
        self.shape = shape

    def pixels(self, state, params=None):
        """The observation of `state`: its render, resized if a shape was given."""
        image = self.env.render(state, params)
        return image if self.shape is None else resize(image, self.shape)

    def reset(self, key, params=None):
        _, state = self.env.reset(key, params)
        return self.pixels(state, params), state

    def step(self, key, state, action, params=None):
        _, state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        return self.pixels(state, params), state, reward, terminated, truncated, info

    def observation_space(self, params=None):
        key = jax.random.key(0)
        state = jax.eval_shape(lambda k: self.env.reset(k, params)[1], key)
        image = jax.eval_shape(lambda s: self.pixels(s, params), state)
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != jnp.uint8:
            raise TypeError(f"{self.name}.render must return uint8[H, W, 3], got {image.dtype}{image.shape}")
        return spaces.Box(0, 255, shape=image.shape, dtype=jnp.uint8)
