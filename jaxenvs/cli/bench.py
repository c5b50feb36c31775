"""`jaxenvs bench [IDS]`: make_vec's throughput at several batch sizes, or with `--compare`
side by side with the other libraries installed."""

from __future__ import annotations

import argparse

from jaxenvs.cli._common import console, progress, select


def cmd_bench(args: argparse.Namespace) -> int:
    """Time each id at each `--num-envs` and print one table (skipped peers listed under it).

    Args:
        args: The parsed `jaxenvs bench` arguments (`ids`, `family`, `num_envs`, `num_steps`,
            `repeats`, `compare`).

    Returns:
        0.

    Raises:
        UsageError: For an unknown id or family (`select`).
    """
    from rich.table import Table

    from jaxenvs.bench import compare, rollout_throughput

    ids = select(args.ids, args.family)
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
    with progress() as bar:
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
    out = console()
    out.print(table)
    for line in skipped:
        out.print(f"skipped {line}")
    return 0
