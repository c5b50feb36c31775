"""Levels: what an episode starts from that a user may choose.

A `Level` holds settings (values for the params fields its env declares `per_episode=True`:
physics constants, slip probabilities) and a start state, either or both. `env.reset_to_level(key,
level, params)` starts an episode from one; `make_vec(id, n, levels=sample)` starts each finished
env's next episode from its own sampled level (`wrappers.Levels`). Levels are checked like params:
a wrong tree, dtype or shape is an error naming the expected one, nothing is broadcast, and a
concrete value outside its field's range is a `ValueError` (a traced one is checked by
`wrappers.Checked`). See docs/levels.md.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs.params import _short, declared


@struct.dataclass
class Level:
    """What one episode starts from.

    Attributes:
        settings: `{field: value}` for params fields the env declares per-episode; each value
            a scalar of the field's kind (a float for a real field, an int for an integer, a
            bool for a flag). Fields left out keep the params' value.
        state: A start state (the env's state type, the shapes and dtypes its `reset` gives),
            or None for the env's own random start.
    """

    settings: dict = struct.field(default_factory=dict)
    state: Any = None


def level_fields(params: Any) -> tuple[str, ...]:
    """The params fields that may vary per episode (declared `per_episode=True`).

    Args:
        params: A Params instance or class.

    Returns:
        The field names, in declaration order.
    """
    params_type = params if isinstance(params, type) else type(params)
    return tuple(
        f.name
        for f in dataclasses.fields(params_type)
        if (valid := declared(params_type, f.name)) is not None and valid.per_episode
    )


def default_level(params: Any, state: Any = None, dtype: Any = None) -> Level:
    """The level whose settings are `params`' own values of every per-episode field.

    Args:
        params: The env's params.
        state: The start state, or None.
        dtype: The float dtype of real fields (default: float32, float64 under x64).

    Returns:
        A `Level` with every per-episode field set to its value in `params`, as arrays.
    """
    dtype = jnp.result_type(float) if dtype is None else dtype
    settings = {}
    for name in level_fields(params):
        kind = declared(type(params), name).kind
        want = {"real": dtype, "integer": jnp.int32, "flag": jnp.bool_}.get(kind, dtype)
        settings[name] = jnp.asarray(getattr(params, name), want)
    return Level(settings=settings, state=state)


def apply_level(params: Any, level: Level) -> Any:
    """`params` with the level's settings in place (unchecked: `check_level` checks).

    Args:
        params: The env's params.
        level: The level.

    Returns:
        The params the episode runs under.
    """
    if not level.settings:
        return params
    return dataclasses.replace(params, **level.settings)


_KINDS = {"real": ("f", "a float"), "integer": ("iu", "an integer"), "flag": ("b", "a bool")}


def _kind_of(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "b"
    if isinstance(value, (int, np.integer)):
        return "i"
    if isinstance(value, (float, np.floating)):
        return "f"
    return _dtype(value).kind


def _dtype(value: Any) -> np.dtype:
    return np.dtype(value.dtype) if hasattr(value, "dtype") else np.asarray(value).dtype


def _check_container(level: Any, where: str) -> None:
    """A `Level` whose settings are a dict, else a `TypeError` naming what a level is."""
    if not isinstance(level, Level):
        raise TypeError(
            f"{where}: a level must be a jaxenvs.levels.Level(settings={{field: value}}, state=None or a "
            f"start state), got {type(level).__name__}"
        )
    if not isinstance(level.settings, dict):
        raise TypeError(f"{where}: Level.settings must be a dict {{field: value}}, got {type(level.settings).__name__}")


def _check_name(name: Any, params: Any, where: str) -> None:
    """A field a level may set, else a `ValueError` saying whether the field exists and the nearest valid name."""
    valid_names = level_fields(params)
    if name in valid_names:
        return
    allowed = f"the fields a level may set are {', '.join(valid_names) or '(none)'}"
    params_type = type(params)
    if name in {f.name for f in dataclasses.fields(params_type)}:
        raise ValueError(
            f"{where}: {name!r} cannot vary per episode (it is a field of {params_type.__name__}, one value for "
            f"the whole run: set it with make(id, {name}=...)); {allowed}"
        )
    close = difflib.get_close_matches(str(name), valid_names, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"{where}: {name!r} is not a field of {params_type.__name__}{hint}; {allowed}")


def _check_kind(name: str, value: Any, params: Any, where: str) -> None:
    """A value of the field's kind (a float for a real field, ...), else a `TypeError`."""
    kinds, noun = _KINDS.get(declared(type(params), name).kind, ("f", "a float"))
    if _kind_of(value) not in kinds:
        got = getattr(value, "dtype", type(value).__name__)
        raise TypeError(f"{where}: Level.settings[{name!r}] must be {noun}, got {got}")


def check_level(level: Any, params: Any, where: str, state_like: Callable[[], Any] | None = None) -> None:
    """Check a level's tree, dtypes and shapes (and, where concrete, its values) against an env.

    Args:
        level: The level to check.
        params: The env's params (the fields a level may set, and their declared ranges).
        where: The name errors start with (the env's name).
        state_like: `() -> ` the tree of `jax.ShapeDtypeStruct`s of the env's reset state; called
            only when the level has a state.

    Raises:
        TypeError: `level` is not a `Level`, `settings` not a dict, a value of the wrong dtype,
            or a state of the wrong tree or dtype.
        ValueError: a setting names a field that may not vary per episode (saying whether the
            params have such a field at all, and the nearest field a level may set), a value or
            state leaf has the wrong shape (nothing is broadcast), or a concrete value is out of
            its field's range.
    """
    _check_container(level, where)
    for name, value in level.settings.items():
        _check_name(name, params, where)
        valid = declared(type(params), name)
        shape = np.shape(value)
        if shape != ():
            raise ValueError(
                f"{where}: Level.settings[{name!r}] must be a scalar (shape ()), got shape {shape}; "
                "nothing is broadcast (for a batch of levels, give each env its own scalar)"
            )
        _check_kind(name, value, params, where)
        if not isinstance(value, jax.core.Tracer) and valid.problem(np.asarray(value).item(), params):
            raise ValueError(
                f"{where}: Level.settings[{name!r}]={_short(value)} is not valid; "
                f"valid values: {valid.describe(params)}"
            )
    if level.state is None:
        return
    want = state_like()
    got_tree, want_tree = jax.tree_util.tree_structure(level.state), jax.tree_util.tree_structure(want)
    if got_tree != want_tree:
        raise TypeError(f"{where}: Level.state must have the tree of the env's state {want_tree}, got {got_tree}")
    paths = jax.tree_util.tree_flatten_with_path(want)[0]
    for (path, w), g in zip(paths, jax.tree_util.tree_leaves(level.state)):
        name = jax.tree_util.keystr(path)
        if np.shape(g) != tuple(w.shape):
            raise ValueError(
                f"{where}: Level.state{name} must have shape {tuple(w.shape)}, got {np.shape(g)} (nothing is broadcast)"
            )
        g_dtype = _dtype(g)
        if g_dtype != w.dtype:
            raise TypeError(f"{where}: Level.state{name} must have dtype {w.dtype}, got {g_dtype}")


def check_level_batch(levels: Any, params: Any, where: str, num_levels: int) -> None:
    """Check a batch of levels (one per env) as `check_level` checks one: each env's concrete values too.

    What `make_vec`'s `reset_to_level` checks before it resets every env; the dtypes, shapes and
    start states of each env's level are checked by the env's own `reset_to_level`.

    Args:
        levels: A `Level` whose every leaf has a leading axis of `num_levels`.
        params: The env's params, shared by the batch.
        where: The name errors start with (the env's name).
        num_levels: The batch size.

    Raises:
        TypeError: `levels` is not a `Level`, `settings` not a dict, or a value of the wrong dtype.
        ValueError: a leaf has no leading axis of `num_levels` (nothing is broadcast); a setting
            names a field that may not vary per episode; a concrete value of some env is out of
            its field's range (naming the env).
    """
    _check_container(levels, where)
    for leaf in jax.tree_util.tree_leaves(levels):
        if np.ndim(leaf) == 0 or np.shape(leaf)[0] != num_levels:
            raise ValueError(
                f"{where}: make_vec's reset_to_level takes one level per env (every leaf with a leading "
                f"axis of num_envs={num_levels}), got a leaf of shape {np.shape(leaf)}; nothing is broadcast"
            )
    for name, values in levels.settings.items():
        _check_name(name, params, where)
        _check_kind(name, values, params, where)
        if isinstance(values, jax.core.Tracer):
            continue
        valid = declared(type(params), name)
        values = np.asarray(values)
        if not valid.problem(values, params):  # the whole batch at once; env by env only to name one
            continue
        for i, value in enumerate(values.reshape(num_levels, -1)):
            value = value.item() if value.size == 1 else values[i]
            if valid.problem(value, params):
                raise ValueError(
                    f"{where}: Level.settings[{name!r}][{i}]={_short(value)} (env {i} of {num_levels}) is not "
                    f"valid; valid values: {valid.describe(params)}"
                )


def level_in_range(level: Level, params: Any) -> jax.Array:
    """Whether every setting of `level` is inside its field's declared range (traced or not).

    Bounds that name another field are read only when concrete. For `wrappers.Checked`.

    Args:
        level: The level (its settings may be batched).
        params: The env's params.

    Returns:
        A bool scalar.
    """
    ok = jnp.bool_(True)
    for name, value in level.settings.items():
        valid = declared(type(params), name)
        if valid is None or valid.kind not in ("real", "integer"):
            continue
        x = jnp.asarray(value)
        low, high = valid._bound(valid.low, params, None), valid._bound(valid.high, params, None)
        if low is not None and not isinstance(low, str):
            ok &= jnp.all(x > low) if valid.low_open else jnp.all(x >= low)
        if high is not None and not isinstance(high, str):
            ok &= jnp.all(x < high) if valid.high_open else jnp.all(x <= high)
        if valid.kind == "real":
            ok &= jnp.all(jnp.isfinite(x))
    return ok
