"""What other parts of jaxenvs know about a registered id, beside what `make` needs.

`EnvSpec` holds what `make` and `availability` read; `register(..., reference=, parity=,
peers=)` writes the rest here, one table per owner: `PARITY` is `jaxenvs.parity`'s (its
reference and checks), `PEERS` is `jaxenvs.bench`'s (the same env in other libraries). This
module imports nothing, so that `register` can write it without importing either owner.
Read an id's entry after `jaxenvs.spec(id)` (which reads the built-in registrations).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any


@dataclasses.dataclass(frozen=True)
class ParityEntry:
    """An id's parity declaration.

    Args:
        reference: the reference implementation, in words (None where none is named).
        target: its checks: a `jaxenvs.parity.ParitySpec` or `Reference`, or `"module:attribute"`
            naming one (or a function of no arguments returning one); None where it declares none.
    """

    reference: str | None = None
    target: Any = None


NO_PARITY = ParityEntry()

PARITY: dict[str, ParityEntry] = {}  # owned by jaxenvs.parity
PEERS: dict[str, Mapping[str, Any]] = {}  # owned by jaxenvs.bench: {"gymnax": id, ...}


def parity_of(env_id: str) -> ParityEntry:
    """`env_id`'s parity declaration.

    Args:
        env_id: a registered id (`jaxenvs.spec(env_id)` names an unknown one).

    Returns:
        Its `ParityEntry`; `NO_PARITY` where it declares none.
    """
    return PARITY.get(env_id, NO_PARITY)


def peers_of(env_id: str) -> Mapping[str, Any]:
    """`env_id`'s benchmark peers.

    Args:
        env_id: a registered id (`jaxenvs.spec(env_id)` names an unknown one).

    Returns:
        `{"gymnax": ..., "gymnasium": ..., "envpool": ..., "loop": ...}`, the libraries it
        declares; empty where it declares none.
    """
    return PEERS.get(env_id, {})


def record(env_id: str, reference: str | None, target: Any, peers: Mapping[str, Any] | None) -> None:
    """Set `env_id`'s entries (`register` calls this), clearing those it no longer declares.

    Args:
        env_id: the id being registered.
        reference: the reference in words, or None.
        target: its parity checks (see `ParityEntry`), or None.
        peers: its benchmark peers, or None.
    """
    PARITY.pop(env_id, None)
    PEERS.pop(env_id, None)
    if reference is not None or target is not None:
        PARITY[env_id] = ParityEntry(reference, target)
    if peers:
        PEERS[env_id] = dict(peers)
