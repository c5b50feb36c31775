"""`jaxenvs list | parity | report | bench | fingerprint | render | audit`.

Read at 80 columns and in pipes: an id is never cut, a table has only the columns the terminal
fits, wrapped lines stay indented, and piped output has no escape codes (`jaxenvs list` piped is
one id a line). Bad input: every argument is checked before any work starts; a usage error
prints one `jaxenvs: error: ...` line and exits 2, a runtime error one `error: ...` line and
exits 1; never a traceback; an unknown id names the closest ones and `jaxenvs list`. Nothing
printed goes through rich markup (`[brax]` in an install hint stays), user-given text in
progress lines is escaped.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from jaxenvs.cli._common import Parser, UsageError, positive_float, positive_int, seed, unknown_id
from jaxenvs.cli.audit import cmd_audit
from jaxenvs.cli.bench import cmd_bench
from jaxenvs.cli.envs import cmd_fingerprint, cmd_list, cmd_render
from jaxenvs.cli.parity import cmd_parity
from jaxenvs.cli.report import cmd_report
from jaxenvs.registry import UnknownEnvError

__all__ = ["UsageError", "build_parser", "main"]

_DESCRIPTION = (
    "RL environments as pure JAX functions, from the command line: list the ids, check them "
    "against their reference implementations, time them, fingerprint and record them."
)
_EPILOG = (
    "`jaxenvs COMMAND --help` gives a command's options and their defaults. Exit status: 0 on "
    "success, 1 when a check fails or nothing could be checked or run, 2 for bad arguments, "
    "130 when interrupted (Ctrl-C; what finished is printed)."
)


def build_parser() -> argparse.ArgumentParser:
    """The `jaxenvs` argument parser: one subcommand each, its function as `fn`.

    Every option's help names its default; no help text names a file of the repository.

    Returns:
        The parser; `parse_args` gives a namespace whose `fn(args)` runs the command.
    """
    from jaxenvs import __version__

    parser = Parser(prog="jaxenvs", description=_DESCRIPTION, epilog=_EPILOG)
    parser.add_argument("--version", action="version", version=f"jaxenvs {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")

    p = command("list", "list the registered ids and which of them can run here")
    p.add_argument("--family", help="only this family's ids (default: every family)")
    p.add_argument("--runnable", action="store_true", help="only the ids that can run here as installed")
    p.add_argument(
        "--plain",
        action="store_true",
        help="one whole id per line and nothing else, as when the output is not a terminal "
        "(default on a terminal: a table saying which ids can run here)",
    )
    p.set_defaults(fn=cmd_list)

    p = command("parity", "check envs against their reference implementations")
    p.add_argument("ids", nargs="*", metavar="ID", help="the ids to check (default: every id with a parity check)")
    p.add_argument(
        "--scale",
        type=positive_float,
        default=1.0,
        metavar="X",
        help="multiplies the number of transitions compared (default: %(default)s, the full size)",
    )
    p.add_argument("--seed", type=seed, default=0, help="the seed of both sides' random draws (default: %(default)s)")
    p.add_argument(
        "--markdown",
        metavar="PATH",
        help="also write the table as a markdown page to PATH, overwriting it but keeping the power "
        "section it has (default: no page)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="print every check of every env, not only failures")
    p.set_defaults(fn=cmd_parity)

    p = command("report", "throughput and parity verdict of every env, one table per family")
    p.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="the ids to report (default: every built-in id and each adapted family's representatives)",
    )
    p.add_argument("--family", help="only this family's ids (default: every family; `jaxenvs list` names them)")
    p.add_argument(
        "--num-envs", type=positive_int, default=1024, metavar="N", help="envs in each rollout (default: %(default)s)"
    )
    p.add_argument(
        "--num-steps", type=positive_int, default=100, metavar="N", help="steps of each rollout (default: %(default)s)"
    )
    p.add_argument(
        "--scale",
        type=positive_float,
        default=0.25,
        metavar="X",
        help="parity size, 1.0 being the full suite (default: %(default)s)",
    )
    p.add_argument("--seed", type=seed, default=0, help="the parity checks' seed (default: %(default)s)")
    p.add_argument("--no-parity", action="store_true", help="throughput only, no parity check")
    p.add_argument("--sweeps", action="store_true", help="also roll out every bsuite sweep id")
    p.add_argument(
        "-v", "--verbose", action="store_true", help="every column and full messages, whatever the terminal's width"
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="roll out every id that can run here: each family's ids besides its representatives, "
        "and the ids that download data",
    )
    p.set_defaults(fn=cmd_report)

    p = command("bench", "throughput of chosen envs at several batch sizes")
    p.add_argument(
        "ids", nargs="*", metavar="ID", help="the ids to time (default: every id of --family, or else every id)"
    )
    p.add_argument("--family", help="time this family's ids (default: every family)")
    p.add_argument(
        "--num-envs",
        type=positive_int,
        nargs="+",
        default=[1, 64, 1024, 8192],
        metavar="N",
        help="the batch sizes, each timed in turn (default: 1 64 1024 8192)",
    )
    p.add_argument(
        "--num-steps",
        type=positive_int,
        default=100,
        metavar="N",
        help="steps of each timed run (default: %(default)s)",
    )
    p.add_argument(
        "--repeats",
        type=positive_int,
        default=5,
        metavar="N",
        help="timed runs of each batch size; the median is reported (default: %(default)s)",
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="also time gymnax, gymnasium, envpool and the reference loops where installed, in one "
        "process, taking turns (default: jaxenvs' make_vec alone)",
    )
    p.set_defaults(fn=cmd_bench)

    p = command("fingerprint", "hash of an id's fixed-key rollout, compared with the pinned one (cite it in a paper)")
    p.add_argument("ids", nargs="+", metavar="ID", help="the ids to fingerprint (one or more)")
    p.set_defaults(fn=cmd_fingerprint)

    p = command("audit", "other libraries' ports of our ids under our parity harness")
    p.add_argument("peers", nargs="*", metavar="PEER", help="the peers to audit (default: every one)")
    p.add_argument(
        "--scale",
        type=positive_float,
        default=0.25,
        metavar="X",
        help="parity size, 1.0 being the full suite (default: %(default)s)",
    )
    p.add_argument("--seed", type=seed, default=0, help="the parity checks' seed (default: %(default)s)")
    p.set_defaults(fn=cmd_audit)

    p = command("render", "record a random policy to a GIF or MP4")
    p.add_argument("id", metavar="ID", help="the id to record (`jaxenvs list` lists them)")
    p.add_argument(
        "--steps", type=positive_int, default=200, metavar="N", help="steps of the rollout (default: %(default)s)"
    )
    p.add_argument(
        "--out",
        default="run.gif",
        metavar="PATH",
        help="the video to write, .gif or .mp4; a file already there is overwritten "
        "(default: %(default)s in the current directory)",
    )
    p.add_argument("--seed", type=seed, default=0, help="the seed of the rollout (default: %(default)s)")
    p.add_argument(
        "--fps",
        type=positive_int,
        default=30,
        metavar="N",
        help="frames per second of the video (default: %(default)s)",
    )
    p.set_defaults(fn=cmd_render)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `jaxenvs` with `argv`.

    Args:
        argv: The arguments after the program's name; None means the command line's
            (`sys.argv[1:]`).

    Returns:
        The exit status: 0, 1 (a runtime error, one `error: ...` line), 2 (a usage error,
        one line), 130 (interrupted).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except UsageError as e:
        print(f"{parser.prog} {args.command}: error: {e}", file=sys.stderr)
        return 2
    except UnknownEnvError as e:  # an id met after the arguments were checked
        print(f"error: {unknown_id(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        lines = str(e).strip().splitlines() or [""]
        detail = lines[0] if isinstance(e, (ImportError, OSError, ValueError)) else f"{type(e).__name__}: {lines[0]}"
        print(f"error: {detail}", file=sys.stderr)
        return 1
