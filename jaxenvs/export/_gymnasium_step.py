"""The single gymnasium env's hot path: one jitted call per `step()` and one host copy.

`Fused` compiles a raw env's reset and step so that each is one jitted call on flat buffers of
32-bit words: the *carry* (the random key's data and the state's leaves, kept on the device and
passed back) and the *outputs* (what gymnasium returns: the observation, the info, the reward
and the two flags), which come to the host as one array and are cut into numpy views there. No
pytree is flattened or built in Python on the way but the info dict, the key stays raw data (no
typed-key objects made per step), its split is written out straight (bit for bit
`jax.random.split`'s), and the time-limit correction that `JaxEnv` needs where gymnasium's
`TimeLimit` applies the limit is computed inside the same call. The buffers' layout (`Carry`,
`Observations`, `pack`) is `_packed`'s, which the SB3 VecEnv's fused step shares. Under levels
(`_bridge.Leveled`) the state is a `LevelState` and a reset may start from a given level, in
its own program: the env without levels keeps its own.
"""

from __future__ import annotations

import functools
import struct
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.export._bridge import Leveled, gymnasium_info
from jaxenvs.export._packed import Carry, Observations, layout, pack
from jaxenvs.spaces.convert import to_gymnasium
from jaxenvs.wrappers.levels import LevelState

_SCALARS = struct.Struct("<f?3x?3x")  # reward (float32), terminated, truncated: three 32-bit words


def _time(state: Any) -> Any:
    """The steps taken in the episode of `state` (under levels: of its env's state)."""
    return state.env_state.time if isinstance(state, LevelState) else state.time


