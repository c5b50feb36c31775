"""The GPU figures: `throughput.py`'s table on a GPU (jaxenvs beside gymnax, on the same GPU),
and the parity checks of every built-in id run on it, within a time budget.

    python benchmarks/gpu.py --out /tmp/gpu                 # measure: gpu.json, gpu-parity.json
    python benchmarks/gpu.py --render /tmp/gpu --doc docs/benchmarks-gpu.md   # the page

Each id is measured whole or not at all: after each id the rows so far are saved, and no new id
is started once its part of the budget (`--throughput-minutes`, `--parity-minutes`) is spent,
so a run cut short still leaves every finished id's figures. The page says which ids ran.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import throughput  # noqa: E402  (the table and its scheme: benchmarks/throughput.py)

GPU_LIBRARIES = ("jaxenvs make_vec", "jaxenvs vmap", "gymnax")
# make_vec's CPU strategy run on the GPU, for the page's before/after of the reset engine
CAPACITY = "jaxenvs make_vec capacity"


def measure_throughput(out: Path, ids, sizes, repeats: int, minutes: float) -> None:
    from jaxenvs.bench import footprints

    t0 = time.perf_counter()
    bandwidth = throughput.copy_bandwidth()
    print(f"copy bandwidth: {bandwidth / 1e9:.1f} GB/s (read + written)", flush=True)
    rows, prints, done = [], [], []
    for env_id in ids:
        if time.perf_counter() - t0 > minutes * 60:
            print(f"throughput budget spent: {len(done)} of {len(ids)} ids measured", flush=True)
            break
        rows += throughput.run([env_id], sizes, repeats, time.perf_counter, libraries=(*GPU_LIBRARIES, CAPACITY))
        prints += footprints(env_id)
        done.append(env_id)
        saved = {
            "device": throughput._device(),
            "command": " ".join(["python", "benchmarks/gpu.py", *sys.argv[1:]]),
            "date": datetime.date.today().isoformat(),
            "minutes": (time.perf_counter() - t0) / 60,
            "ids": done,
            "repeats": repeats,
            "rows": [dataclasses.asdict(r) for r in rows],
            "footprints": [dataclasses.asdict(f) for f in prints],
            "bandwidth": bandwidth,
        }
        (out / "gpu.json").write_text(json.dumps(saved))


def measure_parity(out: Path, scale: float, minutes: float, skip=()) -> None:
    from jaxenvs.parity import parity_ids, run_parity
    from jaxenvs.registry import spec

    t0 = time.perf_counter()
    ids = [i for i in parity_ids() if spec(i).family in ("classic", "toy_text", "minatar", "bsuite", "misc")]
    ids = [i for i in ids if i not in skip]
    rows = []
    for env_id in ids:
        if time.perf_counter() - t0 > minutes * 60:
            print(f"parity budget spent: {len(rows)} of {len(ids)} ids checked", flush=True)
            break
        t1 = time.perf_counter()
        r = run_parity(env_id, scale=scale)
        verdict = "skipped" if r.skipped else r.verdict
        rows.append(
            {
                "env_id": env_id,
                "verdict": verdict,
                "checks": len(r.checks),
                "failures": [c.name for c in r.failures()] if not r.skipped else [],
                "skipped": r.skipped,
                "seconds": time.perf_counter() - t1,
            }
        )
        print(f"parity {env_id}: {verdict} ({len(r.checks)} checks, {rows[-1]['seconds']:.0f} s)", flush=True)
        if not (r.passed or r.skipped):
            print(r.summary(), flush=True)
        (out / "gpu-parity.json").write_text(json.dumps({"scale": scale, "of": len(ids) + len(skip), "rows": rows}))


def _drop_columns(md: str, names: set[str]) -> str:
    """`md` with the named columns taken out of every table whose header has them."""
    out, drop = [], None
    for line in md.split("\n"):
        if not line.startswith("|"):
            drop = None
            out.append(line)
            continue
        cells = line.strip("|").split("|")
        if drop is None:
            drop = {i for i, c in enumerate(cells) if c.strip() in names}
        out.append("|" + "|".join(c for i, c in enumerate(cells) if i not in drop) + "|")
    return "\n".join(out)


def strategy_section(rows) -> list[str]:
    """make_vec's default (`"auto"`: `"select"` on a GPU) beside its CPU strategy run on the GPU."""
    by = {}
    for r in rows:
        by.setdefault((r.env_id, r.num_envs), {})[r.library] = r.steps_per_second
    lines = [
        "## make_vec's reset strategies on the GPU",
        "",
        '`make_vec` (`reset_strategy="auto"`, which is `"select"` on a GPU: every env reset and selected,'
        ' no control flow) beside `reset_strategy="capacity"` (the CPU\'s choice: a `cond` and `while`'
        " passes over the finished envs, each decided on the host), in the same run.",
        "",
        "| env | envs | select / gymnax | capacity / gymnax | select / capacity |",
        "|---|---:|---:|---:|---:|",
    ]
    for (env_id, n), libs in by.items():
        sel, cap, gym = libs.get("jaxenvs make_vec"), libs.get(CAPACITY), libs.get("gymnax")
        if sel is None or cap is None:
            continue
        ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "-"  # noqa: E731
        lines.append(f"| {env_id} | {n:,} | {ratio(sel, gym)} | {ratio(cap, gym)} | {ratio(sel, cap)} |")
    return lines


