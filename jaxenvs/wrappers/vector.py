"""`VecEnv`: a batch of `num_envs` copies of an env behind one key per call (`make_vec`).

`reset(key, params)` and `step(key, state, actions, params)` return batched arrays in the
six-tuple; finished envs are reset in the same step (SAME_STEP, like `AutoReset`), with
`info["final_observation"]`, `info["final_terminated"]` and `info["final_truncated"]`.
`params` is shared by the batch.

Why it is fast: gymnax's way, `jax.vmap` of an auto-resetting step with one key per env,
splits every env's key again and computes a reset, with fresh random numbers, for every env
at every step. Here the step's key is split once for the batch, and only the envs that
finished are reset (`batched_reset.reset_where_done`): the finished envs are listed in order and
reset `reset_capacity` at a time, each from its own fresh key; a step where more finish runs
more passes, a step where none finishes draws no reset key at all, a step where most finish
(episodes of a fixed length) one batched reset. An env whose reset ignores its key (every
episode starts alike: DeepSea, Asterix, Pong) skips all of that: one reset, selected where an
env finished. Every finished env gets an independent reset, so episodes are distributed
exactly as on the per-env path. Per-env step keys are split only if the env's step draws
random numbers (otherwise XLA drops them as dead code).

An env whose observation is a function of its state alone can say so by defining
`observe(state, params)` (classic control, FrozenLake, CliffWalking, Taxi, the MinAtar games,
Pong, bsuite's Catch and DeepSea): then the finished envs' resets replace only their state,
and the batch's observation is built once, from the returned state.
Otherwise the step's observation is built, then the reset observations are scattered into
it inside the reset passes' loop: more writes of the largest array of a step (a 10x10x4
MinAtar grid, a Pong image) and, for CartPole, a change of layout of `float32[n, 4]`.
Wrappers between `VecEnv` and the raw env must declare `keeps_observation = True` for this
(a wrapper that changes observations does not), so a wrapped env falls back to the general
way.

`jax.vmap` over a `VecEnv`'s `reset` or `step` with a batched key raises a `ValueError`: it
would batch the batch (`jax.vmap(venv.reset)(keys)` with 8 keys and `num_envs=8` gives 8 x 8
envs), which is never what `jax.vmap(env.reset)` over a single env means. For one env per
key use `jaxenvs.make` and `jax.vmap`; for one batch, call with one key. A batch of batches
on purpose (a training loop vmapped over seeds, as `examples/ppo.py`) says so with
`allow_vmap=True`. Vmapping with one shared key (over params, say) is always allowed.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap

from jaxenvs import spaces
from jaxenvs.environment import Environment, check_key, defines, stepping_live_states
from jaxenvs.tree import cast_like
from jaxenvs.wrappers.base import Wrapper, transparent_raw
from jaxenvs.wrappers.batched_reset import (
    default_capacity,
    final_info,
    reset_uses_key,
    reset_where_done,
    select_where_done,
)

_STEP_KEY_DATA = 2**32 - 1  # folded into the step's key for the per-env step keys
# the batch is indexed in int32 (finished_index, scatters)
MAX_NUM_ENVS = 2**31 - 1


def check_num_envs(num_envs: Any, where: str = "make_vec") -> int:
    """`num_envs` as an int, or a clear error: a Python or numpy integer in [1, 2**31 - 1]
    (no float, string or bool: 2.5 would silently become 2, "4" is no number)."""
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
        raise TypeError(f"{where}: num_envs must be an int in [1, {MAX_NUM_ENVS}], got {num_envs!r}")
    if not 1 <= int(num_envs) <= MAX_NUM_ENVS:
        raise ValueError(f"{where}: num_envs must be an int in [1, {MAX_NUM_ENVS}], got {num_envs!r}")
    return int(num_envs)


def observe_fn(env):
    """The raw env's `observe`, when every wrapper between `env` and it declares (as a class
    attribute) `keeps_observation = True` and the raw env defines one; else None."""
    raw = transparent_raw(env)
    return raw.observe if raw is not None and defines(raw, "observe") else None


def one_key(key, venv: VecEnv, method: str):
    """`key`, or a `ValueError` when it is batched by a `jax.vmap` (the batching rule of an
    identity `custom_vmap`: nothing is added to the computation)."""

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


class VecEnv(Wrapper):
    """`num_envs` copies of `env` (a raw env: no auto-reset of its own).

    reset_capacity: how many finished envs one reset pass handles (default: a sixteenth of
        the batch, at least 16 or the whole batch); a step where more finish runs more passes.
    allow_vmap: let `jax.vmap` batch the key of `reset` and `step` (a batch of batches, see
        the module docstring); without it that raises a `ValueError`.

    `observation_space` and `action_space` are ONE env's (the batch adds a leading axis).
    """

    def __init__(self, env: Environment, num_envs: int, reset_capacity: int | None = None, allow_vmap: bool = False):
        super().__init__(env)
        self.num_envs = check_num_envs(num_envs, where=env.name)
        if reset_capacity is None:
            reset_capacity = default_capacity(self.num_envs)
        if not 1 <= int(reset_capacity) <= self.num_envs:
            raise ValueError(f"reset_capacity must be in [1, num_envs], got {reset_capacity}")
        self.reset_capacity = int(reset_capacity)
        if not isinstance(allow_vmap, (bool, np.bool_)):
            raise TypeError(f"{env.name}: allow_vmap must be True or False, got {allow_vmap!r}")
        self.allow_vmap = bool(allow_vmap)
        self._observe = observe_fn(env)

    def sample_actions(self, key, params=None):
        """One action per env from the action space, drawn with one key."""
        space = self.env.action_space(params)
        if isinstance(space, spaces.Discrete):
            return jax.random.randint(key, (self.num_envs,), space.start, space.start + space.n, space.dtype)
        return jax.vmap(space.sample)(jax.random.split(key, self.num_envs))

    def _reset_batch(self, key, params, n):
        return jax.vmap(self.env.reset, in_axes=(0, None))(jax.random.split(key, n), params)

    def reset(self, key, params=None):
        check_key(key, self.name)
        if not self.allow_vmap:
            key = one_key(key, self, "reset")
        return self._reset_batch(key, params, self.num_envs)

    def step(self, key, state, actions, params=None):
        check_key(key, self.name)
        if not self.allow_vmap:
            key = one_key(key, self, "step")
        with stepping_live_states():  # every finished env is reset in the step that ends it
            return self._step(key, state, actions, params)

    def _step(self, key, state, actions, params):
        leaves = jax.tree_util.tree_leaves((actions, params))
        if not any(isinstance(x, jax.core.Tracer) for x in leaves):
            # called eagerly: check every env's action exactly (inside the vmap below they are traced)
            spaces.check_action(self.env.action_space(params), actions, self.name, batch=(self.num_envs,))
        n, capacity = self.num_envs, self.reset_capacity
        if n == 1:
            return self._step_one(key, state, actions, params)
        # Keys, all distinct threefry counters under `key`: the per-env step keys come from
        # `fold_in(key, 2**32 - 1)` (dead code, dropped, if the env's step draws nothing);
        # the first reset pass's keys are `split(key, capacity + 1)[:capacity]`, drawn only
        # in a step where an env finished; later passes derive theirs from its last key.
        step_keys = jax.random.split(jax.random.fold_in(key, _STEP_KEY_DATA), n)
        obs, next_state, reward, terminated, truncated, info = jax.vmap(self.env.step, in_axes=(0, 0, 0, None))(
            step_keys, state, actions, params
        )
        done = jnp.logical_or(terminated, truncated)

        obs_fn = self._observe
        # with `observe`, resets replace state rows only; the observation is built once, after them
        batch_obs = () if obs_fn is not None else obs

        def keep_obs(new_obs, new_state):
            return ((), new_state) if obs_fn is not None else (new_obs, new_state)

        if not reset_uses_key(self.env, key, params):  # every episode starts alike
            obs_out, state_out = select_where_done(
                done, lambda: keep_obs(*self.env.reset(key, params)), (batch_obs, next_state)
            )
        else:

            def resets(p, index):
                def first():
                    return jax.random.split(key, capacity + 1)[:capacity]

                def later():
                    parent = jax.random.split(key, capacity + 1)[capacity]
                    return jax.random.split(jax.random.fold_in(parent, p), capacity)

                reset_keys = jax.lax.cond(p == 0, first, later)
                return keep_obs(*jax.vmap(self.env.reset, in_axes=(0, None))(reset_keys, params))

            def reset_all():
                # only when no pass runs: the passes' keys and these never meet in one step
                return keep_obs(*self._reset_batch(key, params, n))

            obs_out, state_out = reset_where_done(done, batch_obs, next_state, resets, capacity, reset_all)
        if obs_fn is not None:
            obs_out = jax.vmap(obs_fn, in_axes=(0, None))(state_out, params)
        info = final_info(self.env, info, obs, terminated, truncated, state_out, params)
        return obs_out, state_out, reward, terminated, truncated, info

    def _step_one(self, key, state, actions, params):
        """A batch of one: the env stepped alone and a `cond` around its reset. The step
        gets `key` itself and the reset `fold_in(key, 2**32 - 1)`, a threefry counter under
        `key` that no draw of the step's reaches: one random call fewer per step."""
        one_state, action = jax.tree_util.tree_map(lambda x: x[0], (state, actions))
        obs, next_state, reward, terminated, truncated, info = self.env.step(key, one_state, action, params)
        done = jnp.logical_or(terminated, truncated)

        def reset(_):
            new = self.env.reset(jax.random.fold_in(key, _STEP_KEY_DATA), params)
            return cast_like(new, (obs, next_state))

        obs_out, state_out = jax.lax.cond(done, reset, lambda _: (obs, next_state), None)
        info = final_info(self.env, info, obs, terminated, truncated, state_out, params)
        out = (obs_out, state_out, reward, terminated, truncated, info)
        return jax.tree_util.tree_map(lambda x: jnp.expand_dims(x, 0), out)

    def render(self, state, params=None):
        return jax.vmap(self.env.render, in_axes=(0, None))(state, params)

    def __repr__(self) -> str:
        return f"VecEnv({self.env!r}, num_envs={self.num_envs})"