class Fused:
    """A raw env's reset and step as one jitted call each, on buffers of 32-bit words.

    The carry (key data and state) and the outputs (observation, info, reward, flags) are one
    buffer when the carry is small (at most `JOINED_WORDS` words: one output per call, passed
    back whole and donated; the host copies all of it), two otherwise (only the outputs are
    copied to the host). Either way the methods take and return an opaque device `carry`.

    Args:
        env: A raw env (no auto-reset).
        params: Its params.
        obs_space: The gymnasium observation space the observations are returned in.
        drop_time_limit: Whether the env's own time-limit truncation is dropped from `truncated`
            (where gymnasium's `TimeLimit` applies the limit instead).
        leveled: The env under levels (`_bridge.Leveled`: the state a `LevelState`, and resets
            from a given level), or None.
    """

    def __init__(self, env: Any, params: Any, obs_space: Any, drop_time_limit: bool, leveled: Leveled | None = None):
        if leveled is not None:
            env = leveled.env
        self.env, self.params, self.leveled = env, params, leveled
        key = jax.random.key(0)
        obs, state = jax.eval_shape(lambda k: env.reset(k, params), key)
        action = jax.eval_shape(env.action_space(params).sample, key)
        out = jax.eval_shape(lambda k, s, a: env.step(k, s, a, params), key, state, action)
        obs_leaves, obs_tree = jax.tree_util.tree_flatten(out[0])
        info_leaves, info_tree = jax.tree_util.tree_flatten(gymnasium_info(out[5]))
        # the carry: the key's data, then the state's leaves
        self._carry_layout = carry = Carry(key, state)
        self.joined = joined = carry.joined
        # the outputs (after the carry where joined): observation leaves, info leaves, reward, flags
        obs_layout, end = layout(obs_leaves, start=carry.outputs_start)
        self.observation = Observations(obs_layout, obs_tree, obs_space, batched=False)
        self._info, end = layout(info_leaves, start=end)
        self._scalars_at = 4 * end  # in bytes, for `struct`
        self._info_tree = info_tree
        # a flat info dict (the usual) is built from its keys, not by unflattening its tree
        probe = jax.tree_util.tree_unflatten(info_tree, list(range(len(info_leaves))))
        flat = isinstance(probe, dict) and list(probe.values()) == list(range(len(info_leaves)))
        self._info_keys = list(probe) if flat else None
        blank_outputs = 3 + sum(leaf.words for leaf in self._info)  # what a reset does not fill
        self._read = self._plain_reader() or self._read_outputs

        def first(words, start):
            words, k = carry.split(words)
            obs, state = start(k)
            outputs = pack(jax.tree_util.tree_leaves(obs))
            if joined:  # the buffer has one shape whatever made it
                # padded, not concatenated with zeros: XLA:CPU runs that concatenation as its own
                # slow loop (a CartPole reset took 40 us, not 8)
                outputs = jnp.pad(outputs, (0, blank_outputs))
            return carry.result(words, state, outputs)

        def reset(words):
            return first(words, lambda k: env.reset(k, params))

        def reset_to_level(words, level):
            return first(words, lambda k: leveled.start(k, level, params))

        def step(buf, action):
            words, k = carry.split(buf)
            obs, state, reward, terminated, truncated, info = env.step(k, carry.state(buf), action, params)
            if drop_time_limit:  # gymnasium's TimeLimit is the limit: drop the env's own
                truncated = truncated & ~(_time(state) >= params.max_steps_in_episode)
            outputs = jax.tree_util.tree_leaves(obs) + jax.tree_util.tree_leaves(gymnasium_info(info))
            outputs += [jnp.asarray(reward, jnp.float32), terminated, truncated]
            return carry.result(words, state, pack(outputs))

        self._reset_from_key = jax.jit(reset)
        self._step = jax.jit(step, donate_argnums=carry.donate)
        self._state = jax.jit(carry.state)
        self.render = jax.jit(lambda state: env.render(state, params))
        if leveled is not None:
            self._reset_level_from_key = jax.jit(reset_to_level)
        if joined:  # the carry is donated: a program of its own
            self._reset_from_carry = jax.jit(reset, donate_argnums=carry.donate)
            if leveled is not None:
                self._reset_level_from_carry = jax.jit(reset_to_level, donate_argnums=carry.donate)
        else:  # a reset reads only the key: the key's program serves (one compile fewer)
            self._reset_from_carry = lambda buf: self._reset_from_key(buf[: carry.key_words])
            if leveled is not None:
                self._reset_level_from_carry = lambda buf, level: self._reset_level_from_key(
                    buf[: carry.key_words], level
                )

    def reset_from_key(self, key_data: jax.Array) -> tuple[jax.Array, Any]:
        """Start an episode from a key.

        Args:
            key_data: The key's data (`jax.random.key_data`).

        Returns:
            `(carry, obs)`: the next carry and the first observation (numpy).
        """
        return self._reset(self._reset_from_key(key_data))

    def reset_from_carry(self, carry: jax.Array) -> tuple[jax.Array, Any]:
        """Start an episode from the key the carry holds (the key stream goes on).

        Args:
            carry: The carry (consumed where joined).

        Returns:
            `(carry, obs)`.
        """
        return self._reset(self._reset_from_carry(carry))

    def reset_to_level_from_key(self, key_data: jax.Array, level: Any) -> tuple[jax.Array, Any]:
        """Start an episode from a level (`Leveled.prepare`'s), with a key (under levels only).

        Args:
            key_data: The key's data.
            level: The level.

        Returns:
            `(carry, obs)`.
        """
        return self._reset(self._reset_level_from_key(key_data, level))

    def reset_to_level_from_carry(self, carry: jax.Array, level: Any) -> tuple[jax.Array, Any]:
        """Start an episode from a level, with the key the carry holds (under levels only).

        Args:
            carry: The carry (consumed where joined).
            level: The level.

        Returns:
            `(carry, obs)`.
        """
        return self._reset(self._reset_level_from_carry(carry, level))

    def key_data(self, carry: jax.Array) -> jax.Array:
        """The data of the key a carry holds (where another program's carry goes on from).

        Args:
            carry: The carry (not consumed).

        Returns:
            The key's data.
        """
        return carry[: self._carry_layout.key_words]

    def _reset(self, result: Any) -> tuple[jax.Array, Any]:
        carry, raw = self._carry_layout.host(result)
        return carry, self.observation(raw)

    def step(self, carry: jax.Array, action: Any) -> tuple[jax.Array, tuple[Any, float, bool, bool, dict]]:
        """One step: one jitted call, one host copy.

        Args:
            carry: The carry (consumed where joined).
            action: The action, of the env's action dtype (numpy or on the device).

        Returns:
            `(carry, (obs, reward, terminated, truncated, info))`, the outputs as gymnasium's
            `step` returns them.
        """
        result = self._step(carry, action)
        if self.joined:  # `Carry.host`, inline: this is the hot path
            return result, self._read(np.array(result))
        return result[0], self._read(np.array(result[1]))

    def _read_outputs(self, raw: np.ndarray) -> tuple[Any, float, bool, bool, Any]:
        """What gymnasium's `step` returns, read out of a host copy of the outputs (any layout)."""
        reward, terminated, truncated = _SCALARS.unpack_from(raw, self._scalars_at)
        keys = self._info_keys
        if keys is not None:
            info = {key: leaf.view(raw) for key, leaf in zip(keys, self._info)}
        else:
            info = jax.tree_util.tree_unflatten(self._info_tree, [leaf.view(raw) for leaf in self._info])
        return self.observation(raw), reward, terminated, truncated, info

    def _plain_reader(self) -> Any:
        """`_read_outputs` for the usual layout, written out (a function call less per value): one
        observation array and a flat info dict, each a view of the host copy. None otherwise."""
        obs = self.observation
        leaves = [obs._single, *self._info] if obs._single is not None else None
        if leaves is None or obs._int or obs._cast or self._info_keys is None:
            return None
        if any(leaf.dtype.itemsize < 4 or leaf.key_impl is not None for leaf in leaves):
            return None  # narrower values are copied out, not viewed (`Leaf.view`)
        ndarray, unpack, scalars_at = np.ndarray, _SCALARS.unpack_from, self._scalars_at
        o = obs._single
        o_shape, o_dtype, o_at = o.shape, o.dtype, 4 * o.offset
        info = [(key, leaf.shape, leaf.dtype, 4 * leaf.offset) for key, leaf in zip(self._info_keys, self._info)]

        def read(raw: np.ndarray) -> tuple[Any, float, bool, bool, dict]:
            reward, terminated, truncated = unpack(raw, scalars_at)
            values = {key: ndarray(shape, dtype, raw, at) for key, shape, dtype, at in info}
            return ndarray(o_shape, o_dtype, raw, o_at), reward, terminated, truncated, values

        return read

    def state(self, carry: jax.Array) -> Any:
        """The state a carry holds.

        Args:
            carry: The carry (not consumed).

        Returns:
            The env's state (JAX arrays).
        """
        return self._state(carry)


