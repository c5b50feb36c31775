"""The subcommands on ids one at a time: `jaxenvs list`, `jaxenvs render ID`, `jaxenvs
fingerprint IDS`."""

from __future__ import annotations

import argparse

from jaxenvs.cli._common import UsageError, check_family, check_ids, console
from jaxenvs.sidetables import parity_of


def cmd_list(args: argparse.Namespace) -> int:
    """Print every registered id (of `--family`) with its family and reference.

    Args:
        args: The parsed `jaxenvs list` arguments (`family`).

    Returns:
        0.

    Raises:
        UsageError: For an unknown family (`check_family`).
    """
    from rich.table import Table

    from jaxenvs.registry import registered_envs, spec

    check_family(args.family)
    table = Table(title="jaxenvs environments")
    for col in ("id", "family", "reference"):
        table.add_column(col)
    for env_id in registered_envs(args.family):
        s = spec(env_id)
        table.add_row(env_id, s.family, parity_of(env_id).reference or "-")
    console().print(table)
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    """Record a random policy on `args.id` to a GIF or MP4.

    Args:
        args: The parsed `jaxenvs render` arguments (`id`, `steps`, `out`, `seed`, `fps`).

    Returns:
        0, after printing the path written.

    Raises:
        UsageError: For an unknown id, an output path that cannot be written, or an id whose
            env has no `render`.
    """
    from jaxenvs.export._bridge import renders
    from jaxenvs.export.video import check_writable, record
    from jaxenvs.registry import make

    check_ids([args.id])
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


def cmd_fingerprint(args: argparse.Namespace) -> int:
    """Print each id's behaviour fingerprint and whether it is the pinned one.

    Args:
        args: The parsed `jaxenvs fingerprint` arguments (`ids`).

    Returns:
        1 if a fingerprint differs from the one pinned under this jax version, else 0 (an id
        not pinned, or pinned under another jax version, is only printed).
    """
    from jaxenvs import fingerprint
    from jaxenvs.registry import spec

    for env_id in args.ids:
        spec(env_id)  # an unknown id is named before any work
    changed = 0
    for env_id in args.ids:
        same, text = fingerprint.compare(env_id)
        changed += same is False
        print(text)
    return 1 if changed else 0
