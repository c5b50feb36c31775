"""`jaxenvs parity [IDS]`: each id checked against its reference; `--markdown` writes the table."""

from __future__ import annotations

import argparse

from jaxenvs.cli._common import (
    WIDE_COLUMNS,
    check_ids,
    check_output_path,
    console,
    interrupted_line,
    print_line,
    progress,
)


def cmd_parity(args: argparse.Namespace) -> int:
    """Run the parity checks of `args.ids` (default: every id with one) and print the table.

    Args:
        args: The parsed `jaxenvs parity` arguments (`ids`, `scale`, `seed`, `markdown`,
            `verbose`).

    Returns:
        0 if every check that ran passed; 1 if one failed, or if nothing was checked, or if
        an id named on the command line was skipped (each said why: `unchecked`); 130 if
        interrupted (the finished ids' rows are printed; no markdown is written).
    """
    from jaxenvs.parity import parity_ids, run_parity
    from jaxenvs.parity.report import markdown_table, rich_table, run_summary, summary_line

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
                results.append(run_parity(env_id, scale=args.scale, seed=args.seed))
                bar.advance(task)
    except KeyboardInterrupt:  # keep what was measured: the finished ids' rows
        interrupted = True
    compact = not args.verbose and out.width < WIDE_COLUMNS
    out.print(rich_table(results, compact=compact))
    for r in results:
        if args.verbose or not (r.passed or r.skipped):  # a failure always says where
            out.print(r.summary(), markup=False)
        elif compact and r.skipped is not None:
            print_line(out, [f"{r.env_id}: skipped: {r.skipped}"], style="dim")
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
        out.print(f"wrote {args.markdown}")
    reasons = unchecked(results, named=bool(args.ids))
    for line in reasons:
        print_line(out, [line])
    return 0 if all(r.passed or r.skipped for r in results) and not reasons else 1


def unchecked(results, named: bool) -> list[str]:
    """Why a run that checked less than it was asked to exits 1, one line each (none: it did not).

    Args:
        results: the `ParityResult`s of the run.
        named: whether the ids were named on the command line (then each one skipped counts).

    Returns:
        `"nothing was checked: ..."` when no id ran a check, else for named ids one
        `"not checked: ID: why"` line per skipped id; empty when everything asked for ran.
    """
    skipped = [r for r in results if r.skipped is not None]
    if len(skipped) == len(results):
        why = "; ".join(f"{r.env_id}: {r.skipped}" for r in skipped) or "no id has a parity check"
        return [f"error: nothing was checked ({len(skipped)} skipped): {why}"]
    return [f"error: not checked: {r.env_id}: {r.skipped}" for r in skipped] if named else []
