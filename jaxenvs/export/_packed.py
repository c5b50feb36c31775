"""Values packed into one flat buffer of 32-bit words, the fast path of the gymnasium and SB3 exports.

A jitted call returns one buffer (`pack`) that comes to the host as one copy and is cut into
numpy views there (`Leaf.view`), instead of a pytree of arrays transferred one by one.
`Carry` lays out what stays on the device between calls (a random key's data, then a
state's leaves) and splits its key bit for bit as `jax.random.split` does (`split_words`);
`Observations` reads observations back out of a host copy as gymnasium's space holds them.
The single gymnasium env (`_gymnasium_step.Fused`) and the SB3 VecEnv (`sb3`) both build on it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.spaces.convert import to_numpy

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


def split_words(words: jax.Array, impl: Any) -> tuple[jax.Array, jax.Array]:
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


def to_words(x: Any) -> jax.Array:
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


class Leaf:
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


def layout(leaves: list, start: int = 0) -> tuple[list[Leaf], int]:
    """Each leaf's place when `leaves` are packed from word `start` on, and the end."""
    out, offset = [], start
    for x in leaves:
        out.append(Leaf(x, offset))
        offset += out[-1].words
    return out, offset


def pack(leaves: list) -> jax.Array:
    """`leaves` as one flat array of 32-bit words, in order (see `Leaf`)."""
    words = [to_words(x) for x in leaves]
    return jnp.concatenate(words) if words else jnp.zeros(0, jnp.uint32)


# a carry (key and state) of at most this many words travels with the outputs in one buffer
JOINED_WORDS = 4096


class Observations:
    """Reads observations out of host copies of an outputs buffer, as gymnasium's space holds them.

    Args:
        leaves: The observation's leaves' places (`layout`).
        tree: The observation's tree structure.
        space: The gymnasium observation space (the batched one for a batch).
        batched: Whether the observations are a batch (a batched Discrete is an array, not an int).
    """

    def __init__(self, leaves: list[Leaf], tree: Any, space: Any, batched: bool):
        self.leaves, self._tree, self._space, self._batched = leaves, tree, space, batched
        single = jax.tree_util.treedef_is_leaf(tree)
        self._single = leaves[0] if single else None
        # one array: what the space's converter makes of it (an int, or a cast), found once
        probe = to_numpy(np.zeros(leaves[0].shape, leaves[0].dtype), space, batched) if single else None
        self._int = isinstance(probe, int)
        self._cast = single and not self._int and probe.dtype != leaves[0].dtype

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
        self._leaves, self.words = layout([key, *state_leaves])
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
        words, sub = split_words(words[: self.key_words], self.impl)
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
            outputs: The outputs as 32-bit words (`pack`), laid out from `outputs_start`.

        Returns:
            One buffer where joined, else `(carry, outputs)`.
        """
        carry = pack([words, *jax.tree_util.tree_leaves(state)])
        return jnp.concatenate([carry, outputs]) if self.joined else (carry, outputs)

    def host(self, result: Any) -> tuple[jax.Array, np.ndarray]:
        """The carry (kept on the device) and a host copy of the outputs: one copy.

        Args:
            result: What a jitted function returned (see `result`).

        Returns:
            `(carry, raw)`: `raw` is a writeable numpy array of 32-bit words, read with `Leaf.view`.
        """
        carry, outputs = (result, result) if self.joined else result
        return carry, np.array(outputs)
