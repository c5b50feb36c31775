"""`jaxenvs parity [IDS]`: each id checked against its reference; `--markdown` writes the table."""

from __future__ import annotations

import argparse

from jaxenvs.cli._common import (
    check_ids,
    check_output_path,
    console,
    interrupted_line,
    plural,
    print_block,
    print_line,
    progress,
)


def cmd_parity(args: argparse.Namespace) -> int:
    """Run the parity checks of `args.ids` (default: every id with one) and print the table.

    The table has every column where the terminal fits them, else the compact ones; with `-v`
    every check of every env follows it, each line wrapped indented. The last lines are the
    run's summary, and why it exits 1 where it does.

    Args:
        args: The parsed `jaxenvs parity` arguments (`ids`, `scale`, `seed`, `markdown`,
            `verbose`).

    Returns:
        0 if every check that ran passed; 1 if one failed, or if nothing was checked (then no
        table: one line on why), or if an id named on the command line was skipped (each said
        why: `unchecked`); 130 if interrupted (the finished ids' rows are printed; no markdown
        is written).
    """
    from jaxenvs.parity import parity_ids
    from jaxenvs.parity.report import markdown_table, run_summary, summary_line

    check_ids(args.ids)
    if args.markdown:
        check_output_path(args.markdown)
    ids = list(args.ids) if args.ids else parity_ids()
    results = []
    interrupted = False
    out = console()
    try:
        with progress(out) as bar:
            task = bar.add_task("parity", total=len(ids))
            for env_id in ids:
                bar.update(task, description=f"parity {env_id}")
                results.append(_check(env_id, scale=args.scale, seed=args.seed))
                bar.advance(task)
    except KeyboardInterrupt:  # keep what was measured: the finished ids' rows
        interrupted = True
    if not interrupted and all(r.skipped is not None for r in results):
        print_block(out, nothing_checked(results))  # no table or false-alarm budget of a run that did not happen
        return 1
    _print_results(out, results, verbose=args.verbose)
    print_line(out, [summary_line(results)])
    print_line(out, [run_summary(results)])
    if interrupted:
        out.print(interrupted_line(len(results), len(ids)), markup=False)
        return 130  # a partial table goes nowhere near docs/parity.md
    if args.markdown:
        from pathlib import Path

        from jaxenvs.parity.report import section_of, with_section

        path = Path(args.markdown)
        table = markdown_table(results, scale=args.scale)
        kept = section_of(path.read_text()) if path.exists() else None  # the measured power table
        path.write_text(with_section(table, kept) if kept else table)
        out.print(f"wrote {args.markdown}", markup=False, highlight=False)
    reasons = unchecked(results, named=bool(args.ids))
    for line in reasons:
        print_line(out, [line])
    return 0 if all(r.passed or r.skipped for r in results) and not reasons else 1


def _check(env_id: str, scale: float, seed: int):
    """`run_parity(env_id)`, or a skipped result where the id has no check or cannot run here
    (`jaxenvs.registry.availability`: a missing extra, a download, a failure upstream)."""
    from jaxenvs.parity import ParityResult, has_parity, run_parity
    from jaxenvs.registry import availability, spec

    if not has_parity(env_id):
        return ParityResult(
            env_id,
            "-",
            skipped="it has no parity check (no reference declared; `jaxenvs parity` checks every id that has one)",
        )
    available = availability(env_id)
    if not available.runnable:
        why = available.reason + (f": {available.install}" if available.install else "")
        return ParityResult(env_id, spec(env_id).reference or "-", skipped=f"cannot run here ({why})")
    return run_parity(env_id, scale=scale, seed=seed)


def _print_results(out, results, verbose: bool) -> None:
    """The table (every column where the terminal fits them, else the compact ones), then each
    env's checks (`verbose`) or what a row cannot say: a failure's checks, a skip's reason."""
    from rich.console import Console

    from jaxenvs.parity.report import rich_table

    full = rich_table(results)
    compact = Console(width=100_000).measure(full).maximum > out.width
    out.print(rich_table(results, compact=True) if compact else full)
    for r in results:
        if verbose or not (r.passed or r.skipped):  # a failure always says where
            print_block(out, r.summary())
        elif compact and r.skipped is not None:
            print_block(out, f"{r.env_id}: skipped: {r.skipped}", style="dim")


def nothing_checked(results) -> str:
    """Why a run checked nothing: one line, or a line per skipped id under it.

    Args:
        results: the run's `ParityResult`s, every one skipped (or none).

    Returns:
        `"error: nothing was checked: ID: why"`, or for several ids an indented line each.
    """
    if not results:
        return "error: nothing was checked: no id has a parity check"
    if len(results) == 1:
        return f"error: nothing was checked: {results[0].env_id}: {results[0].skipped}"
    lines = [f"error: nothing was checked ({plural(len(results), 'id')}, each skipped):"]
    return "\n".join(lines + [f"  {r.env_id}: {r.skipped}" for r in results])


def unchecked(results, named: bool) -> list[str]:
    """Why a run that checked some ids but not all it was asked to exits 1, one line each.

    Args:
        results: the `ParityResult`s of the run.
        named: whether the ids were named on the command line (then each one skipped counts).

    Returns:
        For named ids one `"not checked: ID: why"` line per skipped id; empty when every id
        asked for ran, or when the ids were not named.
    """
    return [f"error: not checked: {r.env_id}: {r.skipped}" for r in results if r.skipped is not None] if named else []
