"""What the adapters share: importing a library, raw keys, strong dtypes, spaces, and truncation
by the library's own flag (`AdapterEnvironment`).
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization

from jaxenvs import spaces
from jaxenvs.environment import Environment

# An episode limit no counter reaches: the library's own end of episode applies.
NO_LIMIT = 2**31 - 1


def import_library(module: str, extra: str) -> ModuleType:
    """Import a library an adapter needs.

    Args:
        module: The module to import.
        extra: The jaxenvs extra that installs it.

    Returns:
        The module.

    Raises:
        ImportError: Naming the missing module and `pip install "jaxenvs[extra]"`.
    """
    try:
        return importlib.import_module(module)
    except ImportError as e:
        missing = e.name or module
        raise ImportError(
            f'jaxenvs\' {extra} adapter needs {missing!r}, which is not installed: pip install "jaxenvs[{extra}]"',
            name=missing,
        ) from e


def library_key(key: jax.Array) -> jax.Array:
    """The raw `uint32[2]` key the libraries were written for.

    They store keys in their states, and a typed key there would not survive
    `flax.serialization`.

    Args:
        key: A typed key (`jax.random.key`) or a raw one.

    Returns:
        The raw key data (a raw key unchanged).
    """
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return jax.random.key_data(key)
    return key


def strong(tree: Any) -> Any:
    """Every array leaf with its own dtype but no weak type (a weak leaf makes `jit` retrace).

    Args:
        tree: A pytree.

    Returns:
        The tree with strongly typed leaves.
    """
    return jax.tree_util.tree_map(lambda x: jnp.asarray(x).astype(jnp.asarray(x).dtype), tree)


def space_for(shape: tuple[int, ...], dtype: Any) -> spaces.Box:
    """The unbounded `Box` of a shape and dtype (booleans: `{False, True}`).

    Args:
        shape: The shape.
        dtype: The dtype.

    Returns:
        The `Box`.
    """
    dtype = jnp.dtype(dtype)
    if dtype == jnp.bool_:
        return spaces.Box(False, True, shape=shape, dtype=jnp.bool_)
    return spaces.Box(-np.inf, np.inf, shape=shape, dtype=dtype)


def register_dataclass_serialization(tree: Any) -> None:
    """Teach `flax.serialization` the plain (chex) dataclasses found in `tree`.

    flax knows its own struct dataclasses, dicts, lists and named tuples; a library's
    `chex.dataclass` state would make `serialization.to_bytes` fail. Registration is global and
    idempotent; the handlers store each field by name.

    Args:
        tree: A pytree holding the library's state.
    """
    seen: set[type] = set()

    def visit(node: Any) -> None:
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            ty = type(node)
            if ty not in seen and ty not in serialization._STATE_DICT_REGISTRY:
                seen.add(ty)
                names = [f.name for f in dataclasses.fields(node)]

                def to_state(x, names=names):
                    return {n: serialization.to_state_dict(getattr(x, n)) for n in names}

                def from_state(x, state, names=names):
                    restored = {n: serialization.from_state_dict(getattr(x, n), state[n]) for n in names}
                    return dataclasses.replace(x, **restored)

                serialization.register_serialization_state(ty, to_state, from_state)
            for f in dataclasses.fields(node):
                visit(getattr(node, f.name))
        elif isinstance(node, dict):
            for v in node.values():
                visit(v)
        elif isinstance(node, (list, tuple)):
            for v in node:
                visit(v)

    visit(tree)


def library_params(value: Any) -> str | None:
    """What is wrong with `value` as a library's own params (the check of a `custom` params field).

    Args:
        value: None (the library's defaults) or a params structure (a dataclass, named tuple or
            mapping).

    Returns:
        None if valid, else what is wrong.
    """
    if value is None or dataclasses.is_dataclass(value) or isinstance(value, dict) or hasattr(value, "_fields"):
        return None
    return f"got a {type(value).__name__}, not a params structure"


class AdapterEnvironment(Environment):
    """An `Environment` over another library's task.

    Its episode is truncated by `params.max_steps_in_episode` (the base class) or by the library
    itself: a subclass whose library reports truncations keeps that flag in its state and
    returns it from `library_truncated(state)`.
    """

    def library_truncated(self, state: Any) -> jax.Array:
        """The library's own truncation of the episode `state` belongs to (never, by default).

        Args:
            state: The env's state.

        Returns:
            A bool scalar.
        """
        del state
        return jnp.asarray(False)

    def truncation(self, state: Any, params: Any) -> jax.Array:
        """The time limit or the library's own truncation.

        Args:
            state: The state the step reached.
            params: The env's params.

        Returns:
            A bool scalar.
        """
        return jnp.logical_or(super().truncation(state, params), self.library_truncated(state))


def rebuild(cls: type, args: tuple, kwargs: dict) -> Any:
    """How an adapter is unpickled: `cls(*args, **kwargs)`.

    An adapter holds library modules and compiled library envs, which do not pickle; its
    constructor arguments do.

    Args:
        cls: The adapter class.
        args: Its positional constructor arguments.
        kwargs: Its keyword constructor arguments.

    Returns:
        A new adapter.
    """
    return cls(*args, **kwargs)
