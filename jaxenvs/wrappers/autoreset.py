"""`AutoReset`: a finished episode is reset in the step that ends it (and `make_vec`'s batch).

Gymnasium's SAME_STEP mode, gymnax's behaviour. The whole rule is in this file, in one
function, `autoreset_step`, which `AutoReset`, `VecEnv` (vmapped) and the gymnax export run
with the env's `ResetRule` (what it declares: its reset, `observe`, `reset_after`, ...):

1. the raw step; `done = terminated | truncated`;
2. where `done`, `(obs, state)` becomes `env.reset(k, params)`, `k` the env's own reset key:
   the step's `key_reset`, or `fold_in(key_reset, index)` for `make_vec`'s env `index` (an env
   that declares `reset_after(k, finished_state, params)`, as `wrappers.Levels` does, gets
   that instead: its next episode may depend on the finished one, a replayed level; a family
   whose raw env is already a batch declares `reset_rows`, which replaces this step);
3. `info` gains `final_observation` (what the raw step returned), `final_terminated`,
   `final_truncated`, and the new episode's `action_mask`.

Step 2 is exact whatever computes it: each finished env gets the reset of its own key, as it
would alone (bit for bit, but for a float XLA may round one ulp apart in a program fused
otherwise: docs/batching.md). Under `jax.vmap` (and so in `make_vec`) a batching rule computes
it by a strategy:

- `"select"`: reset every env, select where done. No control flow of its own: what a GPU or
  TPU needs, where XLA decides each `cond` or `while` on the host, waiting for the device.
- `"capacity"`: list the finished envs and reset `capacity` of them a pass (a `while_loop`); a
  step where none finished runs none. The work grows with the finished envs, not the batch:
  what a CPU needs.
- `"auto"` (the default): `"capacity"` on a CPU, `"select"` on any other platform, chosen when
  the step is lowered (`jax.lax.platform_dependent`), so one jitted function suits each.

Stepped alone, a `"capacity"` step resets in a `cond`, a `"select"` one computes and selects.
Gradients (`jax.jvp`, `jax.grad`) take the reset's tangent where done, else the step's.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap

from jaxenvs.environment import check_key, defaults_params
from jaxenvs.tree import cast_like, where_done
from jaxenvs.wrappers.absorbing import unguarded
from jaxenvs.wrappers.base import Wrapper

STRATEGIES = ("auto", "capacity", "select")
# a `"capacity"` pass resets a sixteenth of the batch (at least 16 envs); a step where more
# than two passes' worth finished (episodes ending together: fixed lengths, time limits)
# resets the whole batch at once instead
CAPACITY_DIVISOR = 16
MIN_CAPACITY = 16
FULL_RESET_PASSES = 2


def check_strategy(strategy: Any, where: str) -> str:
    """Check a reset strategy's name.

    Args:
        strategy: The name given.
        where: Names the caller (the env) in the error.

    Returns:
        `strategy`.

    Raises:
        ValueError: It is not one of `STRATEGIES`.
    """
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        raise ValueError(f"{where}: reset_strategy must be one of {', '.join(map(repr, STRATEGIES))}, got {strategy!r}")
    return strategy


def default_capacity(num_envs: int) -> int:
    """How many envs one `"capacity"` pass resets.

    Args:
        num_envs: The batch size.

    Returns:
        A sixteenth of the batch, at least 16 (the whole batch when smaller).
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
        pad: How many out-of-range entries to add at the end.

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


def _scatter(index, new, old):
    """`old` with rows `index` replaced by `new`'s rows; out-of-range indices are dropped."""
    return jax.tree_util.tree_map(lambda n, o: o.at[index].set(n.astype(o.dtype), mode="drop"), new, old)


