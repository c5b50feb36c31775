"""`PixelObservation`: the observation is the env's picture, `env.render(state)`.

Wrap the raw env and put `AutoReset` outside (docs/wrappers.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

from jaxenvs import spaces
from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.autoreset import AutoReset
from jaxenvs.wrappers.base import find_wrapper
from jaxenvs.wrappers.start import StartWrapper


def resize(image: jax.Array, shape: tuple[int, int]) -> jax.Array:
    """Resize an image (bilinear, antialiased when shrinking).

    Args:
        image: A `uint8[H, W, 3]` image.
        shape: The `(height, width)` to resize to.

    Returns:
        A `uint8[height, width, 3]` image (`image` itself if already that size).
    """
    if tuple(image.shape[:2]) == tuple(shape):
        return image
    out = jax.image.resize(image.astype(jnp.float32), (*shape, image.shape[2]), method="bilinear")
    return jnp.clip(jnp.round(out), 0, 255).astype(jnp.uint8)


class PixelObservation(StartWrapper):
    """Observations are `uint8[H, W, 3]` renders of the state, optionally resized to `shape`.

    The observation space is `Box(0, 255, (H, W, 3), uint8)`. Under an auto-reset the terminal
    state is gone by the time this wrapper sees the step, so it must wrap an env that does not
    auto-reset: `AutoReset(PixelObservation(jaxenvs.make(id, autoreset=False)[0]))`.
    `reset_to_level` observes the level's first state as `reset` does its own.

    Args:
        env: An env that does not auto-reset and whose `render` is implemented.
        shape: `(height, width)` to resize every frame to, or None for the render's size.

    Raises:
        ValueError: If `env` auto-resets, or `shape` is not two positive sizes.
    """

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
        """The observation of `state`: its render, resized if a shape was given.

        Args:
            state: The state to draw.
            params: The env's params; None means `default_params`.

        Returns:
            A `uint8[h, w, 3]` image.
        """
        image = self.env.render(state, params)
        return image if self.shape is None else resize(image, self.shape)

    def _start(self, obs, env_state, params, previous=None):
        """The first state's picture (under the level's settings, from `reset_to_level`)."""
        return self.pixels(env_state, params), env_state

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; the observation is the new state's picture."""
        _, state, reward, terminated, truncated, info = self.env.step(key, state, action, params)
        return self.pixels(state, params), state, reward, terminated, truncated, info

    @defaults_params
    def observation_space(self, params=None):
        """The space of the pictures, from the render's traced shape.

        Args:
            params: The env's params; None means `default_params`.

        Returns:
            `Box(0, 255, (H, W, 3), uint8)`.

        Raises:
            TypeError: If the env's `render` does not return `uint8[H, W, 3]`.
        """
        key = jax.random.key(0)
        state = jax.eval_shape(lambda k: self.env.reset(k, params)[1], key)
        image = jax.eval_shape(lambda s: self.pixels(s, params), state)
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != jnp.uint8:
            raise TypeError(f"{self.name}.render must return uint8[H, W, 3], got {image.dtype}{image.shape}")
        return spaces.Box(0, 255, shape=image.shape, dtype=jnp.uint8)
