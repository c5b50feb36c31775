"""`jaxenvs report`'s printing: the rows' numbers become text here and only here.

A compact table per family at 80 columns (every column from `WIDE_COLUMNS` or with `-v`), the
notes a compact row cannot hold, a summary line, and one line naming the ids left out. Every
cell is escaped: library names and pip extras in brackets are text, not markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from jaxenvs.cli._common import WIDE_COLUMNS, print_line
from jaxenvs.cli.report_plan import (
    BROKEN,
    DOWNLOAD,
    NOT_INSTALLED,
    REST,
    SMALL,
    SWEEP,
    LeftOut,
    ReportRow,
    report_policy,
)


def print_title(console, title: str, description: Sequence[str] = ()) -> None:
    """The report's first lines: `title` in bold, then each line of `description`, wrapped.

    Args:
        console: a `rich.console.Console`.
        title: the first line.
        description: lines under it (what the columns mean).
    """
    console.print(title, style="bold", markup=False)
    for line in description:
        print_line(console, [line])
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
    terminal is `WIDE_COLUMNS` wide. A row of a smaller rollout is marked `*` and noted
    under its table with its size and compile time.

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
    wide = verbose or console.width >= WIDE_COLUMNS
    if rows:
        table = Table(title=family, title_justify="left", title_style="bold", expand=False)
        columns = ("id", "steps/s", "compile s", "parity", "reference") if wide else ("id", "steps/s", "parity")
        for col in columns:
            table.add_column(col, justify="right" if col in ("steps/s", "compile s") else "left")
        for row in rows:
            cells = [row.env_id, _speed_cell(row)]
            if wide:
                cells.append("-" if row.compile_seconds is None else f"{row.compile_seconds:.1f}")
            cells.append(row.verdict or "-")
            if wide:
                cells.append(row.reference)
            table.add_row(*(escape(c) for c in cells))
        console.print(table)
        for line in _row_notes(rows, verbose=verbose):
            print_line(console, [line], style="dim")
        print_line(console, family_summary(family, rows))
    else:
        console.print(family, style="bold", markup=False)
    if left_out:
        print_line(console, ["not rolled out: " + _left_out_line(family, left_out, rows, command)])
    console.print()


def steps_per_second(value: float) -> str:
    """A throughput in three figures: "830", "12.5k", "3.1M".

    Args:
        value: Steps per second.

    Returns:
        The text.
    """
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:.3g}"


def duration(seconds: float) -> str:
    """A duration rounded as an estimate is: "4 s", "40 s", "12 min", "2.5 h".

    Args:
        seconds: The duration in seconds.

    Returns:
        The text.
    """
    if seconds < 90:
        return f"{max(1, round(seconds, -1 if seconds >= 10 else 0)):.0f} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60):.0f} min"
    return f"{seconds / 3600:.1f} h"


def rolled_out(rows: Sequence[ReportRow]) -> str:
    """How many ids were rolled out: "6 ids rolled out", or "11 ids, 10 rolled out" where a
    rollout failed or lacked data.

    Args:
        rows: The rows of the ids attempted.

    Returns:
        The text.
    """
    ran = sum(r.steps_per_second is not None for r in rows)
    ids = f"{len(rows)} {'id' if len(rows) == 1 else 'ids'}"
    return f"{ids} rolled out" if ran == len(rows) else f"{ids}, {ran} rolled out"


def family_summary(family: str, rows: Sequence[ReportRow]) -> list[str]:
    """The parts of the summary line under a family's table.

    Args:
        family: The family's name.
        rows: Its rows.

    Returns:
        How many ids were rolled out, the median and range of their steps/s (smaller
        rollouts left out; with two rows or more), and the parity verdicts
        (`parity.report.summary_line`), for `print_line`.
    """
    from jaxenvs.parity.report import summary_line

    speeds = sorted(r.steps_per_second for r in rows if r.steps_per_second is not None and not r.small)
    parts = [f"{family}: {rolled_out(rows)}"]
    if len(speeds) > 1:
        half = len(speeds) // 2
        median = speeds[half] if len(speeds) % 2 else (speeds[half - 1] + speeds[half]) / 2
        parts.append(
            f"median {steps_per_second(median)} steps/s "
            f"({steps_per_second(speeds[0])} to {steps_per_second(speeds[-1])})"
        )
    results = [r.parity for r in rows if r.parity is not None]
    if results:
        parts.append(summary_line(results))
    return parts


def _speed_cell(row: ReportRow) -> str:
    if row.missing_data is not None:
        return "no data"
    if row.steps_per_second is None:
        return "failed"
    return steps_per_second(row.steps_per_second) + (" *" if row.small else "")


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
        if row.verdict == "FAIL":
            lines += [f"{row.env_id}: parity FAIL: {c.describe()}" for c in row.parity.failures()]
        elif row.verdict == "skipped":
            lines.append(f"{row.env_id}: parity skipped: {row.parity.skipped}")
    small = [r for r in rows if r.small and r.compile_seconds is not None]
    if small:
        envs, steps = small[0].rollout
        compiled = ", ".join(f"{r.env_id} {r.compile_seconds:.0f} s" for r in small)
        lines.append(f"* compiling dominates on a CPU: {envs} envs x {steps} steps (compile: {compiled})")
    return lines


def _first_clause(message: str) -> str:
    """A message's first line, up to its first parenthesis (the long details, such as URLs)."""
    return message.strip().splitlines()[0].split(" (", 1)[0].rstrip(" .,;:")


