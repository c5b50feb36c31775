"""`Levels`: each episode starts from a level, sampled or replayed (`make_vec(id, n, levels=sample)`).

The state is `LevelState(env_state, level)`: the episode's level rides beside the env's own state
(which stays the env's: the gymnax export's state is gymnax's), and every step runs under
`apply_level(params, level)` and reports it in `info["level"]`. A reset with key `k` samples its
level from `fold_in(k, LEVEL_KEY_DATA)` and starts from `reset_to_level(k, level, params)`, so at
levels equal to the params' own values the episodes are bit for bit those without levels.
Under `AutoReset` (and `make_vec`) a finished episode's next one comes from `reset_after`: a
fresh sample, or with `replay=True` the finished episode's own level again (JaxUED's
`AutoReplayWrapper`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.environment import check_key, defaults_params
from jaxenvs.levels import Level, apply_level
from jaxenvs.wrappers.base import Wrapper

LEVEL_KEY_DATA = 2**32 - 2  # folded into a reset's key for its level's sample


@struct.dataclass
class LevelState:
    """A state with the level its episode runs under.

    Attributes:
        env_state: The wrapped env's state.
        level: The episode's `Level`.
    """

    env_state: Any
    level: Level


def _outline(level: Any) -> str:
    """A level's fields and state leaves with their shapes, for an error."""
    settings = ", ".join(f"{k}: {tuple(v.shape)}" for k, v in level.settings.items())
    state = "None" if level.state is None else f"{len(jax.tree_util.tree_leaves(level.state))} leaves"
    return f"(settings {{{settings}}}, state {state})"


def _under_level(fn):
    """`fn(state, params)` of an env, as a function of a `LevelState` under its level (None stays None)."""
    if fn is None:
        return None
    return lambda state, params: fn(state.env_state, apply_level(params, state.level))