def _by_passes(done, old, resets, capacity, reset_all):
    """`"capacity"`: `old` with the finished rows replaced, `capacity` resets a pass.

    `resets(index)` gives the rows of the envs `index` (padded with the out-of-range `n`);
    `reset_all()` every env's, taken instead when more than `FULL_RESET_PASSES` passes would run.
    """
    index, count = finished_index(done, capacity)

    def passes(_):
        def one_pass(carry):
            p, rows = carry
            chunk = jax.lax.dynamic_slice(index, (p * capacity,), (capacity,))
            return p + 1, _scatter(chunk, resets(chunk), rows)

        return jax.lax.while_loop(lambda c: c[0] * capacity < count, one_pass, (jnp.int32(0), old))[1]

    if capacity * FULL_RESET_PASSES >= done.shape[0]:
        return passes(None)
    everything = lambda _: where_done(done, reset_all(), old)  # noqa: E731
    return jax.lax.cond(count > capacity * FULL_RESET_PASSES, everything, passes, None)


def _select(done, new, old):
    """`"select"`: `new` where `done`, else `old`, in `old`'s dtypes."""
    return cast_like(where_done(done, new, old), old)


def _broadcast_batch(args, in_batched, n):
    """Each argument with its batch axis: unbatched ones broadcast to `n` rows."""
    return jax.tree_util.tree_map(
        lambda x, b: x if b else jnp.broadcast_to(x, (n,) + jnp.shape(x)), args, tuple(in_batched)
    )


@dataclasses.dataclass(frozen=True)
class ResetRule:
    """What auto-reset needs of the env it resets, read once from the env's declarations.

    `ResetRule.of(env)` reads an env's (`jaxenvs.environment.Env`'s optional capabilities); the
    gymnax export builds one on its own state layout. `autoreset_step` runs it.

    Args:
        name: The env's name, for errors.
        reset: `reset(key, params) -> (obs, state)`.
        observe: `observe(state, params) -> obs`, or None: where given, a batch resets state rows
            only and builds its observations once from the states it returns (exactly what a
            single env returns).
        reset_after: `reset_after(key, finished_state, params) -> (obs, state)`, used instead of
            `reset` where given (how `wrappers.Levels` replays a level).
        action_mask: `action_mask(state, params)`, or None: `info["action_mask"]` then becomes
            the returned state's (the new episode's after a reset).
        ignores_key: `reset` gives the same start whatever its key: a `"capacity"` batch
            computes one reset and selects it.
        reset_rows: The hook of a family whose raw env is already a batch with its own
            emulators: `reset_rows(done, key, obs, state, params) -> (obs, state)` resets the
            rows where `done` (a bool vector) and keeps the others. Where given, it replaces the
            per-env reset and its batching strategies.
        strategy: One of `STRATEGIES`.
        capacity: Envs a `"capacity"` pass resets (default `default_capacity` of the batch).

    Raises:
        ValueError: `strategy` is not one of `STRATEGIES`.
    """

    name: str
    reset: Callable
    observe: Callable | None = None
    reset_after: Callable | None = None
    action_mask: Callable | None = None
    ignores_key: bool = False
    reset_rows: Callable | None = None
    strategy: str = "auto"
    capacity: int | None = None

    def __post_init__(self):
        check_strategy(self.strategy, self.name)

    @classmethod
    def of(cls, env: Any, strategy: str = "auto", capacity: int | None = None) -> ResetRule:
        """The rule of an env (raw or wrapped), from its declared capabilities.

        Args:
            env: A `jaxenvs.environment.Env`.
            strategy: One of `STRATEGIES`.
            capacity: Envs a `"capacity"` pass resets.

        Returns:
            The `ResetRule`.
        """
        return cls(
            name=env.name,
            reset=env.reset,
            observe=env.observe,
            reset_after=env.reset_after,
            action_mask=env.action_mask,
            ignores_key=bool(env.reset_ignores_key),
            reset_rows=env.reset_rows,
            strategy=strategy,
            capacity=capacity,
        )

    @functools.cached_property
    def reset_if_done(self) -> Callable:
        """Step 2 of the module's rule, with its batching rule, built once.

        Returns:
            `reset_if_done_fn(self)`.
        """
        return reset_if_done_fn(self)