def _left_out_line(family: str, left_out: Sequence[LeftOut], rows: Sequence[ReportRow], command) -> str:
    """The one line naming a family's left-out ids, why, the command that runs them and about
    how long it takes here (estimated from the family's rollouts just measured)."""
    from jaxenvs.extras import install_line
    from jaxenvs.registry import spec

    by_reason: dict[str, list[str]] = {}
    for item in left_out:
        by_reason.setdefault(item.reason, []).append(item.env_id)
    parts = []
    if NOT_INSTALLED in by_reason:
        ids = by_reason[NOT_INSTALLED]
        parts.append(f"{_count(ids, family)} not installed: {install_line(spec(ids[0]).extra)}")
    rest, downloads = by_reason.get(REST, []), by_reason.get(DOWNLOAD, [])
    if rest:
        parts.append(f"{_count(rest, family, 'more ')}: `{command(family, '--all')}`{_estimate(rest, rows)}")
    for why, ids in _grouped(downloads, "needs_download").items():
        # the note is written of one id ("downloads its levels ..."): several get "each"
        who = ids[0] if len(ids) == 1 else f"{len(ids)} more ids, each"
        runs = f"`{command(family, '--all')}` runs {'it' if len(ids) == 1 else 'them'}"
        too = f"--all runs {'it' if len(ids) == 1 else 'them'} too"
        parts.append(f"{who} {why} ({too if rest else runs})")
    if SWEEP in by_reason:
        sweeps = by_reason[SWEEP]
        parts.append(
            f"{len(sweeps)} sweep ids (bsuite's experiments: settings of the ids above): "
            f"`{command(family, '--sweeps')}`{_estimate(sweeps, rows)}"
        )
    for why, ids in _grouped(by_reason.get(BROKEN, []), "broken_upstream").items():
        parts.append(f"{ids[0] if len(ids) == 1 else ', '.join(ids)} not run: {why}")
    return "; ".join(parts)


def _estimate(ids: Sequence[str], rows: Sequence[ReportRow]) -> str:
    """ ", about N here": each of `ids` at the median wall time of the rows rolled out as it
    would be (the smaller rollout where compiling dominates, else the full one), measured just
    now; "" where no such row was measured."""
    total = 0.0
    for env_id in ids:
        small = report_policy(env_id, run_all=True) == SMALL
        seconds = sorted(r.seconds for r in rows if r.small == small)
        if not seconds:
            return ""
        total += seconds[len(seconds) // 2]
    return f", about {duration(total)} here"


def _count(ids: Sequence[str], family: str, more: str = "") -> str:
    return ids[0] if len(ids) == 1 and not more else f"{len(ids)} {more}{family} {'id' if len(ids) == 1 else 'ids'}"


def _grouped(ids: Sequence[str], note: str) -> dict[str, list[str]]:
    from jaxenvs.registry import spec

    groups: dict[str, list[str]] = {}
    for env_id in ids:
        groups.setdefault(spec(env_id).notes[note], []).append(env_id)
    return groups
