"""`jaxenvs list | parity | report | bench | fingerprint | render | audit`.

Bad input: every argument is checked before any work starts; a usage error prints one
`jaxenvs: error: ...` line and exits 2, a runtime error one `error: ...` line and exits 1;
never a traceback. Nothing printed goes through rich markup (`[brax]` in an install hint
stays), user-given text in progress lines is escaped.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from jaxenvs.cli._common import Parser, UsageError, positive_float, positive_int, seed
from jaxenvs.cli.audit import cmd_audit
from jaxenvs.cli.bench import cmd_bench
from jaxenvs.cli.envs import cmd_fingerprint, cmd_list, cmd_render
from jaxenvs.cli.parity import cmd_parity
from jaxenvs.cli.report import cmd_report

__all__ = ["UsageError", "build_parser", "main"]

# Deprecated aliases, kept for one release: `jaxenvs.cli` re-exported the report's internals.
# Import them from `jaxenvs.cli.report_plan` (the policy and rows) and
# `jaxenvs.cli.report_print` (the text) instead.
_DEPRECATED = {
    **dict.fromkeys(
        ["BROKEN", "DOWNLOAD", "FULL", "NOT_INSTALLED", "REST", "SMALL", "SMALL_ROLLOUT", "SWEEP"]
        + ["LeftOut", "ReportRow", "report_policy"],
        "jaxenvs.cli.report_plan",
    ),
    **dict.fromkeys(["print_family", "print_title"], "jaxenvs.cli.report_print"),
}


def __getattr__(name: str):
    """The deprecated aliases of `_DEPRECATED`, each with a `DeprecationWarning` naming its module."""
    if name not in _DEPRECATED:
        raise AttributeError(f"module 'jaxenvs.cli' has no attribute {name!r}")
    import importlib
    import warnings

    module = _DEPRECATED[name]
    warnings.warn(
        f"jaxenvs.cli.{name} is deprecated and will be removed in the next release: import it from {module}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), name)


def build_parser() -> argparse.ArgumentParser:
    """The `jaxenvs` argument parser: one subcommand each, its function as `fn`.

    Returns:
        The parser; `parse_args` gives a namespace whose `fn(args)` runs the command.
    """
    from jaxenvs import __version__

    parser = Parser(prog="jaxenvs", description=__doc__)
    parser.add_argument("--version", action="version", version=f"jaxenvs {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list registered environments")
    p.add_argument("--family")
    p.set_defaults(fn=cmd_list)

    p = sub.add_parser("parity", help="check envs against their reference implementations")
    p.add_argument("ids", nargs="*")
    p.add_argument("--scale", type=positive_float, default=1.0, help="multiplies the number of transitions compared")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--markdown", help="also write the table as markdown to this path")
    p.add_argument("-v", "--verbose", action="store_true", help="print every check")
    p.set_defaults(fn=cmd_parity)

    p = sub.add_parser("report", help="throughput and parity verdict of every env")
    p.add_argument(
        "ids",
        nargs="*",
        help="the ids to report (default: every built-in id and each adapted family's representatives)",
    )
    p.add_argument("--family", help="only this family's ids (`jaxenvs list` names the families)")
    p.add_argument("--num-envs", type=positive_int, default=1024, help="envs in each rollout")
    p.add_argument("--num-steps", type=positive_int, default=100, help="steps of each rollout")
    p.add_argument("--scale", type=positive_float, default=0.25, help="parity size (1.0 = the full suite)")
    p.add_argument("--seed", type=seed, default=0, help="the parity checks' seed")
    p.add_argument("--no-parity", action="store_true", help="throughput only")
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

    p = sub.add_parser("bench", help="throughput of chosen envs at several batch sizes")
    p.add_argument("ids", nargs="*")
    p.add_argument("--family")
    p.add_argument("--num-envs", type=positive_int, nargs="+", default=[1, 64, 1024, 8192])
    p.add_argument("--num-steps", type=positive_int, default=100)
    p.add_argument("--repeats", type=positive_int, default=5)
    p.add_argument(
        "--compare",
        action="store_true",
        help="also time gymnax, gymnasium, envpool and the reference loops where installed "
        "(benchmarks/throughput.py's comparison), in one process, taking turns",
    )
    p.set_defaults(fn=cmd_bench)

    p = sub.add_parser(
        "fingerprint", help="hash of an id's fixed-key rollout, compared with the pinned one (cite it in a paper)"
    )
    p.add_argument("ids", nargs="+")
    p.set_defaults(fn=cmd_fingerprint)

    p = sub.add_parser("audit", help="other libraries' ports of our ids under our parity harness")
    p.add_argument("peers", nargs="*", help="the peers to audit (default: every one)")
    p.add_argument("--scale", type=positive_float, default=0.25, help="parity size (1.0 = the full suite)")
    p.add_argument("--seed", type=seed, default=0)
    p.set_defaults(fn=cmd_audit)

    p = sub.add_parser("render", help="record a random policy to a GIF or MP4")
    p.add_argument("id")
    p.add_argument("--steps", type=positive_int, default=200)
    p.add_argument("--out", default="run.gif")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--fps", type=positive_int, default=30)
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
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - one line, never a traceback
        lines = str(e).strip().splitlines() or [""]
        detail = lines[0] if isinstance(e, (ImportError, OSError, ValueError)) else f"{type(e).__name__}: {lines[0]}"
        print(f"error: {detail}", file=sys.stderr)
        return 1
