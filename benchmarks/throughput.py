"""Side-by-side rollout throughput: jaxenvs (make_vec and the per-env vmap path), gymnax,
gymnasium, envpool and the reference packages' own Python loops, in one process.

    python benchmarks/throughput.py                          # every shared env, batch 1..8192
    python benchmarks/throughput.py --ids CartPole-v1 --num-envs 64 1024 --repeats 5
    python benchmarks/throughput.py --ids Breakout-MinAtar Seaquest-MinAtar SpaceInvaders-MinAtar \\
        --num-envs 1024 --out /tmp/minatar                   # a few envs, docs/benchmarks.* untouched
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \\
        python benchmarks/throughput.py --clock cpu          # steps per CPU-second, one core
    python benchmarks/throughput.py --clock cpu --processes 2  # the ids shared by two processes

The scheme (`jaxenvs.bench`): per step one random draw for the whole batch's actions, JAX
rollouts a jitted `lax.scan` that reads the observation each step acts on as a first layer would
(float32, times a column of fixed weights) into its carry and returns the final state, the
runs of all libraries for one env and batch size taking turns, the median of `--repeats` runs;
compile time and memory apart. The limit of each env and batch size is the lower of the
rewards-only `make_vec` rollout (the step with a free observation) and the steps/s at which
writing the observation alone fills the memory bandwidth a plain copy reaches in the same run
(`copy_bandwidth`); `make_vec` is reported as a fraction of it. Writes `<out>.md` (targets,
tables) and `<out>.png` (steps/s against batch size, log scale) and `<out>.json` (the rows;
`--from-json` renders them again); `benchmarks/notes.md`, if present, is appended to the
markdown (the explanations).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.bench import REWARDS_ONLY, Footprint, Result, compare, footprints, peer_ids

LIBRARIES = ("jaxenvs make_vec", "jaxenvs vmap", "gymnax", "gymnasium", "envpool", "minatar", "bsuite", REWARDS_ONLY)
SHORT = {"jaxenvs make_vec": "make_vec", "jaxenvs vmap": "vmap", REWARDS_ONLY: "make_vec rewards only"}
REFERENCE_LOOPS = ("gymnasium", "minatar", "bsuite")  # single-env Python loops at batch size 1
PROFILE_TOP = 6  # kernels listed per profiled miss
COPY_BYTES = 2**27  # the array `copy_bandwidth` copies: 128 MiB, four times this machine's L3 cache


def copy_bandwidth(clock=time.perf_counter, nbytes: int = COPY_BYTES, repeats: int = 7) -> float:
    """This machine's memory bandwidth as a plain copy reaches it: a jitted `x + 1` over a float32
    array of `nbytes`, written in place (the input donated: a fresh output would time the kernel's
    page faults, not memory), bytes read plus bytes written per second of `clock`, the median of
    `repeats` runs (after one untimed).

    Args:
        clock: The clock the runs are timed with (the run's own, so that the bandwidth and the
            steps/s it bounds are per the same second).
        nbytes: The array's bytes.
        repeats: Timed runs.

    Returns:
        Bytes read plus bytes written per second.
    """
    copy = jax.jit(lambda a: a + jnp.float32(1), donate_argnums=0)  # reads and writes every element once
    x = jax.block_until_ready(copy(jnp.arange(nbytes // 4, dtype=jnp.float32)))
    times = []
    for _ in range(repeats):
        t0 = clock()
        x = jax.block_until_ready(copy(x))
        times.append(clock() - t0)
    return 2 * nbytes / float(np.median(times))


def run(ids, sizes, repeats, clock, log=print, libraries=LIBRARIES) -> list[Result]:
    rows: list[Result] = []
    total = len(ids) * len(sizes)
    t_start = time.perf_counter()
    for i, env_id in enumerate(ids):
        for j, n in enumerate(sizes):
            results = compare(
                env_id,
                n,
                repeats=repeats,
                libraries=libraries,
                clock=clock,
                on_skip=lambda lib, e, env_id=env_id, n=n: log(f"  skip {lib} {env_id} x{n}: {type(e).__name__}: {e}"),
            )
            rows += results
            done = i * len(sizes) + j + 1
            log(
                f"[{done}/{total} {time.perf_counter() - t_start:6.0f}s] {env_id} x{n}: "
                + ", ".join(f"{SHORT.get(r.library, r.library)} {r.steps_per_second:,.0f}" for r in results)
            )
    return rows


def _table(rows):
    table: dict[tuple[str, int], dict[str, Result]] = {}
    for r in rows:
        table.setdefault((r.env_id, r.num_envs), {})[r.library] = r
    return table


def _ratio(libs, a, b):
    if a in libs and b in libs:
        return libs[a].steps_per_second / libs[b].steps_per_second
    return None


def _verdict(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


def _ratio_target(table, library: str, floor: float, target: str, min_envs: int = 1) -> list[str]:
    """The line of the target `library` at least `floor` times gymnax at every (env, size)
    pair of at least `min_envs` envs: how many pairs meet it, the lowest, those below."""
    pairs = [(k, _ratio(v, library, "gymnax")) for k, v in table.items() if k[1] >= min_envs]
    pairs = [(k, x) for k, x in pairs if x is not None]
    if not pairs:
        return []
    low = sorted((x, k) for k, x in pairs if x < floor)
    return [
        f"- {target}: {_verdict(not low)}; {len(pairs) - len(low)} of {len(pairs)} (env, size) pairs at "
        f"{floor:g}x or more; lowest {min(x for _, x in pairs):.2f}x"
        + (f"; below {floor:g}x: " + ", ".join(f"{k[0]} x{k[1]} {x:.2f}x" for x, k in low) if low else "")
    ]


def targets(rows, prints: list[Footprint] = (), bandwidth: float | None = None) -> list[str]:
    """One line per target: the measured ratios and whether the target holds."""
    table = _table(rows)
    out = []
    out += _ratio_target(
        table, "jaxenvs make_vec", 2.0, "`make_vec` at least 2x gymnax at 64, 1,024 and 8,192 envs", 64
    )
    cp = table.get(("CartPole-v1", 8192), {})
    g, gym = _ratio(cp, "jaxenvs make_vec", "gymnax"), _ratio(cp, "jaxenvs make_vec", "gymnasium")
    if g is not None:
        out.append(f"- CartPole-v1 at 8,192 envs, `make_vec` at least 3x gymnax: {g:.2f}x, {_verdict(g >= 3)}")
    if gym is not None:
        out.append(
            f"- CartPole-v1 at 8,192 envs, `make_vec` at least 2x gymnasium's numpy vector env: "
            f"{gym:.2f}x, {_verdict(gym >= 2)}"
        )
    out += _ratio_target(table, "jaxenvs vmap", 1.0, "per-env vmap path never slower than gymnax")
    singles = []
    for (env_id, n), libs in table.items():
        if n != 1:
            continue
        for ref in REFERENCE_LOOPS:
            x = _ratio(libs, "jaxenvs make_vec", ref)
            if x is not None:
                singles.append((env_id, ref, x, libs[ref].steps_per_second, libs["jaxenvs make_vec"].steps_per_second))
    if singles:
        low = [s for s in singles if s[2] < 1.0]
        out.append(
            f"- batch size 1 in a jitted scan at least as fast as the reference's own single-env Python loop: "
            f"{_verdict(not low)}; {len(singles) - len(low)} of {len(singles)}: "
            + ", ".join(f"{e} {x:.2f}x ({j:,.0f} vs {ref} {r:,.0f} steps/s)" for e, ref, x, r, j in singles)
        )
    at_8192 = [(k[0], e["fraction"]) for k, e in limits(rows, prints, bandwidth).items() if k[1] == 8192]
    at_8192 = [(env_id, x) for env_id, x in at_8192 if x is not None]
    if at_8192:
        low = sorted((x, env_id) for env_id, x in at_8192 if x < 0.5)
        out.append(
            f"- every env at least half of its own limit at 8,192 envs: {_verdict(not low)}; "
            f"{len(at_8192) - len(low)} of {len(at_8192)}; lowest {min(x for _, x in at_8192):.2f}"
            + ("; below 0.5: " + ", ".join(f"{e} {x:.2f}" for x, e in low) if low else "")
        )
    comp = []
    for (env_id, n), libs in table.items():
        timed = [libs.get(lib) for lib in ("gymnax", "jaxenvs make_vec")]
        if all(r is not None and r.compile_seconds is not None for r in timed):
            comp.append((env_id, n, libs["jaxenvs make_vec"].compile_seconds, libs["gymnax"].compile_seconds))
    if comp:
        worse = [c for c in comp if c[2] > c[3]]
        total_vec, total_gx = sum(c[2] for c in comp), sum(c[3] for c in comp)
        out.append(
            f"- compile time no worse than gymnax's: `make_vec` slower to compile in {len(worse)} of {len(comp)} "
            f"pairs; summed over all pairs {total_vec:.0f} s vs gymnax {total_gx:.0f} s "
            f"({total_vec / total_gx:.2f}x), {_verdict(total_vec <= total_gx)} in total"
        )
    return out


def limits(rows, prints: list[Footprint], bandwidth: float | None) -> dict[tuple[str, int], dict[str, float]]:
    """Per (env, batch size): the step's speed with a free observation (`make_vec` rewards only),
    the steps/s at which writing jaxenvs' observation alone fills `bandwidth` (bytes/s), the limit
    (the lower of the two, or whichever is known) and `make_vec` as a fraction of it.

    Args:
        rows: The measured `Result`s.
        prints: The `Footprint`s (jaxenvs' observation bytes per env).
        bandwidth: `copy_bandwidth`'s bytes/s, or None where it was not measured.

    Returns:
        `{(env, batch size): {"limit", "bound", and where known "free", "memory", "obs_bytes",
        "fraction"}}`.
    """
    obs_bytes = {f.env_id: f.observation_bytes for f in prints if f.library == "jaxenvs" and f.observation_bytes}
    out = {}
    for (env_id, n), libs in _table(rows).items():
        free = libs[REWARDS_ONLY].steps_per_second if REWARDS_ONLY in libs else None
        nbytes = obs_bytes.get(env_id)
        memory = bandwidth / nbytes if bandwidth and nbytes else None
        bounds = [x for x in (free, memory) if x is not None]
        if not bounds:
            continue
        limit = min(bounds)
        entry = {"limit": limit, "bound": "observation bytes" if limit == memory else "transition"}
        if free is not None:
            entry["free"] = free
        if memory is not None:
            entry["memory"], entry["obs_bytes"] = memory, nbytes
        if "jaxenvs make_vec" in libs:
            entry["fraction"] = libs["jaxenvs make_vec"].steps_per_second / limit
        out[(env_id, n)] = entry
    return out


def limit_section(rows, prints: list[Footprint], bandwidth: float | None) -> list[str]:
    """The section that sets each env's limit beside `make_vec`, and says how it is made.

    Args:
        rows: The measured `Result`s.
        prints: The `Footprint`s.
        bandwidth: `copy_bandwidth`'s bytes/s, or None.

    Returns:
        Markdown lines (none where no limit is known).
    """
    lim = limits(rows, prints, bandwidth)
    if not lim:
        return []
    bw = f"{bandwidth / 1e9:.2f} GB/s" if bandwidth else "not measured"
    lines = [
        "## Distance to the limit",
        "",
        "The limit of an env at a batch size is the lower of two speeds. *Transition*: the steps/s of the"
        " `make_vec rewards only` rollout, which keeps only the rewards and the state, so XLA drops the"
        " observation: the step's speed if building and reading the observation cost nothing. *Observation"
        " bytes*: the steps/s at which writing jaxenvs' observation alone (bytes per env from"
        " `jax.eval_shape` of one step) would fill this machine's memory bandwidth, measured in the same"
        " run by a plain copy (a jitted `x + 1` in place over a float32 array of"
        f" {COPY_BYTES // 2**20} MiB, four times the last-level cache of the machine it was written on; bytes"
        " read plus written per second, the median of 7 runs on the run's clock): bandwidth /"
        f" observation bytes. Bandwidth here: {bw}. `make_vec / limit` is `make_vec`'s measured"
        " steps/s (observation built and read every step) over the limit: 1.0 means the observation cost"
        " nothing beyond the step (or the step ran at memory speed); the bandwidth bound counts only the"
        " observation's writing, not reading it back, so it is an upper bound.",
        "",
        "| env | envs | obs bytes/env | rewards only | bandwidth bound | limit | bound by | make_vec"
        " | make_vec / limit |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    table = _table(rows)

    def num(x):
        return f"{x:,.0f}" if x is not None else "-"

    for (env_id, n), e in lim.items():
        vec = table[(env_id, n)].get("jaxenvs make_vec")
        lines.append(
            f"| {env_id} | {n:,} | {num(e.get('obs_bytes'))} | {num(e.get('free'))} | {num(e.get('memory'))} | "
            f"{num(e['limit'])} | {e['bound']} | {num(vec.steps_per_second if vec else None)} | "
            + (f"{e['fraction']:.2f}" if "fraction" in e else "-")
            + " |"
        )
    return lines


def memory_table(rows, prints: list[Footprint], size: int = 8192) -> list[str]:
    """Bytes per env of state and of one step's outputs, and XLA's peak memory of the whole
    rollout at `size` envs, jaxenvs beside gymnax."""
    by = {(f.env_id, f.library): f for f in prints}
    table = _table(rows)
    lines = [
        "## Memory",
        "",
        "State and step outputs: bytes per env, from `jax.eval_shape` of one env's reset and step"
        " (`jaxenvs.make`'s auto-resetting env, whose step outputs include `final_observation`, and"
        " gymnax's env; outputs are observation, reward, flags and info). Peak: XLA's"
        f" `peak_memory_in_bytes` of the compiled rollout at {size:,} envs, MB (on CPU it counts the buffers"
        " live in the top-level computation, which is mostly the scan's carry); total: arguments + outputs +"
        " temporaries of the same compiled rollout (the loop body's temporaries included), MB.",
        "",
        "| env | state jaxenvs | state gymnax | outputs jaxenvs | outputs gymnax | peak make_vec | peak vmap | "
        "peak gymnax | total make_vec | total gymnax |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def b(env_id, lib, field):
        f = by.get((env_id, lib))
        return f"{getattr(f, field):,}" if f is not None else "-"

    def peak(env_id, lib):
        r = table.get((env_id, size), {}).get(lib)
        return f"{r.peak_mb:.1f}" if r is not None and r.peak_mb else "-"

    def total(env_id, lib):
        r = table.get((env_id, size), {}).get(lib)
        return f"{r.memory_mb:.1f}" if r is not None and r.memory_mb else "-"

    for env_id in dict.fromkeys(f.env_id for f in prints):
        lines.append(
            f"| {env_id} | {b(env_id, 'jaxenvs', 'state_bytes')} | {b(env_id, 'gymnax', 'state_bytes')} | "
            f"{b(env_id, 'jaxenvs', 'step_output_bytes')} | {b(env_id, 'gymnax', 'step_output_bytes')} | "
            f"{peak(env_id, 'jaxenvs make_vec')} | {peak(env_id, 'jaxenvs vmap')} | {peak(env_id, 'gymnax')} | "
            f"{total(env_id, 'jaxenvs make_vec')} | {total(env_id, 'gymnax')} |"
        )
    return lines


def limit_cell(entry: dict) -> str:
    """The limit and `make_vec`'s fraction of it, two cells of the steps/s table.

    Args:
        entry: One value of `limits` (empty where none is known).

    Returns:
        `"limit | fraction"`, "-" for what is unknown.
    """
    limit = f"{entry['limit']:,.0f}" if "limit" in entry else "-"
    fraction = f"{entry['fraction']:.2f}" if "fraction" in entry else "-"
    return f"{limit} | {fraction}"


def misses(rows, prints: list[Footprint], bandwidth: float | None) -> dict[str, tuple[int, list[str]]]:
    """The envs that miss a throughput target, each with the batch size to profile it at.

    Args:
        rows: The measured `Result`s.
        prints: The `Footprint`s.
        bandwidth: `copy_bandwidth`'s bytes/s, or None.

    Returns:
        `{env: (batch size, what it misses)}`: the size is 8,192 where it misses there, else the
        largest size it misses at.
    """
    table, lim = _table(rows), limits(rows, prints, bandwidth)
    found: dict[str, dict[int, list[str]]] = {}
    for (env_id, n), libs in table.items():
        missed = []
        vec, vmap = _ratio(libs, "jaxenvs make_vec", "gymnax"), _ratio(libs, "jaxenvs vmap", "gymnax")
        if n >= 64 and vec is not None and vec < 2.0:
            missed.append(f"make_vec {vec:.2f}x gymnax at {n:,}")
        if vmap is not None and vmap < 1.0:
            missed.append(f"vmap {vmap:.2f}x gymnax at {n:,}")
        if env_id == "CartPole-v1" and n == 8192 and vec is not None and vec < 3.0:
            missed.append(f"make_vec {vec:.2f}x gymnax at 8,192 (3x wanted)")
        fraction = lim.get((env_id, n), {}).get("fraction")
        if n == 8192 and fraction is not None and fraction < 0.5:
            missed.append(f"{fraction:.2f} of its limit at 8,192")
        if missed:
            found.setdefault(env_id, {})[n] = missed
    return {
        env_id: (8192 if 8192 in sizes else max(sizes), [m for n in sorted(sizes) for m in sizes[n]])
        for env_id, sizes in found.items()
    }


def profile_misses(rows, prints: list[Footprint], bandwidth: float | None, log=print) -> list[dict]:
    """Profile each env that misses a target (`misses`) with `benchmarks/profile_kernels.py`.

    Args:
        rows: The measured `Result`s.
        prints: The `Footprint`s.
        bandwidth: `copy_bandwidth`'s bytes/s, or None.
        log: Where progress goes.

    Returns:
        One dict per env: `env_id`, `num_envs`, `missed`, `total` (us of kernels a step) and
        `kernels` (`profile.Kernel` as dicts, slowest first).
    """
    sys.path.insert(0, str(Path(__file__).parent))
    import profile_kernels as kernels_profile

    out = []
    for env_id, (n, missed) in misses(rows, prints, bandwidth).items():
        log(f"profiling {env_id} at {n:,} envs")
        kernels, total = kernels_profile.profile(env_id, n)
        out.append(
            {
                "env_id": env_id,
                "num_envs": n,
                "missed": missed,
                "total": total,
                "kernels": [dataclasses.asdict(k) for k in kernels[:PROFILE_TOP]],
                "parts": kernels_profile.by_part(kernels),
            }
        )
    return out


def profile_section(profiles: list[dict], reprofiled: str | None = None) -> list[str]:
    """Markdown of `profile_misses`' results (`reprofiled`: the date they were profiled again, `--reprofile`)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import profile_kernels as kernels_profile

    lines = [
        "## Where the time goes in each miss",
        "",
        (
            f"Each env that misses a target above, profiled again on {reprofiled} (`--reprofile`) with the code"
            " of that day, pinned to one core as the measurements were"
            if reprofiled
            else "Each env that misses a target above, profiled in the same run after the measurements"
        )
        + " (`benchmarks/profile_kernels.py`: `make_vec`'s timed rollout under `jax.profiler.trace`, each XLA kernel"
        " named by the source line its op was traced from, and its self time: its duration less the"
        " kernels it ran inside it). The parts: *env* (the env's step, reset and observation code),"
        " *reset* (the batched auto-reset: `wrappers/autoreset.py`, `wrappers/vector.py`), *benchmark* (the random"
        " actions and the observation's read, the same work for every library), *scan* (the timed scan's own"
        " loop). A `while` or `cond` kernel's self time is the runtime's: running the loop or branch"
        " and dispatching the kernels inside it, which on XLA:CPU costs microseconds per kernel. Wall-clock"
        " microseconds of one profiled run, with the profiler's own overhead: the shares, not the"
        " absolute figures, are the finding.",
        "",
    ]
    for p in profiles:
        kernels = [kernels_profile.Kernel(**k) for k in p["kernels"]]
        headline, *table = kernels_profile.markdown(p["env_id"], p["num_envs"], kernels, p["total"], parts=p["parts"])
        lines += [headline, "", "Misses: " + "; ".join(p["missed"]) + ".", *table]
    return lines


def single_env_section(result: dict, clock: str) -> list[str]:
    """Markdown of `benchmarks/single_env.py`'s measurements."""
    sys.path.insert(0, str(Path(__file__).parent))
    import single_env

    return [
        "## The single-env ways out",
        "",
        "`python benchmarks/single_env.py`, run by this command after the table above, in the parent process.",
        "",
        *single_env.markdown(result, clock),
    ]


def single_env_targets(result: dict) -> list[str]:
    """The two target lines of the single-env ways out."""
    sys.path.insert(0, str(Path(__file__).parent))
    import single_env

    gym, sb3 = single_env.ratios(result)
    out = [
        f"- `gymnasium.make('jaxenvs/CartPole-v1')`'s step within 2x of gymnasium's numpy CartPole: "
        f"{gym:.2f}x its time per step, {_verdict(gym <= 2)}"
    ]
    if sb3 is not None:
        n = result["num_envs"]
        out.append(
            f"- the SB3 VecEnv at {n} envs at least as fast as SB3's `DummyVecEnv` over gymnasium's CartPole: "
            f"{sb3:.2f}x its time per call, {_verdict(sb3 <= 1)}"
        )
    return out


def markdown(
    rows, header: str, prints: list[Footprint] = (), bandwidth: float | None = None, extras: dict | None = None
) -> str:
    extras = extras or {}
    table = _table(rows)
    lim = limits(rows, prints, bandwidth)
    present = [lib for lib in LIBRARIES if any(lib in v for v in table.values())]
    goals = targets(rows, prints, bandwidth)
    if "single_env" in extras:
        goals += single_env_targets(extras["single_env"])
    lines = [header, "", "## Targets", "", *goals, "", "## Steps per second", ""]
    cols = [SHORT.get(lib, lib) for lib in present]
    lines.append(
        "| env | envs | "
        + " | ".join(cols)
        + " | vec / gymnax | vmap / gymnax | vec / gymnasium | vec / reference loop | limit | vec / limit |"
    )
    lines.append("|---|---:|" + "---:|" * (len(cols) + 6))
    for (env_id, n), libs in table.items():

        def cell(lib, libs=libs):
            return f"{libs[lib].steps_per_second:,.0f}" if lib in libs else "-"

        def ratio(a, b, libs=libs):
            x = _ratio(libs, a, b)
            return f"{x:.2f}x" if x is not None else "-"

        ref = next((r for r in ("minatar", "bsuite") if r in libs), "gymnasium" if n == 1 else None)
        lines.append(
            f"| {env_id} | {n:,} | "
            + " | ".join(cell(lib) for lib in present)
            + f" | {ratio('jaxenvs make_vec', 'gymnax')} | {ratio('jaxenvs vmap', 'gymnax')}"
            + f" | {ratio('jaxenvs make_vec', 'gymnasium') if n > 1 else '-'}"
            + f" | {ratio('jaxenvs make_vec', ref) if ref and n == 1 else '-'}"
            + f" | {limit_cell(lim.get((env_id, n), {}))} |"
        )
    section = limit_section(rows, prints, bandwidth)
    if section:
        lines += ["", *section]
    if "profiles" in extras:
        lines += ["", *profile_section(extras["profiles"], extras.get("reprofiled"))]
    if "single_env" in extras:
        lines += ["", *single_env_section(extras["single_env"], extras.get("clock", "wall"))]
    if prints:
        lines += ["", *memory_table(rows, prints)]
    lines += [
        "",
        "## Compile seconds and memory (MB)",
        "",
        "Compile: `jax.jit(...).lower(key).compile()` of the whole rollout. Memory: XLA's `memory_analysis` "
        "of the compiled rollout (arguments + outputs + temporaries) for JAX libraries; `tracemalloc`'s peak "
        "during one run for Python ones (envpool's C++ allocations not seen).",
        "",
        "| env | envs | compile make_vec | compile vmap | compile gymnax | "
        + " | ".join(f"MB {c}" for c in cols)
        + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(cols),
    ]
    for (env_id, n), libs in table.items():

        def comp(lib, libs=libs):
            r = libs.get(lib)
            return f"{r.compile_seconds:.2f}" if r is not None and r.compile_seconds is not None else "-"

        def mem(lib, libs=libs):
            r = libs.get(lib)
            return f"{r.memory_mb:.2f}" if r is not None and r.memory_mb is not None else "-"

        lines.append(
            f"| {env_id} | {n:,} | {comp('jaxenvs make_vec')} | {comp('jaxenvs vmap')} | {comp('gymnax')} | "
            + " | ".join(mem(lib) for lib in present)
            + " |"
        )
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = list(dict.fromkeys(r.env_id for r in rows))
    cols = min(4, len(ids))
    nrows = (len(ids) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.1 * nrows), squeeze=False)
    for ax, env_id in zip(axes.flat, ids):
        for lib in LIBRARIES:
            pts = sorted((r.num_envs, r.steps_per_second) for r in rows if r.env_id == env_id and r.library == lib)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=SHORT.get(lib, lib))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(env_id, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(ids) :]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("num_envs", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("steps/s", fontsize=8)
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=len(handles), fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=80)