def autoreset_step(
    rule: ResetRule,
    step: Callable,
    key_step: jax.Array,
    key_reset: jax.Array,
    state: Any,
    action: Any,
    params: Any,
    reset_index: Any = None,
) -> tuple:
    """The one auto-reset step: `AutoReset`, `VecEnv` (vmapped) and the gymnax export all run it.

    Args:
        rule: The env's `ResetRule`.
        step: The raw transition, `step(key, state, action, params)` -> the six-tuple.
        key_step: The transition's key.
        key_reset: A reset draws from it (or from `fold_in(key_reset, reset_index)`).
        state: The current state.
        action: The action.
        params: The params (resolved: not None).
        reset_index: The env's index in a batch (`make_vec`: each env's own reset key derived
            only for the envs that finished), or None.

    Returns:
        `(obs, state, reward, terminated, truncated, info)`: after a finished episode the new
        one's observation and state, with the finished one's reward and flags; `info` as
        `final_info` makes it.
    """
    obs, next_state, reward, terminated, truncated, info = step(key_step, state, action, params)
    done = jnp.logical_or(terminated, truncated)
    if rule.reset_rows is not None:
        obs_out, state_out = rule.reset_rows(done, key_reset, obs, next_state, params)
    else:
        obs_out, state_out = rule.reset_if_done(done, key_reset, obs, next_state, params, reset_index)
    info = final_info(rule.action_mask, info, obs, terminated, truncated, state_out, params)
    return obs_out, state_out, reward, terminated, truncated, info


