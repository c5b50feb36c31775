"""Small pytree helpers shared by the wrappers, the adapters and the exports."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp


def cast_like(new: Any, old: Any, what: str | None = None) -> Any:
    """`new` with every leaf cast to the dtype of the matching leaf of `old`.

    Both branches of a `lax.cond` (a reset beside a step) must agree exactly in dtype.

    Args:
        new: The tree to cast.
        old: The tree whose dtypes to take.
        what: Names the caller in the error; when given, the two trees' structures are checked.

    Returns:
        `new`, cast.

    Raises:
        TypeError: If `what` is given and the two trees differ in structure.
    """
    if what is not None:
        s_new, s_old = jax.tree_util.tree_structure(new), jax.tree_util.tree_structure(old)
        if s_new != s_old:
            raise TypeError(f"{what}: the tree changes structure ({s_old} -> {s_new}); it must stay fixed")
    return jax.tree_util.tree_map(lambda n, o: jnp.asarray(n).astype(jnp.asarray(o).dtype), new, old)


def where_done(done: jax.Array, new: Any, old: Any) -> Any:
    """`old` with the rows where `done` replaced by `new`'s, in `old`'s dtypes.

    Args:
        done: A bool array, broadcast over each leaf's trailing axes.
        new: The replacement tree, batched like `old` or one row for all.
        old: The tree to update.

    Returns:
        The selected tree.
    """

    def pick(n, o):
        o = jnp.asarray(o)
        d = jnp.reshape(done, jnp.shape(done) + (1,) * (o.ndim - jnp.ndim(done)))
        return jnp.where(d, jnp.asarray(n).astype(o.dtype), o)

    return jax.tree_util.tree_map(pick, new, old)
