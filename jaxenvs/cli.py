"""`jaxenvs list | parity | report | bench | fingerprint | render`.

Bad input: every argument is checked before any work starts; a usage error prints one
`jaxenvs: error: ...` line and exits 2, a runtime error one `error: ...` line and exits 1;
never a traceback. Nothing printed goes through rich markup (`[brax]` in an install hint
stays), user-given text in progress lines is escaped.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence
from typing import Any


class UsageError(Exception):
    """A bad argument found after parsing (an unknown family, an unwritable path): exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors as one line (exit 2), not the usage text too."""

    def error(self, message: str):
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if not 1 <= value <= 2**31 - 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer (1 to 2**31 - 1), got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text!r}")
    return value


def _console():
    from rich.console import Console

    # no markup: an install hint's `jaxenvs[brax]` is text, not a style tag
    return Console(markup=False)


def _check_family(family: str | None) -> None:
    from jaxenvs.registry import registered_envs, spec

    if family is None:
        return
    families = sorted({spec(i).family for i in registered_envs()})
    if family not in families:
        raise UsageError(f"unknown family {family!r}; valid families: {', '.join(families)}")


def _check_ids(ids: Sequence[str]) -> None:
    from jaxenvs.registry import UnknownEnvError, spec

    for env_id in ids:
        try:
            spec(env_id)
        except UnknownEnvError as e:
            raise UsageError(str(e)) from None


def _check_output_path(path: str) -> None:
    """The file `path` can be written: its folder exists and is writable, it is no folder."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"{path!r} is a directory; give a file path")
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {path!r}: the directory {folder!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"cannot write {path!r}: the directory {folder!r} is not writable")


def _progress(console=None):
    """A progress bar; what `console` prints while it runs appears above the bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def _select(ids: Sequence[str] | None, family: str | None) -> list[str]:
    from jaxenvs.registry import registered_envs

    _check_family(family)
    if ids:
        _check_ids(ids)  # early, naming the closest ids
        return list(ids)
    return registered_envs(family)


def cmd_list(args: argparse.Namespace) -> int:
    from rich.table import Table

    from jaxenvs.registry import registered_envs, spec

    _check_family(args.family)
    table = Table(title="jaxenvs environments")
    for col in ("id", "family", "reference"):
        table.add_column(col)
    for env_id in registered_envs(args.family):
        s = spec(env_id)
        table.add_row(env_id, s.family, s.reference or "-")
    _console().print(table)
    return 0


def cmd_parity(args: argparse.Namespace) -> int:
    from jaxenvs.parity import parity_ids, run_parity
    from jaxenvs.parity.report import markdown_table, rich_table, run_summary, summary_line

    _check_ids(args.ids)
    if args.markdown:
        _check_output_path(args.markdown)
    ids = list(args.ids) if args.ids else parity_ids()
    results = []
    interrupted = False
    console = _console()
    try:
        with _progress(console) as progress:
            task = progress.add_task("parity", total=len(ids))
            for env_id in ids:
                progress.update(task, description=f"parity {env_id}")
                results.append(run_parity(env_id, scale=args.scale, seed=args.seed))
                progress.advance(task)
    except KeyboardInterrupt:  # keep what was measured: the finished ids' rows
        interrupted = True
    compact = not args.verbose and console.width < REPORT_WIDE_COLUMNS
    console.print(rich_table(results, compact=compact))
    for r in results:
        if args.verbose or not (r.passed or r.skipped):  # a failure always says where
            console.print(r.summary(), markup=False)
        elif compact and r.skipped is not None:
            _print_line(console, [f"{r.env_id}: skipped: {r.skipped}"], style="dim")
    _print_line(console, [summary_line(results)])
    _print_line(console, [run_summary(results)])
    if interrupted:
        console.print(_interrupted_line(len(results), len(ids)), markup=False)
        return 130  # a partial table goes nowhere near docs/parity.md
    if args.markdown:
        from pathlib import Path

        from jaxenvs.parity.power import section_of, with_section

        path = Path(args.markdown)
        table = markdown_table(results, scale=args.scale)
        kept = section_of(path.read_text()) if path.exists() else None  # the measured power table
        path.write_text(with_section(table, kept) if kept else table)
        console.print(f"wrote {args.markdown}")
    return 0 if all(r.passed or r.skipped for r in results) else 1


def _interrupted_line(done: int, total: int) -> str:
    return f"interrupted (Ctrl-C): the {done} of {total} ids finished are shown above"


# `jaxenvs report`: which ids it rolls out, and what it says about the others.
#
# An id is rolled out in full, rolled out smaller (its registration notes that compiling
# dominates on a CPU), or left out for one of the reasons below; left-out ids are never table
# rows: each family gets one line naming them, why, and the command that runs them.
NOT_INSTALLED, BROKEN, DOWNLOAD, REST, SWEEP = "not installed", "broken", "download", "rest", "sweep"
FULL, SMALL = "full", "small"
# the smaller rollout of a compile-dominated id: enough steps to run the compiled step
SMALL_ROLLOUT = (16, 10)


def report_policy(env_id: str, *, named: bool = False, run_all: bool = False, sweeps: bool = False) -> str:
    """How `jaxenvs report` treats `env_id`, read from its registration.

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
    import importlib.util

    from jaxenvs.registry import EXTRA_LIBRARIES, spec

    s = spec(env_id)
    library = EXTRA_LIBRARIES.get(s.extra or "")
    if library is not None and importlib.util.find_spec(library) is None:
        return NOT_INSTALLED
    if "broken_upstream" in s.notes:
        return BROKEN
    if "needs_download" in s.notes and not run_all:
        return DOWNLOAD
    if not (named or run_all):
        if env_id.startswith("bsuite/") and not sweeps:
            return SWEEP
        if "representative" not in s.notes and _declares_representatives(s.family):
            return REST
    if "slow_on_cpu" in s.notes:
        import jax

        return SMALL if jax.default_backend() == "cpu" else FULL
    return FULL