def render(folder: Path, doc: Path) -> None:
    from jaxenvs.bench import Footprint, Result

    tp = json.loads((folder / "gpu.json").read_text())
    rows = [Result(**r) for r in tp["rows"]]
    prints = [Footprint(**f) for f in tp["footprints"]]
    header = "\n".join(
        [
            "# Benchmarks on a GPU",
            "",
            f"Generated by `{tp['command']}` on {tp['date']} in {tp['minutes']:.1f} minutes.",
            f"Device: {tp['device']}. Clock: wall. Libraries: "
            + ", ".join(f"`{lib}`" for lib in GPU_LIBRARIES)
            + f", taking turns run by run, medians of {tp['repeats']} runs; the scheme of"
            " [the CPU page](benchmarks.md) (every step's observation consumed as a first layer would).",
            f"Ids measured in the time the GPU was lent: {len(tp['ids'])}.",
        ]
    )
    md = throughput.markdown(rows, header, prints, tp["bandwidth"])
    # the CPU page's targets name its batch sizes (64 to 8,192), and its limits need the
    # rewards-only rollout, not timed here: the GPU page keeps the ratios to gymnax
    for section in ("## Targets", "## Distance to the limit"):
        start = md.find(section)
        end = md.find("\n## ", start + 1)
        md = md[:start] + md[end + 1 :] if 0 <= start < end else md
    md = _drop_columns(md, {"vec / gymnasium", "vec / reference loop", "limit", "vec / limit"})
    md = md.rstrip("\n") + "\n\n" + "\n".join(strategy_section(rows)) + "\n"
    par = folder / "gpu-parity.json"
    if par.exists():
        p = json.loads(par.read_text())
        lines = [
            "",
            "## Parity on the GPU",
            "",
            f"`run_parity(env_id, scale={p['scale']})` for {len(p['rows'])} of the {p['of']} built-in ids with a"
            " reference, the env on the GPU and the reference on the CPU: the checks decide (distributions and"
            " tolerances), not bits.",
            "",
            "| env | verdict | checks | failed checks | seconds |",
            "|---|---|---:|---|---:|",
        ]
        for r in p["rows"]:
            fails = ", ".join(r["failures"]) or ("-" if not r["skipped"] else r["skipped"])
            lines.append(f"| {r['env_id']} | {r['verdict']} | {r['checks']} | {fails} | {r['seconds']:.0f} |")
        if p.get("note"):
            lines += ["", p["note"]]
        md += "\n" + "\n".join(lines) + "\n"
    notes = Path(__file__).with_name("notes-gpu.md")  # the explanations, written by hand
    if notes.exists():
        md += "\n" + notes.read_text()
    doc.write_text(md)
    print(f"wrote {doc}")


def main(argv=None) -> None:
    from jaxenvs.bench import peer_ids

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="/tmp/gpu", help="folder for gpu.json and gpu-parity.json")
    p.add_argument("--ids", nargs="+", default=peer_ids())
    p.add_argument("--num-envs", nargs="+", type=int, default=[1024, 16384, 131072])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--throughput-minutes", type=float, default=5.0)
    p.add_argument("--parity-minutes", type=float, default=3.0)
    p.add_argument("--parity-scale", type=float, default=0.5)
    p.add_argument("--parity-skip", nargs="*", default=[], help="ids checked by an earlier run")
    p.add_argument("--render", help="a folder a run wrote: render its page instead of measuring")
    p.add_argument("--doc", default="docs/benchmarks-gpu.md")
    args = p.parse_args(argv)
    if args.render:
        render(Path(args.render), Path(args.doc))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.throughput_minutes > 0:
        measure_throughput(out, args.ids, args.num_envs, args.repeats, args.throughput_minutes)
    if args.parity_minutes > 0:
        measure_parity(out, args.parity_scale, args.parity_minutes, skip=args.parity_skip)


if __name__ == "__main__":
    main()
