"""Parity: prove a JAX env matches a reference implementation, ours or yours.

    jaxenvs.parity.run_parity("CartPole-v1")                 # a registered id's declared checks
    jaxenvs.parity.run_parity(reference, env=env)            # your env against your Reference
    jaxenvs.parity.run_parity(spec, env=env)                 # ... or against your ParitySpec
    jaxenvs.parity.assert_parity(env, params, reference)     # in a test: names the first mismatch

Each built-in id declares its checks beside it (`jaxenvs/envs/<family>/<env>/parity.py`'s
`SPEC`). The reference libraries are imported only when a check runs.

Modules, each importing only those below it: `verdict` (Check, ParityResult, Holm, two
stages), `scale` (the one scale rule), `statistics` (the comparisons' tests), `transitions`
(the data), `collect` (the JAX side), `reference` (the protocol and its drivers), `subject` (the
env under test), `harness` (the `check_*` comparisons), `spec` (ParitySpec, the standard
checks), `api` (`run_parity`, `check`).
"""

from __future__ import annotations

from jaxenvs.parity.api import assert_parity, check, has_parity, parity_ids, run_parity
from jaxenvs.parity.harness import (
    Collection,
    FieldPolicy,
    check_episode_statistics,
    check_episodes,
    check_resets,
    check_step_distribution,
    check_transitions,
)
from jaxenvs.parity.reference import DmEnvReference, GymnasiumReference, JaxReference, Reference
from jaxenvs.parity.scale import Sizes
from jaxenvs.parity.spec import ParitySpec, Standard
from jaxenvs.parity.spec import run as run_spec  # noqa: F401  (kept for callers of earlier releases)
from jaxenvs.parity.subject import builtin_env, env_under_test, require_env  # noqa: F401
from jaxenvs.parity.transitions import Transitions
from jaxenvs.parity.verdict import ALPHA_ENV, ALPHA_RUN, ENVS_PER_RUN, Check, ParityResult

__all__ = [
    "ALPHA_ENV",
    "ALPHA_RUN",
    "ENVS_PER_RUN",
    "Check",
    "Collection",
    "DmEnvReference",
    "FieldPolicy",
    "GymnasiumReference",
    "JaxReference",
    "ParityResult",
    "ParitySpec",
    "Reference",
    "Sizes",
    "Standard",
    "Transitions",
    "assert_parity",
    "check",
    "check_episode_statistics",
    "check_episodes",
    "check_resets",
    "check_step_distribution",
    "builtin_env",
    "check_transitions",
    "env_under_test",
    "has_parity",
    "parity_ids",
    "run_parity",
]