def _declares_representatives(family: str) -> bool:
    from jaxenvs.registry import registered_envs, spec

    return any("representative" in spec(i).notes for i in registered_envs(family))


@dataclasses.dataclass
class ReportRow:
    """One rolled-out id of `jaxenvs report`.

    steps_per_second: of the rollout, compile excluded; None if the rollout failed (`error`) or
        could not start for want of a data set the user provides (`missing_data`: how to).
    rollout: `(num_envs, num_steps)`; smaller than the report's where compiling dominates.
    parity: its parity result, None where it has no reference or `--no-parity`.
    seconds: wall time of the rollout, compile included (the estimates of left-out ids use it).
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


@dataclasses.dataclass(frozen=True)
class LeftOut:
    """An id `jaxenvs report` did not roll out: `reason` is one of `report_policy`'s."""

    env_id: str
    family: str
    reason: str


def _rollout_row(env_id: str, policy: str, args: argparse.Namespace) -> ReportRow:
    import time

    from jaxenvs import bench
    from jaxenvs.registry import spec

    s = spec(env_id)
    rollout = (args.num_envs, args.num_steps)
    if policy == SMALL:
        rollout = (min(args.num_envs, SMALL_ROLLOUT[0]), min(args.num_steps, SMALL_ROLLOUT[1]))
    row = ReportRow(env_id, s.family, rollout, small=rollout != (args.num_envs, args.num_steps))
    row.reference = s.reference or "-"
    start = time.perf_counter()
    try:
        tp = bench.rollout_throughput(env_id, num_envs=rollout[0], num_steps=rollout[1], repeats=3)
        row.steps_per_second, row.compile_seconds = tp.steps_per_second, tp.compile_seconds
    except FileNotFoundError as e:  # e.g. DataNotFoundError: a data set the user has not provided
        row.missing_data = str(e).strip() or type(e).__name__
    except Exception as e:  # noqa: BLE001 - one id failing must not hide the other rows
        row.error = f"{type(e).__name__}: {(str(e).splitlines() or [''])[0]}"
    row.seconds = time.perf_counter() - start
    return row


