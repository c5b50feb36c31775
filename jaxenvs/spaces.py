"""Spaces: Discrete, MultiDiscrete, Box, Dict and Tuple.

`sample(key)` and `contains(x)` are pure JAX and jit-able (`contains` returns a boolean
array). `to_gymnasium()` and `from_gymnasium(space)` convert both ways; gymnasium is imported
only when they are called.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


class Space:
    """Base class: the set of valid observations or actions."""

    shape: tuple[int, ...] = ()
    dtype: Any = None

    def sample(self, key: jax.Array) -> Any:
        raise NotImplementedError

    def contains(self, x: Any) -> jax.Array:
        raise NotImplementedError

    def to_gymnasium(self):
        raise NotImplementedError

    def describe(self) -> str:
        return repr(self)


def _is_traced(x: Any) -> bool:
    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(x))


def _has_shape(x: Any, shape: tuple[int, ...]) -> bool:
    return tuple(jnp.shape(x)) == tuple(shape)


class Discrete(Space):
    """Integers `start, ..., start + n - 1`."""

    def __init__(self, n: int, start: int = 0, dtype: Any = jnp.int32):
        if int(n) <= 0:
            raise ValueError(f"Discrete needs n > 0, got {n}")
        self.n = int(n)
        self.start = int(start)
        self.shape = ()
        self.dtype = jnp.dtype(dtype)

    def sample(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, (), self.start, self.start + self.n, dtype=self.dtype)

    def contains(self, x: Any) -> jax.Array:
        x = jnp.asarray(x)
        if x.shape != () or not (jnp.issubdtype(x.dtype, jnp.integer) or jnp.issubdtype(x.dtype, jnp.bool_)):
            if x.shape == () and jnp.issubdtype(x.dtype, jnp.floating):
                return (x == jnp.round(x)) & (x >= self.start) & (x < self.start + self.n)
            return jnp.asarray(False)
        return (x >= self.start) & (x < self.start + self.n)

    def to_gymnasium(self):
        import gymnasium

        return gymnasium.spaces.Discrete(self.n, start=self.start)

    def describe(self) -> str:
        return f"an integer in [{self.start}, {self.start + self.n - 1}]"

    def __repr__(self) -> str:
        return f"Discrete({self.n})" if self.start == 0 else f"Discrete({self.n}, start={self.start})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Discrete) and (self.n, self.start) == (other.n, other.start)


class MultiDiscrete(Space):
    """A vector of integers, entry `i` in `[0, nvec[i])`."""

    def __init__(self, nvec: Sequence[int] | np.ndarray, dtype: Any = jnp.int32):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        if (self.nvec <= 0).any():
            raise ValueError(f"MultiDiscrete needs every nvec > 0, got {self.nvec}")
        self.shape = tuple(self.nvec.shape)
        self.dtype = jnp.dtype(dtype)

    def sample(self, key: jax.Array) -> jax.Array:
        u = jax.random.uniform(key, self.shape)
        return jnp.floor(u * jnp.asarray(self.nvec)).astype(self.dtype)

    def contains(self, x: Any) -> jax.Array:
        x = jnp.asarray(x)
        if not _has_shape(x, self.shape) or not jnp.issubdtype(x.dtype, jnp.integer):
            return jnp.asarray(False)
        return jnp.all((x >= 0) & (x < jnp.asarray(self.nvec)))

    def to_gymnasium(self):
        import gymnasium

        return gymnasium.spaces.MultiDiscrete(self.nvec)

    def describe(self) -> str:
        return f"an integer array of shape {self.shape}, entry i in [0, nvec[i]) with nvec={self.nvec.tolist()}"

    def __repr__(self) -> str:
        return f"MultiDiscrete({self.nvec.tolist()})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, MultiDiscrete) and np.array_equal(self.nvec, other.nvec)


class Box(Space):
    """Arrays of `shape` and `dtype` with `low <= x <= high` elementwise.

    Sampling follows gymnasium: uniform where both bounds are finite, exponential on a
    half-bounded side, normal where unbounded; booleans are fair coins, integers uniform.
    """

    def __init__(
        self,
        low: Any,
        high: Any,
        shape: Sequence[int] | None = None,
        dtype: Any = jnp.float32,
    ):
        self.dtype = jnp.dtype(dtype)
        if shape is None:
            shape = np.broadcast_shapes(np.shape(low), np.shape(high))
        self.shape = tuple(int(s) for s in shape)
        # bounds computed from traced params (a space built inside `jit`, e.g. by `Checked`)
        # stay JAX arrays: `contains` and `sample` work, numpy-side uses do not
        self.traced = _is_traced(low) or _is_traced(high)
        if self.traced:
            self.low = jnp.broadcast_to(jnp.asarray(low, dtype=self.dtype), self.shape)
            self.high = jnp.broadcast_to(jnp.asarray(high, dtype=self.dtype), self.shape)
            return
        np_dtype = np.bool_ if self.dtype == jnp.bool_ else np.float64
        self.low = np.broadcast_to(np.asarray(low, dtype=np_dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=np_dtype), self.shape).copy()
        if (self.low > self.high).any():
            raise ValueError("Box needs low <= high everywhere")

    def sample(self, key: jax.Array) -> jax.Array:
        if self.dtype == jnp.bool_:
            return jax.random.bernoulli(key, 0.5, self.shape) & jnp.asarray(self.high) | jnp.asarray(self.low)
        if jnp.issubdtype(self.dtype, jnp.integer) and self.traced:
            return jax.random.randint(key, self.shape, self.low, self.high.astype(jnp.int32) + 1).astype(self.dtype)
        if jnp.issubdtype(self.dtype, jnp.integer):
            # within the dtype's range (a narrow dtype would wrap) and half of int32's
            info, i32 = np.iinfo(np.dtype(self.dtype)), np.iinfo(np.int32)
            limits = max(int(info.min), i32.min // 2), min(int(info.max), i32.max // 2)
            low = np.clip(np.ceil(self.low), *limits).astype(np.int32)
            high = np.clip(np.floor(self.high), *limits).astype(np.int32)
            return jax.random.randint(key, self.shape, low, high + 1).astype(self.dtype)
        k_u, k_n, k_e = jax.random.split(key, 3)
        low, high = jnp.asarray(self.low), jnp.asarray(self.high)
        xnp = jnp if self.traced else np
        finite_low, finite_high = xnp.isfinite(self.low), xnp.isfinite(self.high)
        uniform = jax.random.uniform(
            k_u, self.shape, minval=jnp.where(finite_low, low, 0.0), maxval=jnp.where(finite_high, high, 1.0)
        )
        normal = jax.random.normal(k_n, self.shape)
        expo = jax.random.exponential(k_e, self.shape)
        out = jnp.where(
            finite_low & finite_high,
            uniform,
            jnp.where(finite_low, low + expo, jnp.where(finite_high, high - expo, normal)),
        )
        return out.astype(self.dtype)

    def contains(self, x: Any) -> jax.Array:
        x = jnp.asarray(x)
        if not _has_shape(x, self.shape):
            return jnp.asarray(False)
        if self.dtype == jnp.bool_:
            return jnp.asarray(x.dtype == jnp.bool_)
        if jnp.issubdtype(x.dtype, jnp.complexfloating):
            return jnp.asarray(False)
        # compare in float64 on the numpy side where possible; in float32 the bounds round
        low = jnp.asarray(self.low, dtype=x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else None)
        high = jnp.asarray(self.high, dtype=x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else None)
        inside = (x >= low) & (x <= high)
        if jnp.issubdtype(x.dtype, jnp.floating):  # inf is outside even an unbounded Box
            inside = inside & jnp.isfinite(x)
        return jnp.all(inside)

    def integer_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """For an integer Box, `(low, high)` as arrays of its dtype: the least and greatest
        integers it holds (a fractional bound rounds inwards; an infinite bound, or one past
        the dtype's range, is the dtype's limit)."""
        if not jnp.issubdtype(self.dtype, jnp.integer):
            raise TypeError(f"integer_bounds needs an integer Box, not {self.dtype}")
        dtype = np.dtype(self.dtype)
        info = np.iinfo(dtype)

        def to_dtype(bound: np.ndarray) -> np.ndarray:
            # float64 cannot hold int64's limits exactly: place them as integers, cast the rest
            below, above = bound <= info.min, bound >= info.max
            out = np.where(below | above, 0, bound).astype(dtype)
            out[below] = info.min
            out[above] = info.max
            return out

        return to_dtype(np.ceil(self.low)), to_dtype(np.floor(self.high))

    def to_gymnasium(self):
        import gymnasium

        if self.dtype == jnp.bool_:
            low, high = 0, 1
        elif jnp.issubdtype(self.dtype, jnp.integer):
            low, high = self.integer_bounds()  # gymnasium needs finite integer bounds
        else:
            low, high = self.low.astype(np.dtype(self.dtype)), self.high.astype(np.dtype(self.dtype))
        return gymnasium.spaces.Box(low=low, high=high, shape=self.shape, dtype=np.dtype(self.dtype))

    def describe(self) -> str:
        if self.traced:
            return f"a {self.dtype} array of shape {self.shape} within the bounds its params give"
        finite = ", finite" if jnp.issubdtype(self.dtype, jnp.floating) else ""
        if self.low.size and (self.low == self.low.flat[0]).all() and (self.high == self.high.flat[0]).all():
            return f"a {self.dtype} array of shape {self.shape} in [{self.low.flat[0]}, {self.high.flat[0]}]{finite}"
        return f"a {self.dtype} array of shape {self.shape} within elementwise bounds{finite}"

    def __repr__(self) -> str:
        return f"Box(shape={self.shape}, dtype={self.dtype})"

    def __eq__(self, other: Any) -> bool:
        """Equal when they hold the same values: an integer Box compares its `integer_bounds`
        (`Box(0, inf, dtype=uint8)` is `Box(0, 255, dtype=uint8)`, as a gymnasium round trip
        gives), others their bounds as written."""
        if not (isinstance(other, Box) and self.shape == other.shape and self.dtype == other.dtype):
            return False
        if jnp.issubdtype(self.dtype, jnp.integer):
            mine, theirs = self.integer_bounds(), other.integer_bounds()
        else:
            mine, theirs = (self.low, self.high), (other.low, other.high)
        return all(np.array_equal(a, b) for a, b in zip(mine, theirs))


class Dict(Space):
    """A mapping of named sub-spaces; samples and members are dicts."""

    def __init__(self, spaces: Mapping[str, Space]):
        self.spaces = OrderedDict(spaces)
        self.shape = ()
        self.dtype = None

    def sample(self, key: jax.Array) -> dict[str, Any]:
        keys = jax.random.split(key, max(len(self.spaces), 1))
        return {name: space.sample(k) for (name, space), k in zip(self.spaces.items(), keys)}

    def contains(self, x: Any) -> jax.Array:
        if not isinstance(x, Mapping) or set(x) != set(self.spaces):
            return jnp.asarray(False)
        result = jnp.asarray(True)
        for name, space in self.spaces.items():
            result = result & space.contains(x[name])
        return result

    def to_gymnasium(self):
        import gymnasium

        return gymnasium.spaces.Dict({k: s.to_gymnasium() for k, s in self.spaces.items()})

    def __getitem__(self, key: str) -> Space:
        return self.spaces[key]

    def __repr__(self) -> str:
        return "Dict(" + ", ".join(f"{k}: {v!r}" for k, v in self.spaces.items()) + ")"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Dict) and dict(self.spaces) == dict(other.spaces)


class Tuple(Space):
    """A fixed-length tuple of sub-spaces; samples and members are tuples."""

    def __init__(self, spaces: Sequence[Space]):
        self.spaces = tuple(spaces)
        self.shape = ()
        self.dtype = None

    def sample(self, key: jax.Array) -> tuple[Any, ...]:
        keys = jax.random.split(key, max(len(self.spaces), 1))
        return tuple(space.sample(k) for space, k in zip(self.spaces, keys))

    def contains(self, x: Any) -> jax.Array:
        if not isinstance(x, (tuple, list)) or len(x) != len(self.spaces):
            return jnp.asarray(False)
        result = jnp.asarray(True)
        for space, item in zip(self.spaces, x):
            result = result & space.contains(item)
        return result

    def to_gymnasium(self):
        import gymnasium

        return gymnasium.spaces.Tuple(tuple(s.to_gymnasium() for s in self.spaces))

    def __getitem__(self, index: int) -> Space:
        return self.spaces[index]

    def __len__(self) -> int:
        return len(self.spaces)

    def __repr__(self) -> str:
        return "Tuple(" + ", ".join(repr(s) for s in self.spaces) + ")"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Tuple) and self.spaces == other.spaces


def clip_action(x: Any, low: Any, high: Any) -> jax.Array:
    """`x` with NaN taken as 0 and everything clipped into `[low, high]` (inf to a bound):
    what the continuous envs do with an invalid action inside `jit`."""
    x = jnp.asarray(x)
    return jnp.clip(jnp.where(jnp.isnan(x), jnp.zeros_like(x), x), low, high)


# --- exact checks of concrete values (numpy-side; for eager entry points) ----------------------


def _as_numpy(x: Any) -> np.ndarray | None:
    """`x` as a numpy array holding exactly its values (a Python int too large for int64
    stays a Python int in an object array), or None when it is no number or array."""
    if isinstance(x, (Mapping, str, bytes)) or x is None:
        return None
    try:
        a = np.asarray(x)
    except (TypeError, ValueError, OverflowError):
        return None
    if a.dtype == object:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in a.flat):
            return None
    elif a.dtype.kind not in "biuf":
        return None
    return a


def why_not(space: Space, x: Any, batch: tuple[int, ...] = ()) -> str | None:
    """Why the concrete value `x` is not in `space` (or, with `batch`, not an array of
    `batch`-shaped members of it), or None when it is. Exact: the value is read as it is,
    never cast first (`np.int64(2**32 + 1)` is not 1, a Python `2**31` no overflow), and
    NaN and inf lie outside every Box."""
    if isinstance(space, Dict):
        if not isinstance(x, Mapping) or set(x) != set(space.spaces):
            return f"expected a dict with keys {sorted(space.spaces)}"
        for name, sub in space.spaces.items():
            reason = why_not(sub, x[name], batch)
            if reason is not None:
                return f"[{name!r}]: {reason}"
        return None
    if isinstance(space, Tuple):
        if not isinstance(x, (tuple, list)) or len(x) != len(space.spaces):
            return f"expected a tuple of {len(space.spaces)}"
        for i, (sub, item) in enumerate(zip(space.spaces, x)):
            reason = why_not(sub, item, batch)
            if reason is not None:
                return f"[{i}]: {reason}"
        return None
    a = _as_numpy(x)
    if a is None:
        return f"not a number or numeric array ({type(x).__name__})"
    want = tuple(batch) + tuple(space.shape)
    if a.shape != want:
        return f"shape {a.shape}, expected {want}"
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        return "not finite (NaN or inf)"
    if isinstance(space, (Discrete, MultiDiscrete)) or (
        isinstance(space, Box) and jnp.issubdtype(space.dtype, jnp.integer)
    ):
        if a.dtype.kind == "f":
            if not np.all(a == np.round(a)):
                return "not an integer"
            a = a.astype(object)  # compare as Python ints: exact at any magnitude
        if isinstance(space, Discrete):
            low, high = space.start, space.start + space.n - 1
        elif isinstance(space, MultiDiscrete):
            low, high = 0, space.nvec - 1
        else:
            low, high = space.integer_bounds()
        a = a.astype(object) if a.dtype.kind in "biu" else a
        if not (np.all(a >= np.asarray(low, dtype=object)) and np.all(a <= np.asarray(high, dtype=object))):
            return "out of range"
        return None
    if isinstance(space, Box):
        if space.dtype == jnp.bool_:
            return None if a.dtype == np.bool_ else f"dtype {a.dtype}, expected bool"
        if a.dtype == object or a.dtype.kind == "b":
            return f"dtype {a.dtype}, expected a number"
        # in the action's own float dtype, as `contains` does: float32(0.1) is in [-0.1, 0.1]
        low, high = (b.astype(a.dtype) if a.dtype.kind == "f" else b for b in (space.low, space.high))
        with np.errstate(invalid="ignore", over="ignore"):
            if not (np.all(a >= low) and np.all(a <= high)):
                return "out of range"
        return None
    return None if bool(space.contains(x)) else "not in the space"


def check_action(space: Space, action: Any, where: str, batch: tuple[int, ...] = ()) -> None:
    """A `ValueError` naming `where`, the action and what is valid, unless the concrete
    `action` lies in `space` (with `batch`: is a `batch`-shaped array of such actions)."""
    reason = why_not(space, action, batch)
    if reason is not None:
        what = f"a batch of shape {tuple(batch)} of " if batch else ""
        raise ValueError(
            f"{where}: invalid action {_short(action)} ({reason}); valid actions are {what}{space.describe()}"
        )


def _short(x: Any) -> str:
    if isinstance(x, (np.ndarray, jax.Array)) and not isinstance(x, jax.core.Tracer):
        return np.array2string(np.asarray(x), threshold=8, edgeitems=2, separator=", ").replace("\n", "")
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def check_action_shape(space: Space, action: Any, where: str) -> None:
    """At trace time: a `ValueError` naming the action when its shape cannot be the space's
    (shapes are static, so this raises even under `jit`)."""
    if isinstance(space, Dict):
        if isinstance(action, Mapping) and set(action) == set(space.spaces):
            for name, sub in space.spaces.items():
                check_action_shape(sub, action[name], where)
            return
        raise ValueError(
            f"{where}: invalid action structure {_short(action)}; "
            f"valid actions are dicts with keys {sorted(space.spaces)}"
        )
    if isinstance(space, Tuple):
        if isinstance(action, (tuple, list)) and len(action) == len(space.spaces):
            for sub, item in zip(space.spaces, action):
                check_action_shape(sub, item, where)
            return
        raise ValueError(f"{where}: invalid action structure; valid actions are tuples of {len(space.spaces)}")
    shape = tuple(jnp.shape(action))
    if shape != tuple(space.shape):
        raise ValueError(
            f"{where}: invalid action of shape {shape}; valid actions are {space.describe()} "
            f"(shape {tuple(space.shape)})"
        )


def _flat_size(space: Space) -> int:
    if isinstance(space, Dict):
        return sum(_flat_size(s) for s in space.spaces.values())
    if isinstance(space, Tuple):
        return sum(_flat_size(s) for s in space.spaces)
    return math.prod(space.shape)


def _flat_bounds(space: Space) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(space, (Dict, Tuple)):
        if isinstance(space, Dict):
            subs = [space.spaces[k] for k in sorted(space.spaces)]
        else:
            subs = space.spaces
        lows, highs = zip(*(_flat_bounds(s) for s in subs))
        return np.concatenate(lows), np.concatenate(highs)
    if isinstance(space, Discrete):
        return np.array([space.start], float), np.array([space.start + space.n - 1], float)
    if isinstance(space, MultiDiscrete):
        return np.zeros(space.nvec.size), (space.nvec - 1).ravel().astype(float)
    return space.low.ravel().astype(float), space.high.ravel().astype(float)


def _leaves(obs) -> list:
    """The leaves of `obs`, every mapping's in sorted key order (`tree_leaves` would keep an
    OrderedDict's insertion order)."""
    if isinstance(obs, Mapping):
        return [leaf for k in sorted(obs) for leaf in _leaves(obs[k])]
    if isinstance(obs, (tuple, list)):
        return [leaf for item in obs for leaf in _leaves(item)]
    return jax.tree_util.tree_leaves(obs)


