"""The single gymnasium env's hot path: one jitted call per `step()` and one host copy.

`Fused` compiles a raw env's reset and step so that each is one jitted call on flat buffers of
32-bit words: the *carry* (the random key's data and the state's leaves, kept on the device and
passed back) and the *outputs* (what gymnasium returns: the observation, the info, the reward
and the two flags), which come to the host as one array and are cut into numpy views there. No
pytree is flattened or built in Python on the way but the info dict, the key stays raw data (no
typed-key objects made per step), its split is written out straight (bit for bit
`jax.random.split`'s), and the time-limit correction that `JaxEnv` needs where gymnasium's
`TimeLimit` applies the limit is computed inside the same call. `Carry` (the carry's layout and
its round trip) and `Observations` (observations read out of the host copy) serve the SB3
VecEnv's fused step too (`jaxenvs.export.sb3`).
"""

from __future__ import annotations

import functools
import struct
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

_SCALARS = struct.Struct("<f?3x?3x")  # reward (float32), terminated, truncated: three 32-bit words
_UINT = {1: jnp.uint8, 2: jnp.uint16, 4: jnp.uint32}
# Threefry-2x32's rotation distances (Salmon et al., 2011), the two groups used in turn
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _threefry2x32(k0: jax.Array, k1: jax.Array, x0: jax.Array, x1: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The Threefry-2x32 hash (20 rounds) of the counter `(x0, x1)` under the key `(k0, k1)`,
    written out straight: XLA:CPU runs it as a few fused kernels (JAX's own lowering on the CPU
    is a `while` loop of five iterations), and drops what no output needs."""
    ks = (k0, k1, k0 ^ k1 ^ jnp.uint32(0x1BD11BDA))
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = x0 + x1
            x1 = x0 ^ ((x1 << jnp.uint32(r)) | (x1 >> jnp.uint32(32 - r)))
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + jnp.uint32(i + 1)
    return x0, x1


def _split_words(words: jax.Array, impl: Any) -> tuple[jax.Array, jax.Array]:
    """`jax.random.split(key)`'s two keys as key data, from the key data `words`: for the
    default key (threefry2x32, partitionable splits) by `_threefry2x32` of the counters 0 and 1
    (the same bits; tested), otherwise by `jax.random.split`."""
    if str(impl) == "threefry2x32" and jax.config.jax_threefry_partitionable:
        zero = jnp.uint32(0)
        key = jnp.stack(_threefry2x32(words[0], words[1], zero, zero))
        sub = jnp.stack(_threefry2x32(words[0], words[1], zero, jnp.uint32(1)))
        return key, sub
    key, sub = jax.random.split(jax.random.wrap_key_data(words, impl=impl))
    return jax.random.key_data(key), jax.random.key_data(sub)


def _is_key(x: Any) -> bool:
    return jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)


def _key_impl(x: Any) -> Any:
    try:
        return jax.random.key_impl(x)
    except TypeError:  # a ShapeDtypeStruct of keys (`jax.eval_shape`'s)
        return x.dtype._impl


def _to_words(x: Any) -> jax.Array:
    """`x` as flat 32-bit words: 4-byte dtypes bitcast, narrower ones zero-extended one to a
    word (bool as 0/1), 8-byte ones two words each, a typed key as its key data."""
    x = jnp.asarray(x)
    if _is_key(x):
        x = jax.random.key_data(x)
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.uint32)
    elif x.dtype.itemsize < 4:
        x = jax.lax.bitcast_convert_type(x, _UINT[x.dtype.itemsize]).astype(jnp.uint32)
    elif x.dtype != jnp.uint32:
        x = jax.lax.bitcast_convert_type(x, jnp.uint32)
    return x.reshape(-1)


class _Leaf:
    """Where one array lies in a buffer of 32-bit words, and how to read it back (in JAX or numpy)."""

    def __init__(self, x: Any, offset: int):
        self.key_impl = _key_impl(x) if _is_key(x) else None
        raw = jax.eval_shape(jax.random.key_data, x) if self.key_impl is not None else x
        self.shape, self.dtype = tuple(raw.shape), np.dtype(raw.dtype)
        self.offset = offset
        self.words = int(np.prod(self.shape, dtype=np.int64)) * max(1, self.dtype.itemsize // 4)

    def read(self, buf: jax.Array) -> jax.Array:
        w = buf[self.offset : self.offset + self.words]
        if self.dtype == np.bool_:
            x = w != 0
        elif self.dtype.itemsize < 4:
            x = jax.lax.bitcast_convert_type(w.astype(_UINT[self.dtype.itemsize]), self.dtype)
        elif self.dtype.itemsize == 4:
            x = jax.lax.bitcast_convert_type(w, self.dtype)
        else:
            x = jax.lax.bitcast_convert_type(w.reshape(-1, self.dtype.itemsize // 4), self.dtype)
        x = x.reshape(self.shape)
        return jax.random.wrap_key_data(x, impl=self.key_impl) if self.key_impl is not None else x

    def view(self, raw: np.ndarray) -> np.ndarray:
        if self.dtype.itemsize >= 4:  # a view of `raw`: no copy
            return np.ndarray(self.shape, self.dtype, raw, 4 * self.offset)
        w = raw[self.offset : self.offset + self.words]
        x = (w != 0) if self.dtype == np.bool_ else w.astype(f"u{self.dtype.itemsize}").view(self.dtype)
        return x.reshape(self.shape)


def _layout(leaves: list, start: int = 0) -> tuple[list[_Leaf], int]:
    out, offset = [], start
    for x in leaves:
        out.append(_Leaf(x, offset))
        offset += out[-1].words
    return out, offset


def _pack(leaves: list) -> jax.Array:
    """`leaves` as one flat array of 32-bit words, in order (see `_Leaf`)."""
    words = [_to_words(x) for x in leaves]
    return jnp.concatenate(words) if words else jnp.zeros(0, jnp.uint32)


# a carry (key and state) of at most this many words travels with the outputs in one buffer
JOINED_WORDS = 4096


class Observations:
    """Reads observations out of host copies of an outputs buffer, as gymnasium's space holds them.

    Args:
        leaves: The observation's leaves' places (`_layout`).
        tree: The observation's tree structure.
        space: The gymnasium observation space (the batched one for a batch).
        batched: Whether the observations are a batch (a batched Discrete is an array, not an int).
    """

    def __init__(self, leaves: list[_Leaf], tree: Any, space: Any, batched: bool):
        import gymnasium

        self.leaves, self._tree, self._space, self._batched = leaves, tree, space, batched
        single = len(leaves) == 1 and not isinstance(space, (gymnasium.spaces.Dict, gymnasium.spaces.Tuple))
        self._single = leaves[0] if single else None
        self._int = single and not batched and isinstance(space, gymnasium.spaces.Discrete)
        self._cast = single and not self._int and np.dtype(space.dtype) != leaves[0].dtype

    def __call__(self, raw: np.ndarray) -> Any:
        """The observation (or batch) in `raw`.

        Args:
            raw: A writeable numpy copy of an outputs buffer.

        Returns:
            A numpy array (a view of `raw` where the dtypes allow), a Python int for one env's
            Discrete space, or a dict/tuple of them.
        """
        leaf = self._single
        if leaf is not None:
            x = leaf.view(raw)
            if self._int:
                return int(x)
            return x.astype(self._space.dtype) if self._cast else x
        from jaxenvs.export._bridge import to_numpy

        tree = jax.tree_util.tree_unflatten(self._tree, [leaf.view(raw) for leaf in self.leaves])
        return to_numpy(tree, self._space, batched=self._batched)


class Carry:
    """A carry's layout: a random key's data, then a state's leaves, as 32-bit words.

    Shared by the fused single env (`Fused`) and the fused SB3 batch (`jaxenvs.export.sb3`): a
    jitted function takes the carry, splits its key (`split`), reads its state (`state`), and
    returns the next carry with its outputs (`result`): one buffer when the carry is small (at
    most `JOINED_WORDS` words; passed back whole and donated, the outputs after the carry), two
    otherwise (only the outputs go to the host). `outputs_start` is where the outputs begin.

    Args:
        key: A typed key (or its `jax.eval_shape`).
        state: A state (or its `jax.eval_shape`).
    """

    def __init__(self, key: Any, state: Any):
        state_leaves, self._state_tree = jax.tree_util.tree_flatten(state)
        self._leaves, self.words = _layout([key, *state_leaves])
        self.joined = self.words <= JOINED_WORDS
        self.outputs_start = self.words if self.joined else 0
        self.donate = (0,) if self.joined else ()
        self.impl, self.key_words = self._leaves[0].key_impl, self._leaves[0].words

    def split(self, words: jax.Array) -> tuple[jax.Array, jax.Array]:
        """`jax.random.split` of the key whose data begins `words` (a carry, or key data alone).

        Args:
            words: The carry or the key's data (traced).

        Returns:
            `(next key data, typed subkey)`.
        """
        words, sub = _split_words(words[: self.key_words], self.impl)
        return words, jax.random.wrap_key_data(sub, impl=self.impl)

    def state(self, carry: jax.Array) -> Any:
        """The state a carry holds (traced, or under `jax.jit`).

        Args:
            carry: The carry.

        Returns:
            The state.
        """
        return jax.tree_util.tree_unflatten(self._state_tree, [leaf.read(carry) for leaf in self._leaves[1:]])

    def result(self, words: jax.Array, state: Any, outputs: jax.Array) -> Any:
        """What a jitted function returns: the next carry and the outputs, joined or apart.

        Args:
            words: The next key's data.
            state: The next state.
            outputs: The outputs as 32-bit words (`_pack`), laid out from `outputs_start`.

        Returns:
            One buffer where joined, else `(carry, outputs)`.
        """
        carry = _pack([words, *jax.tree_util.tree_leaves(state)])
        return jnp.concatenate([carry, outputs]) if self.joined else (carry, outputs)

    def host(self, result: Any) -> tuple[jax.Array, np.ndarray]:
        """The carry (kept on the device) and a host copy of the outputs: one copy.

        Args:
            result: What a jitted function returned (see `result`).

        Returns:
            `(carry, raw)`: `raw` is a writeable numpy array of 32-bit words, read with `_Leaf.view`.
        """
        carry, outputs = (result, result) if self.joined else result
        return carry, np.array(outputs)


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
    """

    def __init__(self, env: Any, params: Any, obs_space: Any, drop_time_limit: bool):
        self.env, self.params = env, params
        key = jax.random.key(0)
        obs, state = jax.eval_shape(lambda k: env.reset(k, params), key)
        action = jax.eval_shape(env.action_space(params).sample, key)
        out = jax.eval_shape(lambda k, s, a: env.step(k, s, a, params), key, state, action)
        obs_leaves, obs_tree = jax.tree_util.tree_flatten(out[0])
        info_leaves, info_tree = jax.tree_util.tree_flatten(out[5])
        # the carry: the key's data, then the state's leaves
        self._carry_layout = carry = Carry(key, state)
        self.joined = joined = carry.joined
        # the outputs (after the carry where joined): observation leaves, info leaves, reward, flags
        obs_layout, end = _layout(obs_leaves, start=carry.outputs_start)
        self.observation = Observations(obs_layout, obs_tree, obs_space, batched=False)
        self._info, end = _layout(info_leaves, start=end)
        self._scalars_at = 4 * end  # in bytes, for `struct`
        self._info_tree = info_tree
        # a flat info dict (the usual) is built from its keys, not by unflattening its tree
        probe = jax.tree_util.tree_unflatten(info_tree, list(range(len(info_leaves))))
        flat = isinstance(probe, dict) and list(probe.values()) == list(range(len(info_leaves)))
        self._info_keys = list(probe) if flat else None
        blank_outputs = 3 + sum(leaf.words for leaf in self._info)  # what a reset does not fill
        self._read = self._plain_reader() or self._read_outputs

        def reset(words):
            words, k = carry.split(words)
            obs, state = env.reset(k, params)
            outputs = _pack(jax.tree_util.tree_leaves(obs))
            if joined:  # the buffer has one shape whatever made it
                # padded, not concatenated with zeros: XLA:CPU runs that concatenation as its own
                # slow loop (a CartPole reset took 40 us, not 8)
                outputs = jnp.pad(outputs, (0, blank_outputs))
            return carry.result(words, state, outputs)

        def step(buf, action):
            words, k = carry.split(buf)
            obs, state, reward, terminated, truncated, info = env.step(k, carry.state(buf), action, params)
            if drop_time_limit:  # gymnasium's TimeLimit is the limit: drop the env's own
                truncated = truncated & ~(state.time >= params.max_steps_in_episode)
            outputs = jax.tree_util.tree_leaves(obs) + jax.tree_util.tree_leaves(info)
            outputs += [jnp.asarray(reward, jnp.float32), terminated, truncated]
            return carry.result(words, state, _pack(outputs))

        self._reset_from_key = jax.jit(reset)
        self._reset_from_carry = jax.jit(reset, donate_argnums=carry.donate)
        self._step = jax.jit(step, donate_argnums=carry.donate)
        self._state = jax.jit(carry.state)

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
            return None  # narrower values are copied out, not viewed (`_Leaf.view`)
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
def _cached(env_id: str, overrides: tuple, drop_time_limit: bool) -> Fused:
    from jaxenvs.registry import make

    env, params = make(env_id, autoreset=False, **dict(overrides))
    return Fused(env, params, env.observation_space(params).to_gymnasium(), drop_time_limit)


def fused(
    env_id: Any, overrides: dict[str, Any], env: Any, params: Any, obs_space: Any, drop_time_limit: bool
) -> Fused:
    """The fused functions of an id (cached per id, overrides and `drop_time_limit`) or of a raw env.

    Args:
        env_id: The id or raw env `JaxEnv` was given.
        overrides: Its params overrides.
        env: The raw env it resolved to.
        params: Its params.
        obs_space: Its gymnasium observation space.
        drop_time_limit: See `Fused`.

    Returns:
        A `Fused`.
    """
    if isinstance(env_id, str):
        try:
            return _cached(env_id, tuple(sorted(overrides.items())), bool(drop_time_limit))
        except TypeError:  # an unhashable override value: build afresh
            pass
    return Fused(env, params, obs_space, bool(drop_time_limit))
