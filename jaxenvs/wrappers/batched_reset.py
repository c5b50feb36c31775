"""The batched-reset engine: `AutoReset`'s batching rule (and so `make_vec`'s).

Under `jax.vmap`, `reset_if_done_fn` resets only the envs of a batch whose episodes ended:
the work grows with the number of finished envs, not with the batch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap

from jaxenvs.environment import defines
from jaxenvs.tree import cast_like, where_done
from jaxenvs.wrappers.base import transparent_raw

# `reset_where_done` resets at most this fraction of the batch per pass (at least
# `MIN_CAPACITY` envs); more finished envs take more passes.
CAPACITY_DIVISOR = 16
MIN_CAPACITY = 16
# more finished envs than this many passes would reset take one reset of the whole batch
FULL_RESET_PASSES = 2


def default_capacity(num_envs: int) -> int:
    """How many envs one pass of `reset_where_done` resets.

    Args:
        num_envs: the batch size.

    Returns:
        A sixteenth of the batch, at least 16 (or the whole batch when smaller).
    """
    return min(num_envs, max(MIN_CAPACITY, math.ceil(num_envs / CAPACITY_DIVISOR)))


def _inclusive_count(x: jax.Array, block: int = 64) -> jax.Array:
    """Inclusive prefix sums of a float32 vector of 0s and 1s, by triangular matrix products.

    XLA's CPU `cumsum` (an associative scan) costs several times more at batch sizes in the
    thousands; block products are exact while counts stay below 2**24."""
    n = x.shape[0]
    upper = lambda m: jnp.asarray(np.triu(np.ones((m, m), np.float32)))  # noqa: E731
    if n <= block:
        return jnp.dot(x, upper(n), precision=jax.lax.Precision.HIGHEST)
    rows = -(-n // block)
    blocks = jnp.pad(x, (0, rows * block - n)).reshape(rows, block)
    inner = jnp.dot(blocks, upper(block), precision=jax.lax.Precision.HIGHEST)
    totals = inner[:, -1]
    before = _inclusive_count(totals, block) - totals
    return (inner + before[:, None]).reshape(-1)[:n]


def finished_index(done: jax.Array, pad: int) -> tuple[jax.Array, jax.Array]:
    """The positions of the finished envs, in order.

    Args:
        done: `bool[n]`.
        pad: how many out-of-range entries to add at the end.

    Returns:
        `(index, count)`: `int32[n + pad]`, the positions of the true entries of `done` in
        order, then `n` (an out-of-range index); and how many entries are true.
    """
    n = done.shape[0]
    if n < 2**24:
        rank = _inclusive_count(done.astype(jnp.float32)).astype(jnp.int32)
    else:
        rank = jnp.cumsum(done, dtype=jnp.int32)
    slot = jnp.where(done, rank - 1, n + pad)
    index = jnp.full((n + pad,), n, jnp.int32).at[slot].set(jnp.arange(n, dtype=jnp.int32), mode="drop")
    return index, rank[-1]


def reset_uses_key(env, key, params) -> bool:
    """Whether `env.reset(key, params)` depends on `key` at all, read off the reset's jaxpr.

    Any operation with the key or a value computed from it among its operands counts. A reset
    that does not (every episode starts alike: DeepSea, Asterix, Pong) needs no index work:
    one reset, selected where an env finished. The answer depends only on the types of `key`
    and `params` (their tree, shapes and dtypes), so callers cache it.

    Args:
        env: the env.
        key: a key of the type the reset gets.
        params: params of the type the reset gets.

    Returns:
        True when an output of the reset depends on `key`.
    """
    jaxpr = jax.make_jaxpr(env.reset)(key, params).jaxpr
    depends = {id(jaxpr.invars[0])}
    for eqn in jaxpr.eqns:
        if any(id(v) in depends for v in eqn.invars if not hasattr(v, "val")):
            depends.update(id(v) for v in eqn.outvars)
    return any(id(v) in depends for v in jaxpr.outvars if not hasattr(v, "val"))


def _signature(tree: Any) -> tuple:
    """What a trace of a function of `tree` depends on: its tree and its leaves' shapes and dtypes."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return treedef, tuple((jnp.shape(x), jnp.result_type(x), isinstance(x, (int, float))) for x in leaves)


def select_where_done(done: jax.Array, reset: Callable[[], Any], old: Any) -> Any:
    """`where_done(done, reset(), old)` for a reset that is the same for every env.

    Skipped when nothing finished. The select sits in a `cond` branch on purpose: outside one,
    XLA fuses the step's whole transition into every element of the selected observation,
    computing it again and again.

    Args:
        done: `bool[n]`.
        reset: `() -> (obs, state)`, the reset (unbatched, or batched over params).
        old: the batch's `(obs, state)`.

    Returns:
        `old` with the finished envs' rows replaced by the reset's, in `old`'s dtypes.
    """
    return jax.lax.cond(jnp.any(done), lambda: cast_like(where_done(done, reset(), old), old), lambda: old)


