"""`VecEnv`: a batch of `num_envs` copies of an env behind one key per call (`make_vec`).

The step is `AutoReset`'s, vmapped over the batch, with per-env keys derived from the one key:
env `i` steps with `split(fold_in(key, 2**32 - 1), num_envs)[i]` and resets from
`fold_in(key, i)`. The one thing to know: `jax.vmap` over a `VecEnv` with a batched key raises
a `ValueError` (it would batch the batch) unless it was built with `allow_vmap=True`.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap

from jaxenvs import spaces
from jaxenvs.environment import Env, check_key, defaults_params
from jaxenvs.wrappers.absorbing import unguarded
from jaxenvs.wrappers.autoreset import AutoReset, check_strategy, default_capacity
from jaxenvs.wrappers.base import Wrapper

__all__ = ["MAX_NUM_ENVS", "VecEnv"]

_STEP_KEY_DATA = 2**32 - 1  # folded into the step's key for the per-env step keys
# The batch is indexed in int32: a step lists the finished envs in `num_envs +
# reset_capacity` slots (`autoreset.finished_index`), so both together must stay below
# 2**31; with a capacity of at most `num_envs`, 2**30 envs is the most that always fits.
MAX_NUM_ENVS = 2**30
_MAX_SLOTS = 2**31 - 1


def check_num_envs(num_envs: Any, where: str = "make_vec") -> int:
    """`num_envs` as an int in [1, 2**30] (no float, str or bool), else an error naming `where`."""
    valid = f"an int in [1, {MAX_NUM_ENVS}] (2**30: the batch is indexed in int32)"
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
        raise TypeError(f"{where}: num_envs must be {valid}, got {num_envs!r}")
    if not 1 <= int(num_envs) <= MAX_NUM_ENVS:
        raise ValueError(f"{where}: num_envs must be {valid}, got {num_envs!r}")
    return int(num_envs)


def one_key(key, venv: VecEnv, method: str):
    """`key`, refused when a `jax.vmap` batches it (an identity `custom_vmap`: no added work)."""

    @custom_vmap
    def same(k):
        return k

    @same.def_vmap
    def refuse(axis_size, in_batched, k):
        raise ValueError(
            f"jax.vmap over {venv.name}'s make_vec {method} with a batched key: make_vec already batches "
            f"(num_envs={venv.num_envs}), so this would give {axis_size} batches of {venv.num_envs} envs. "
            f"For one env per key use `env, params = jaxenvs.make(id)` and `jax.vmap(env.{method})`; "
            f"for one batch call `venv.{method}` with one key; for a batch of batches on purpose "
            f"(a training loop vmapped over seeds) build it with `make_vec(id, n, allow_vmap=True)` "
            f"(or `VecEnv(env, n, allow_vmap=True)`)."
        )

    return same(key)


def _concrete(tree: Any) -> bool:
    return not any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(tree))


class VecEnv(Wrapper):
    """`num_envs` copies of `env`, stepped as `AutoReset(env)` under `jax.vmap`.

    `reset(key, params)` and `step(key, state, actions, params)` take one key and return
    batched arrays in the six-tuple; `params` is shared by the batch. Finished envs are reset
    in the same step (`info["final_observation"]`, `info["final_terminated"]`,
    `info["final_truncated"]`), each independently, so episodes are distributed exactly as on
    the per-env path. `observation_space` and `action_space` are ONE env's (the batch adds a
    leading axis).

    Args:
        env: the env to batch (a raw env: no auto-reset of its own).
        num_envs: the batch size, in [1, 2**30].
        reset_capacity: how many finished envs one `"capacity"` reset pass handles (default: a
            sixteenth of the batch, at least 16 or the whole batch); a step where more finish
            runs more passes. It changes the work, never the results.
        allow_vmap: let `jax.vmap` batch the key of `reset` and `step`, making a batch of
            batches (a training loop vmapped over seeds); without it that raises a
            `ValueError`. Vmapping with one shared key (over params, say) is always allowed.
        reset_strategy: how the finished envs are reset: `"auto"` (`"capacity"` on a CPU,
            `"select"` elsewhere), `"capacity"` or `"select"` (`wrappers.autoreset`). It
            changes the work, never the results.

    Raises:
        TypeError: `num_envs` or `reset_capacity` is not an int, `allow_vmap` is not a bool.
        ValueError: `num_envs` or `reset_capacity` is out of its range; `reset_strategy` is not
            one of the three.

    Examples:
        >>> import jax, jax.numpy as jnp
        >>> from jaxenvs.envs.classic.cartpole.env import CartPole
        >>> from jaxenvs.wrappers import VecEnv
        >>> venv = VecEnv(CartPole(), num_envs=3)
        >>> obs, state = venv.reset(jax.random.key(0))
        >>> obs.shape
        (3, 4)
        >>> obs, state, reward, terminated, truncated, info = venv.step(jax.random.key(1), state, jnp.array([0, 1, 0]))
        >>> reward
        Array([1., 1., 1.], dtype=float32)
    """

    def __init__(
        self,
        env: Env,
        num_envs: int,
        reset_capacity: int | None = None,
        allow_vmap: bool = False,
        reset_strategy: str = "auto",
    ):
        super().__init__(unguarded(env))  # every finished env is reset
        self.num_envs = check_num_envs(num_envs, where=env.name)
        if reset_capacity is None:
            reset_capacity = default_capacity(self.num_envs)
        most = min(self.num_envs, _MAX_SLOTS - self.num_envs)
        if isinstance(reset_capacity, (bool, np.bool_)) or not isinstance(reset_capacity, (int, np.integer)):
            raise TypeError(f"{env.name}: reset_capacity must be an int in [1, {most}], got {reset_capacity!r}")
        if not 1 <= int(reset_capacity) <= most:
            raise ValueError(f"{env.name}: reset_capacity must be an int in [1, {most}], got {reset_capacity!r}")
        self.reset_capacity = int(reset_capacity)
        if not isinstance(allow_vmap, (bool, np.bool_)):
            raise TypeError(f"{env.name}: allow_vmap must be True or False, got {allow_vmap!r}")
        self.allow_vmap = bool(allow_vmap)
        self.reset_strategy = check_strategy(reset_strategy, env.name)
        self._auto = AutoReset(self.env, reset_strategy=self.reset_strategy, reset_capacity=self.reset_capacity)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_space"}

    def _action_space(self, params):
        """One env's action space, built once per params object (concrete params only)."""
        cached = self.__dict__.get("_space")
        if cached is not None and cached[0] is params:
            return cached[1]
        space = self.env.action_space(params)
        if _concrete(params):
            self.__dict__["_space"] = (params, space)
        return space

    def sample_actions(self, key, params=None):
        """One action per env from the action space, drawn with one key.

        Args:
            key: a JAX PRNG key.
            params: the env's params (default: its `default_params`).

        Returns:
            The actions, batched along a leading axis of `num_envs`.
        """
        space = self._action_space(params)
        if isinstance(space, spaces.Discrete):
            return jax.random.randint(key, (self.num_envs,), space.start, space.start + space.n, space.dtype)
        return jax.vmap(space.sample)(jax.random.split(key, self.num_envs))

    @defaults_params
    def reset(self, key, params=None):
        """Reset every env, each from its own key split from `key`.

        Args:
            key: one JAX PRNG key.
            params: the params shared by the batch (default: the env's `default_params`).

        Returns:
            `(obs, state)`, batched along a leading axis of `num_envs`.

        Raises:
            TypeError: `key` is not one JAX PRNG key.
            ValueError: `key` is batched by `jax.vmap` without `allow_vmap`.
        """
        check_key(key, self.name)
        if not self.allow_vmap:
            key = one_key(key, self, "reset")
        return jax.vmap(self.env.reset, in_axes=(0, None))(jax.random.split(key, self.num_envs), params)

    @defaults_params
    def reset_to_level(self, key, levels, params=None):
        """Reset every env from its own level, each with the key `reset` would give it.

        Concrete levels are checked as the single env checks one, each env's values included
        (`jaxenvs.levels.check_level_batch`); traced ones are checked by `wrappers.Checked`.

        Args:
            key: one JAX PRNG key.
            levels: a `jaxenvs.levels.Level` batched along a leading axis of `num_envs` (one
                level per env: nothing is broadcast).
            params: the params shared by the batch (default: the env's `default_params`).

        Returns:
            `(obs, state)`, batched along a leading axis of `num_envs`.

        Raises:
            TypeError: `key` is not one JAX PRNG key; as the env's `reset_to_level`.
            ValueError: a leaf of `levels` has no leading axis of `num_envs`; a concrete value of
                some env is outside its field's range; `levels` has settings and the batch was
                made without `levels=` or `replay_levels=` (its steps would run every env under
                the shared params, dropping them); `key` is batched by `jax.vmap` without
                `allow_vmap`; as the env's `reset_to_level`.
        """
        from jaxenvs.levels import check_level_batch
        from jaxenvs.wrappers.base import find_wrapper
        from jaxenvs.wrappers.levels import Levels

        check_key(key, self.name)
        if not self.allow_vmap:
            key = one_key(key, self, "reset_to_level")
        check_level_batch(levels, params, self.name, self.num_envs)
        if levels.settings and find_wrapper(self.env, Levels) is None:
            raise ValueError(
                f"{self.name}: this make_vec batch has no per-env settings: its steps run every env under the "
                f"shared params, so the settings of these levels ({', '.join(map(repr, levels.settings))}) would "
                "last only for the reset. Build it with make_vec(id, num_envs, replay_levels=True) (each env "
                "keeps its level, replayed after each episode) or levels=sample (a new level per episode); a "
                "level with a start state only (Level(state=...)) needs neither"
            )
        keys = jax.random.split(key, self.num_envs)
        return jax.vmap(self.env.reset_to_level, in_axes=(0, 0, None))(keys, levels, params)

    @defaults_params
    def step(self, key, state, actions, params=None):
        """Step every env, resetting those that finished in the same step.

        Args:
            key: one JAX PRNG key.
            state: the batched state.
            actions: one action per env (a leading axis of `num_envs`).
            params: the params shared by the batch (default: the env's `default_params`).

        Returns:
            `(obs, state, reward, terminated, truncated, info)`, batched; `info` has
            `final_observation`, `final_terminated` and `final_truncated`.

        Raises:
            TypeError: `key` is not one JAX PRNG key.
            ValueError: `key` is batched by `jax.vmap` without `allow_vmap`; (called eagerly)
                an action is not in the action space or the batch's shape.
        """
        check_key(key, self.name)
        if not self.allow_vmap:
            key = one_key(key, self, "step")
        if _concrete((actions, params)):  # called eagerly: every env's action checked exactly
            spaces.check_action(self._action_space(params), actions, self.name, batch=(self.num_envs,))
        n = self.num_envs
        step_keys = jax.random.split(jax.random.fold_in(key, _STEP_KEY_DATA), n)
        index = jnp.arange(n, dtype=jnp.uint32)
        return jax.vmap(self._auto.step_with_keys, in_axes=(0, None, 0, 0, None, 0))(
            step_keys, key, state, actions, params, index
        )

    def render(self, state, params=None):
        """Every env's frame.

        Args:
            state: the batched state.
            params: the params shared by the batch.

        Returns:
            The env's `render`, vmapped: frames with a leading axis of `num_envs`.
        """
        return jax.vmap(self.env.render, in_axes=(0, None))(state, params)

    def __repr__(self) -> str:
        return f"VecEnv({self.env!r}, num_envs={self.num_envs})"