def reset_if_done_fn(rule: ResetRule) -> Callable:
    """Step 2 of the module's rule, with its batching rule.

    Args:
        rule: The env's `ResetRule` (its `reset`, or `reset_after`, resets; where it
            `ignores_key`, `"capacity"` computes one reset and selects it; where it has
            `observe`, a batch resets state rows and observes the states it returns).

    Returns:
        `f(done, key, obs, state, params, index=None) -> (obs, state)`: the reset of `k` where
        `done`, else `(obs, state)`; `k` is `key`, or `fold_in(key, index)`.
    """
    strategy, capacity, ignores_key, observe = rule.strategy, rule.capacity, rule.ignores_key, rule.observe
    after = rule.reset_after is not None

    def reset_from(k, finished, params):
        return rule.reset_after(k, finished, params) if after else rule.reset(k, params)

    def by_platform(capacity_way, select_way):
        if strategy == "auto":
            return jax.lax.platform_dependent(cpu=capacity_way, default=select_way)
        return capacity_way() if strategy == "capacity" else select_way()

    def plain(done, key, index, obs, state, params):
        def reset():
            k = key if index is None else jax.random.fold_in(key, index)
            return cast_like(reset_from(k, state, params), (obs, state))

        old = (obs, state)
        return by_platform(lambda: jax.lax.cond(done, reset, lambda: old), lambda: _select(done, reset(), old))

    fast = custom_vmap(plain)

    @fast.def_vmap
    def batched(n, in_batched, done, key, index, obs, state, params):
        done_b, key_b, index_b, _, _, params_b = in_batched
        done, _, _, obs, state, _ = _broadcast_batch((done, key, index, obs, state, params), in_batched, n)
        params_axes = jax.tree_util.tree_map(lambda b: 0 if b else None, params_b)
        old = ((), state) if observe is not None else (obs, state)

        def keys_at(rows):
            keys = key[rows] if key_b else key
            if index is None:
                return keys
            at = index[rows] if index_b else jnp.broadcast_to(index, rows.shape)
            return jax.vmap(jax.random.fold_in, in_axes=(0 if key_b else None, 0))(keys, at)

        def resets(rows, all_rows=False):  # the resets of the envs `rows` (in range), as rows of `old`
            if index is None and not key_b:  # one key for all: broadcast it
                keys, key_axis = key, None
            else:
                keys, key_axis = keys_at(rows), 0
            rows_params = jax.tree_util.tree_map(lambda x, b: x[rows] if b else x, params, params_b)
            if after:
                finished = state if all_rows else jax.tree_util.tree_map(lambda x: x[rows], state)
                new_obs, new_state = jax.vmap(
                    rule.reset_after, in_axes=(key_axis, 0, params_axes), axis_size=rows.shape[0]
                )(keys, finished, rows_params)
            else:
                new_obs, new_state = jax.vmap(rule.reset, in_axes=(key_axis, params_axes), axis_size=rows.shape[0])(
                    keys, rows_params
                )
            return ((), new_state) if observe is not None else (new_obs, new_state)

        every = jnp.arange(n, dtype=jnp.int32)

        def by_select():
            return _select(done, resets(every, all_rows=True), old)

        def by_capacity():
            if n == 1:  # one env: the plain `cond`, which skips the reset when not done
                return jax.lax.cond(done[0], lambda: cast_like(resets(every, all_rows=True), old), lambda: old)
            if ignores_key:  # one reset for all; the select in the `cond`, or XLA:CPU fuses
                # the step's whole transition into every element of it
                return jax.lax.cond(jnp.any(done), lambda: cast_like(by_select(), old), lambda: old)
            cap = default_capacity(n) if capacity is None else min(int(capacity), n)
            if n + cap > 2**31 - 1:  # `finished_index` lists the batch in int32
                raise ValueError(f"a batch of {n} envs with a reset capacity of {cap} is more than int32 indexes")
            rows = lambda chunk: resets(jnp.minimum(chunk, n - 1))  # noqa: E731
            return _by_passes(done, old, rows, cap, lambda: resets(every, all_rows=True))

        obs_out, state_out = by_platform(lambda: cast_like(by_capacity(), old), lambda: cast_like(by_select(), old))
        if observe is not None:
            obs_out = jax.vmap(observe, in_axes=(0, params_axes))(state_out, params)
        out = cast_like((obs_out, state_out), (obs, state))
        return out, jax.tree_util.tree_map(lambda _: True, out)

    # custom_vmap has no reverse mode of its own: the tangent is the reset's (with respect
    # to params) where done, else the incoming one
    @jax.custom_jvp
    def reset_if_done(done, key, index, obs, state, params):
        return fast(done, key, index, obs, state, params)

    @reset_if_done.defjvp
    def _jvp(primals, tangents):
        done, key, index, obs, state, params = primals
        k = key if index is None else jax.random.fold_in(key, index)
        new = lambda p: cast_like(reset_from(k, state, p), (obs, state))  # noqa: E731
        _, reset_dot = jax.jvp(new, (params,), (tangents[5],))

        def pick(new, old):
            if new.dtype == jax.dtypes.float0:
                return old
            return jnp.where(jnp.reshape(done, done.shape + (1,) * (old.ndim - done.ndim)), new, old)

        return fast(*primals), jax.tree_util.tree_map(pick, reset_dot, tuple(tangents[3:5]))

    def call(done, key, obs, state, params, index=None):
        return reset_if_done(done, key, index, obs, state, params)

    return call


def final_info(
    action_mask: Callable | None,
    info: dict,
    obs: Any,
    terminated: jax.Array,
    truncated: jax.Array,
    state_out: Any,
    params: Any,
) -> dict:
    """Step 3 of the module's rule: `info` of a step that reset the finished envs.

    Args:
        action_mask: The env's `action_mask(state, params)`, or None.
        info: The raw step's `info`.
        obs: What the raw step returned (the terminal observation where an episode ended).
        terminated: The raw step's flags.
        truncated: The raw step's flags.
        state_out: The returned state (the new episode's where one began); batched, it gives
            batched masks.
        params: The env's params.

    Returns:
        A copy of `info` with `final_observation`, `final_terminated`, `final_truncated`, and,
        where `info` has `action_mask` and `action_mask` is given, the mask of `state_out`.
    """
    info = dict(info)
    info["final_observation"] = obs
    info["final_terminated"] = terminated
    info["final_truncated"] = truncated
    if "action_mask" in info and action_mask is not None:
        if jnp.ndim(terminated) > 0:
            action_mask = jax.vmap(action_mask, in_axes=(0, None))
        info["action_mask"] = action_mask(state_out, params)
    return info


