"""Parity: each built-in env checked against its reference implementation (DESIGN.md).

`run_parity(env_id, scale)` runs the checks of one env and returns a `ParityResult`;
`parity_ids()` lists the envs that have a reference. Each family keeps its reference glue in
`jaxenvs/parity/<family>.py`, exposing `IDS` and `run(env_id, scale, seed)`; the references
themselves (gymnasium, minatar, bsuite, gymnax) are imported only when a check runs.
"""

from __future__ import annotations

import importlib

from jaxenvs.parity.harness import Check, ParityResult, Reference  # noqa: F401

FAMILY_MODULES = {
    "classic": "jaxenvs.parity.classic",
    "toy_text": "jaxenvs.parity.toy_text",
    "minatar": "jaxenvs.parity.minatar",
    "bsuite": "jaxenvs.parity.bsuite",
    "misc": "jaxenvs.parity.misc",
}


def _family_module(family: str):
    name = FAMILY_MODULES.get(family)
    if name is None:
        return None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name == name:  # the family has no parity module yet
            return None
        raise


def parity_ids() -> list[str]:
    """Every registered id that has a parity check, in registration order."""
    from jaxenvs.registry import registered_envs, spec

    out = []
    for env_id in registered_envs():
        module = _family_module(spec(env_id).family)
        if module is not None and env_id in module.IDS:
            out.append(env_id)
    return out


def has_parity(env_id: str) -> bool:
    from jaxenvs.registry import spec

    module = _family_module(spec(env_id).family)
    return module is not None and env_id in module.IDS


def run_parity(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    """Run every parity check of `env_id`; a missing reference library gives a skipped result."""
    from jaxenvs.registry import spec

    s = spec(env_id)
    module = _family_module(s.family)
    if module is None or env_id not in module.IDS:
        return ParityResult(env_id, s.reference or "-", skipped="no reference check")
    try:
        return module.run(env_id, scale=scale, seed=seed)
    except ImportError as e:
        return ParityResult(
            env_id, s.reference or "-", skipped=f'reference not installed ({e.name}): pip install "jaxenvs[parity]"'
        )
