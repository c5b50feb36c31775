"""Params fields that declare their valid values next to the field, and the check that reads them.

A Params class declares each field with a helper (`real`, `integer`, `choice`, ...) instead
of a bare default; `check_params` (called by `make`, `make_vec` and `params.replace`) raises a
`ValueError` naming the field, its value and what is valid. See docs/adding-an-env.md.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np
from flax import struct

INT32_MAX = 2**31 - 1

Bound = float | int | str | None  # a number, or the name of another params field or env attribute


@dataclasses.dataclass(frozen=True)
class Valid:
    """What one params field accepts.

    Attributes:
        kind: "real", "integer", "flag", "choice", "array" or "custom".
        low: The lower bound (inclusive unless `low_open`); a string names another field of the
            same params, or an attribute of the env, whose value is the bound.
        high: The upper bound (inclusive unless `high_open`), as `low`.
        low_open: Whether `low` itself is excluded.
        high_open: Whether `high` itself is excluded.
        choices: The allowed values of a "choice".
        shape: An "array"'s shape; an entry may name an env attribute (DeepSea's `size`).
        dtype: An "array"'s element kind, "real" or "integer".
        optional: Whether `None` is valid too (a value the env computes when `None`).
        check: For "custom": `value -> problem or None`.
        text: For "custom": what is valid, in words.
        per_episode: Whether the field may vary per episode: a level may set it
            (`jaxenvs.levels`). Never a static field (it would change shapes or code paths).
    """

    kind: str
    low: Bound = None
    high: Bound = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    shape: tuple | None = None
    dtype: str = "real"
    optional: bool = False
    check: Callable[[Any], str | None] | None = None
    text: str = ""
    per_episode: bool = False

    def describe(self, params: Any = None, env: Any = None) -> str:
        """What is valid, in words: "a finite real > 0", "one of 'book', 'nips'".

        Args:
            params: The params the field is in, to read bounds that name another field.
            env: The env, to read bounds and shapes that name an env attribute.

        Returns:
            The description.
        """
        if self.kind == "flag":
            out = "a bool (True or False)"
        elif self.kind == "choice":
            out = "one of " + ", ".join(map(repr, self.choices))
        elif self.kind == "custom":
            out = self.text
        else:
            noun = {"real": "a finite real", "integer": "an integer"}.get(self.kind)
            if self.kind == "array":
                shape = tuple(_resolve(s, params, env) if isinstance(s, str) else s for s in self.shape or ())
                shape_text = "(" + ", ".join(str(s) if s is not None else "?" for s in shape) + ")"
                noun = f"an array of {'integers' if self.dtype == 'integer' else 'finite reals'} of shape {shape_text}"
            out = noun + self._range_text(params, env)
        if self.optional:
            out += ", or None"
        return out

    def _range_text(self, params: Any, env: Any) -> str:
        low, high = self._bound(self.low, params, env), self._bound(self.high, params, env)
        if low is None and high is None:
            return ""
        if low is not None and high is not None:
            return f" in {'(' if self.low_open else '['}{low}, {high}{')' if self.high_open else ']'}"
        if low is not None:
            return f" {'>' if self.low_open else '>='} {low}"
        return f" {'<' if self.high_open else '<='} {high}"

    @staticmethod
    def _bound(bound: Bound, params: Any, env: Any) -> Any:
        if isinstance(bound, str):
            value = _resolve(bound, params, env)
            return bound if value is None else value
        return bound

    def problem(self, value: Any, params: Any = None, env: Any = None) -> bool:
        """Whether `value` is not valid (a traced value counts as valid: it cannot be seen).

        Args:
            value: The field's value.
            params: The params the field is in, to read bounds that name another field.
            env: The env, to read bounds and shapes that name an env attribute.

        Returns:
            True when `value` is outside what is valid.
        """
        if value is None:
            return not self.optional
        if _traced(value):
            return False
        if self.kind == "flag":
            return not _is_bools(value)
        if self.kind == "choice":
            try:
                return value not in self.choices or isinstance(value, (np.ndarray, jax.Array))
            except (TypeError, ValueError):
                return True
        if self.kind == "custom":
            return self.check(value) is not None
        if isinstance(value, (list, tuple, str, bytes, dict, set)) or _is_bools(value):
            return True
        try:
            x = np.asarray(value)
        except (TypeError, ValueError):
            return True
        integer = self.kind == "integer" or (self.kind == "array" and self.dtype == "integer")
        if x.dtype.kind not in ("iu" if integer else "iuf"):
            return True
        if self.kind == "array" and not self._shape_ok(x.shape, params, env):
            return True
        if x.dtype.kind == "f" and not np.all(np.isfinite(x)):
            return True
        if integer and x.size and (x.max() > INT32_MAX or x.min() < -INT32_MAX - 1):
            return True
        return not self._in_range(x, params, env)

    def _shape_ok(self, shape: tuple, params: Any, env: Any) -> bool:
        if self.shape is None:
            return True
        if len(shape) != len(self.shape):
            return False
        for got, want in zip(shape, self.shape):
            if isinstance(want, str):
                want = _resolve(want, params, env)
            if want is not None and got != want:
                return False
        return True

    def _in_range(self, x: np.ndarray, params: Any, env: Any) -> bool:
        low, high = self._bound(self.low, params, env), self._bound(self.high, params, env)
        if isinstance(low, str) or isinstance(high, str):  # a bound that cannot be read here
            low, high = (None if isinstance(b, str) else b for b in (low, high))
        with np.errstate(invalid="ignore"):
            if low is not None and (np.any(x <= low) if self.low_open else np.any(x < low)):
                return False
            if high is not None and (np.any(x >= high) if self.high_open else np.any(x > high)):
                return False
        return True


def _traced(value: Any) -> bool:
    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(value))


def _is_bools(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return True
    return isinstance(value, (np.ndarray, jax.Array)) and value.dtype == np.bool_


def _resolve(name: str, params: Any, env: Any) -> Any:
    """The value a bound or shape entry names: another params field, else an env attribute;
    None when neither can be read (no env given, or a traced value)."""
    for holder in (params, getattr(env, "unwrapped", env)):
        if holder is not None and hasattr(holder, name):
            value = getattr(holder, name)
            if _traced(value) or value is None:
                return None
            try:
                return value.item() if hasattr(value, "item") and np.size(value) == 1 else value
            except (TypeError, ValueError):
                return None
    return None


def _field(default: Any, valid: Valid, static: bool) -> Any:
    if static and valid.per_episode:
        raise TypeError(
            "a static params field cannot vary per episode (per_episode=True): it fixes shapes or code paths"
        )
    return struct.field(pytree_node=not static, default=default, metadata={"valid": valid})


# --- the helpers a Params class declares its fields with -------------------------------------


def real(
    default: float,
    low: Bound = None,
    high: Bound = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    static: bool = False,
    per_episode: bool = False,
) -> Any:
    """Declare a finite real field in `[low, high]`.

    Args:
        default: The default value.
        low: The lower bound (a number, the name of another field or of an env attribute), or
            None for none.
        high: The upper bound, as `low`.
        low_open: Exclude `low` itself.
        high_open: Exclude `high` itself.
        static: Make the field static (not a pytree leaf).
        per_episode: The field may vary per episode (a level may set it; never static).

    Returns:
        The dataclass field.
    """
    return _field(default, Valid("real", low, high, low_open, high_open, per_episode=per_episode), static)


def positive(default: float, *, static: bool = False, per_episode: bool = False) -> Any:
    """Declare a finite real field > 0 (a mass, a length, a time step).

    Args:
        default: The default value, > 0.
        static: Make the field static (not a pytree leaf).
        per_episode: The field may vary per episode (a level may set it; never static).

    Returns:
        The dataclass field.
    """
    return real(default, 0.0, low_open=True, static=static, per_episode=per_episode)


def probability(default: float, *, static: bool = False, per_episode: bool = False) -> Any:
    """Declare a finite real field in [0, 1].

    Args:
        default: The default value, in [0, 1].
        static: Make the field static (not a pytree leaf).
        per_episode: The field may vary per episode (a level may set it; never static).

    Returns:
        The dataclass field.
    """
    return real(default, 0.0, 1.0, static=static, per_episode=per_episode)


def integer(
    default: int,
    low: Bound = None,
    high: Bound = INT32_MAX,
    *,
    high_open: bool = False,
    static: bool = False,
    per_episode: bool = False,
) -> Any:
    """Declare an integer field in `[low, high]`.

    Args:
        default: The default value.
        low: The lower bound (a number or the name of a field or env attribute), or None.
        high: The upper bound; int32's largest value by default.
        high_open: Exclude `high` itself.
        static: Make the field static (not a pytree leaf).
        per_episode: The field may vary per episode (a level may set it; never static).

    Returns:
        The dataclass field.
    """
    return _field(default, Valid("integer", low, high, high_open=high_open, per_episode=per_episode), static)


def flag(default: bool, *, static: bool = False, per_episode: bool = False) -> Any:
    """Declare a bool field.

    Args:
        default: The default value, True or False.
        static: Make the field static (not a pytree leaf).
        per_episode: The field may vary per episode (a level may set it; never static).

    Returns:
        The dataclass field.
    """
    return _field(default, Valid("flag", per_episode=per_episode), static)


def choice(default: Any, choices: Sequence[Any], *, static: bool = True) -> Any:
    """Declare a field that takes one of a fixed set of values.

    Args:
        default: The default value.
        choices: The allowed values.
        static: Make the field static (the default: a choice usually picks code paths).

    Returns:
        The dataclass field.
    """
    return _field(default, Valid("choice", choices=tuple(choices)), static)


def array(
    default: Any = None,
    *,
    shape: Sequence[int | str | None],
    dtype: str = "real",
    low: Bound = None,
    high: Bound = None,
    optional: bool = True,
) -> Any:
    """Declare an array field (never static).

    Args:
        default: The default value; None means the env's own value.
        shape: The array's shape; an entry may name an env attribute, None allows any length.
        dtype: The element kind, "real" or "integer".
        low: The elements' lower bound, or None.
        high: The elements' upper bound, or None.
        optional: Whether `None` is valid too.

    Returns:
        The dataclass field.
    """
    return _field(default, Valid("array", low, high, shape=tuple(shape), dtype=dtype, optional=optional), False)


def custom(default: Any, check: Callable[[Any], str | None], text: str, *, static: bool = False) -> Any:
    """Declare a field checked by a function of its own.

    Args:
        default: The default value.
        check: `value -> None` when valid, else a string saying what is wrong.
        text: What is valid, in words (for the error message).
        static: Make the field static (not a pytree leaf).

    Returns:
        The dataclass field.
    """
    return _field(default, Valid("custom", check=check, text=text), static)


# --- the check -------------------------------------------------------------------------------


def declared(params_type: type, name: str) -> Valid | None:
    """The `Valid` declared for a field.

    A subclass that only changes the default keeps the range of the nearest base class that
    declares it.

    Args:
        params_type: A Params class.
        name: The field's name.

    Returns:
        The declaration, or None if no class in the MRO declares one.
    """
    for klass in params_type.__mro__:
        field = getattr(klass, "__dataclass_fields__", {}).get(name)
        if field is not None and "valid" in field.metadata:
            return field.metadata["valid"]
    return None


def _short(value: Any) -> str:
    if isinstance(value, (np.ndarray, jax.Array)) and not _traced(value):
        text = np.array2string(np.asarray(value), threshold=8, edgeitems=2, separator=", ").replace("\n", "")
        return f"array({text}, shape={tuple(value.shape)}, dtype={value.dtype})"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_params(params: Any, env: Any = None, names: Sequence[str] | None = None, where: str | None = None) -> None:
    """Check the fields of `params` against their declared values.

    Args:
        params: A Params instance.
        env: The env, to resolve bounds that name an env attribute (optional).
        names: Check only these fields (all by default).
        where: The name the error starts with; by default the env's name, else the params' type.

    Raises:
        ValueError: For the first field outside its declared values, naming `where`, the field,
            its value and what is valid.
    """
    where = where or (getattr(env, "name", None) if env is not None else None) or type(params).__name__
    for field in dataclasses.fields(params):
        if names is not None and field.name not in names:
            continue
        valid = declared(type(params), field.name)
        if valid is None:
            continue
        value = getattr(params, field.name)
        if valid.problem(value, params, env):
            raise ValueError(
                f"{where}: parameter {field.name}={_short(value)} is not valid; "
                f"valid values: {valid.describe(params, env)}"
            )


class ParamsMeta(type):
    """The metaclass of `EnvParams`: `params.replace(...)` checks the fields it changes.

    `flax.struct.dataclass` gives every class it decorates a plain `replace`; this wraps it, for
    every Params class, built-in or a user's, with no decorator of our own.
    """

    def __setattr__(cls, name: str, value: Any) -> None:
        if name == "replace" and callable(value) and not getattr(value, "_checks_params", False):
            value = _checked_replace(value)
        super().__setattr__(name, value)


def _checked_replace(replace: Callable[..., Any]) -> Callable[..., Any]:
    def checked(self, **updates: Any) -> Any:
        valid = [f.name for f in dataclasses.fields(self)]
        unknown = sorted(set(updates) - set(valid))
        if unknown:
            close = {n: difflib.get_close_matches(n, valid, n=1) for n in unknown}
            hints = "".join(f" (did you mean {c[0]!r} for {n!r}?)" for n, c in close.items() if c)
            raise TypeError(
                f"{type(self).__name__}.replace: unknown field(s) {', '.join(map(repr, unknown))}{hints}; "
                f"valid fields are: {', '.join(valid)}"
            )
        new = replace(self, **updates)
        check_params(new, names=list(updates))
        return new

    checked._checks_params = True
    checked.__doc__ = replace.__doc__
    return checked
