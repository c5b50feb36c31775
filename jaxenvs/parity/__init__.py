"""Parity: prove a JAX env matches a reference implementation, ours or yours.

    jaxenvs.parity.run_parity("CartPole-v1")                 # a registered id's declared checks
    jaxenvs.parity.run_parity(reference, env=env)            # your env against your Reference
    jaxenvs.parity.run_parity(spec, env=env)                 # ... or against your ParitySpec
    jaxenvs.parity.assert_parity(env, params, reference)     # in a test: names the first mismatch

Each built-in id declares its checks beside it (`jaxenvs/envs/<family>/<env>/parity.py`'s
`SPEC`), from the names here: a `ParitySpec` whose checks are the standard ones (`transitions`,
`time_limit`, `episodes`, `resets`, `statistics`, `step_distribution`) and its own, functions
`Context -> list[Check]` composed with `chain` (and `on` a `variant` of the run). The
reference libraries are imported only when a check runs.

Modules, each importing only those below it: `verdict` (Check, ParityResult, Holm, two
stages), `scale` (the one scale rule), `stats` (the comparisons' statistics), `data` (the
transitions as rows), `collect` (the JAX side), `reference` (the protocol and its drivers),
`subject` (the env under test), `harness` (the `check_*` comparisons), `spec` (ParitySpec, the
standard checks, one stage), `api` (`run_parity`, `check`).
"""

from __future__ import annotations

from jaxenvs.parity.api import assert_parity, check, has_parity, parity_ids, run_parity
from jaxenvs.parity.data import Transitions
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
from jaxenvs.parity.spec import (
    CheckFn,
    Context,
    ParitySpec,
    Standard,
    chain,
    episodes,
    on,
    resets,
    statistics,
    step_distribution,
    time_limit,
    transitions,
    variant,
)
from jaxenvs.parity.subject import builtin_env, env_under_test
from jaxenvs.parity.verdict import ALPHA_ENV, ALPHA_RUN, ENVS_PER_RUN, Check, ParityResult

__all__ = [
    "ALPHA_ENV",
    "ALPHA_RUN",
    "ENVS_PER_RUN",
    "Check",
    "CheckFn",
    "Collection",
    "Context",
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
    "builtin_env",
    "chain",
    "check",
    "check_episode_statistics",
    "check_episodes",
    "check_resets",
    "check_step_distribution",
    "check_transitions",
    "env_under_test",
    "episodes",
    "has_parity",
    "on",
    "parity_ids",
    "resets",
    "run_parity",
    "statistics",
    "step_distribution",
    "time_limit",
    "transitions",
    "variant",
]
