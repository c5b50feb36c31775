"""The space classes and their rules: Discrete, MultiDiscrete, Box, Dict and Tuple.

Each space says once what it holds: an array space (`Discrete`, `MultiDiscrete`, `Box`) by
its `_Members` (kind, shape and elementwise bounds), a composite (`Dict`, `Tuple`) by its
parts. `contains` (pure JAX, jit-able, a boolean array), `why_not` / `check_action` (exact,
numpy-side, naming what is wrong) and `flatten_space` (the bounds) all read that one
definition. Conversions to and from other libraries live in `jaxenvs.spaces.convert`, which
imports this module; this module imports no other module of the package.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


class Space:
    """Base class: the set of valid observations or actions.

    Attributes:
        shape: The shape of a member (`()` for `Dict` and `Tuple`).
        dtype: The dtype of a member (None for `Dict` and `Tuple`).
    """

    shape: tuple[int, ...] = ()
    dtype: Any = None

    def sample(self, key: jax.Array) -> Any:
        """A random member (pure JAX, jit-able).

        Args:
            key: A JAX PRNG key.

        Returns:
            A member of the space.

        Raises:
            NotImplementedError: In the base class (every space defines it).
        """
        raise NotImplementedError

    def contains(self, x: Any) -> jax.Array:
        """Whether `x` is a member (pure JAX, jit-able).

        Args:
            x: A value, concrete or traced.

        Returns:
            A boolean scalar array.

        Raises:
            NotImplementedError: In the base class (every space defines it).
        """
        raise NotImplementedError

    def describe(self) -> str:
        """What a member is, in words, for error messages.

        Returns:
            A phrase such as "an integer in [0, 1]".
        """
        return repr(self)

    # --- the validity protocol: each space defines these once; the module functions call them

    def _why_not(self, x: Any, batch: tuple[int, ...], box_range: bool = True) -> str | None:
        """See `why_not` (and `check_action`, which passes `box_range=False`); a space that
        defines only `contains` is checked by it, range and all."""
        return None if bool(self.contains(x)) else "not in the space"

    def _check_shape(self, x: Any, where: str) -> None:
        """See `check_action_shape`."""
        shape = tuple(jnp.shape(x))
        if shape != tuple(self.shape):
            raise ValueError(
                f"{where}: invalid action of shape {shape}; valid actions are {self.describe()} "
                f"(shape {tuple(self.shape)})"
            )

    def _flat_bounds(self) -> tuple[Any, Any]:
        """See `flatten_space`: `(low, high)`, every entry's bounds raveled, as floats."""
        raise TypeError(f"flatten_space does not know {type(self).__name__} spaces")


def _is_traced(x: Any) -> bool:
    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(x))


# --- array spaces: one definition of what they hold, read three ways ---------------------------


@dataclasses.dataclass(frozen=True)
class _Members:
    """What an array space holds: arrays of `shape` whose entries are of `kind` and lie in
    `[low, high]` elementwise.

    `kind` is "bool" (bool arrays), "integer" (integers; a float array of integral values and a
    bool array are read as the integers they hold) or "real" (finite numbers, not bools).
    `low` and `high` are numpy arrays of `shape` (integers exactly for "integer"), or JAX
    arrays when `traced` (bounds computed from traced params inside `jit`).
    """

    kind: str
    shape: tuple[int, ...]
    low: Any
    high: Any
    traced: bool = False


_DTYPE_KINDS = {"bool": ("b", "bool"), "integer": ("biufO", "an integer"), "real": ("iuf", "a number")}


def _kind(dtype: Any) -> str:
    """numpy's kind letter of `dtype`, JAX's extra floats (bfloat16, ...) counted as "f"."""
    return "f" if jnp.issubdtype(dtype, jnp.floating) else np.dtype(dtype).kind


def _checks(m: _Members, x: Any, xp: Any, batch: tuple[int, ...], box_range: bool = True) -> Iterator[tuple[str, Any]]:
    """`(reason, holds)` for each condition of membership, in order: `x` (a `batch` of them) is
    a member when every one holds. Shape and dtype give Python bools (static, checked first);
    values give arrays of `xp` (numpy: exact; `jax.numpy`: traceable). Without `box_range` the
    range of real entries (a float Box's) is left out: what `check_action` asks."""
    want = tuple(batch) + tuple(m.shape)
    yield f"shape {tuple(x.shape)}, expected {want}", tuple(x.shape) == want
    kinds, expected = _DTYPE_KINDS[m.kind]
    kind = _kind(x.dtype)
    if kind == "f":
        yield "not finite (NaN or inf)", xp.all(xp.isfinite(x))
    yield f"dtype {x.dtype}, expected {expected}", kind in kinds
    if m.kind == "integer" and kind == "f":
        yield "not an integer", xp.all(x == xp.round(x))
    if box_range or m.kind != "real":
        yield "out of range", _within(m, x, xp)