def flatten(obs) -> jax.Array:
    """Concatenate every leaf of `obs` (dicts in sorted key order) as float32."""
    return jnp.concatenate([jnp.ravel(leaf).astype(jnp.float32) for leaf in _leaves(obs)])


def flatten_space(space: Space) -> Box:
    """The float32 `Box` of `flatten`'s vectors: every leaf's bounds, raveled, dicts in sorted
    key order (Discrete: `[start, start + n - 1]`; MultiDiscrete: `[0, nvec - 1]`)."""
    low, high = _flat_bounds(space)
    return Box(low, high, shape=(_flat_size(space),), dtype=jnp.float32)


def from_gymnasium(space: Any) -> Space:
    """Convert a gymnasium space into the jaxenvs space holding the same values."""
    import gymnasium

    gs = gymnasium.spaces
    if isinstance(space, gs.Discrete):
        return Discrete(int(space.n), start=int(space.start))
    if isinstance(space, gs.MultiBinary):
        return Box(0, 1, shape=space.shape, dtype=jnp.int8)
    if isinstance(space, gs.MultiDiscrete):
        if np.any(space.start != 0):
            raise ValueError("MultiDiscrete spaces with a non-zero start are not supported")
        return MultiDiscrete(space.nvec)
    if isinstance(space, gs.Box):
        if space.dtype == np.bool_:
            return Box(False, True, shape=space.shape, dtype=jnp.bool_)
        return Box(space.low, space.high, shape=space.shape, dtype=space.dtype)
    if isinstance(space, gs.Dict):
        return Dict({k: from_gymnasium(v) for k, v in space.spaces.items()})
    if isinstance(space, gs.Tuple):
        return Tuple([from_gymnasium(s) for s in space.spaces])
    raise TypeError(f"cannot convert gymnasium space {space!r} to a jaxenvs space")
