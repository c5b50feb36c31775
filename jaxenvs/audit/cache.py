"""The audit's cache of the reference side: samples drawn from a reference are kept on disk.

A reference (crafter, MiniGrid, the Arcade Learning Environment) is slow and deterministic for
a given seed and size, so the audit draws its samples once: `cached(key, draw)` returns what
`draw()` returned the first time it was called with that key, read back from
`$JAXENVS_CACHE` (default `~/.cache/jaxenvs`)`/audit/`. The key names everything the samples
depend on (the reference and its version, the id, the size, the seed); `refresh=True` draws
again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """The folder the audit's samples are kept in.

    Returns:
        `$JAXENVS_CACHE/audit`, or `~/.cache/jaxenvs/audit`.
    """
    return Path(os.environ.get("JAXENVS_CACHE") or Path.home() / ".cache" / "jaxenvs") / "audit"


def cached(key: str, draw: Callable[[], Any], refresh: bool = False) -> Any:
    """What `draw()` returns, drawn once per `key` and kept on disk.

    Args:
        key: every fact the samples depend on, in words (reference and version, id, size,
            seed), e.g. `"crafter 1.8.3 episodes n=200 seed=0"`.
        draw: draws the samples; what it returns must pickle (numbers, arrays, dicts, lists).
        refresh: draw again and replace what is kept.

    Returns:
        The samples.

    Raises:
        TypeError: `key` is not a non-empty string.
    """
    if not isinstance(key, str) or not key:
        raise TypeError(f"cached: key must be a non-empty string naming what the samples depend on, got {key!r}")
    path = cache_dir() / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".pkl")
    if path.exists() and not refresh:
        try:
            stored_key, value = pickle.loads(path.read_bytes())
            if stored_key == key:
                return value
        except (pickle.UnpicklingError, EOFError, ValueError, AttributeError, ImportError):
            pass  # a damaged or foreign file: draw again
    value = draw()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(pickle.dumps((key, value)))
    tmp.replace(path)
    return value