def _within(m: _Members, x: Any, xp: Any) -> Any:
    """Whether every entry of `x` lies in `[m.low, m.high]`.

    A float is compared in its own dtype, the bounds rounded to it (`float32(0.1)` lies in
    `[-0.1, 0.1]`), except by numpy in an integer space. Otherwise numpy compares Python
    numbers (exact at any magnitude: `np.int64(2**32 + 1)` is not 1), and JAX compares in the
    value's integer dtype against the bounds clipped to its range.
    """
    if m.traced:
        if xp is np:  # bounds from traced params: what cannot be seen counts as valid
            return True
        dtype = x.dtype if _kind(x.dtype) == "f" else None
        low, high = jnp.asarray(m.low, dtype=dtype), jnp.asarray(m.high, dtype=dtype)
        return jnp.all((x >= low) & (x <= high))
    if _kind(x.dtype) == "f" and (xp is jnp or m.kind == "real"):
        with np.errstate(over="ignore"):
            low, high = np.asarray(m.low).astype(x.dtype), np.asarray(m.high).astype(x.dtype)
        return xp.all((x >= low) & (x <= high))
    if xp is np:
        x = x.astype(object)
        return np.all(x >= m.low.astype(object)) and np.all(x <= m.high.astype(object))
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.int8)
    low, high = _integer_limits(m.low, m.high, np.dtype(x.dtype))
    return jnp.all((x >= low) & (x <= high))


