"""`jaxenvs bench [IDS]`: make_vec's throughput at several batch sizes, or with `--compare`
side by side with the other libraries installed."""

from __future__ import annotations

import argparse
import os
import warnings

from jaxenvs.cli._common import console, print_line, progress, select, without_ansi


def cmd_bench(args: argparse.Namespace) -> int:
    """Time each id at each `--num-envs` and print one table, then the peers skipped and the
    warnings the libraries raised while timed (once each, as plain text).

    Args:
        args: The parsed `jaxenvs bench` arguments (`ids`, `family`, `num_envs`, `num_steps`,
            `repeats`, `compare`).

    Returns:
        0.

    Raises:
        UsageError: For an unknown id or family (`select`).
    """
    from rich import box
    from rich.table import Table

    from jaxenvs.bench import compare, rollout_throughput

    ids = select(args.ids, args.family)
    if args.compare:
        title = "jaxenvs bench --compare"
        note = (
            "random actions, libraries taking turns, compile excluded; "
            "make_vec/lib: make_vec's steps/s over the library's"
        )
        columns = ("id", "num_envs", "library", "steps/s", "compile s", "make_vec/lib")
    else:
        title = "jaxenvs bench"
        note = "make_vec's steps/s, random actions, compile excluded"
        columns = ("id", "num_envs", "steps/s", "compile s")
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for col in columns:  # only a library's name may wrap: an id or a number is never cut
        table.add_column(col, no_wrap=col != "library", justify="left" if col in ("id", "library") else "right")
    skipped: list[str] = []
    out = console()
    # a library's warnings (gymnasium colours its own) would break up the bar: they are printed
    # after the table, once each
    with warnings.catch_warnings(record=True) as caught, progress(out) as bar:
        warnings.simplefilter("always")
        task = bar.add_task("bench", total=len(ids) * len(args.num_envs))
        for env_id in ids:
            for n in args.num_envs:
                bar.update(task, description=f"bench {env_id} x{n}")
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
                bar.advance(task)
    out.print(table)
    print_line(out, [note])
    for line in skipped:
        print_line(out, [f"skipped {without_ansi(line)}"])
    for line in warning_lines(caught):
        print_line(out, [line], style="dim")
    return 0


def warning_lines(caught) -> list[str]:
    """The warnings caught, as text: once each, without terminal escape codes, each naming the
    library that raised it.

    Args:
        caught: `warnings.WarningMessage`s, as `warnings.catch_warnings(record=True)` gives them.

    Returns:
        One `"warning (LIBRARY): message"` line per distinct warning, in the order first raised.
    """
    lines: dict[str, None] = {}
    for w in caught:
        text = " ".join(without_ansi(str(w.message)).split())
        text = text.removeprefix("WARN: ")  # gymnasium's logger prefix: the line says "warning" already
        lines[f"warning ({_library(w.filename)}): {text}"] = None
    return list(lines)


def _library(filename: str) -> str:
    """The top-level package a file belongs to (`.../site-packages/gymnasium/spaces/box.py`:
    gymnasium), else the file's name."""
    parts = os.path.normpath(filename).split(os.sep)
    for marker in ("site-packages", "dist-packages"):
        if marker in parts[:-1]:
            return parts[parts.index(marker) + 1].removesuffix(".py")
    return os.path.basename(filename)