class Levels(Wrapper):
    """Starts every episode from a level: sampled per episode, or replayed.

    Args:
        env: The env (raw, or wrappers that keep `reset_to_level`).
        sample: `sample(key) -> Level`, run inside the jitted step (it must return the same
            tree, dtypes and shapes every call); None: the params' own values (then levels come
            only from `reset_to_level`, as with `replay=True`).
        replay: Restart each finished episode from its own level (with a fresh key) instead of
            sampling a new one.

    Raises:
        TypeError: `sample` is not callable, `replay` not a bool.
    """

    def __init__(self, env: Any, sample: Callable[[jax.Array], Level] | None = None, replay: bool = False):
        super().__init__(env)
        if sample is not None and not callable(sample):
            raise TypeError(f"{env.name}: levels must be a function sample(key) -> Level, got {type(sample).__name__}")
        if not isinstance(replay, bool):
            raise TypeError(f"{env.name}: replay must be True or False, got {replay!r}")
        self.sample = sample
        self.replay = replay

    def sample_level(self, key: jax.Array) -> Level:
        """The level a reset with `key` starts from.

        Args:
            key: The reset's key.

        Returns:
            `sample(fold_in(key, LEVEL_KEY_DATA))`, or the empty `Level()` without a sampler.
        """
        if self.sample is None:
            return Level()
        return self.sample(jax.random.fold_in(key, LEVEL_KEY_DATA))

    @defaults_params
    def reset(self, key, params=None):
        """Start an episode from a sampled level.

        Args:
            key: A JAX PRNG key.
            params: The env's params.

        Returns:
            `(obs, LevelState)`.
        """
        check_key(key, self.name)
        return self._start(key, self.sample_level(key), params)

    @defaults_params
    def reset_to_level(self, key, level, params=None):
        """Start an episode from `level` (kept for the episode, and replayed with `replay`).

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level`; with a sampler (and no `replay`), of the sampler's
                tree and shapes, since the sampler's levels follow it in the same state.
            params: The env's params.

        Returns:
            `(obs, LevelState)`.

        Raises:
            TypeError: `level`'s tree or shapes differ from the sampler's; as the env's
                `reset_to_level`.
        """
        if self.sample is not None and not self.replay and isinstance(level, Level):
            self._check_like_sampled(level, key)
        return self._start(key, level, params)

    def _check_like_sampled(self, level: Level, key: jax.Array) -> None:
        """A `TypeError` now, where the next sampled level would not fit in `level`'s place."""
        sampled = jax.eval_shape(self.sample_level, jax.ShapeDtypeStruct(jnp.shape(key), key.dtype))
        given = jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(jnp.shape(x), jnp.result_type(x)), level)
        same_tree = jax.tree_util.tree_structure(given) == jax.tree_util.tree_structure(sampled)
        if not same_tree or any(
            g.shape != s.shape for g, s in zip(jax.tree_util.tree_leaves(given), jax.tree_util.tree_leaves(sampled))
        ):
            raise TypeError(
                f"{self.name}: reset_to_level's level {_outline(given)} differs from the sampler's "
                f"{_outline(sampled)}; the sampler's levels replace it in the same state when its episode ends, "
                "so give levels of the sampler's fields and shapes (or build the env with replay_levels=True, "
                "or without a sampler, to keep the levels you give)"
            )

    def _start(self, key, level, params):
        """The episode from `level`, its level kept beside the env's state."""
        obs, state = self.env.reset_to_level(key, level, params)
        return obs, LevelState(env_state=state, level=level)

    @defaults_params
    def reset_after(self, key, state, params=None):
        """The reset that follows the finished episode `state` (what `AutoReset` calls).

        Args:
            key: The reset's key.
            state: The finished episode's `LevelState`.
            params: The env's params.

        Returns:
            `(obs, LevelState)`: from `state.level` with `replay`, else from a sampled level.

        Raises:
            TypeError: A sampled level's tree differs from the state's.
        """
        if self.replay:
            return self._start(key, state.level, params)
        level = self.sample_level(key)
        if jax.tree_util.tree_structure(level) != jax.tree_util.tree_structure(state.level):
            raise TypeError(
                f"{self.name}: the sampled level's tree {jax.tree_util.tree_structure(level)} differs from the "
                f"running episode's {jax.tree_util.tree_structure(state.level)} (reset_to_level and the sampler "
                "must give levels of one tree)"
            )
        return self._start(key, level, params)

    @defaults_params
    def step(self, key, state, action, params=None):
        """One step under the episode's level.

        Args:
            key: A JAX PRNG key.
            state: A `LevelState`.
            action: The action.
            params: The env's params (the level's settings replace theirs).

        Returns:
            `(obs, LevelState, reward, terminated, truncated, info)`; `info["level"]` is the
            level the step ran under.
        """
        obs, env_state, reward, terminated, truncated, info = self.env.step(
            key, state.env_state, action, apply_level(params, state.level)
        )
        info = dict(info)
        info["level"] = state.level
        return obs, LevelState(env_state=env_state, level=state.level), reward, terminated, truncated, info

    @property
    def observe(self):
        """The observation of a `LevelState`: its env's of `state.env_state`, under the level.

        (What lets a batch build its observations from its states after resets: `make_vec`.)
        None where the wrapped env has no `observe` (its observations come only from `reset`
        and `step`).
        """
        return _under_level(self.env.observe)

    @property
    def is_terminal(self):
        """The wrapped env's `is_terminal` of a `LevelState`, under its level; None where it has none.

        (What lets `make(id, autoreset=False, levels=...)`'s `Absorbing` guard hold a finished
        episode still.)
        """
        return _under_level(self.env.is_terminal)

    @property
    def truncation(self):
        """The wrapped env's `truncation` of a `LevelState`, under its level; None where it has none."""
        return _under_level(self.env.truncation)

    @defaults_params
    def render(self, state, params=None):
        """The wrapped env's picture of the episode's state, under its level.

        Returns:
            A `uint8[H, W, 3]` image.
        """
        return self.env.render(state.env_state, apply_level(params, state.level))

    def __repr__(self) -> str:
        return f"Levels({self.env!r}, replay={self.replay})"