def _integer_limits(low: np.ndarray, high: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Bounds in the integer `dtype` holding exactly its values in `[low, high]` (where none
    does, `low > high`)."""
    info = np.iinfo(dtype)
    low = np.ceil(low) if low.dtype.kind == "f" else low
    high = np.floor(high) if high.dtype.kind == "f" else high
    low, high = low.astype(object), high.astype(object)
    empty = ((low > info.max) | (high < info.min) | (low > high)).astype(bool)
    low = np.where(empty, info.max, np.maximum(low, info.min))
    high = np.where(empty, info.min, np.minimum(high, info.max))
    return low.astype(dtype), high.astype(dtype)


class _ArraySpace(Space):
    """A space of arrays, defined by its `_members()`."""

    def _members(self) -> _Members:
        raise NotImplementedError

    def contains(self, x: Any) -> jax.Array:  # False for a value that is no numeric array
        try:
            x = jnp.asarray(x)
        except (TypeError, ValueError, OverflowError):
            return jnp.asarray(False)
        result = jnp.asarray(True)
        for _, holds in _checks(self._members(), x, jnp, ()):
            if holds is False:
                return jnp.asarray(False)
            if holds is not True:
                result = result & holds
        return result

    def _why_not(self, x: Any, batch: tuple[int, ...], box_range: bool = True) -> str | None:
        a = _as_numpy(x)
        if a is None:
            return f"not a number or numeric array ({type(x).__name__})"
        for reason, holds in _checks(self._members(), a, np, batch, box_range):
            if not holds:
                return reason
        return None

    def _flat_bounds(self) -> tuple[Any, Any]:
        m = self._members()
        return m.low.ravel().astype(float), m.high.ravel().astype(float)


class Discrete(_ArraySpace):
    """Integers `start, ..., start + n - 1`.

    Args:
        n: How many integers (> 0).
        start: The least of them.
        dtype: The dtype of samples.

    Raises:
        ValueError: When `n <= 0`.
    """

    def __init__(self, n: int, start: int = 0, dtype: Any = jnp.int32):
        if int(n) <= 0:
            raise ValueError(f"Discrete needs n > 0, got {n}")
        self.n = int(n)
        self.start = int(start)
        self.shape = ()
        self.dtype = jnp.dtype(dtype)

    def _members(self) -> _Members:
        return _Members("integer", (), np.asarray(self.start), np.asarray(self.start + self.n - 1))

    def sample(self, key: jax.Array) -> jax.Array:
        return jax.random.randint(key, (), self.start, self.start + self.n, dtype=self.dtype)

    def describe(self) -> str:
        return f"an integer in [{self.start}, {self.start + self.n - 1}]"

    def __repr__(self) -> str:
        return f"Discrete({self.n})" if self.start == 0 else f"Discrete({self.n}, start={self.start})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Discrete) and (self.n, self.start) == (other.n, other.start)


class MultiDiscrete(_ArraySpace):
    """A vector of integers, entry `i` in `[0, nvec[i])`.

    Args:
        nvec: How many values each entry takes (every one > 0); its shape is the space's.
        dtype: The dtype of samples.

    Raises:
        ValueError: When an entry of `nvec` is <= 0.
    """

    def __init__(self, nvec: Sequence[int] | np.ndarray, dtype: Any = jnp.int32):
        self.nvec = np.asarray(nvec, dtype=np.int64)
        if (self.nvec <= 0).any():
            raise ValueError(f"MultiDiscrete needs every nvec > 0, got {self.nvec}")
        self.shape = tuple(self.nvec.shape)
        self.dtype = jnp.dtype(dtype)

    def _members(self) -> _Members:
        return _Members("integer", self.shape, np.zeros_like(self.nvec), self.nvec - 1)

    def sample(self, key: jax.Array) -> jax.Array:
        u = jax.random.uniform(key, self.shape)
        return jnp.floor(u * jnp.asarray(self.nvec)).astype(self.dtype)

    def describe(self) -> str:
        return f"an integer array of shape {self.shape}, entry i in [0, nvec[i]) with nvec={self.nvec.tolist()}"

    def __repr__(self) -> str:
        return f"MultiDiscrete({self.nvec.tolist()})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, MultiDiscrete) and np.array_equal(self.nvec, other.nvec)


class Box(_ArraySpace):
    """Arrays of `shape` and `dtype` with `low <= x <= high` elementwise.

    A float Box holds finite values only; an integer Box the integers within its bounds and
    its dtype's range (`integer_bounds`); a bool Box bool arrays. Sampling follows gymnasium:
    uniform where both bounds are finite, exponential on a half-bounded side, normal where
    unbounded; booleans are fair coins, integers uniform.

    Args:
        low: The lower bounds, broadcast to `shape` (may be traced: a space built inside `jit`).
        high: The upper bounds, likewise.
        shape: The shape of a member; by default the broadcast shape of `low` and `high`.
        dtype: The dtype of a member.

    Raises:
        ValueError: When `low > high` somewhere (concrete bounds only).
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

    def _members(self) -> _Members:
        integer = jnp.issubdtype(self.dtype, jnp.integer)
        kind = "bool" if self.dtype == jnp.bool_ else "integer" if integer else "real"
        if integer and not self.traced:  # (traced bounds are already of the dtype)
            return _Members(kind, self.shape, *self.integer_bounds())
        return _Members(kind, self.shape, self.low, self.high, self.traced)

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
        lo, hi = jnp.where(finite_low, low, 0.0), jnp.where(finite_high, high, 1.0)
        uniform = jax.random.uniform(k_u, self.shape, minval=lo, maxval=hi)
        # bounds near the float32 limit (+-3.4e38): `hi - lo` overflows, so mix the bounds instead
        u = jax.random.uniform(k_u, self.shape)
        wide = jnp.clip(lo * (1.0 - u) + hi * u, lo, hi)
        uniform = jnp.where(jnp.isfinite(hi - lo), uniform, wide)
        normal = jax.random.normal(k_n, self.shape)
        expo = jax.random.exponential(k_e, self.shape)
        out = jnp.where(
            finite_low & finite_high,
            uniform,
            jnp.where(finite_low, low + expo, jnp.where(finite_high, high - expo, normal)),
        )
        return out.astype(self.dtype)

    def integer_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The least and greatest integers an integer Box holds.

        A fractional bound rounds inwards; an infinite bound, or one past the dtype's range, is
        the dtype's limit.

        Returns:
            `(low, high)`, arrays of the Box's shape and dtype.

        Raises:
            TypeError: When the Box's dtype is not an integer one.
        """
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


# --- composite spaces: one definition of their parts, read three ways --------------------------


class _Composite(Space):
    """A space of structures (dicts, tuples) whose parts lie in sub-spaces."""

    def _parts(self) -> list[tuple[str, Space]]:
        """`(label, sub-space)` per part, in the one order of checks and of `flatten`."""
        raise NotImplementedError

    def _split(self, x: Any) -> list[Any] | None:
        """`x`'s items in `_parts()`'s order, or None when `x` has another structure."""
        raise NotImplementedError

    def _structure(self) -> str:
        """What a member's structure is, in words."""
        raise NotImplementedError

    def contains(self, x: Any) -> jax.Array:
        items = self._split(x)
        if items is None:
            return jnp.asarray(False)
        result = jnp.asarray(True)
        for (_, space), item in zip(self._parts(), items):
            result = result & space.contains(item)
        return result

    def _why_not(self, x: Any, batch: tuple[int, ...], box_range: bool = True) -> str | None:
        items = self._split(x)
        if items is None:
            return f"expected {self._structure()}"
        for (label, space), item in zip(self._parts(), items):
            reason = space._why_not(item, batch, box_range)
            if reason is not None:
                return f"{label}: {reason}"
        return None

    def _check_shape(self, x: Any, where: str) -> None:
        items = self._split(x)
        if items is None:
            raise ValueError(f"{where}: invalid action structure {_short(x)}; valid actions are {self._structure()}")
        for (_, space), item in zip(self._parts(), items):
            space._check_shape(item, where)

    def _flat_bounds(self) -> tuple[Any, Any]:
        bounds = [space._flat_bounds() for _, space in self._parts()]
        if not bounds:
            return np.zeros(0), np.zeros(0)
        return tuple(np.concatenate(b) for b in zip(*bounds))


class Dict(_Composite):
    """A mapping of named sub-spaces; samples and members are dicts.

    Args:
        spaces: The sub-space of each key.
    """

    def __init__(self, spaces: Mapping[str, Space]):
        self.spaces = OrderedDict(spaces)
        self.shape = ()
        self.dtype = None

    def _parts(self) -> list[tuple[str, Space]]:
        return [(f"[{k!r}]", self.spaces[k]) for k in sorted(self.spaces)]

    def _split(self, x: Any) -> list[Any] | None:
        if not isinstance(x, Mapping) or set(x) != set(self.spaces):
            return None
        return [x[k] for k in sorted(self.spaces)]

    def _structure(self) -> str:
        return f"a dict with keys {sorted(self.spaces)}"

    def sample(self, key: jax.Array) -> dict[str, Any]:
        keys = jax.random.split(key, max(len(self.spaces), 1))
        return {name: space.sample(k) for (name, space), k in zip(self.spaces.items(), keys)}

    def __getitem__(self, key: str) -> Space:
        return self.spaces[key]

    def __repr__(self) -> str:
        return "Dict(" + ", ".join(f"{k}: {v!r}" for k, v in self.spaces.items()) + ")"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Dict) and dict(self.spaces) == dict(other.spaces)