def _scatter(index, new, old):
    """`old` with rows `index` replaced by `new`'s rows; out-of-range indices are dropped."""
    return jax.tree_util.tree_map(lambda n, o: o.at[index].set(n.astype(o.dtype), mode="drop"), new, old)


def reset_where_done(
    done: jax.Array,
    obs: Any,
    state: Any,
    resets: Callable[[jax.Array, jax.Array], tuple[Any, Any]],
    capacity: int,
    reset_all: Callable[[], tuple[Any, Any]] | None = None,
) -> tuple[Any, Any]:
    """`(obs, state)` of a batch with every env where `done` replaced by a fresh reset.

    The finished envs are listed in order and reset `capacity` at a time, the rows going in
    place by scatter. A step where nothing finished runs no pass; the reset work grows with
    the number of finished envs, not with the batch.

    Args:
        done: `bool[n]`.
        obs: the batch's observations.
        state: the batch's states.
        resets: `(p, index) -> (obs, state)`: pass `p`'s `capacity` reset rows, for the envs
            `index` (`capacity` positions, padded with the out-of-range `n`).
        capacity: how many envs one pass resets.
        reset_all: a reset of every env, rows in batch order; a step where more than
            `FULL_RESET_PASSES` passes would be needed (envs whose episodes end together:
            fixed lengths, time limits) takes it instead, keeping the finished envs' rows.

    Returns:
        The new `(obs, state)`.
    """
    index, count = finished_index(done, capacity)

    def passes(_):
        def more(carry):
            return carry[0] * capacity < count

        def one_pass(carry):
            p, o, s = carry
            chunk = jax.lax.dynamic_slice(index, (p * capacity,), (capacity,))
            new_obs, new_state = resets(p, chunk)
            return p + 1, _scatter(chunk, new_obs, o), _scatter(chunk, new_state, s)

        _, o, s = jax.lax.while_loop(more, one_pass, (jnp.int32(0), obs, state))
        return o, s

    if reset_all is None or capacity * FULL_RESET_PASSES >= done.shape[0]:
        return passes(None)

    def everything(_):
        return where_done(done, reset_all(), (obs, state))

    return jax.lax.cond(count > capacity * FULL_RESET_PASSES, everything, passes, None)


def observe_fn(env: Any) -> Callable | None:
    """The raw env's `observe`, where the batch's observations can be built from states.

    Args:
        env: the env, possibly wrapped.

    Returns:
        The raw env's `observe`, when every wrapper between `env` and it declares (as a class
        attribute) `keeps_observation = True` and the raw env defines one; else None.
    """
    raw = transparent_raw(env)
    return raw.observe if raw is not None and defines(raw, "observe") else None


