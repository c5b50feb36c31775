"""Collection on the JAX side: compiled once per env, the reference's states injected and read back.

The reference side collects through its own protocol (`jaxenvs.parity.reference`); these are
the JAX env's counterparts the comparisons (`jaxenvs.parity.harness`) step alongside it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.parity.data import State, Transitions, stack_rows

# A replay of recorded draws: (states, actions, draws, params) -> (obs, next state, reward, terminated).
Replay = Callable[[Any, Any, Any, Any], tuple]

_COMPILED: dict[tuple[int, str], tuple[Any, Callable]] = {}

# Batches of injected steps (`jax_step_batch`) and of resets (`sample_jax_resets`) run this many
# rows at a time (the last chunk padded with its last row, the padding's outputs dropped): the
# checks of a run share one compile whatever their sizes. Each row is computed from its own
# inputs alone; a batch of another size may round a chaotic env's floats differently (XLA
# vectorises by the batch), which is within every tolerance and distribution check.
ROW_BUCKET = 256


def compiled(env: Any, kind: str, build: Callable[[], Callable]) -> Callable:
    """One jitted function per (env object, kind): checks that share an env share its compiles.

    Args:
        env: the object the function belongs to (an env, or e.g. a replay function).
        kind: what the function is, in words (part of the cache key).
        build: builds the jitted function, on the first call for this key.

    Returns:
        The jitted function.
    """
    key = (id(env), kind)
    held = _COMPILED.get(key)
    if held is None or held[0] is not env:
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        held = _COMPILED[key] = (env, build())
    return held[1]


def bucketed(fn: Callable, in_axes: tuple, size: int = ROW_BUCKET) -> Callable:
    """`fn` (vmapped over axis 0 of the arguments whose `in_axes` is 0) called on `size` rows
    at a time, the last chunk padded with its last row, the outputs joined and cut back to the
    batch.

    Args:
        fn: the jitted, vmapped function.
        in_axes: its vmap axes (0 or None per argument).
        size: rows per call (`ROW_BUCKET` by default).

    Returns:
        The same function of the same arguments, compiled once for every batch size.
    """

    def call(*args):
        n = next(len(jax.tree_util.tree_leaves(a)[0]) for a, axis in zip(args, in_axes) if axis == 0)
        if n == 0:
            return fn(*args)
        outs = []
        for start in range(0, n, size):
            rows = np.minimum(np.arange(start, start + size), n - 1)
            take = functools.partial(jax.tree_util.tree_map, lambda x, rows=rows: x[rows])
            outs.append(fn(*(take(a) if axis == 0 else a for a, axis in zip(args, in_axes))))
        return jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs)[:n], *outs)

    return call


def compiled_replay(env: Any, replay: Callable, in_axes: tuple) -> Callable:
    """The jitted, vmapped `replay`, compiled once per env (a replay closes over the env alone).

    Args:
        env: the env the replay belongs to.
        replay: `(states, actions, draws, params) -> (obs, next state, reward, terminated)`.
        in_axes: its vmap axes.

    Returns:
        The jitted, vmapped replay.
    """
    code = getattr(replay, "__code__", None)
    if code is None:
        return jax.jit(jax.vmap(replay, in_axes=in_axes))
    return compiled(env, f"replay {in_axes} {id(code)}", lambda: jax.jit(jax.vmap(replay, in_axes=in_axes)))


def default_to_jax(env: Any, params: Any) -> Callable[[State, Any], Any]:
    """`to_jax` for a reference whose state fields carry the JAX state's names.

    Args:
        env: the raw JAX env.
        params: its params (its reset state is the template).

    Returns:
        `to_jax(state, params)`: the JAX env's own reset state with every field replaced by the
        reference's (in the JAX field's dtype); it raises `KeyError` naming a missing field.
    """
    _, template = env.reset(jax.random.key(0), params)
    names = [f for f in template.__dataclass_fields__]

    def to_jax(state: State, params: Any) -> Any:
        missing = [k for k in names if k not in state]
        if missing:
            raise KeyError(
                f"the reference state has no {missing} (it has {sorted(state)}); "
                "read them in read_state, or give the reference a to_jax"
            )
        return template.replace(**{k: jnp.asarray(state[k], jnp.asarray(getattr(template, k)).dtype) for k in names})

    return to_jax


def to_jax_batch(env: Any, params: Any, ref: Any, states: State) -> Any:
    """The JAX states, batched along the first axis, of a batch of reference states.

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference (its `to_jax`, if any).
        states: `{field: [n, ...]}` reference states.

    Returns:
        The batched JAX state (None for an empty batch without `to_jax`).
    """
    n = len(next(iter(states.values())))
    if ref.to_jax is None:
        return default_to_jax(env, params)(states, params) if n else None
    if ref.batched_to_jax:
        return ref.to_jax(states, params)
    items = [ref.to_jax({k: v[i] for k, v in states.items()}, params) for i in range(n)]
    return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *items)


def from_jax(ref: Any, state: Any, fields: Sequence[str]) -> State:
    """The JAX state as the reference names it.

    Args:
        ref: the reference (its `from_jax`, if any).
        state: a JAX state (batched or not).
        fields: the fields read without `from_jax` (those the JAX state has; a field only the
            reference keeps, such as bsuite's `time_elapsed`, is not compared).

    Returns:
        `{field: numpy array}`.
    """
    if ref.from_jax is not None:
        return {k: np.asarray(v) for k, v in ref.from_jax(state).items()}
    return {k: np.asarray(getattr(state, k)) for k in fields if hasattr(state, k)}


def recorded_draws(ref: Any, data: Transitions) -> Any:
    """The reference's recorded draws of every row, translated for a replay and stacked.

    Args:
        ref: the reference (its `draws_to_jax`).
        data: transitions with `draws`.

    Returns:
        The stacked draws.
    """
    return stack_rows([ref.draws_to_jax(d, data.state_at(i)) for i, d in enumerate(data.draws)])


def jax_step_batch(env, params, ref, data: Transitions, seed: int, replay: Replay | None, batched_params: bool):
    """The JAX side of a batch of reference transitions: one vmapped step (or replay) per row.

    Args:
        env: the raw JAX env.
        params: its params (one per row where `batched_params`).
        ref: the reference (translates the states).
        data: the reference transitions.
        seed: the seed of the steps' keys.
        replay: the compiled replay, or None for the env's own step.
        batched_params: `params` has one row per transition.

    Returns:
        `(obs, next state, reward, terminated, truncated, info)` (truncated None and info
        empty for a replay).
    """
    states = to_jax_batch(env, params, ref, data.states)
    actions = jnp.asarray(data.actions)
    axes = (0, 0, 0, 0 if batched_params else None)
    if replay is not None:
        obs, nxt, reward, terminated = bucketed(replay, axes)(states, actions, recorded_draws(ref, data), params)
        return obs, nxt, reward, terminated, None, {}
    keys = jax.random.split(jax.random.key(seed), len(data))
    step = compiled(env, f"step{axes}", lambda: jax.jit(jax.vmap(env.step, in_axes=axes)))
    return bucketed(step, axes)(keys, states, actions, params)


def sample_jax_steps(env: Any, params: Any, ref: Any, state: State, action: Any, n: int, seed: int = 0) -> Transitions:
    """`n` JAX steps from the same injected state.

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference (translates the state both ways).
        state: the reference state to inject.
        action: the action taken from it.
        n: how many steps.
        seed: the seed of the steps' keys.

    Returns:
        The `n` transitions, the next states as the reference names them.
    """
    start = to_jax_batch(env, params, ref, {k: np.asarray(v)[None] for k, v in state.items()})
    start = jax.tree_util.tree_map(lambda x: x[0], start)
    keys = jax.random.split(jax.random.key(seed + 7919), n)
    step = compiled(env, "sample step", lambda: jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None))))
    obs, nxt, *out = jax.tree_util.tree_map(np.asarray, step(keys, start, jnp.asarray(action), params))
    return Transitions.from_steps(state, action, from_jax(ref, nxt, list(state)), (obs, *out))


def sample_jax_resets(
    env: Any, params: Any, ref: Any, n: int, seed: int = 0, fields: Sequence[str] | None = None
) -> tuple[State, Any]:
    """`n` JAX resets.

    Args:
        env: the raw JAX env.
        params: its params.
        ref: the reference (names the state's fields).
        n: how many resets.
        seed: the seed of the reset keys.
        fields: the JAX state fields to read (every field by default).

    Returns:
        `(states as the reference names them, observations)`, each with `n` rows.
    """
    keys = jax.random.split(jax.random.key(seed + 104729), n)
    reset = compiled(env, "reset", lambda: jax.jit(jax.vmap(env.reset, in_axes=(0, None))))
    obs, states = bucketed(reset, (0, None))(keys, params)
    fields = list(states.__dataclass_fields__) if fields is None else fields
    return from_jax(ref, states, fields), jax.tree_util.tree_map(np.asarray, obs)


def to_numpy(tree: Any) -> Any:
    """A pytree fetched from the device as numpy arrays.

    Args:
        tree: a pytree of arrays.

    Returns:
        The same pytree of numpy arrays.
    """
    return jax.tree_util.tree_map(np.asarray, jax.device_get(tree))


def space_and_cut(env: Any, params: Any, max_steps: int) -> tuple[Any, int]:
    """The action space, and the steps an episode is cut at.

    Args:
        env: the JAX env.
        params: its params.
        max_steps: the cut asked for.

    Returns:
        `(action space, min(params.max_steps_in_episode, max_steps))`.
    """
    return env.action_space(params), min(int(params.max_steps_in_episode), max_steps)


def first_episodes(reset_fn, step_fn, space, num_steps: int, keys: jax.Array):
    """Length and return of the first episode of each of `len(keys)` envs, uniform random
    actions, each cut at `num_steps`: one vmapped step per iteration of a loop that stops when
    every episode has ended (a random policy's episodes are far shorter than the cut); traced
    inside the caller's jitted function.

    Args:
        reset_fn: `key -> (obs, state)`.
        step_fn: `(key, state, action) -> six-tuple`.
        space: the action space the random actions are drawn from.
        num_steps: the cut.
        keys: one key per env.

    Returns:
        `(lengths, returns)`, one per env.
    """
    step = jax.vmap(lambda k, s: step_fn(k, s, space.sample(jax.random.fold_in(k, 1))))
    k_reset, k_run = jax.vmap(jax.random.split, out_axes=1)(keys)
    _, state = jax.vmap(reset_fn)(k_reset)
    n = keys.shape[0]

    def cond(carry):
        t, _, done, _, _ = carry
        return (t < num_steps) & ~jnp.all(done)

    def body(carry):
        t, state, done, length, ret = carry
        ks = jax.vmap(jax.random.fold_in, in_axes=(0, None))(k_run, t)
        _, nstate, r, te, tr, _ = step(ks, state)
        alive = ~done
        state = jax.tree_util.tree_map(
            lambda new, old: jnp.where(alive.reshape((n,) + (1,) * (new.ndim - 1)), new, old), nstate, state
        )
        return t + 1, state, done | te | tr, length + alive, ret + jnp.where(alive, r, 0.0)

    init = (jnp.int32(0), state, jnp.zeros(n, bool), jnp.zeros(n, jnp.int32), jnp.zeros(n, jnp.float32))
    _, _, _, length, ret = jax.lax.while_loop(cond, body, init)
    return length, ret


def jax_episode_statistics(env: Any, params: Any, num_episodes: int, seed: int = 0, max_steps: int = 100_000):
    """Lengths and returns of the first episode of vmapped raw JAX envs under uniform random actions.

    Compiled once per (env object, cut, action space) with the params passed in, so that runs
    at other params (a mutant's) reuse it.

    Args:
        env: the raw JAX env.
        params: its params (`max_steps_in_episode` among them).
        num_episodes: how many envs (one episode each).
        seed: the seed of the envs' keys.
        max_steps: each episode is cut at `min(max_steps_in_episode, max_steps)`.

    Returns:
        `(lengths, returns)`, numpy arrays of `num_episodes` each.
    """
    space, steps = space_and_cut(env, params, max_steps)

    def run(keys, params):
        return first_episodes(
            lambda k: env.reset(k, params), lambda k, s, a: env.step(k, s, a, params), space, steps, keys
        )

    episodes = compiled(env, f"random-policy episodes {steps} {space!r}", lambda: jax.jit(run))
    return to_numpy(episodes(jax.random.split(jax.random.key(seed), num_episodes), params))