class Tuple(_Composite):
    """A fixed-length tuple of sub-spaces; samples and members are tuples (lists are members too).

    Args:
        spaces: The sub-space of each position.
    """

    def __init__(self, spaces: Sequence[Space]):
        self.spaces = tuple(spaces)
        self.shape = ()
        self.dtype = None

    def _parts(self) -> list[tuple[str, Space]]:
        return [(f"[{i}]", space) for i, space in enumerate(self.spaces)]

    def _split(self, x: Any) -> list[Any] | None:
        if not isinstance(x, (tuple, list)) or len(x) != len(self.spaces):
            return None
        return list(x)

    def _structure(self) -> str:
        return f"a tuple of {len(self.spaces)}"

    def sample(self, key: jax.Array) -> tuple[Any, ...]:
        keys = jax.random.split(key, max(len(self.spaces), 1))
        return tuple(space.sample(k) for space, k in zip(self.spaces, keys))

    def __getitem__(self, index: int) -> Space:
        return self.spaces[index]

    def __len__(self) -> int:
        return len(self.spaces)

    def __repr__(self) -> str:
        return "Tuple(" + ", ".join(repr(s) for s in self.spaces) + ")"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Tuple) and self.spaces == other.spaces


def clip_action(x: Any, low: Any, high: Any) -> jax.Array:
    """What the continuous envs do with an invalid action inside `jit`.

    Args:
        x: The action.
        low: The lower bound(s).
        high: The upper bound(s).

    Returns:
        `x` with NaN taken as 0 and everything clipped into `[low, high]` (inf to a bound).
    """
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
    elif _kind(a.dtype) not in "biuf":
        return None
    return a


