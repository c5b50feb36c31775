"""Every conversion of a space, one `functools.singledispatch` function each.

As gymnasium's `spaces/utils.py` dispatches `flatten` on the space's class, each conversion
here has one function per class it converts; exports and adapters call these and walk no
class ladder of their own. A class of your own joins a conversion by registering with it:

    >>> from jaxenvs import spaces
    >>> spaces.convert.to_gymnasium(spaces.Discrete(3))
    Discrete(3)

| function | converts | to |
|---|---|---|
| `to_gymnasium` / `from_gymnasium` | jaxenvs / gymnasium spaces | gymnasium / jaxenvs spaces |
| `to_dm_env` | jaxenvs spaces | dm_env specs |
| `to_gymnax` / `from_gymnax` | jaxenvs / gymnax-style spaces | gymnax / jaxenvs spaces |
| `from_jumanji` | jumanji specs | jaxenvs spaces |
| `from_navix` | navix spaces | jaxenvs spaces |
| `to_numpy` | a JAX value and its gymnasium space | the numpy value gymnasium holds |
| `cast` | a value and its jaxenvs space | the value in the space's dtypes |

Other libraries are imported only when a conversion needs them: a conversion *from* a library
registers that library's classes on its first call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxenvs.spaces.core import Box, Dict, Discrete, MultiDiscrete, Space, Tuple

__all__ = [
    "cast",
    "from_gymnasium",
    "from_gymnax",
    "from_jumanji",
    "from_navix",
    "to_dm_env",
    "to_gymnasium",
    "to_gymnax",
    "to_numpy",
]


def _converter(name: str) -> Callable:
    """A singledispatch conversion whose fallback names the type it has no converter for."""

    @functools.singledispatch
    def convert(space: Any, *args: Any, **kwargs: Any) -> Any:
        known = ", ".join(sorted({t.__name__ for t in convert.registry if t is not object}))
        kind = type(space)
        raise TypeError(
            f"{name}: no converter for {kind.__module__}.{kind.__qualname__} ({space!r}); "
            f"it converts {known or 'nothing yet'}"
        )

    convert.__name__ = convert.__qualname__ = name
    return convert


def _loads(register: Callable[[], None], dispatch: Callable) -> Callable[[Callable], Callable]:
    """Make a conversion from a library call `register` once first (it registers the library's
    classes with `dispatch`); the conversion's `register` and `registry` are `dispatch`'s."""
    register = functools.cache(register)

    def wrap(convert: Callable) -> Callable:
        @functools.wraps(convert)
        def call(*args: Any, **kwargs: Any) -> Any:
            register()
            return convert(*args, **kwargs)

        call.register, call.registry = dispatch.register, dispatch.registry
        return call

    return wrap


# --- gymnasium --------------------------------------------------------------------------------

to_gymnasium = _converter("to_gymnasium")
to_gymnasium.__doc__ = """The gymnasium space holding the values of a jaxenvs space.

    Args:
        space: A jaxenvs space.

    Returns:
        A `gymnasium.spaces.Space` (an integer Box gets its `integer_bounds`, a bool Box 0 and 1).

    Raises:
        TypeError: For a space class with no converter, naming it.
    """


@to_gymnasium.register
def _(space: Discrete) -> Any:
    import gymnasium

    return gymnasium.spaces.Discrete(space.n, start=space.start)


@to_gymnasium.register
def _(space: MultiDiscrete) -> Any:
    import gymnasium

    return gymnasium.spaces.MultiDiscrete(space.nvec)


@to_gymnasium.register
def _(space: Box) -> Any:
    import gymnasium

    dtype = np.dtype(space.dtype)
    if dtype == np.bool_:
        low, high = 0, 1
    elif dtype.kind in "iu":
        low, high = space.integer_bounds()  # gymnasium needs finite integer bounds
    else:
        low, high = space.low.astype(dtype), space.high.astype(dtype)
    return gymnasium.spaces.Box(low=low, high=high, shape=space.shape, dtype=dtype)


@to_gymnasium.register
def _(space: Dict) -> Any:
    import gymnasium

    return gymnasium.spaces.Dict({k: to_gymnasium(s) for k, s in space.spaces.items()})


@to_gymnasium.register
def _(space: Tuple) -> Any:
    import gymnasium

    return gymnasium.spaces.Tuple(tuple(to_gymnasium(s) for s in space.spaces))


_from_gymnasium = _converter("from_gymnasium")
_to_numpy = _converter("to_numpy")  # dispatches on the space: it comes first here


def _register_gymnasium() -> None:
    import gymnasium.spaces as gs

    @_from_gymnasium.register(gs.Discrete)
    def _(space: Any) -> Space:
        return Discrete(int(space.n), start=int(space.start))

    @_from_gymnasium.register(gs.MultiBinary)
    def _(space: Any) -> Space:
        return Box(0, 1, shape=space.shape, dtype=jnp.int8)

    @_from_gymnasium.register(gs.MultiDiscrete)
    def _(space: Any) -> Space:
        if np.any(space.start != 0):
            raise ValueError(f"MultiDiscrete spaces with a non-zero start are not supported, got start={space.start}")
        return MultiDiscrete(space.nvec)

    @_from_gymnasium.register(gs.Box)
    def _(space: Any) -> Space:
        if space.dtype == np.bool_:
            return Box(False, True, shape=space.shape, dtype=jnp.bool_)
        return Box(space.low, space.high, shape=space.shape, dtype=space.dtype)

    @_from_gymnasium.register(gs.Dict)
    def _(space: Any) -> Space:
        return Dict({k: from_gymnasium(v) for k, v in space.spaces.items()})

    @_from_gymnasium.register(gs.Tuple)
    def _(space: Any) -> Space:
        return Tuple([from_gymnasium(s) for s in space.spaces])

    # a numpy value as gymnasium's space holds it; one env's Discrete value is a Python int
    @_to_numpy.register(gs.Space)
    def _(space: Any, x: Any, batched: bool) -> Any:
        return np.array(x, dtype=space.dtype)

    @_to_numpy.register(gs.Discrete)
    def _(space: Any, x: Any, batched: bool) -> Any:
        return np.array(x, dtype=space.dtype) if batched else int(x)

    @_to_numpy.register(gs.Dict)
    def _(space: Any, x: Any, batched: bool) -> Any:
        return {k: to_numpy(x[k], s, batched) for k, s in space.spaces.items()}

    @_to_numpy.register(gs.Tuple)
    def _(space: Any, x: Any, batched: bool) -> Any:
        return tuple(to_numpy(v, s, batched) for v, s in zip(x, space.spaces))


@_loads(_register_gymnasium, _from_gymnasium)
def from_gymnasium(space: Any) -> Space:
    """The jaxenvs space holding the values of a gymnasium space.

    Args:
        space: A gymnasium `Discrete`, `MultiBinary`, `MultiDiscrete` (start 0), `Box`, `Dict`
            or `Tuple` space.

    Returns:
        The jaxenvs space (`MultiBinary` becomes an int8 `Box(0, 1)`).

    Raises:
        TypeError: For another kind of space, naming it.
        ValueError: For a `MultiDiscrete` with a non-zero start.
    """
    return _from_gymnasium(space)


@_loads(_register_gymnasium, _to_numpy)
def to_numpy(x: Any, space: Any, batched: bool) -> Any:
    """`x` (JAX) as the numpy value gymnasium's `space` holds (a writeable copy).

    Args:
        x: A JAX value (a dict or tuple for Dict and Tuple spaces).
        space: The gymnasium space it belongs to (the batched space for a batch).
        batched: Whether `x` is a batch: one env's Discrete value becomes a Python int, as
            gymnasium's own envs return, a batch's an array.

    Returns:
        The numpy value.
    """
    return _to_numpy(space, x, batched)


# --- values by their jaxenvs space ------------------------------------------------------------

_cast = _converter("cast")


@_cast.register
def _(space: Dict, x: Any, xp: Any) -> Any:
    return {k: _cast(s, x[k], xp) for k, s in space.spaces.items()}


@_cast.register
def _(space: Tuple, x: Any, xp: Any) -> Any:
    return tuple(_cast(s, v, xp) for s, v in zip(space.spaces, x))


@_cast.register(Discrete)
@_cast.register(MultiDiscrete)
@_cast.register(Box)
def _(space: Space, x: Any, xp: Any) -> Any:
    return xp.asarray(x, dtype=space.dtype)


def cast(x: Any, space: Space, xp: Any = np) -> Any:
    """`x` as arrays of the dtypes of `space`'s members, its dicts and tuples kept.

    Args:
        x: A value (a dict or tuple for Dict and Tuple spaces), numpy, JAX or Python.
        space: The jaxenvs space it belongs to.
        xp: `numpy` (for a jitted call's arguments: it transfers them, cheaper than building
            JAX arrays first) or `jax.numpy` (inside `jit`).

    Returns:
        The value with every leaf an `xp` array of its space's dtype.

    Raises:
        TypeError: For a space class with no converter, naming it.
    """
    return _cast(space, x, xp)


# --- dm_env -----------------------------------------------------------------------------------

to_dm_env = _converter("to_dm_env")
to_dm_env.__doc__ = """The dm_env spec holding the values of a jaxenvs space.

    Discrete -> `DiscreteArray` (`BoundedArray` if it does not start at 0), Box and
    MultiDiscrete -> `BoundedArray` (an integer Box with its `integer_bounds`, a bool Box ->
    `Array`), Dict and Tuple -> dicts and tuples of specs.

    Args:
        space: A jaxenvs space.
        name: The spec's name (Dict members are named by their keys).

    Returns:
        The spec, or a dict or tuple of specs.

    Raises:
        TypeError: For a space class with no converter, naming it.
    """


@to_dm_env.register
def _(space: Discrete, name: str) -> Any:
    from dm_env import specs

    dtype = np.dtype(space.dtype)
    if space.start == 0:
        return specs.DiscreteArray(space.n, dtype=dtype, name=name)
    return specs.BoundedArray((), dtype, space.start, space.start + space.n - 1, name=name)


@to_dm_env.register
def _(space: MultiDiscrete, name: str) -> Any:
    from dm_env import specs

    dtype = np.dtype(space.dtype)
    return specs.BoundedArray(space.shape, dtype, np.zeros(space.shape, dtype), space.nvec - 1, name=name)


@to_dm_env.register
def _(space: Box, name: str) -> Any:
    from dm_env import specs

    dtype = np.dtype(space.dtype)
    if dtype == np.bool_:
        return specs.Array(space.shape, dtype, name=name)
    if dtype.kind in "iu":  # an infinite bound is the dtype's limit, not what a cast makes of it
        low, high = space.integer_bounds()
    else:
        low, high = space.low.astype(dtype), space.high.astype(dtype)
    return specs.BoundedArray(space.shape, dtype, low, high, name=name)


@to_dm_env.register
def _(space: Dict, name: str) -> Any:
    return {k: to_dm_env(s, k) for k, s in space.spaces.items()}


@to_dm_env.register
def _(space: Tuple, name: str) -> Any:
    return tuple(to_dm_env(s, f"{name}_{i}") for i, s in enumerate(space.spaces))


# --- gymnax -----------------------------------------------------------------------------------

to_gymnax = _converter("to_gymnax")
to_gymnax.__doc__ = """The gymnax space (gymnax's own classes) holding the values of a jaxenvs space.

    Args:
        space: A jaxenvs space.
        where: The env id, named in the error for a space gymnax cannot express.

    Returns:
        A `gymnax.environments.spaces` `Discrete`, `Box`, `Dict` or `Tuple`; `MultiDiscrete(nvec)`
        becomes the integer `Box(0, nvec - 1, nvec.shape, int32)`.

    Raises:
        ValueError: For a `Discrete` that does not start at 0 (gymnax's always does).
        TypeError: For a space class with no converter, naming it.
    """


@to_gymnax.register
def _(space: Discrete, where: str = "") -> Any:
    import jax
    from gymnax.environments import spaces as gymnax_spaces

    if space.start != 0:
        raise ValueError(
            f"{where}: its space {space!r} starts at {space.start}; gymnax's Discrete starts at 0, "
            "so jaxenvs.export.gymnax cannot express it without changing the values"
        )
    # gymnax's Discrete takes int32 or int64 (with x64) only
    wide = jnp.dtype(space.dtype) == jnp.int64 and jax.config.read("jax_enable_x64")
    return gymnax_spaces.Discrete(space.n, dtype=jnp.int64 if wide else jnp.int32)


@to_gymnax.register
def _(space: MultiDiscrete, where: str = "") -> Any:
    from gymnax.environments import spaces as gymnax_spaces

    high = (space.nvec - 1).astype(np.int32)
    return gymnax_spaces.Box(np.zeros(space.shape, np.int32), high, space.shape, jnp.int32)


@to_gymnax.register
def _(space: Box, where: str = "") -> Any:
    from gymnax.environments import spaces as gymnax_spaces

    dtype = jnp.dtype(space.dtype)
    if space.traced:  # bounds computed from traced params (inside a client's jit)
        low, high = space.low, space.high
    elif dtype == jnp.bool_:
        low, high = np.zeros(space.shape, np.bool_), np.ones(space.shape, np.bool_)
    elif jnp.issubdtype(dtype, jnp.integer):
        low, high = space.integer_bounds()
    else:
        low, high = space.low.astype(dtype), space.high.astype(dtype)
    return gymnax_spaces.Box(low, high, space.shape, dtype)


@to_gymnax.register
def _(space: Dict, where: str = "") -> Any:
    from gymnax.environments import spaces as gymnax_spaces

    return gymnax_spaces.Dict({k: to_gymnax(s, where) for k, s in space.spaces.items()})


@to_gymnax.register
def _(space: Tuple, where: str = "") -> Any:
    from gymnax.environments import spaces as gymnax_spaces

    return gymnax_spaces.Tuple([to_gymnax(s, where) for s in space.spaces])


@functools.singledispatch
def from_gymnax(space: Any) -> Space:
    """The jaxenvs space of a gymnax-style space (gymnax's, Craftax's or a copy of them).

    Such spaces come in copies of gymnax's classes, so the fallback reads a space by its fields:
    `spaces` (a dict or a sequence: Dict, Tuple), `n` with shape `()` (Discrete), `low` and
    `high` (Box).

    Args:
        space: A gymnax-style `Discrete`, `Box`, `Dict` or `Tuple`.

    Returns:
        The jaxenvs space.

    Raises:
        TypeError: For a space with none of those fields, naming its type.
    """
    inner = getattr(space, "spaces", None)
    if isinstance(inner, dict):
        return Dict({k: from_gymnax(v) for k, v in inner.items()})
    if isinstance(inner, (tuple, list)):
        return Tuple([from_gymnax(v) for v in inner])
    if hasattr(space, "n") and tuple(getattr(space, "shape", ())) == ():
        return Discrete(int(space.n), dtype=getattr(space, "dtype", jnp.int32))
    if hasattr(space, "low") and hasattr(space, "high"):
        dtype = jnp.dtype(getattr(space, "dtype", jnp.float32))
        shape = tuple(int(s) for s in np.atleast_1d(space.shape)) if space.shape != () else ()
        if dtype == jnp.bool_:
            return Box(False, True, shape=shape, dtype=dtype)
        low = np.broadcast_to(np.asarray(space.low, np.float64), shape)
        high = np.broadcast_to(np.asarray(space.high, np.float64), shape)
        return Box(low, high, shape=shape, dtype=dtype)
    kind = type(space)
    raise TypeError(
        f"from_gymnax: no converter for {kind.__module__}.{kind.__qualname__} ({space!r}); it converts "
        "gymnax-style Discrete, Box, Dict and Tuple spaces (read by their fields n, low/high, spaces)"
    )


# --- jumanji ----------------------------------------------------------------------------------

_from_jumanji = _converter("from_jumanji")


def _unbounded(shape: tuple[int, ...], dtype: Any) -> Box:
    if jnp.dtype(dtype) == jnp.bool_:
        return Box(False, True, shape=shape, dtype=jnp.bool_)
    return Box(-np.inf, np.inf, shape=shape, dtype=dtype)


def _register_jumanji() -> None:
    from jumanji import specs

    @_from_jumanji.register(specs.Spec)
    def _(spec: Any) -> Space:  # a nested spec: its child specs by attribute
        children = {k: v for k, v in vars(spec).items() if isinstance(v, specs.Spec) and not k.startswith("_")}
        return Dict({k: from_jumanji(v) for k, v in sorted(children.items())})

    @_from_jumanji.register(specs.Array)
    def _(spec: Any) -> Space:
        return _unbounded(tuple(spec.shape), spec.dtype)

    @_from_jumanji.register(specs.BoundedArray)
    def _(spec: Any) -> Space:
        dtype = jnp.dtype(spec.dtype)
        if dtype == jnp.bool_:
            return Box(False, True, shape=spec.shape, dtype=jnp.bool_)
        low = np.broadcast_to(np.asarray(spec.minimum, np.float64), spec.shape)
        high = np.broadcast_to(np.asarray(spec.maximum, np.float64), spec.shape)
        return Box(low, high, shape=spec.shape, dtype=dtype)

    @_from_jumanji.register(specs.DiscreteArray)
    def _(spec: Any) -> Space:
        return Discrete(int(spec.num_values), dtype=spec.dtype)

    @_from_jumanji.register(specs.MultiDiscreteArray)
    def _(spec: Any) -> Space:
        return MultiDiscrete(np.asarray(spec.num_values), dtype=spec.dtype)


@_loads(_register_jumanji, _from_jumanji)
def from_jumanji(spec: Any) -> Space:
    """The jaxenvs space of a jumanji spec.

    `DiscreteArray` -> `Discrete`, `MultiDiscreteArray` -> `MultiDiscrete`, `BoundedArray` -> `Box`
    with its bounds, `Array` -> an unbounded `Box`, nested specs -> `Dict` (keys sorted).

    Args:
        spec: A jumanji spec.

    Returns:
        The jaxenvs space.

    Raises:
        TypeError: For something that is no jumanji spec, naming its type.
    """
    return _from_jumanji(spec)


# --- navix ------------------------------------------------------------------------------------

_from_navix = _converter("from_navix")


def _register_navix() -> None:
    from navix import spaces as navix_spaces

    @_from_navix.register(navix_spaces.Space)
    def _(space: Any) -> Space:  # Continuous, and a Discrete of a shape: a Box with its bounds
        shape = tuple(int(s) for s in space.shape)
        low, high = np.asarray(space.minimum, np.float64), np.asarray(space.maximum, np.float64)
        return Box(np.broadcast_to(low, shape), np.broadcast_to(high, shape), shape=shape, dtype=space.dtype)

    @_from_navix.register(navix_spaces.Discrete)
    def _(space: Any) -> Space:
        if tuple(space.shape) != ():
            return _from_navix.dispatch(navix_spaces.Space)(space)
        low, high = int(np.asarray(space.minimum)), int(np.asarray(space.maximum))
        return Discrete(high - low + 1, start=low, dtype=space.dtype)


@_loads(_register_navix, _from_navix)
def from_navix(space: Any) -> Space:
    """The jaxenvs space of a navix space.

    Args:
        space: A navix `Discrete` or `Continuous` space.

    Returns:
        A `Discrete` (a navix `Discrete` of shape ()) or a `Box` with its bounds.

    Raises:
        TypeError: For something that is no navix space, naming its type.
    """
    return _from_navix(space)
