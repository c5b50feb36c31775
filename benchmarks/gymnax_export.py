"""What the gymnax export costs: `jax.vmap` of the step of `jaxenvs.export.gymnax.make(id)`
beside `jaxenvs.make(id)`'s (the same rollout, jaxenvs' interface) and gymnax's own, in one
process, the three taking turns run by run (`jaxenvs.bench.compare`).

    python benchmarks/gymnax_export.py
    python benchmarks/gymnax_export.py --ids CartPole-v1 Breakout-MinAtar --num-envs 64 1024 --repeats 9
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \\
        python benchmarks/gymnax_export.py --clock cpu     # steps per CPU-second, one core (a busy machine)

Prints one row per id and batch size: steps/s of each, and the export's ratio to
`jaxenvs.make` (the issue's budget: at most 5% slower, a ratio of at least 0.95) and to gymnax.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from jaxenvs.bench import GYMNAX_EXPORT, compare

LIBRARIES = ("jaxenvs vmap", GYMNAX_EXPORT, "gymnax")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="+", default=["CartPole-v1", "Breakout-MinAtar"])
    parser.add_argument("--num-envs", nargs="+", type=int, default=[64, 1024])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args(argv)
    clock = time.perf_counter
    if args.clock == "cpu":  # as benchmarks/throughput.py does it
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from throughput import pin_to_one_core

        clock = time.process_time
        if hasattr(os, "sched_setaffinity"):
            pin_to_one_core()
    print("| id | envs | jaxenvs.make (vmap) | export | gymnax | export / jaxenvs.make | export / gymnax |")
    print("|---|---|---|---|---|---|---|")
    for env_id in args.ids:
        for n in args.num_envs:
            rows = {
                r.library: r.steps_per_second
                for r in compare(env_id, n, repeats=args.repeats, libraries=LIBRARIES, clock=clock)
            }
            ours, export, theirs = (rows.get(lib) for lib in LIBRARIES)
            cells = [f"{v:,.0f}" if v else "-" for v in (ours, export, theirs)]
            ratio_ours = f"{export / ours:.3f}" if export and ours else "-"
            ratio_theirs = f"{export / theirs:.2f}x" if export and theirs else "-"
            print(f"| {env_id} | {n} | {' | '.join(cells)} | {ratio_ours} | {ratio_theirs} |", flush=True)


if __name__ == "__main__":
    main()