def cmd_report(args: argparse.Namespace) -> int:
    import time
    import warnings

    from rich.console import Console

    # the references' deprecation notices (gymnasium's CartPole-v0) would break up the tables
    warnings.simplefilter("ignore", DeprecationWarning)

    from jaxenvs.parity import has_parity, run_parity
    from jaxenvs.parity.report import run_summary, summary_line
    from jaxenvs.registry import spec

    start = time.perf_counter()
    named = bool(args.ids)
    ids = _select(args.ids, args.family)
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
    with _progress(console) as progress:
        task = progress.add_task("report", total=todo)
        for family, (family_todo, family_left_out) in families.items():
            family_rows: list[ReportRow] = []
            try:
                for env_id in family_todo:
                    progress.update(task, description=f"report {env_id}")
                    row = _rollout_row(env_id, plan[env_id], args)
                    if has_parity(env_id) and not args.no_parity:
                        row.parity = run_parity(env_id, scale=args.scale, seed=args.seed)
                    family_rows.append(row)
                    progress.advance(task)
            except KeyboardInterrupt:  # keep what was measured: the finished ids' rows
                interrupted = True
            rows += family_rows
            if family_rows or not interrupted:
                print_family(console, family, family_rows, family_left_out, command=command, verbose=args.verbose)
            if interrupted:
                break
    parts = [f"total: {_rolled_out(rows)} in {_duration(time.perf_counter() - start)}"]
    results = [r.parity for r in rows if r.parity is not None]
    if results:
        parts.append(summary_line(results))
    _print_line(console, parts)
    if results:
        _print_line(console, [run_summary(results)])
    if interrupted:
        console.print(_interrupted_line(len(rows), todo), markup=False)
        return 130
    failed = any(r.error is not None or (r.parity is not None and r.parity.verdict == "FAIL") for r in rows)
    return 1 if failed else 0


def _report_command(args: argparse.Namespace):
    """The command that runs a family's left-out ids: a function of the family and the flag."""

    def command(family: str, flag: str) -> str:
        selection = " ".join(args.ids) if args.ids else f"--family {family}"
        return f"jaxenvs report {selection} {flag}"

    return command


# `jaxenvs report` prints every column (compile time, reference, full messages) from this width up
REPORT_WIDE_COLUMNS = 140


def _steps_per_second(value: float) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:.3g}"


def _duration(seconds: float) -> str:
    """A duration rounded as an estimate is: "4 s", "40 s", "12 min", "2.5 h"."""
    if seconds < 90:
        return f"{max(1, round(seconds, -1 if seconds >= 10 else 0)):.0f} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60):.0f} min"
    return f"{seconds / 3600:.1f} h"


def _about(seconds: float) -> str:
    return "about " + _duration(seconds)


def _speed_cell(row: ReportRow) -> str:
    if row.missing_data is not None:
        return "no data"
    if row.steps_per_second is None:
        return "failed"
    return _steps_per_second(row.steps_per_second) + (" *" if row.small else "")


def _parity_cell(row: ReportRow) -> str:
    return "-" if row.parity is None else row.parity.verdict


def _family_summary(family: str, rows: Sequence[ReportRow]) -> list[str]:
    """The parts of the summary line under a family's table: how many ids were rolled out, the
    median and range of their steps/s, and the parity verdicts (`parity.report.summary_line`)."""
    from jaxenvs.parity.report import summary_line

    speeds = sorted(r.steps_per_second for r in rows if r.steps_per_second is not None and not r.small)
    parts = [f"{family}: {_rolled_out(rows)}"]
    if len(speeds) > 1:
        half = len(speeds) // 2
        median = speeds[half] if len(speeds) % 2 else (speeds[half - 1] + speeds[half]) / 2
        parts.append(
            f"median {_steps_per_second(median)} steps/s "
            f"({_steps_per_second(speeds[0])} to {_steps_per_second(speeds[-1])})"
        )
    results = [r.parity for r in rows if r.parity is not None]
    if results:
        parts.append(summary_line(results))
    return parts


def _left_out_line(family: str, left_out: Sequence[LeftOut], rows: Sequence[ReportRow], command) -> str:
    """The one line naming a family's left-out ids, why, the command that runs them and about
    how long it takes here (`REPORT_ALL_MINUTES`, or for bsuite's sweeps the base ids' rollouts
    just measured)."""
    from jaxenvs.adapters.registration import REPORT_ALL_MINUTES
    from jaxenvs.registry import spec

    by_reason: dict[str, list[str]] = {}
    for item in left_out:
        by_reason.setdefault(item.reason, []).append(item.env_id)
    parts = []
    if NOT_INSTALLED in by_reason:
        ids = by_reason[NOT_INSTALLED]
        extra = spec(ids[0]).extra
        parts.append(f'{_count(ids, family)} not installed: pip install "jaxenvs[{extra}]"')
    rest, downloads = by_reason.get(REST, []), by_reason.get(DOWNLOAD, [])
    if rest:
        minutes = REPORT_ALL_MINUTES.get(family)
        estimate = f", {_about(minutes * 60)} here" if minutes else ""
        parts.append(f"{_count(rest, family, 'more ')}: `{command(family, '--all')}`{estimate}")
    for why, ids in _grouped(downloads, "needs_download").items():
        # the note is written of one id ("downloads its levels ..."): several get "each"
        who = ids[0] if len(ids) == 1 else f"{len(ids)} more ids, each"
        runs = f"`{command(family, '--all')}` runs {'it' if len(ids) == 1 else 'them'}"
        too = f"--all runs {'it' if len(ids) == 1 else 'them'} too"
        parts.append(f"{who} {why} ({too if rest else runs})")
    if SWEEP in by_reason:
        sweeps = by_reason[SWEEP]
        seconds = sorted(r.seconds for r in rows if not r.small)
        estimate = f", {_about(len(sweeps) * seconds[len(seconds) // 2])} here" if seconds else ""
        parts.append(
            f"{len(sweeps)} sweep ids (bsuite's experiments: settings of the ids above): "
            f"`{command(family, '--sweeps')}`{estimate}"
        )
    for why, ids in _grouped(by_reason.get(BROKEN, []), "broken_upstream").items():
        parts.append(f"{ids[0] if len(ids) == 1 else ', '.join(ids)} not run: {why}")
    return "; ".join(parts)


