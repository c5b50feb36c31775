"""The two error rates of the parity verdicts, measured: power and false alarms.

- power: every mutant of `lab.power.mutants` (one realistic bug each) checked by its
  id's own suite (`run_parity(id, scale, seed, env=..., params=...)`); caught when the verdict
  is FAIL. Each catch is credited to the kinds of check that failed (`check_kind`).
- false alarms: the correct built-in envs over many seeds; a FAIL is a false alarm.

Each run appends one JSON line per (id or mutant, seed) to a results file, so long runs
can be split, resumed and combined; the markdown section is generated from that file, and
written into `docs/parity.md` between two markers, where `jaxenvs parity --markdown` keeps it
(`make power` runs all three):

    python -m lab.power --mutants --scale 0.25 --results docs/parity-power.jsonl
    python -m lab.power --false-alarms --seeds 0-9 --scale 0.25 --results docs/parity-power.jsonl
    python -m lab.power --markdown docs/parity.md --results docs/parity-power.jsonl
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from jaxenvs.parity.report import BEGIN, END, with_section
from jaxenvs.parity.verdict import Check, ParityResult

KINDS = (
    "state injection",
    "whole episodes",
    "time limit",
    "step distribution",
    "reset distribution",
    "episode statistics",
    "rare events",
)


def check_kind(check: Check) -> str:
    """The kind of a check, as the power table counts them, read from its name and kind.

    Args:
        check: A check of a parity result.

    Returns:
        One of `KINDS`; "state injection" where no other fits.
    """
    name = check.name
    if name.startswith("time limit") or name.endswith(" truncated"):  # truncation is the time limit
        return "time limit"
    if "episode length" in name or "episode return" in name or "episodes cut" in name:
        return "episode statistics"
    if "reset" in name:
        return "reset distribution"
    if check.kind == "p-value" or name.endswith(" support"):
        return "step distribution"
    if name.startswith("rare events"):
        return "rare events"
    if name.startswith("episode ") or "whole episodes" in name:
        return "whole episodes"
    return "state injection"


@functools.cache
def _commit() -> str:
    """The commit of the checks measured (read once: a long run records where it started)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _row(result: ParityResult, **fields: Any) -> dict[str, Any]:
    failed = result.failures()
    return dict(
        fields,
        verdict=result.verdict,
        failed=[c.name for c in failed],
        kinds=sorted({check_kind(c) for c in failed}),
        seconds=round(result.seconds, 1),
        commit=_commit(),
    )


def _keep(rows: list[dict[str, Any]], row: dict[str, Any], path: Path | None, message: str) -> None:
    """Add `row` to `rows` and append it to the results file `path` (if any) at once; say so."""
    rows.append(row)
    if path is not None:
        with path.open("a") as f:
            f.write(json.dumps(row) + "\n")
    print(message, flush=True)


def measure_power(
    names: Iterable[str] | None = None, scale: float = 0.25, seed: int = 0, results: Path | None = None
) -> list[dict[str, Any]]:
    """Run every mutant (or those `names`) through its id's suite.

    Args:
        names: Mutant names (`lab.power.mutants.MUTANTS`); None means all.
        scale: The suite's size (`jaxenvs report` uses 0.25).
        seed: The seed of both sides.
        results: A JSON-lines file each row is appended to as soon as it is measured; None
            keeps none.

    Returns:
        One row per mutant: its name, id, bug, verdict, failed checks and their kinds.

    Raises:
        KeyError: If a name is not a mutant's (the known names listed).
        ValueError: If a mutant changes nothing observable (`mutants.observable_change`).
    """
    from jaxenvs.parity import run_parity
    from lab.power.mutants import MUTANTS, observable_change

    chosen = list(MUTANTS) if names is None else list(names)
    unknown = [n for n in chosen if n not in MUTANTS]
    if unknown:
        raise KeyError(f"unknown mutants {unknown}; known: {', '.join(MUTANTS)}")
    rows = []
    for name in chosen:
        mutant = MUTANTS[name]
        if observable_change(mutant) is None:
            raise ValueError(f"{name} is not a mutant: nothing observable differs from {mutant.env_id}")
        env, params = mutant.build()
        result = run_parity(mutant.env_id, scale=scale, seed=seed, env=env, params=params)
        row = _row(result, run="mutant", name=name, env_id=mutant.env_id, bug=mutant.bug, scale=scale, seed=seed)
        _keep(rows, row, results, f"{name}: {result.verdict} {row['kinds']}")
    return rows