@functools.lru_cache(maxsize=32)
def _cached(env_id: str, overrides: tuple, drop_time_limit: bool, levels: Any, leveled: bool) -> Fused:
    from jaxenvs.registry import make

    env, params = make(env_id, autoreset=False, **dict(overrides))
    under = Leveled(env, params, levels) if leveled else None
    return Fused(env, params, to_gymnasium(env.observation_space(params)), drop_time_limit, under)


def fused(
    env_id: Any,
    overrides: dict[str, Any],
    env: Any,
    params: Any,
    obs_space: Any,
    drop_time_limit: bool,
    levels: Any = None,
    leveled: bool = False,
) -> Fused:
    """The fused functions of an id (cached per id, overrides, `drop_time_limit` and levels) or of a raw env.

    Args:
        env_id: The export's id or raw env.
        overrides: Its params fields.
        env: The raw env (`_bridge.compiled`'s, without levels).
        params: Its params.
        obs_space: The gymnasium observation space.
        drop_time_limit: Whether gymnasium's `TimeLimit` applies the time limit instead.
        levels: The export's `levels=` sampler, or None.
        leveled: Whether the env runs under `_bridge.Leveled` (always with a sampler).

    Returns:
        The `Fused` functions.
    """
    leveled = bool(leveled) or levels is not None
    if isinstance(env_id, str):
        try:
            return _cached(env_id, tuple(sorted(overrides.items())), bool(drop_time_limit), levels, leveled)
        except TypeError:  # an unhashable override value: build afresh
            pass
    under = Leveled(env, params, levels) if leveled else None
    return Fused(env, params, obs_space, bool(drop_time_limit), under)