def _count(ids: Sequence[str], family: str, more: str = "") -> str:
    return ids[0] if len(ids) == 1 and not more else f"{len(ids)} {more}{family} {'id' if len(ids) == 1 else 'ids'}"


def _grouped(ids: Sequence[str], note: str) -> dict[str, list[str]]:
    from jaxenvs.registry import spec

    groups: dict[str, list[str]] = {}
    for env_id in ids:
        groups.setdefault(spec(env_id).notes[note], []).append(env_id)
    return groups


def print_title(console, title: str, description: Sequence[str] = ()) -> None:
    """The report's first lines: `title` in bold, then each line of `description`, wrapped.

    Args:
        console: a `rich.console.Console`.
        title: the first line.
        description: lines under it (what the columns mean).
    """
    console.print(title, style="bold", markup=False)
    for line in description:
        _print_line(console, [line])
    console.print()


def print_family(
    console,
    family: str,
    rows: Sequence[ReportRow],
    left_out: Sequence[LeftOut] = (),
    command=None,
    verbose: bool = False,
) -> None:
    """One family of `jaxenvs report`: a table of its rolled-out ids, notes on what a row cannot
    say, a summary line, and one line on the ids it left out.

    Compact (id, steps/s, parity; a failure's message under the table) unless `verbose` or the
    terminal is `REPORT_WIDE_COLUMNS` wide. A row of a smaller rollout is marked `*` and noted
    under its table with its size and compile time. Every cell is escaped: library names and
    pip extras in brackets are text, not markup.

    Args:
        console: a `rich.console.Console`.
        family: the family's name, the table's title.
        rows: its ids rolled out.
        left_out: its ids not rolled out.
        command: `command(family, flag)`, the command line that runs the left-out ids with
            `flag` (`--all`, `--sweeps`); by default `jaxenvs report --family F <flag>`.
        verbose: every column, whatever the terminal's width.
    """
    from rich.markup import escape
    from rich.table import Table

    command = command or (lambda family, flag: f"jaxenvs report --family {family} {flag}")
    wide = verbose or console.width >= REPORT_WIDE_COLUMNS
    if rows:
        table = Table(title=family, title_justify="left", title_style="bold", expand=False)
        columns = ("id", "steps/s", "compile s", "parity", "reference") if wide else ("id", "steps/s", "parity")
        for col in columns:
            table.add_column(col, justify="right" if col in ("steps/s", "compile s") else "left")
        for row in rows:
            cells = [row.env_id, _speed_cell(row)]
            if wide:
                cells.append("-" if row.compile_seconds is None else f"{row.compile_seconds:.1f}")
            cells.append(_parity_cell(row))
            if wide:
                cells.append(row.reference)
            table.add_row(*(escape(c) for c in cells))
        console.print(table)
        for line in _row_notes(rows, verbose=verbose):
            _print_line(console, [line], style="dim")
        _print_line(console, _family_summary(family, rows))
    else:
        console.print(family, style="bold", markup=False)
    if left_out:
        _print_line(console, ["not rolled out: " + _left_out_line(family, left_out, rows, command)])
    console.print()


