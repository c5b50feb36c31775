"""Deprecated: the batched reset is part of `jaxenvs.wrappers.autoreset` (one module).

Kept for one release as an alias; importing a name from here warns.
"""

import warnings

from jaxenvs.wrappers import autoreset as _autoreset

_MOVED = ("default_capacity", "finished_index", "final_info", "observe_fn", "reset_if_done_fn")


def __getattr__(name):
    if name in _MOVED:
        warnings.warn(
            f"jaxenvs.wrappers.batched_reset.{name} moved to jaxenvs.wrappers.autoreset.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_autoreset, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
