"""Parity: prove a JAX env matches a reference implementation, ours or yours.

One reference protocol with three drivers (`GymnasiumReference`, `DmEnvReference`,
`JaxReference`, in `jaxenvs.parity.reference`), the checks written once against it
(`jaxenvs.parity.harness`), the comparisons they are made of (`jaxenvs.parity.checks`):

    result = jaxenvs.parity.check(env, params, reference)   # .passed, .summary()
    jaxenvs.parity.assert_parity(env, params, reference)    # in a test: names the first mismatch

Each registered id declares where its check lives (`EnvSpec.parity`): a `Reference` (checked
by `check`) or a family suite (`jaxenvs/parity/<family>.py`'s `run(env_id, scale, seed)`).
`run_parity(env_id, scale)` runs it, `parity_ids()` lists the ids that have one. The
reference libraries (gymnasium, minatar, bsuite, gymnax) are imported only when a check runs.
"""

from __future__ import annotations

import inspect
from typing import Any

from jaxenvs.parity.checks import ALPHA_ENV, ALPHA_RUN, ENVS_PER_RUN, Check, ParityResult, Sizes, two_stage
from jaxenvs.parity.harness import (
    assert_parity,
    check,
    check_episode_statistics,
    check_episodes,
    check_resets,
    check_step_distribution,
    check_transitions,
)
from jaxenvs.parity.reference import DmEnvReference, GymnasiumReference, JaxReference, Reference, Transitions

__all__ = [
    "ALPHA_ENV",
    "ALPHA_RUN",
    "ENVS_PER_RUN",
    "Check",
    "DmEnvReference",
    "GymnasiumReference",
    "JaxReference",
    "ParityResult",
    "Reference",
    "Sizes",
    "Transitions",
    "assert_parity",
    "check",
    "check_episode_statistics",
    "check_episodes",
    "check_resets",
    "check_step_distribution",
    "check_transitions",
    "has_parity",
    "parity_ids",
    "run_parity",
]


def parity_ids() -> list[str]:
    """Every registered id that declares a parity check, in registration order."""
    from jaxenvs.registry import registered_envs, spec

    return [env_id for env_id in registered_envs() if spec(env_id).parity is not None]


def has_parity(env_id: str) -> bool:
    from jaxenvs.registry import spec

    return spec(env_id).parity is not None


def _is_suite(obj: Any) -> bool:
    try:
        return "env_id" in inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False


def run_parity(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    """Run the parity check `env_id` declares, decided in one or two stages (`checks.two_stage`:
    a correct env FAILs with probability at most `checks.ALPHA_ENV`); a missing reference
    library gives a skipped result."""
    return two_stage(lambda factor, stage_seed: _run_once(env_id, scale * factor, stage_seed), seed)


def _run_once(env_id: str, scale: float, seed: int) -> ParityResult:
    import jaxenvs
    from jaxenvs.registry import resolve, spec

    s = spec(env_id)
    if s.parity is None:
        return ParityResult(env_id, s.reference or "-", skipped="no reference declared")
    try:
        target = resolve(s.parity)
        if _is_suite(target):
            return target(env_id, scale=scale, seed=seed)
        reference = target if isinstance(target, Reference) else target()
        if not isinstance(reference, Reference):
            raise TypeError(
                f"{env_id}'s parity {s.parity!r} gave {type(reference).__name__}; "
                "expected a jaxenvs.parity.Reference (or a suite run(env_id, scale=, seed=))"
            )
        env, params = jaxenvs.make(env_id, autoreset=False)
        return check(env, params, reference, sizes=Sizes.at(scale), seed=seed, name=env_id)
    except ImportError as e:
        extra = f'pip install "jaxenvs[{s.extra}]"' if s.extra else 'pip install "jaxenvs[parity]"'
        return ParityResult(env_id, s.reference or "-", skipped=f"reference not installed ({e.name}): {extra}")
