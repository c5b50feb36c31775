"""Where a batched step's time goes: XLA's kernels of one timed rollout, each named by the
source line it was traced from, and the step's time split between the env, the auto-reset and
the benchmark's own work (action draws, reading the observation).

    python benchmarks/profile_kernels.py Catch-bsuite --num-envs 8192
    python benchmarks/profile_kernels.py Breakout-MinAtar Freeway-MinAtar --num-envs 1024 --top 8

It times `jaxenvs.bench.vec_rollout` (the rollout `benchmarks/throughput.py` times) under
`jax.profiler.trace`, reads the kernels' durations from the trace, and maps each kernel to the
innermost frame of its op in the compiled module's stack-frame table. A kernel's self time is
its duration less that of the kernels it ran inside it (a `while` or a `cond` and its body).
Wall-clock durations: run it on a quiet machine, with XLA on one thread as the throughput
benchmark's CPU clock does.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jax

import jaxenvs
from jaxenvs import bench

STEPS = 50

# Where a kernel's innermost frame lies decides its part of the step.
PARTS = (
    ("reset", ("wrappers/autoreset.py", "wrappers/vector.py")),
    ("benchmark", ("jaxenvs/bench.py",)),
    ("env", ("jaxenvs/envs/", "jaxenvs/environment.py")),
)


@dataclass(frozen=True)
class Kernel:
    """One kernel of the profiled rollout, per step.

    Args:
        name: XLA's name of the kernel (a fusion, a loop, a dot).
        micros: Its self time per step, in microseconds.
        source: `file:line function` of the innermost frame of its op.
        part: `env`, `reset`, `benchmark` or `other` (from the source's file), or `scan` for the
            timed scan's own loop.
    """

    name: str
    micros: float
    source: str
    part: str


def _frames(hlo: str) -> dict[str, str]:
    """Map each instruction of a compiled module's text to its innermost source frame."""
    files = dict(re.findall(r'^(\d+) "(.*)"$', hlo.split("FunctionNames")[0], re.M))
    functions = dict(re.findall(r'^(\d+) "(.*)"$', hlo.split("FunctionNames")[1].split("FileLocations")[0], re.M))
    locations = {
        i: (files[f], functions[fn], line)
        for i, f, fn, line in re.findall(r"^(\d+) \{file_name_id=(\d+) function_name_id=(\d+) line=(\d+)", hlo, re.M)
    }
    stack = dict(re.findall(r"^(\d+) \{file_location_id=(\d+)", hlo, re.M))
    out = {}
    for name, frame in re.findall(r"%([\w.\-]+) = .*?stack_frame_id=(\d+)", hlo):
        file, function, line = locations[stack[frame]]
        out[name] = f"{file}:{line} {function}"
    return out


def _part(name: str, source: str) -> str:
    if name.startswith("while") and source.endswith(" _rollout.<locals>.run"):
        return "scan"  # the timed scan's own loop: running it and dispatching its body's kernels
    return next((part for part, files in PARTS if any(f in source for f in files)), "other")


def _self_times(events: list[dict], names: set[str]) -> dict[str, float]:
    """Sum each kernel's duration less the kernels nested in it, per thread."""
    by_thread = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("name") in names:
            by_thread[(e.get("pid"), e.get("tid"))].append((float(e["ts"]), float(e["dur"]), e["name"]))
    self_time = collections.Counter()
    for spans in by_thread.values():
        spans.sort(key=lambda s: (s[0], -s[1]))
        open_spans: list[tuple[float, str]] = []  # (end, name), outermost first
        for start, dur, name in spans:
            while open_spans and open_spans[-1][0] <= start:
                open_spans.pop()
            if open_spans:
                self_time[open_spans[-1][1]] -= dur
            self_time[name] += dur
            open_spans.append((start + dur, name))
    return self_time


def profile(env_id: str, num_envs: int, steps: int = STEPS) -> tuple[list[Kernel], float]:
    """Profile `make_vec(env_id, num_envs)`'s timed rollout.

    Args:
        env_id: A registered id.
        num_envs: The batch size.
        steps: Steps of the profiled run.

    Returns:
        The kernels, slowest first, and the rollout's wall time per step in microseconds.
    """
    venv, params = jaxenvs.make_vec(env_id, num_envs=num_envs)
    lowered = jax.jit(bench.vec_rollout(venv, params, steps)).lower(jax.random.key(0))
    compiled = lowered.compile()
    frames = _frames(compiled.as_text())
    jax.block_until_ready(compiled(jax.random.key(0)))
    with tempfile.TemporaryDirectory() as folder:
        with jax.profiler.trace(folder, create_perfetto_trace=True):
            jax.block_until_ready(compiled(jax.random.key(1)))
        trace = json.load(gzip.open(next(Path(folder).rglob("*.trace.json.gz"))))
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    times = _self_times(events, set(frames))
    kernels = [
        Kernel(name, t / steps, frames[name], _part(name, frames[name])) for name, t in times.most_common() if t > 0
    ]
    return kernels, sum(k.micros for k in kernels)


def _short(source: str) -> str:
    path, rest = source.split(":", 1)
    return Path(path).parent.name + "/" + Path(path).name + ":" + rest


def by_part(kernels: list[Kernel]) -> dict[str, float]:
    """Microseconds a step in each part (`env`, `reset`, `benchmark`, `other`), largest first.

    Args:
        kernels: From `profile`.

    Returns:
        `{part: us per step}`.
    """
    total = collections.Counter()
    for k in kernels:
        total[k.part] += k.micros
    return dict(total.most_common())


def markdown(
    env_id: str, num_envs: int, kernels: list[Kernel], total: float, top: int = 6, parts: dict | None = None
) -> list[str]:
    """A profile as markdown: the parts of the step, then the slowest kernels.

    Args:
        env_id: The profiled id.
        num_envs: Its batch size.
        kernels: From `profile`, slowest first.
        total: The kernels' time per step.
        top: How many kernels to list.
        parts: `by_part` of all the kernels, where `kernels` holds only the slowest.

    Returns:
        Lines of markdown.
    """
    split = ", ".join(f"{p} {t / total:.0%}" for p, t in (parts or by_part(kernels)).items())
    lines = [
        f"**{env_id}, {num_envs:,} envs**: {total:,.0f} us of kernels a step ({split}).",
        "",
        "| kernel | us/step | share | part | traced from |",
        "|---|---:|---:|---|---|",
    ]
    for k in kernels[:top]:
        lines.append(f"| `{k.name}` | {k.micros:,.0f} | {k.micros / total:.0%} | {k.part} | `{_short(k.source)}` |")
    return lines + [""]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ids", nargs="+")
    parser.add_argument("--num-envs", type=int, default=8192)
    parser.add_argument("--top", type=int, default=6)
    args = parser.parse_args(argv)
    for env_id in args.ids:
        kernels, total = profile(env_id, args.num_envs)
        print("\n".join(markdown(env_id, args.num_envs, kernels, total, args.top)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
