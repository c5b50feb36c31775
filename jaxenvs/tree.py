"""Small pytree helpers shared by the wrappers, the adapters and the exports.

- `cast_like(new, old)`: `new`'s leaves in `old`'s dtypes (both branches of a `lax.cond`, a
  reset beside a step, must agree exactly); a clear error if the structures differ;
- `where_done(done, new, old)`: `old` with the rows where `done` replaced by `new`'s, `done`
  broadcast over each leaf's trailing axes (`new` batched like `old`, or one row for all).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp


def cast_like(new: Any, old: Any, what: str | None = None) -> Any:
    """`new` with every leaf cast to the dtype of the matching leaf of `old`.

    what: names the caller in the `TypeError` raised when the two trees differ in structure.
    """
    if what is not None:
        s_new, s_old = jax.tree_util.tree_structure(new), jax.tree_util.tree_structure(old)
        if s_new != s_old:
            raise TypeError(f"{what}: the tree changes structure ({s_old} -> {s_new}); it must stay fixed")
    return jax.tree_util.tree_map(lambda n, o: jnp.asarray(n).astype(jnp.asarray(o).dtype), new, old)


def where_done(done: jax.Array, new: Any, old: Any) -> Any:
    """`old` with the rows where `done` replaced by `new`'s, in `old`'s dtypes."""

    def pick(n, o):
        o = jnp.asarray(o)
        d = jnp.reshape(done, jnp.shape(done) + (1,) * (o.ndim - jnp.ndim(done)))
        return jnp.where(d, jnp.asarray(n).astype(o.dtype), o)

    return jax.tree_util.tree_map(pick, new, old)
