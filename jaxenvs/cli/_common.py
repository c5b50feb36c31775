"""What the `jaxenvs` subcommands share: argument types and checks, the console, the progress
bar, the wrapped summary lines and the one-line errors."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

# `jaxenvs report` and `jaxenvs parity` print every column from this terminal width up
WIDE_COLUMNS = 140


class UsageError(Exception):
    """A bad argument found after parsing (an unknown family, an unwritable path): exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with its usage errors as one line (exit 2), not the usage text too."""

    def error(self, message: str):
        """Print `message` as one `PROG: error: ...` line on stderr and exit 2.

        Args:
            message: argparse's description of the usage error.
        """
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def _converted(text: str, convert: Callable, valid: Callable, expected: str, expected_valid: str = "") -> Any:
    """`convert(text)`, or an `expected ...` usage error (`expected_valid`, if given, when `valid` rejects it)."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not valid(value):
        raise argparse.ArgumentTypeError(f"expected {expected_valid or expected}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argument type: an integer from 1 to 2**31 - 1."""
    return _converted(
        text, int, lambda v: 1 <= v <= 2**31 - 1, "a positive integer", "a positive integer (1 to 2**31 - 1)"
    )


def seed(text: str) -> int:
    """An argument type: a non-negative integer seed."""
    return _converted(text, int, lambda v: v >= 0, "a non-negative integer seed")


def positive_float(text: str) -> float:
    """An argument type: a positive finite number."""
    return _converted(
        text, float, lambda v: math.isfinite(v) and v > 0, "a positive number", "a positive finite number"
    )


def console():
    """A `rich` console that prints text as it is.

    No markup: an install hint's `jaxenvs[brax]` is text, not a style tag.
    """
    from rich.console import Console

    return Console(markup=False)


def check_family(family: str | None) -> None:
    """Check a `--family` argument."""
    from jaxenvs.registry import registered_envs, spec

    if family is None:
        return
    families = sorted({spec(i).family for i in registered_envs()})
    if family not in families:
        raise UsageError(f"unknown family {family!r}; valid families: {', '.join(families)}")


def check_ids(ids: Sequence[str]) -> None:
    """Check that every id is registered (a `UsageError` naming the closest ids)."""
    from jaxenvs.registry import UnknownEnvError, spec

    for env_id in ids:
        try:
            spec(env_id)
        except UnknownEnvError as e:
            raise UsageError(unknown_id(e)) from None


def unknown_id(error) -> str:
    """An unknown id in the CLI's words: the closest ids, and `jaxenvs list` for the rest.

    Args:
        error: the `jaxenvs.UnknownEnvError` raised (its `env_id` and `closest`).

    Returns:
        One line, e.g. "no environment registered as 'CartPole-v2'; did you mean CartPole-v1,
        CartPole-v0? (`jaxenvs list` lists every id)".
    """
    if error.env_id is None:  # raised without its fields: its message is all there is
        return str(error)
    text = f"no environment registered as {error.env_id!r}"
    if error.closest:
        text += f"; did you mean {', '.join(error.closest)}?"
    return text + " (`jaxenvs list` lists every id)"


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word` agreeing: "1 env", "2 envs", "0 envs".

    Args:
        count: how many.
        word: the singular.
        many: the plural where it is not `word` + "s".

    Returns:
        The text.
    """
    return f"{count} {word if count == 1 else many or word + 's'}"


def check_output_path(path: str) -> None:
    """Check, before any work, that a file can be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"{path!r} is a directory; give a file path")
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {path!r}: the directory {folder!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"cannot write {path!r}: the directory {folder!r} is not writable")


def select(ids: Sequence[str] | None, family: str | None) -> list[str]:
    """The ids given (checked), else every id of `family` (checked), else every id."""
    from jaxenvs.registry import registered_envs

    check_family(family)
    if ids:
        check_ids(ids)  # early, naming the closest ids
        return list(ids)
    return registered_envs(family)


def progress(console=None, counts: bool = True):
    """A progress bar; what `console` prints while it runs appears above the bar.

    Args:
        console: the `rich.console.Console` it draws on (stdout's by default).
        counts: show "done/total" beside the bar (for ids; not for the stages of one task).

    Returns:
        A `rich.progress.Progress`, to use in a `with` block.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        *([MofNCompleteColumn()] if counts else []),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def print_block(console, text: str, style: str | None = None) -> None:
    """Print lines wrapped at the terminal's width, each continued one step deeper than it is
    indented (so a wrapped line never runs back to column 0)."""
    import textwrap

    width = max(console.width, 40)
    wrapped = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")))
        wrapped += textwrap.wrap(
            line, width=width, subsequent_indent=indent + "    ", break_on_hyphens=False, break_long_words=False
        ) or [""]
    console.print("\n".join(wrapped), markup=False, highlight=False, soft_wrap=True, style=style)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def without_ansi(text: str) -> str:
    """`text` without its terminal escape codes (colours a library put in its own messages)."""
    return _ANSI.sub("", text)


def print_line(console, parts: Sequence[str], style: str | None = None) -> None:
    """Print parts of one line, joined by "; " and wrapped at the terminal's width, preferably
    between parts, continued indented.
    """
    import textwrap

    width = max(console.width, 40)
    lines: list[str] = []
    for part in parts:
        joined = f"{lines[-1]}; {part}" if lines else part
        if lines and len(joined) > width:
            lines[-1] += ";"
            lines.append("  " + part)
        else:
            lines[-1:] = [joined]
    wrapped = [
        w for line in lines for w in textwrap.wrap(line, width=width, subsequent_indent="  ", break_on_hyphens=False)
    ]
    console.print("\n".join(wrapped), markup=False, soft_wrap=True, style=style)


def interrupted_line(done: int, total: int) -> str:
    """What a command interrupted by Ctrl-C prints last."""
    return f"interrupted (Ctrl-C): the {done} of {total} ids finished are shown above"