def reset_if_done_fn(env: Any, capacity: int | None = None) -> Callable:
    """The reset-where-done function of `env`, alone a `lax.cond`, under `jax.vmap` a batched reset.

    Under `jax.vmap` (a `custom_vmap` rule) only the finished envs are reset, by
    `reset_where_done`; a reset that ignores its key (`reset_uses_key`, asked once per type
    of params) is computed once and selected where done. For an env with `observe`
    (`observe_fn`), the resets replace state rows only and the batch's observations are built
    once from the returned states (exactly the observations a single env returns).
    Differentiable through the plain `cond`.

    Args:
        env: the env to reset.
        capacity: how many finished envs one pass resets (default `default_capacity` of the
            batch).

    Returns:
        `f(done, key, obs, state, params, index=None) -> (obs, state)`: `env.reset(k, params)`
        where `done`, else `(obs, state)`; `k` is `key`, or `fold_in(key, index)` with an
        `index` (`make_vec`'s reset keys: one key for the batch, derived only for the envs
        that finished). Under `jax.vmap` it raises `ValueError` when the batch plus the
        capacity exceed int32 indexes.
    """
    observe = observe_fn(env)
    uses_key: dict = {}

    def reset_key(key, index):
        return key if index is None else jax.random.fold_in(key, index)

    def plain(done, key, index, obs, state, params):
        def reset(_):
            return cast_like(env.reset(reset_key(key, index), params), (obs, state))

        return jax.lax.cond(done, reset, lambda _: (obs, state), None)

    fast = custom_vmap(plain)

    @fast.def_vmap
    def batched(axis_size, in_batched, done, key, index, obs, state, params):
        done_b, key_b, index_b, _, _, params_b = in_batched
        args = (done, key, index, obs, state, params)
        if axis_size == 1:  # one env: the plain `cond`, which skips the reset when not done
            one = jax.tree_util.tree_map(lambda x, b: x[0] if b else x, args, tuple(in_batched))
            out = jax.tree_util.tree_map(lambda x: x[None], plain(*one))
            return out, jax.tree_util.tree_map(lambda _: True, out)

        n = axis_size
        done, _, _, obs, state, _ = jax.tree_util.tree_map(
            lambda x, b: x if b else jnp.broadcast_to(x, (n,) + jnp.shape(x)), args, tuple(in_batched)
        )
        params_axes = jax.tree_util.tree_map(lambda b: 0 if b else None, params_b)
        one_key = key[0] if key_b else key
        one_params = jax.tree_util.tree_map(lambda x, b: x[0] if b else x, params, params_b)
        signature = (_signature(one_key), _signature(one_params))
        try:
            keyed = uses_key[signature]
        except KeyError:
            keyed = uses_key[signature] = reset_uses_key(env, one_key, one_params)
        except TypeError:  # a static params field that does not hash: asked every time
            keyed = reset_uses_key(env, one_key, one_params)

        def reset(keys, reset_params, size):  # `size` resets, rows of `(obs, state)`
            axes = (0 if jnp.ndim(keys) > jnp.ndim(one_key) else None, params_axes)
            new_obs, new_state = jax.vmap(env.reset, in_axes=axes, axis_size=size)(keys, reset_params)
            return ((), new_state) if observe is not None else (new_obs, new_state)

        old = ((), state) if observe is not None else (obs, state)
        if not keyed:  # every episode starts alike: one reset (one per env if params are batched)

            def reset_once():
                if any(jax.tree_util.tree_leaves(params_b)):
                    return reset(one_key, params, n)
                new_obs, new_state = env.reset(one_key, params)
                return (() if observe is not None else new_obs), new_state

            obs_out, state_out = select_where_done(done, reset_once, old)
        else:
            cap = default_capacity(n) if capacity is None else min(int(capacity), n)
            if n + cap > 2**31 - 1:  # `finished_index` lists the batch in int32
                raise ValueError(f"a batch of {n} envs with a reset capacity of {cap} is more than int32 indexes")

            def keys_at(rows):
                keys = key[rows] if key_b else key
                if index is None:
                    return keys
                at = index[rows] if index_b else jnp.broadcast_to(index, rows.shape)
                return jax.vmap(jax.random.fold_in, in_axes=(0 if key_b else None, 0))(keys, at)

            def resets(_, chunk):
                rows = jnp.minimum(chunk, n - 1)
                chunk_params = jax.tree_util.tree_map(lambda x, b: x[rows] if b else x, params, params_b)
                return reset(keys_at(rows), chunk_params, cap)

            def reset_all():
                return reset(keys_at(jnp.arange(n)), params, n)

            obs_out, state_out = reset_where_done(done, *old, resets, cap, reset_all)
        if observe is not None:
            obs_out = jax.vmap(observe, in_axes=(0, params_axes))(state_out, params)
        out = cast_like((obs_out, state_out), (obs, state))
        return out, jax.tree_util.tree_map(lambda _: True, out)

    # custom_vmap has no reverse mode of its own: the tangent is the reset's (with respect
    # to params) where done, else the incoming one, as the plain `cond` gives
    @jax.custom_jvp
    def reset_if_done(done, key, index, obs, state, params):
        return fast(done, key, index, obs, state, params)

    @reset_if_done.defjvp
    def _jvp(primals, tangents):
        done, key, index, obs, state, params = primals
        obs_dot, state_dot, params_dot = tangents[3:]
        out = fast(*primals)
        new = lambda p: cast_like(env.reset(reset_key(key, index), p), (obs, state))  # noqa: E731
        _, reset_dot = jax.jvp(new, (params,), (params_dot,))

        def pick(new, old):
            if new.dtype == jax.dtypes.float0:
                return old
            return jnp.where(jnp.reshape(done, done.shape + (1,) * (old.ndim - done.ndim)), new, old)

        return out, jax.tree_util.tree_map(pick, reset_dot, (obs_dot, state_dot))

    def call(done, key, obs, state, params, index=None):
        return reset_if_done(done, key, index, obs, state, params)

    return call


def final_info(
    env: Any, info: dict, obs: Any, terminated: jax.Array, truncated: jax.Array, state_out: Any, params: Any
) -> dict:
    """`info` of a step that reset the finished envs.

    Args:
        env: the env (its `action_mask(state, params)`, if any, is used).
        info: the raw step's `info`.
        obs: what the raw step returned (the terminal observation where an episode ended).
        terminated: the raw step's flags.
        truncated: the raw step's flags.
        state_out: the returned state (the new episode's where one began); batched, it gives
            batched masks.
        params: the env's params.

    Returns:
        A copy of `info` with `final_observation`, `final_terminated`, `final_truncated`, and,
        where `info` has `action_mask` and the env defines one, the mask of `state_out`.
    """
    info = dict(info)
    info["final_observation"] = obs
    info["final_terminated"] = terminated
    info["final_truncated"] = truncated
    if "action_mask" in info and hasattr(env, "action_mask"):
        mask = env.action_mask
        if jnp.ndim(terminated) > 0:
            mask = jax.vmap(mask, in_axes=(0, None))
        info["action_mask"] = mask(state_out, params)
    return info