def _row_notes(rows: Sequence[ReportRow], verbose: bool = False) -> list[str]:
    """What a compact row cannot say: why a rollout failed or lacked data (how to provide it, if
    `verbose`), which parity checks failed, and the size and compile time of the smaller
    rollouts."""
    lines = []
    for row in rows:
        if row.error is not None:
            lines.append(f"{row.env_id}: rollout failed: {row.error}")
        if row.missing_data is not None:
            how = (
                " ".join(row.missing_data.split())
                if verbose
                else _first_clause(row.missing_data) + " (-v: how to provide it)"
            )
            lines.append(f"{row.env_id}: no rollout: {how}")
        if row.parity is not None and row.parity.verdict == "FAIL":
            lines += [f"{row.env_id}: parity FAIL: {c.describe()}" for c in row.parity.failures()]
        elif row.parity is not None and row.parity.skipped is not None:
            lines.append(f"{row.env_id}: parity skipped: {row.parity.skipped}")
    small = [r for r in rows if r.small and r.compile_seconds is not None]
    if small:
        envs, steps = small[0].rollout
        compiled = ", ".join(f"{r.env_id} {r.compile_seconds:.0f} s" for r in small)
        lines.append(f"* compiling dominates on a CPU: {envs} envs x {steps} steps (compile: {compiled})")
    return lines


def _rolled_out(rows: Sequence[ReportRow]) -> str:
    """ "6 ids rolled out", or "11 ids, 10 rolled out" where a rollout failed or lacked data."""
    ran = sum(r.steps_per_second is not None for r in rows)
    ids = f"{len(rows)} {'id' if len(rows) == 1 else 'ids'}"
    return f"{ids} rolled out" if ran == len(rows) else f"{ids}, {ran} rolled out"


def _first_clause(message: str) -> str:
    """A message's first line, up to its first parenthesis (the long details, such as URLs)."""
    return message.strip().splitlines()[0].split(" (", 1)[0].rstrip(" .,;:")


def _print_line(console, parts: Sequence[str], style: str | None = None) -> None:
    """Parts of one line, joined by "; " and wrapped at the terminal's width, preferably
    between parts, continued indented."""
    import textwrap

    width = max(console.width, 40)
    lines: list[str] = []
    for part in parts:
        joined = f"{lines[-1]}; {part}" if lines else part
        if lines and len(joined) > width:
            lines[-1] += ";"
            lines.append("  " + part)
        else:
            lines[-1:] = [joined]
    wrapped = [
        w for line in lines for w in textwrap.wrap(line, width=width, subsequent_indent="  ", break_on_hyphens=False)
    ]
    console.print("\n".join(wrapped), markup=False, soft_wrap=True, style=style)


