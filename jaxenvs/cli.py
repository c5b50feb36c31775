"""`jaxenvs list | parity | report | bench | render`.

Bad input: every argument is checked before any work starts; a usage error prints one
`jaxenvs: error: ...` line and exits 2, a runtime error one `error: ...` line and exits 1;
never a traceback. Nothing printed goes through rich markup (`[brax]` in an install hint
stays), user-given text in progress lines is escaped.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


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


def _progress():
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
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
    from jaxenvs.parity.report import markdown_table, rich_table, run_summary

    _check_ids(args.ids)
    if args.markdown:
        _check_output_path(args.markdown)
    ids = list(args.ids) if args.ids else parity_ids()
    results = []
    with _progress() as progress:
        task = progress.add_task("parity", total=len(ids))
        for env_id in ids:
            progress.update(task, description=f"parity {env_id}")
            results.append(run_parity(env_id, scale=args.scale, seed=args.seed))
            progress.advance(task)
    console = _console()
    console.print(rich_table(results))
    console.print(run_summary(results), markup=False)
    for r in results:
        if args.verbose or not (r.passed or r.skipped):  # a failure always says where
            console.print(r.summary(), markup=False)
    if args.markdown:
        from pathlib import Path

        Path(args.markdown).write_text(markdown_table(results, scale=args.scale))
        console.print(f"wrote {args.markdown}")
    return 0 if all(r.passed or r.skipped for r in results) else 1


def _report_skip(env_id: str, extra: str | None, run_all: bool) -> str | None:
    """Why `jaxenvs report` does not roll `env_id` out, or None: the library of its extra
    missing, an id broken inside its library; unless `--all`, an id that downloads data or is
    too slow for a quick report on a CPU (its registration's `notes` say why)."""
    import importlib.util

    from jaxenvs.registry import EXTRA_LIBRARIES, spec

    notes = spec(env_id).notes
    library = EXTRA_LIBRARIES.get(extra or "")
    if library is not None and importlib.util.find_spec(library) is None:
        return f'needs pip install "jaxenvs[{extra}]"'
    if "broken_upstream" in notes:
        return f"not run: {notes['broken_upstream']}"
    if run_all:
        return None
    if "needs_download" in notes:
        return f"skipped: {notes['needs_download']} (--all runs it)"
    if "slow_on_cpu" in notes:
        return f"skipped: {notes['slow_on_cpu']}; run `jaxenvs bench {env_id}` (or report --all)"
    return None


def cmd_report(args: argparse.Namespace) -> int:
    import warnings

    from rich.console import Console

    # the references' deprecation notices (gymnasium's CartPole-v0) would break up the tables
    warnings.simplefilter("ignore", DeprecationWarning)

    from jaxenvs.bench import rollout_throughput
    from jaxenvs.parity import has_parity, run_parity
    from jaxenvs.registry import spec

    ids = _select(args.ids, args.family)
    sweeps = [i for i in ids if i.startswith("bsuite/")]
    if sweeps and not args.ids and not args.sweeps:
        # bsuite's experiment ids are settings of the base envs reported above them
        ids = [i for i in ids if not i.startswith("bsuite/")]
    else:
        sweeps = []
    rows = []
    failed = False
    with _progress() as progress:
        task = progress.add_task("report", total=len(ids))
        for env_id in ids:
            progress.update(task, description=f"report {env_id}")
            s = spec(env_id)
            skip = _report_skip(env_id, s.extra, args.all)
            try:
                if skip is not None:
                    speed, compile_s = skip, "-"
                else:
                    tp = rollout_throughput(env_id, num_envs=args.num_envs, num_steps=args.num_steps, repeats=3)
                    speed, compile_s = f"{tp.steps_per_second / 1e6:.2f}M", f"{tp.compile_seconds:.1f}"
            except ImportError as e:
                speed, compile_s = f"needs {e.name}", "-"
            except FileNotFoundError:  # e.g. DataNotFoundError: a data set the user has not provided
                speed, compile_s = "needs data", "-"
            except Exception as e:  # noqa: BLE001 - one id failing must not hide the other rows
                speed, compile_s = f"failed: {type(e).__name__}: {(str(e).splitlines() or [''])[0][:100]}", "-"
                failed = True
            if has_parity(env_id) and not args.no_parity:
                r = run_parity(env_id, scale=args.scale)
                verdict = r.verdict if r.skipped is None else f"skipped: {r.skipped}"
                failed |= r.verdict == "FAIL"
            else:
                verdict = "-"
            rows.append((env_id, s.family, speed, compile_s, verdict, s.reference or "-"))
            progress.advance(task)
    console = Console()
    title = f"jaxenvs report: random-action rollout of {args.num_envs} envs x {args.num_steps} steps"
    print_report(console, rows, title, verbose=args.verbose)
    if sweeps:
        console.print(
            f"{len(sweeps)} bsuite sweep ids (settings of the bsuite envs above) not rolled out: --sweeps adds them.",
            markup=False,
        )
    return 1 if failed else 0


# `jaxenvs report` prints every column (compile time, reference, full messages) from this width up
REPORT_WIDE_COLUMNS = 140


def _is_figure(text: str) -> bool:
    return text[:1].isdigit()


def _short(text: str) -> str:
    """A message in a compact cell: its first words (the whole message goes in a note)."""
    if text.startswith("needs pip install"):
        return "not installed"
    return text.split(":", 1)[0].split(" (", 1)[0]


def _family_summary(family: str, rows: list[tuple[str, ...]]) -> list[str]:
    """How many ids, the rolled-out ones' median and range of steps/s, and the verdicts: the
    parts of one summary line."""
    from collections import Counter

    speeds = sorted(float(r[2][:-1]) for r in rows if _is_figure(r[2]))
    head = f"{family}: {len(rows)} ids"
    if len(speeds) < len(rows):
        head += f", {len(rows) - len(speeds)} not rolled out"
    parts = [head]
    if speeds:
        half = len(speeds) // 2
        median = speeds[half] if len(speeds) % 2 else (speeds[half - 1] + speeds[half]) / 2
        parts.append(f"median {median:.2f}M steps/s ({speeds[0]:.2f}-{speeds[-1]:.2f}M)")
    verdicts = Counter(_short(r[4]) for r in rows if r[4] != "-")
    if verdicts:
        parts.append("parity " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    return parts


def print_report(console, rows: list[tuple[str, ...]], title: str, verbose: bool = False) -> None:
    """`jaxenvs report`'s output: one table per family with a summary line under it.

    rows: `(id, family, steps/s, compile s, parity, reference)`; a steps/s or parity cell that is
    not a figure or verdict is a message. Compact (id, steps/s, parity; messages shortened, in full
    as notes under the table) unless `verbose` or the terminal is `REPORT_WIDE_COLUMNS` wide.
    Every cell is escaped: library names and pip extras in brackets are text, not markup."""
    from rich.markup import escape
    from rich.table import Table

    wide = verbose or console.width >= REPORT_WIDE_COLUMNS
    console.print(title, style="bold", markup=False)
    families: dict[str, list[tuple[str, ...]]] = {}
    for row in rows:
        families.setdefault(row[1], []).append(row)
    for family, family_rows in families.items():
        table = Table(title=family, title_justify="left", title_style="bold", expand=False)
        if wide:
            for col in ("id", "steps/s", "compile s", "parity", "reference"):
                table.add_column(col, overflow="fold")
            for env_id, _, speed, compile_s, verdict, reference in family_rows:
                table.add_row(*(escape(c) for c in (env_id, speed, compile_s, verdict, reference)))
            console.print(table)
        else:
            table.add_column("id", no_wrap=True)
            table.add_column("steps/s", justify="right", no_wrap=True)
            table.add_column("parity", no_wrap=True)
            notes: dict[str, list[str]] = {}  # message (the id replaced by <id>) -> ids
            for env_id, _, speed, _, verdict, _ in family_rows:
                cells = [speed if _is_figure(speed) else _short(speed), _short(verdict)]
                for full, shown in ((speed, cells[0]), (verdict, cells[1])):
                    if full != shown:
                        notes.setdefault(full.replace(env_id, "<id>"), []).append(env_id)
                table.add_row(escape(env_id), *(escape(c) for c in cells))
            console.print(table)
            for message, ids in notes.items():
                if len(ids) == 1:
                    message = message.replace("<id>", ids[0])
                console.print(f"{', '.join(ids)}: {message}", markup=False, style="dim")
        parts = _family_summary(family, family_rows)
        line = "; ".join(parts)
        if len(line) > console.width and len(parts) > 1:  # break between parts, never inside one
            line = "; ".join(parts[:-1]) + ";\n  " + parts[-1]
        console.print(line, markup=False, soft_wrap=True)
        console.print()


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
    p.add_argument("ids", nargs="*")
    p.add_argument("--family")
    p.add_argument("--num-envs", type=_positive_int, default=1024)
    p.add_argument("--num-steps", type=_positive_int, default=100)
    p.add_argument("--scale", type=_positive_float, default=0.25, help="parity size (1.0 = the full suite)")
    p.add_argument("--no-parity", action="store_true")
    p.add_argument("--sweeps", action="store_true", help="also roll out every bsuite sweep id")
    p.add_argument(
        "-v", "--verbose", action="store_true", help="every column and full messages, whatever the terminal's width"
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="also roll out the ids skipped by default (data downloads, too slow on a CPU)",
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