def _device() -> str:
    d = jax.devices()[0]
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{d.platform} ({d.device_kind}; {cpu}; {os.cpu_count()} cores), jax {jax.__version__}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ids", nargs="+", default=peer_ids())
    p.add_argument("--num-envs", nargs="+", type=int, default=[1, 64, 1024, 8192])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: this process's CPU time, the process pinned to one core (steadier on a shared "
        "machine; run XLA on one thread)",
    )
    p.add_argument(
        "--libraries",
        nargs="+",
        default=list(LIBRARIES),
        choices=LIBRARIES,
        metavar="LIBRARY",
        help="time only these (default: all of them): " + ", ".join(f"'{lib}'" for lib in LIBRARIES),
    )
    p.add_argument("--out", default="docs/benchmarks")
    p.add_argument("--import-time", action="store_true", help="also measure import times (benchmarks/import_time.py)")
    p.add_argument("--from-json", help="render the markdown and plot again from a run's saved <out>.json")
    p.add_argument(
        "--reprofile",
        action="store_true",
        help="with --from-json: profile the saved run's misses again with this checkout's code (after a "
        "refactor moved the source lines the tables name) and save them into the json",
    )
    p.add_argument(
        "--single-env",
        action="store_true",
        help="also measure the single-env ways out (benchmarks/single_env.py) after the table",
    )
    p.add_argument(
        "--profile-misses",
        action="store_true",
        help="also profile each env that misses a target (benchmarks/profile_kernels.py) after the table",
    )
    p.add_argument(
        "--processes",
        type=int,
        default=1,
        help="measure in N processes side by side, process i taking ids[i::N] (with --clock cpu, each "
        "pinned to its own core, in turn over the cores), and merge their rows into one table",
    )
    args = p.parse_args(argv)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text())
        rows = [Result(**r) for r in saved["rows"]]
        header = saved["header"]
        prints = [Footprint(**f) for f in saved.get("footprints", [])]
        bandwidth = saved.get("bandwidth")
        extras = saved.get("extras", {})
        if args.reprofile:
            if hasattr(os, "sched_setaffinity"):
                pin_to_one_core()
            extras["profiles"] = profile_misses(rows, prints, bandwidth)
            extras["reprofiled"] = time.strftime("%Y-%m-%d")
            _save(Path(args.from_json).with_suffix(""), header, rows, prints, bandwidth, extras)
    else:
        if args.processes > 1:
            rows, header, bandwidth, prints = measure_in_processes(args, argv)
        else:
            rows, header, bandwidth = measure(args, argv)
            prints = [f for env_id in args.ids for f in footprints(env_id)]
        extras = measure_extras(args, rows, prints, bandwidth)
        _save(out, header, rows, prints, bandwidth, extras)
    md = markdown(rows, header, prints, bandwidth, extras)
    plot(rows, out.with_suffix(".png"))
    md += f"\n\n![steps/s against batch size]({out.with_suffix('.png').name})\n"
    notes = Path(__file__).with_name("notes.md")
    if notes.exists():
        md += "\n" + notes.read_text()
    out.with_suffix(".md").write_text(md)
    print(md)


