"""Which ids `jaxenvs report` rolls out (`report_policy`, read from each id's registration), and
the typed records of what it did (`ReportRow`, `LeftOut`): numbers, formatted only when printed
(`jaxenvs.cli.report_print`).

An id is rolled out in full, rolled out smaller (its registration notes that compiling
dominates on a CPU), or left out for one of the reasons below; left-out ids are never table
rows: each family gets one line naming them, why, and the command that runs them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

NOT_INSTALLED, BROKEN, DOWNLOAD, REST, SWEEP = "not installed", "broken", "download", "rest", "sweep"
FULL, SMALL = "full", "small"
# the smaller rollout of a compile-dominated id: enough steps to run the compiled step
SMALL_ROLLOUT = (16, 10)


def report_policy(env_id: str, *, named: bool = False, run_all: bool = False, sweeps: bool = False) -> str:
    """How `jaxenvs report` treats `env_id`, read from its registration.

    Whether it can run here at all is `jaxenvs.registry.availability`'s answer; the rest is
    the report's own policy.

    Args:
        env_id: a registered id.
        named: the user named this id on the command line (then it runs even where its family
            rolls out only its representatives by default).
        run_all: `--all`: every id that can run here, data downloads included.
        sweeps: `--sweeps`: bsuite's sweep ids too.

    Returns:
        `FULL` or `SMALL` (a rollout; smaller where compiling dominates: an id noted slow on a
        CPU, on a CPU; `jaxenvs bench ID` times its full rollout), or why it is
        left out: `NOT_INSTALLED` (its extra's library is missing), `BROKEN` (it fails inside
        its library), `DOWNLOAD` (constructing it downloads data; `--all` runs it), `REST` (its
        family's representatives stand for it; `--all` runs it), `SWEEP` (a bsuite sweep
        setting of a base id; `--sweeps` runs it).
    """
    from jaxenvs.registry import BROKEN_UPSTREAM, MISSING_EXTRA, NEEDS_DOWNLOAD, availability, representatives, spec

    available = availability(env_id, download=run_all)
    if not available.runnable:
        return {MISSING_EXTRA: NOT_INSTALLED, BROKEN_UPSTREAM: BROKEN, NEEDS_DOWNLOAD: DOWNLOAD}[available.kind]
    s = spec(env_id)
    if not (named or run_all):
        if env_id.startswith("bsuite/") and not sweeps:
            return SWEEP
        if "representative" not in s.notes and representatives(s.family):
            return REST
    if "slow_on_cpu" in s.notes:
        import jax

        return SMALL if jax.default_backend() == "cpu" else FULL
    return FULL


@dataclasses.dataclass(frozen=True)
class ReportRow:
    """One rolled-out id of `jaxenvs report`, as numbers (formatted only when printed).

    Attributes:
        env_id: the id.
        family: its family (the table it is a row of).
        rollout: `(num_envs, num_steps)`; smaller than the report's where compiling dominates.
        small: the rollout is the smaller one (`SMALL_ROLLOUT`): its steps/s is no throughput.
        steps_per_second: of the rollout, compile excluded; None if the rollout failed
            (`error`) or could not start for want of a data set the user provides
            (`missing_data`: how to).
        compile_seconds: the rollout's compile time; None where it did not run.
        error: why the rollout failed, one line.
        missing_data: the data set the user must provide, and how.
        parity: its `ParityResult`, None where it has no reference or `--no-parity`.
        reference: its reference in words, "-" if none.
        seconds: wall time of the rollout, compile included (the estimates for the ids left
            out use it).
    """

    env_id: str
    family: str
    rollout: tuple[int, int]
    small: bool = False
    steps_per_second: float | None = None
    compile_seconds: float | None = None
    error: str | None = None
    missing_data: str | None = None
    parity: Any = None
    reference: str = "-"
    seconds: float = 0.0

    @property
    def verdict(self) -> str | None:
        """The parity verdict ("pass", "FAIL", "skipped"), None without a parity result."""
        return None if self.parity is None else self.parity.verdict

    @property
    def failed(self) -> bool:
        """The rollout failed or the parity check did (a missing data set is no failure)."""
        return self.error is not None or self.verdict == "FAIL"


@dataclasses.dataclass(frozen=True)
class LeftOut:
    """An id `jaxenvs report` did not roll out.

    Attributes:
        env_id: The id.
        family: Its family (the table whose line names it).
        reason: Why, one of `report_policy`'s: `NOT_INSTALLED`, `BROKEN`, `DOWNLOAD`, `REST`
            or `SWEEP`.
    """

    env_id: str
    family: str
    reason: str