class AutoReset(Wrapper):
    """Resets a finished episode in the step that ends it.

    The step returns the finished episode's `reward`, `terminated` and `truncated` with the new
    episode's first observation and state, and adds to `info`: `final_observation` (the
    observation the raw step produced: the terminal one when the episode ended, for
    bootstrapping truncated episodes), `final_terminated` and `final_truncated` (the raw step's
    flags, kept even if a wrapper above rewrites the returned ones). An env whose `info` has
    `action_mask` and that defines `action_mask(state, params)` gets the mask of the returned
    state, so after a reset it is the new episode's.

    Args:
        env: The env to reset (an `Absorbing` layer on top is dropped, `absorbing.unguarded`: a
            step here never starts from a finished state).
        reset_strategy: How a batch (`jax.vmap`) finds its resets: `"auto"`, `"capacity"` or
            `"select"` (the module docstring). It changes the work, never the results.
        reset_capacity: Envs a `"capacity"` pass resets (default: a sixteenth of the batch, at
            least 16).

    Raises:
        ValueError: `reset_strategy` is not one of them.

    Examples:
        >>> import jax
        >>> from jaxenvs.envs.classic.cartpole.env import CartPole
        >>> from jaxenvs.wrappers import AutoReset
        >>> env = AutoReset(CartPole())
        >>> obs, state = env.reset(jax.random.key(0))
        >>> for t in range(20):  # push left until the pole falls
        ...     obs, state, reward, terminated, truncated, info = env.step(jax.random.key(t), state, 0)
        ...     if terminated:
        ...         break
        >>> abs(float(info["final_observation"][2])) > 0.2095  # the fallen pole's angle
        True
        >>> abs(float(obs[2])) <= 0.05  # the next episode's first observation
        True
    """

    def __init__(self, env: Any, reset_strategy: str = "auto", reset_capacity: int | None = None):
        super().__init__(unguarded(env))
        self.reset_strategy = check_strategy(reset_strategy, self.env.name)
        self.reset_capacity = reset_capacity

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_rule"}  # closures, built again

    @property
    def action_mask(self):
        """The wrapped env's `action_mask` (its states are the env's; `info["action_mask"]` is the
        returned state's). `is_terminal` and `truncation` stay None: a returned state starts the
        next episode where the step's flags ended one."""
        return self.env.action_mask

    @property
    def rule(self) -> ResetRule:
        """The wrapped env's `ResetRule`, built once."""
        rule = self.__dict__.get("_rule")
        if rule is None:
            rule = self.__dict__["_rule"] = ResetRule.of(self.env, self.reset_strategy, self.reset_capacity)
        return rule

    @defaults_params
    def step(self, key, state, action, params=None):
        """One step, resetting a finished episode in it.

        Args:
            key: A JAX PRNG key (split into the step's and the reset's).
            state: The env's state.
            action: The action.
            params: The env's params (default: its `default_params`).

        Returns:
            `(obs, state, reward, terminated, truncated, info)`: after a finished episode, the
            new episode's observation and state with the finished one's reward and flags.

        Raises:
            TypeError: `key` is not one JAX PRNG key.
        """
        check_key(key, self.name)  # before the split, which would fail with JAX's own message
        key_step, key_reset = jax.random.split(key)
        return self.step_with_keys(key_step, key_reset, state, action, params)

    @defaults_params
    def step_with_keys(self, key_step, key_reset, state, action, params=None, reset_index=None):
        """`step` with its keys given (`autoreset_step` on the wrapped env).

        Args:
            key_step: The raw step draws from it.
            key_reset: A reset draws from it.
            state: The env's state.
            action: The action.
            params: The env's params (None: its `default_params`).
            reset_index: A reset draws from `fold_in(key_reset, reset_index)` instead (how
                `make_vec` gives each env its own reset key while deriving only the finished
                envs').

        Returns:
            `(obs, state, reward, terminated, truncated, info)`, as `step`.
        """
        return autoreset_step(self.rule, self.env.step, key_step, key_reset, state, action, params, reset_index)