def measure_extras(args, rows, prints: list[Footprint], bandwidth: float | None) -> dict:
    """`--single-env` and `--profile-misses`, run in this process after the table, alone on the machine."""
    extras: dict = {}
    if not (args.single_env or args.profile_misses):
        return extras
    clock = time.perf_counter
    if args.clock == "cpu" and hasattr(os, "sched_setaffinity"):
        pin_to_one_core()
        clock = time.process_time
    if args.profile_misses:
        extras["profiles"] = profile_misses(rows, prints, bandwidth)
    if args.single_env:
        sys.path.insert(0, str(Path(__file__).parent))
        import single_env

        print("measuring the single-env ways out")
        extras["single_env"] = single_env.measure_all(steps=5000, runs=7, num_envs=8, clock=clock)
        extras["clock"] = args.clock
    return extras


def _save(out: Path, header: str, rows: list, prints: list, bandwidth: float | None, extras: dict) -> None:
    """Write a run's rows to `<out>.json` (what `--from-json` reads)."""
    saved = {
        "header": header,
        "rows": [dataclasses.asdict(r) for r in rows],
        "footprints": [dataclasses.asdict(f) for f in prints],
        "bandwidth": bandwidth,
        "extras": extras,
    }
    out.with_suffix(".json").write_text(json.dumps(saved))


