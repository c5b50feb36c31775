"""`jaxenvs report [IDS]`: throughput and parity verdict of each id, one table per family,
printed as soon as the family is done. Which ids: `report_plan`; the printing: `report_print`."""

from __future__ import annotations

import argparse
import dataclasses

import jaxenvs
from jaxenvs.cli._common import interrupted_line, plural, print_line, progress, select
from jaxenvs.cli.report_plan import FULL, SMALL, SMALL_ROLLOUT, LeftOut, ReportRow, report_policy
from jaxenvs.cli.report_print import duration, print_family, print_title, rolled_out

__all__ = ["cmd_report"]


def cmd_report(args: argparse.Namespace) -> int:
    """Roll out (and check) the ids `report_policy` picks, printing each family's table.

    Args:
        args: The parsed `jaxenvs report` arguments (`ids`, `family`, `num_envs`, `num_steps`,
            `scale`, `seed`, `no_parity`, `sweeps`, `verbose`, `all`).

    Returns:
        0, or 1 if a rollout or a parity check failed or if nothing was checked (no id rolled
        out, or parity asked for and every id's skipped; the last line says why), 130 if
        interrupted (the finished families' tables and the interrupted one's finished rows are
        printed).
    """
    import time
    import warnings

    from rich.console import Console

    # the references' deprecation notices (gymnasium's CartPole-v0) and brax's notice that it is
    # no longer maintained (printed when a system is loaded) would break up the tables
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.filterwarnings("ignore", message="Brax System, piplines and environments", category=UserWarning)

    from jaxenvs.parity import has_parity, run_parity
    from jaxenvs.parity.report import run_summary, summary_line
    from jaxenvs.registry import spec

    start = time.perf_counter()
    named = bool(args.ids)
    ids = select(args.ids, args.family)
    plan = {i: report_policy(i, named=named, run_all=args.all, sweeps=args.sweeps) for i in ids}
    # registration order keeps a family's ids together: its table prints as soon as it is done
    families: dict[str, tuple[list[str], list[LeftOut]]] = {}
    for env_id in ids:
        family = spec(env_id).family
        family_todo, family_left_out = families.setdefault(family, ([], []))
        if plan[env_id] in (FULL, SMALL):
            family_todo.append(env_id)
        else:
            family_left_out.append(LeftOut(env_id, family, plan[env_id]))
    todo = sum(len(family_todo) for family_todo, _ in families.values())
    console = Console()
    description = [
        f"steps/s: a jitted random-action rollout of {args.num_envs:,} envs x {args.num_steps:,} steps, "
        "compile excluded."
    ]
    if not args.no_parity:
        description.append(
            f"parity: the env checked against its reference implementation (scale {args.scale:g}, "
            f"seed {args.seed}); - where an id has no check of its own (an adapted library is its own "
            "reference)."
        )
    print_title(console, "jaxenvs report", description)
    command = _report_command(args)
    rows: list[ReportRow] = []
    interrupted = False
    with progress(console) as bar:
        task = bar.add_task("report", total=todo)
        for family, (family_todo, family_left_out) in families.items():
            family_rows: list[ReportRow] = []
            try:
                for env_id in family_todo:
                    bar.update(task, description=f"report {env_id}")
                    row = _rollout_row(env_id, plan[env_id], args)
                    if has_parity(env_id) and not args.no_parity:
                        row = dataclasses.replace(row, parity=run_parity(env_id, scale=args.scale, seed=args.seed))
                    family_rows.append(row)
                    bar.advance(task)
            except KeyboardInterrupt:  # keep what was measured: the finished ids' rows
                interrupted = True
            rows += family_rows
            if family_rows or not interrupted:
                print_family(console, family, family_rows, family_left_out, command=command, verbose=args.verbose)
            if interrupted:
                break
    parts = [f"total: {rolled_out(rows)} in {duration(time.perf_counter() - start)}"]
    results = [r.parity for r in rows if r.parity is not None]
    if results:
        parts.append(summary_line(results))
    print_line(console, parts)
    if results:
        print_line(console, [run_summary(results)])
    if interrupted:
        console.print(interrupted_line(len(rows), todo), markup=False)
        return 130
    reason = _nothing_checked(rows, results, [i for i in ids if plan[i] not in (FULL, SMALL)])
    if reason:
        print_line(console, [reason])
    return 1 if reason or any(r.failed for r in rows) else 0


def _nothing_checked(rows: list[ReportRow], results: list, left_out: list[str]) -> str | None:
    """Why a report checked nothing it was asked to (None: it did): no id was rolled out, or
    every parity check that was asked for was skipped."""
    if not rows:
        return f"error: nothing was rolled out: {plural(len(left_out), 'id')} left out (the lines above say why)"
    if results and all(r.skipped is not None for r in results):
        first = results[0].skipped
        return (
            f"error: no parity check ran ({len(results)} skipped; {results[0].env_id}: {first}); "
            "--no-parity reports throughput only"
        )
    return None


def _rollout_row(env_id: str, policy: str, args: argparse.Namespace) -> ReportRow:
    """Roll `env_id` out at the report's size (`SMALL_ROLLOUT` at most where `policy` is
    `SMALL`): its row, a failure or missing data in the row rather than raised."""
    import time

    from jaxenvs import bench
    from jaxenvs.registry import spec

    s = spec(env_id)
    rollout = (args.num_envs, args.num_steps)
    if policy == SMALL:
        rollout = (min(args.num_envs, SMALL_ROLLOUT[0]), min(args.num_steps, SMALL_ROLLOUT[1]))
    measured: dict = {}
    start = time.perf_counter()
    try:
        tp = bench.rollout_throughput(env_id, num_envs=rollout[0], num_steps=rollout[1], repeats=3)
        measured.update(steps_per_second=tp.steps_per_second, compile_seconds=tp.compile_seconds)
    except FileNotFoundError as e:  # e.g. DataNotFoundError: a data set the user has not provided
        measured.update(missing_data=str(e).strip() or type(e).__name__)
    except Exception as e:  # noqa: BLE001 - one id failing must not hide the other rows
        measured.update(error=f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}")
    return ReportRow(
        env_id,
        s.family,
        rollout,
        small=rollout != (args.num_envs, args.num_steps),
        reference=jaxenvs.spec(env_id).reference or "-",
        seconds=time.perf_counter() - start,
        **measured,
    )


def _report_command(args: argparse.Namespace):
    """The command that runs a family's left-out ids: a function of the family and the flag."""

    def command(family: str, flag: str) -> str:
        selection = " ".join(args.ids) if args.ids else f"--family {family}"
        return f"jaxenvs report {selection} {flag}"

    return command