def why_not(space: Space, x: Any, batch: tuple[int, ...] = ()) -> str | None:
    """Why the concrete value `x` is not in `space`, exactly.

    The value is read as it is, never cast first (`np.int64(2**32 + 1)` is not 1, a Python
    `2**31` no overflow), and NaN and inf lie outside every Box. The reason names the first
    invalid part of a `Dict` or `Tuple` (`"['a']: out of range"`).

    Args:
        space: The space.
        x: A concrete value (numpy, JAX or Python).
        batch: With a non-empty batch shape, `x` must be an array of `batch`-shaped members
            (each leaf of shape `batch + leaf_space.shape`).

    Returns:
        None when `x` is in `space`, else a short reason ("out of range", "not an integer",
        "shape (3,), expected (4,)", ...).
    """
    return space._why_not(x, tuple(batch))


def check_action(space: Space, action: Any, where: str, batch: tuple[int, ...] = (), strict: bool = False) -> None:
    """Check a concrete action exactly (see `why_not`), as every eager entry point does.

    An action is refused where its reference refuses it: a wrong structure, shape or kind, a
    NaN or inf, an integer out of its range (a Discrete action, say). A finite number outside
    a float Box is not refused: the env does with it what its reference does, eagerly as under
    `jit` (gymnasium's and gymnax's continuous envs clip it; each env's docstring says).
    `strict=True` refuses it too (`wrappers.Checked`, for debugging runs).

    Args:
        space: The action space.
        action: The concrete action.
        where: What to name in the error (an env's name).
        batch: The batch shape of a batch of actions, or `()` for one.
        strict: Whether a float Box's range is checked as well (membership, `why_not`).

    Raises:
        ValueError: Naming `where`, the action, why it is invalid and what is valid.

    Examples:
        >>> import numpy as np
        >>> from jaxenvs import spaces
        >>> box = spaces.Box(-2.0, 2.0, (1,))
        >>> spaces.check_action(box, np.array([102.0], np.float32), "Pendulum")  # Pendulum clips it
        >>> spaces.check_action(box, np.array([102.0], np.float32), "Pendulum", strict=True)
        Traceback (most recent call last):
        ...
        ValueError: Pendulum: invalid action [102.] (out of range); valid actions are ...
        >>> spaces.check_action(box, np.array([np.nan], np.float32), "Pendulum")
        Traceback (most recent call last):
        ...
        ValueError: Pendulum: invalid action [nan] (not finite (NaN or inf)); valid actions are ...
    """
    reason = space._why_not(action, tuple(batch), strict)
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
    """Check an action's structure and shapes, which are static: this raises even under `jit`.

    Args:
        space: The action space.
        action: The action, concrete or traced.
        where: What to name in the error (an env's name).

    Raises:
        ValueError: Naming `where`, the action's structure or shape and the valid one.
    """
    space._check_shape(action, where)


def _leaves(obs) -> list:
    """The leaves of `obs`, every mapping's in sorted key order (`tree_leaves` would keep an
    OrderedDict's insertion order)."""
    if isinstance(obs, Mapping):
        return [leaf for k in sorted(obs) for leaf in _leaves(obs[k])]
    if isinstance(obs, (tuple, list)):
        return [leaf for item in obs for leaf in _leaves(item)]
    return jax.tree_util.tree_leaves(obs)


def flatten(obs) -> jax.Array:
    """Concatenate every leaf of an observation as float32.

    Args:
        obs: An array, or a (nested) dict or tuple of arrays.

    Returns:
        A float32 vector: every leaf raveled, dicts in sorted key order.
    """
    return jnp.concatenate([jnp.ravel(leaf).astype(jnp.float32) for leaf in _leaves(obs)])


def flatten_space(space: Space) -> Box:
    """The float32 `Box` of `flatten`'s vectors.

    Every entry's bounds are those of the space it comes from (Discrete: `[start, start + n -
    1]`; MultiDiscrete: `[0, nvec - 1]`; an integer Box: its `integer_bounds`), raveled, dicts
    in sorted key order.

    Args:
        space: The observation space.

    Returns:
        A float32 Box of shape `(size,)`.

    Raises:
        TypeError: For a space that defines no bounds (a custom `Space` subclass).
    """
    low, high = space._flat_bounds()
    return Box(low, high, shape=(low.shape[0],), dtype=jnp.float32)