def measure_in_processes(args, argv):
    """`--processes N`: this script again in N child processes side by side, child i measuring
    `ids[i::N]` into a part file (pinned, with `--clock cpu`, to core i modulo the cores this
    process may use), then the parts merged: rows and footprints in `--ids` order, the copy
    bandwidth the median of the children's (each measures it at its start), one header."""
    import statistics
    import tempfile

    argv = list(sys.argv[1:] if argv is None else argv)
    # the options each child gets its own of, or (the extras) none: the parent runs those after
    own = {"--ids", "--out", "--processes", "--import-time", "--single-env", "--profile-misses"}
    passed, skip = [], False
    for a in argv:
        if a.startswith("--"):
            skip = a.split("=")[0] in own
        if not skip:
            passed.append(a)
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        children = []
        for i in range(args.processes):
            ids = args.ids[i :: args.processes]
            if not ids:
                continue
            part = Path(tmp) / f"part{i}"
            cmd = [sys.executable, __file__, *passed, "--ids", *ids, "--out", str(part)]
            cmd += ["--import-time"] if args.import_time and i == 0 else []  # measured once
            core = cores[i % len(cores)] if cores and args.clock == "cpu" else None
            pin = (lambda core=core: os.sched_setaffinity(0, {core})) if core is not None else None
            log = open(Path(tmp) / f"part{i}.log", "w")
            children.append((part, log, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, preexec_fn=pin)))
            print(f"process {i}: {len(ids)} ids" + (f" on core {core}" if core is not None else ""))
        for part, log, child in children:
            if child.wait() != 0:
                log.close()
                raise RuntimeError(f"{part.name} failed:\n{Path(log.name).read_text()[-4000:]}")
            log.close()
        parts = [json.loads(part.with_suffix(".json").read_text()) for part, _, _ in children]
    order = {env_id: i for i, env_id in enumerate(args.ids)}
    rows = sorted((Result(**r) for p in parts for r in p["rows"]), key=lambda r: (order[r.env_id], r.num_envs))
    prints = sorted((Footprint(**f) for p in parts for f in p["footprints"]), key=lambda f: order[f.env_id])
    bandwidths = [p["bandwidth"] for p in parts]
    bandwidth = statistics.median(bandwidths)
    lines = parts[0]["header"].split("\n")
    command = " ".join(["python", "benchmarks/throughput.py", *argv])
    minutes = (time.perf_counter() - t0) / 60
    lines[2] = (
        f"Generated by `{command}` on {datetime.date.today().isoformat()} in {minutes:.1f} minutes (wall), in"
        f" {len(parts)} processes side by side, process i measuring ids[i::{len(parts)}]; each measured the"
        f" copy bandwidth at its start ({', '.join(f'{b / 1e9:.2f}' for b in bandwidths)} GB/s): the limits"
        f" below use the median, {bandwidth / 1e9:.2f} GB/s."
    )
    pinned = ", every library of a process pinned to its core"
    lines[3] = re.sub(r", every library pinned to core \d+", pinned, lines[3])
    for i, line in enumerate(lines):
        if line.startswith("Load average"):
            lines[i] = "Load average at the end: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + "."
    return rows, "\n".join(lines), bandwidth, prints


