"""A library's own truncation, kept in the adapter's state and answered by `truncation`.

The adapters for gymnax-API envs, Craftax, MuJoCo Playground, XLand-MiniGrid and NAVIX store
the library's truncation flag of the last step in `state.library_truncated`;
`truncation(state, params)` is that flag or jaxenvs' own time limit
(`state.time >= params.max_steps_in_episode`). `step` asks `truncation` for `truncated`, so a
wrapper or a user reading a state can ask the same question and get the same answer; nothing
travels through `info`.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.environment import Environment, EnvState


@struct.dataclass
class LibraryState(EnvState):
    # bool[]: the library said the last step was truncated (its own time limit); False after reset
    library_truncated: jax.Array


class LibraryTruncation(Environment):
    """An `Environment` whose state is a `LibraryState`."""

    def truncation(self, state: LibraryState, params: Any) -> jax.Array:
        """Truncated: the library's own flag, or `params.max_steps_in_episode` reached."""
        return jnp.logical_or(state.time >= params.max_steps_in_episode, state.library_truncated)

    def step(self, key, state, action, params=None):
        # the base class's `step` counts only the time limit; the library's flag joins it here
        params = self.default_params if params is None else params
        obs, state, reward, terminated, _, info = super().step(key, state, action, params)
        return obs, state, reward, terminated, self.truncation(state, params), info
