"""The subcommands on ids one at a time: `jaxenvs list`, `jaxenvs render ID`, `jaxenvs
fingerprint IDS`."""

from __future__ import annotations

import argparse
import os
import sys

import jaxenvs
from jaxenvs.cli._common import UsageError, check_family, check_ids, console, plural, print_line, progress
from jaxenvs.registry import BROKEN_UPSTREAM, MISSING_EXTRA, NEEDS_DOWNLOAD


def cmd_list(args: argparse.Namespace) -> int:
    """Print the registered ids (of `--family`; only the runnable ones with `--runnable`).

    On a terminal that fits them, a table of each id's family, whether it can run here
    (`jaxenvs.registry.availability`) and, where there is room, its reference, then why the
    others cannot run. Else (piped, `--plain`, a narrow terminal) one whole id per line, and on
    stderr how many of them cannot run here.

    Args:
        args: The parsed `jaxenvs list` arguments (`family`, `runnable`, `plain`).

    Returns:
        0.

    Raises:
        UsageError: For an unknown family (`check_family`).
    """
    from jaxenvs.registry import availability, registered_envs, spec

    check_family(args.family)
    rows = [(env_id, spec(env_id).family, availability(env_id)) for env_id in registered_envs(args.family)]
    if args.runnable:
        rows = [row for row in rows if row[2].runnable]
    cannot = [a for _, _, a in rows if not a.runnable]
    out = console()
    table = None if args.plain or not out.is_terminal else _id_table(rows, out.width)
    if table is None:
        try:
            sys.stdout.write("".join(f"{env_id}\n" for env_id, _, _ in rows))
            sys.stdout.flush()
        except BrokenPipeError:  # `jaxenvs list | head`: the reader took what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        if cannot:
            print(
                f"note: {_cannot_run(cannot, len(rows))} (`jaxenvs list --runnable` leaves them out)", file=sys.stderr
            )
        return 0
    out.print(table)
    for line in _why_not(rows):
        print_line(out, [line])
    families = plural(len({family for _, family, _ in rows}), "family", "families")
    print_line(out, [f"{plural(len(rows), 'id')} in {families}, {len(rows) - len(cannot)} can run here"])
    return 0


# per `Availability.kind`: the id's cell in the "runs here" column, the words before its reason
# under the table (a download's reason says what it downloads), and the count's on stderr
_KINDS = {
    MISSING_EXTRA: ("not installed", "not installed: ", "not installed"),
    NEEDS_DOWNLOAD: ("downloads", "", "download data when built"),
    BROKEN_UPSTREAM: ("broken", "broken: ", "broken upstream"),
}
# the narrowest the reference column may be (wrapped at words) for the table to have one
REFERENCE_WIDTH = 30


def _id_table(rows, width: int):
    """The `jaxenvs list` table of `rows` (id, family, `Availability`) if it fits in `width`
    columns with every id whole, else None. It has a reference column where one of
    `REFERENCE_WIDTH` fits beside the others."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    def table(reference_width: int | None):
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for column in ("id", "family", "runs here"):
            t.add_column(column, no_wrap=True)
        if reference_width is not None:
            t.add_column("reference", overflow="fold", max_width=reference_width)
        for env_id, family, a in rows:
            cells = [env_id, family, "yes" if a.runnable else _KINDS.get(a.kind, ("no",))[0]]
            if reference_width is not None:
                cells.append(jaxenvs.spec(env_id).reference or "-")
            t.add_row(*cells)
        return t

    unlimited = Console(width=100_000, markup=False)
    narrowest = unlimited.measure(table(REFERENCE_WIDTH)).maximum
    if narrowest <= width:
        return table(REFERENCE_WIDTH + width - narrowest)
    return table(None) if unlimited.measure(table(None)).maximum <= width else None


def _why_not(rows) -> list[str]:
    """Why the ids of `rows` (id, family, `Availability`) that cannot run here cannot, one line
    per reason."""
    groups: dict[tuple[str | None, str], list[tuple[str, str]]] = {}
    for env_id, family, a in rows:
        if not a.runnable:
            groups.setdefault((a.kind, a.install or a.reason or ""), []).append((env_id, family))
    lines = []
    for (kind, why), ids in groups.items():
        families = {family for _, family in ids}
        who = ids[0][0] if len(ids) == 1 else plural(len(ids), f"{families.pop()} id" if len(families) == 1 else "id")
        lines.append(f"{who}: {_KINDS[kind][1] if kind in _KINDS else ''}{why}")
    return lines


def _cannot_run(cannot, total: int) -> str:
    """ "32 of these 742 ids cannot run here: 31 download data when built, 1 broken upstream"."""
    kinds = [a.kind for a in cannot]
    why = ", ".join(f"{kinds.count(kind)} {words[2]}" for kind, words in _KINDS.items() if kind in kinds)
    return f"{len(cannot)} of these {plural(total, 'id')} cannot run here: {why}"


def cmd_render(args: argparse.Namespace) -> int:
    """Record a random policy on `args.id` to a GIF or MP4, with a progress bar.

    Args:
        args: The parsed `jaxenvs render` arguments (`id`, `steps`, `out`, `seed`, `fps`).

    Returns:
        0, after printing the path written (and that it replaced a file).

    Raises:
        UsageError: For an unknown id, an output path that cannot be written, or an id whose
            env has no `render`.
    """
    from jaxenvs.export._bridge import renders
    from jaxenvs.export.video import check_writable, rollout_frames, write
    from jaxenvs.registry import make

    check_ids([args.id])
    try:
        check_writable(args.out)
    except (ValueError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    env, params = make(args.id, autoreset=False)
    if not renders(env, params):
        raise UsageError(f"{args.id} cannot be rendered: its render() is not implemented")
    replaces = os.path.exists(args.out)
    out = console()
    with progress(out, counts=False) as bar:
        # one jitted scan compiles, rolls out and renders, and the writing gives no count either:
        # the bar pulses until the video is written
        task = bar.add_task(f"render {args.id}: {plural(args.steps, 'step')}", total=None)
        frames = rollout_frames(args.id, steps=args.steps, seed=args.seed)
        bar.update(task, description=f"render {args.id}: write {plural(len(frames), 'frame')}")
        path = write(frames, args.out, fps=args.fps)
        bar.update(task, description=f"render {args.id}: {plural(len(frames), 'frame')}", total=1, completed=1)
    out.print(f"wrote {path}" + (" (replacing the file there)" if replaces else ""), markup=False, highlight=False)
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