def pin_to_one_core() -> int:
    """Pin every thread of this process (and the threads it starts later) to one core, the
    last it may run on, and return it. Unpinned, a batch-1 rollout, thousands of tiny XLA
    kernels, ran at 115k or 300k steps/s from one process to the next on this 2-core machine
    (where XLA's threads landed); pinned, within 10%."""
    core = max(os.sched_getaffinity(0))
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), {core})
        except OSError:  # a thread that has ended
            pass
    return core


def measure(args, argv):
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    pinned = pin_to_one_core() if args.clock == "cpu" and hasattr(os, "sched_setaffinity") else None
    t0 = time.perf_counter()
    bandwidth = copy_bandwidth(clock)
    print(f"copy bandwidth: {bandwidth / 1e9:.2f} GB/s (read + written)")
    rows = run(args.ids, args.num_envs, args.repeats, clock, libraries=args.libraries)
    elapsed = time.perf_counter() - t0
    flags = os.environ.get("XLA_FLAGS", "")
    command = " ".join(["python", "benchmarks/throughput.py", *(argv if argv is not None else sys.argv[1:])])
    header = "\n".join(
        [
            "# Benchmarks",
            "",
            f"Generated by `{command}` on {datetime.date.today().isoformat()} in {elapsed / 60:.1f} minutes.",
            f"Device: {_device()}. Clock: {'wall' if args.clock == 'wall' else 'process CPU time'}"
            + (f", every library pinned to core {pinned}" if pinned is not None else "")
            + (f"; XLA_FLAGS=`{flags}`" if flags else "")
            + ".",
            "Load average at the end: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()) + ".",
            "",
            "Random actions, the same scheme for every library: per step one draw for the whole batch"
            " (`jaxenvs.bench.random_actions`: 16 random bits per env for discrete actions; numpy libraries one"
            " `Generator` call). JAX rollouts are one jitted `lax.scan` that consumes what training consumes:"
            " the observation carried from the last step is read at the start of each step, as a policy"
            " reads what it acts on, the way a network's first layer reads it: converted to float32 whatever"
            " its dtype and multiplied by a column of fixed weights (one per element of an env's observation:"
            " `jaxenvs.bench.consume`), so that no library is charged for its dtype and XLA can skip no"
            " element; the sum is kept in the carry and the final state and observation returned;"
            " `make_vec rewards only` keeps only rewards and state (XLA may then drop the"
            " observation: the difference is its cost)"
            " (`make_vec`: `jaxenvs.make_vec`; vmap and gymnax: `jax.vmap(env.step)` with one key per env);"
            " gymnasium is its numpy `CartPoleVectorEnv`, a `SyncVectorEnv` elsewhere, and at batch size 1"
            " one env in a Python loop, like `minatar` and `bsuite`. Every env runs its library's defaults"
            " (jaxenvs' MinAtar games: six actions and sticky actions 0.1, as MinAtar; gymnax's: the minimal"
            " action set, no sticky actions), except DeepSea, built at size 10 in both. Figures are medians of"
            f" {args.repeats} runs, the libraries of one row taking turns run by run.",
        ]
    )
    if args.import_time:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).with_name("import_time.py")), "--repeats", "7"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        header += "\n\n## Import time\n\n" + out.strip()
    return rows, header, bandwidth


if __name__ == "__main__":
    main()