def measure_false_alarms(
    ids: Iterable[str] | None = None, seeds: Sequence[int] = range(10), scale: float = 0.25, results: Path | None = None
) -> list[dict[str, Any]]:
    """Run the correct built-in envs at every seed; a FAIL is a false alarm.

    Args:
        ids: The ids to run; None means every id with a parity check.
        seeds: The seeds, each a full run of every id (seed-major, so a cut-short run covers
            every id at its first seeds).
        scale: The suite's size.
        results: A JSON-lines file each row is appended to as soon as it is measured; None
            keeps none.

    Returns:
        One row per (id, seed): verdict, failed checks and their kinds.
    """
    from jaxenvs.parity import parity_ids, run_parity

    ids = list(ids) if ids is not None else parity_ids()
    rows = []
    for seed in seeds:
        for env_id in ids:
            result = run_parity(env_id, scale=scale, seed=seed)
            row = _row(result, run="correct", env_id=env_id, scale=scale, seed=seed)
            _keep(rows, row, results, f"{env_id} seed {seed}: {result.verdict} {row['failed']}")
    return rows


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of a results file.

    Args:
        path: The JSON-lines file `measure_power` and `measure_false_alarms` append to.

    Returns:
        The rows, the last of each (run, mutant name or id, scale, seed) winning; none if the
        file does not exist.
    """
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    latest = {(r["run"], r.get("name", r["env_id"]), r["scale"], r["seed"]): r for r in rows}  # the last wins
    return list(latest.values())


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The power and false-alarm section of `docs/parity.md`, from measured rows.

    Args:
        rows: The measured rows (`load`).

    Returns:
        The markdown section between `BEGIN` and `END`: one power table per scale and commit
        of the checks measured, then one false-alarm summary per scale and commit.
    """
    from lab.power.mutants import MUTANTS

    lines = [BEGIN, "", "## Power and false alarms", ""]
    mutants = [r for r in rows if r["run"] == "mutant"]
    correct = [r for r in rows if r["run"] == "correct" and r["verdict"] != "skipped"]
    lines += [
        "Measured by `python -m lab.power`; each table names the commit whose checks it "
        "measured. Each mutant is a built-in env with one deliberate, realistic bug "
        "(`lab/power/mutants.py`), checked by its id's own suite through "
        "`run_parity(id, scale, seed, env=..., params=...)`; it is caught when the verdict is FAIL. "
        "A catch is credited to every kind of check that failed. False alarms: the correct envs; "
        "a FAIL among them is one.",
        "",
    ]
    for scale, commit in sorted({(r["scale"], r["commit"]) for r in mutants}):
        at = [r for r in mutants if (r["scale"], r["commit"]) == (scale, commit)]
        caught = [r for r in at if r["verdict"] == "FAIL"]
        lines += [f"### Power at scale {scale:g}: {len(caught)} of {len(at)} mutants caught (commit {commit})", ""]
        lines += ["| kind of check | mutants it caught |", "|---|---|"]
        for kind in KINDS:
            lines.append(f"| {kind} | {sum(kind in r['kinds'] for r in caught)} |")
        lines += ["", "| mutant | id | bug | verdict | caught by |", "|---|---|---|---|---|"]
        for r in sorted(at, key=lambda r: (r["env_id"], r["name"])):
            needs = MUTANTS[r["name"]].needs if r["name"] in MUTANTS else ""
            by = ", ".join(r["kinds"]) if r["kinds"] else ("-" if not needs else f"needs {needs}")
            lines.append(f"| {r['name']} | {r['env_id']} | {r['bug']} | {r['verdict']} | {by} |")
        lines.append("")
    for scale, commit in sorted({(r["scale"], r["commit"]) for r in correct}):
        at = [r for r in correct if (r["scale"], r["commit"]) == (scale, commit)]
        alarms = [r for r in at if r["verdict"] == "FAIL"]
        per_seed = {s: sum(r["seed"] == s for r in at) for s in sorted({r["seed"] for r in at})}
        lines += [
            f"### False alarms at scale {scale:g}: {len(alarms)} of {len(at)} runs "
            f"({len(alarms) / len(at):.1%}, commit {commit})",
            "",
            "A run is one id at one seed: "
            + ", ".join(f"seed {s}: {n} ids" for s, n in per_seed.items())
            + f" ({len({r['env_id'] for r in at})} ids in all).",
            "",
        ]
        if alarms:
            lines += ["| id | seed | failed checks |", "|---|---|---|"]
            lines += [f"| {r['env_id']} | {r['seed']} | {'; '.join(r['failed'])} |" for r in alarms]
            lines.append("")
    lines.append(END)
    return "\n".join(lines)


def _seeds(text: str) -> list[int]:
    lo, dash, hi = text.partition("-")
    try:
        return list(range(int(lo), int(hi) + 1)) if dash else [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be a range like 0-9 or a list like 0,3,7, got {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m lab.power`: measure, then write the section (see the module docstring).

    Args:
        argv: The arguments; None means the command line's.

    Returns:
        The exit status, 0 (argparse exits 2 on a usage error).
    """
    p = argparse.ArgumentParser(prog="python -m lab.power", description=__doc__.split("\n\n")[0])
    p.add_argument("--mutants", nargs="*", metavar="NAME", help="measure the power (every mutant, or those named)")
    p.add_argument("--false-alarms", action="store_true", help="run the correct envs at every seed of --seeds")
    p.add_argument("--ids", nargs="*", help="ids of --false-alarms (default every id with a parity check)")
    p.add_argument("--seeds", type=_seeds, default=list(range(10)), help="e.g. 0-9 (default)")
    p.add_argument("--scale", type=float, default=0.25)
    p.add_argument("--results", type=Path, default=Path("docs/parity-power.jsonl"), help="JSON lines, appended")
    p.add_argument("--markdown", type=Path, help="write the section into this file (docs/parity.md)")
    args = p.parse_args(argv)
    if args.scale <= 0:
        p.error(f"--scale must be positive, got {args.scale}")
    if args.markdown is not None and not args.markdown.parent.is_dir():
        p.error(f"the directory '{args.markdown.parent}' does not exist")
    start = time.perf_counter()
    if args.mutants is not None:
        measure_power(args.mutants or None, args.scale, 0, args.results)
    if args.false_alarms:
        measure_false_alarms(args.ids, args.seeds, args.scale, args.results)
    if args.markdown is not None:
        old = args.markdown.read_text() if args.markdown.exists() else ""
        args.markdown.write_text(with_section(old, markdown(load(args.results))))
        print(f"wrote {args.markdown} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