def cmd_bench(args: argparse.Namespace) -> int:
    from rich.table import Table

    from jaxenvs.bench import compare, rollout_throughput

    ids = _select(args.ids, args.family)
    if args.compare:
        title = "jaxenvs bench --compare (random actions, libraries taking turns, compile excluded)"
        columns = ("id", "num_envs", "library", "steps/s", "compile s", "make_vec / library")
    else:
        title = "jaxenvs bench (make_vec, random actions, compile excluded)"
        columns = ("id", "num_envs", "steps/s", "compile s")
    table = Table(title=title)
    for col in columns:
        table.add_column(col)
    skipped: list[str] = []
    with _progress() as progress:
        task = progress.add_task("bench", total=len(ids) * len(args.num_envs))
        for env_id in ids:
            for n in args.num_envs:
                progress.update(task, description=f"bench {env_id} x{n}")
                if args.compare:
                    results = compare(
                        env_id,
                        n,
                        num_steps=args.num_steps,
                        repeats=args.repeats,
                        on_skip=lambda lib, e, where=f"{env_id} x{n}": skipped.append(
                            f"{where} {lib}: {type(e).__name__}: {e}"
                        ),
                    )
                    ours = next((r.steps_per_second for r in results if r.library == "jaxenvs make_vec"), None)
                    for r in results:
                        compile_s = "-" if r.compile_seconds is None else f"{r.compile_seconds:.2f}"
                        ratio = f"{ours / r.steps_per_second:.2f}x" if ours else "-"
                        table.add_row(env_id, str(n), r.library, f"{r.steps_per_second:,.0f}", compile_s, ratio)
                else:
                    tp = rollout_throughput(env_id, num_envs=n, num_steps=args.num_steps, repeats=args.repeats)
                    table.add_row(env_id, str(n), f"{tp.steps_per_second:,.0f}", f"{tp.compile_seconds:.2f}")
                progress.advance(task)
    console = _console()
    console.print(table)
    for line in skipped:
        console.print(f"skipped {line}")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from jaxenvs.export._bridge import renders
    from jaxenvs.export.video import check_writable, record
    from jaxenvs.registry import make

    _check_ids([args.id])
    try:
        check_writable(args.out)
    except (ValueError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    env, params = make(args.id, autoreset=False)
    if not renders(env, params):
        raise UsageError(f"{args.id} cannot be rendered: its render() is not implemented")
    path = record(args.id, steps=args.steps, out=args.out, seed=args.seed, fps=args.fps)
    print(f"wrote {path}")
    return 0


def cmd_fingerprint(args: argparse.Namespace) -> int:
    """Print each id's behaviour fingerprint and whether it is the pinned one (exit 1 if not)."""
    from jaxenvs import fingerprint
    from jaxenvs.registry import spec

    for env_id in args.ids:
        spec(env_id)  # an unknown id is named before any work
    changed = 0
    for env_id in args.ids:
        same, text = fingerprint.compare(env_id)
        changed += same is False
        print(text)
    return 1 if changed else 0


def build_parser() -> argparse.ArgumentParser:
    from jaxenvs import __version__

    parser = _Parser(prog="jaxenvs", description=__doc__)
    parser.add_argument("--version", action="version", version=f"jaxenvs {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list registered environments")
    p.add_argument("--family")
    p.set_defaults(fn=cmd_list)

    p = sub.add_parser("parity", help="check envs against their reference implementations")
    p.add_argument("ids", nargs="*")
    p.add_argument("--scale", type=_positive_float, default=1.0, help="multiplies the number of transitions compared")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--markdown", help="also write the table as markdown to this path")
    p.add_argument("-v", "--verbose", action="store_true", help="print every check")
    p.set_defaults(fn=cmd_parity)

    p = sub.add_parser("report", help="throughput and parity verdict of every env")
    p.add_argument(
        "ids",
        nargs="*",
        help="the ids to report (default: every built-in id and each adapted family's representatives)",
    )
    p.add_argument("--family", help="only this family's ids (`jaxenvs list` names the families)")
    p.add_argument("--num-envs", type=_positive_int, default=1024, help="envs in each rollout")
    p.add_argument("--num-steps", type=_positive_int, default=100, help="steps of each rollout")
    p.add_argument("--scale", type=_positive_float, default=0.25, help="parity size (1.0 = the full suite)")
    p.add_argument("--seed", type=_seed, default=0, help="the parity checks' seed")
    p.add_argument("--no-parity", action="store_true", help="throughput only")
    p.add_argument("--sweeps", action="store_true", help="also roll out every bsuite sweep id")
    p.add_argument(
        "-v", "--verbose", action="store_true", help="every column and full messages, whatever the terminal's width"
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="roll out every id that can run here: each family's ids besides its representatives, "
        "and the ids that download data",
    )
    p.set_defaults(fn=cmd_report)

    p = sub.add_parser("bench", help="throughput of chosen envs at several batch sizes")
    p.add_argument("ids", nargs="*")
    p.add_argument("--family")
    p.add_argument("--num-envs", type=_positive_int, nargs="+", default=[1, 64, 1024, 8192])
    p.add_argument("--num-steps", type=_positive_int, default=100)
    p.add_argument("--repeats", type=_positive_int, default=5)
    p.add_argument(
        "--compare",
        action="store_true",
        help="also time gymnax, gymnasium, envpool and the reference loops where installed "
        "(benchmarks/throughput.py's comparison), in one process, taking turns",
    )
    p.set_defaults(fn=cmd_bench)

    p = sub.add_parser(
        "fingerprint", help="hash of an id's fixed-key rollout, compared with the pinned one (cite it in a paper)"
    )
    p.add_argument("ids", nargs="+")
    p.set_defaults(fn=cmd_fingerprint)

    p = sub.add_parser("render", help="record a random policy to a GIF or MP4")
    p.add_argument("id")
    p.add_argument("--steps", type=_positive_int, default=200)
    p.add_argument("--out", default="run.gif")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--fps", type=_positive_int, default=30)
    p.set_defaults(fn=cmd_render)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except UsageError as e:
        print(f"{parser.prog} {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        lines = str(e).strip().splitlines() or [""]
        detail = lines[0] if isinstance(e, (ImportError, OSError, ValueError)) else f"{type(e).__name__}: {lines[0]}"
        print(f"error: {detail}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
