"""The pip extras: the library each one provides and the line that installs it.

Every message that tells a user to install an extra is built here (`install_line`,
`not_installed`), so they all read the same. This module imports nothing of the package: the
adapters and the exports use it as the core, the registry's `availability` reads it.
"""

from __future__ import annotations

import re

# extra -> the module whose absence means the extra is not installed (`registry.availability`)
EXTRA_LIBRARIES = {
    "brax": "brax",
    "jumanji": "jumanji",
    "pgx": "pgx",
    "gymnax": "gymnax",
    "craftax": "craftax",
    "playground": "mujoco_playground",
    "xminigrid": "xminigrid",
    "navix": "navix",
    "ale": "ale_py",
}


def install_line(extra: str) -> str:
    """The command that installs an extra, as every message prints it.

    Args:
        extra: the extra's name, as in `pyproject.toml` (`"brax"`, `"parity"`, ...).

    Returns:
        `pip install "jaxenvs[extra]"` (quoted: shells such as zsh expand the brackets).

    Raises:
        ValueError: `extra` is not an extra's name (letters, digits, `.`, `_`, `-`).
    """
    if not isinstance(extra, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", extra):
        raise ValueError(f"install_line: extra must be an extra's name such as 'brax', got {extra!r}")
    return f'pip install "jaxenvs[{extra}]"'


def not_installed(user: str, missing: str, extra: str) -> ImportError:
    """The `ImportError` for a library that is not installed, naming the extra that installs it.

    Args:
        user: what needs the library, in words (an entry point, "jaxenvs' brax adapter").
        missing: the module that could not be imported (the error's `name`).
        extra: the extra that installs it.

    Returns:
        `ImportError("{user} needs {missing!r}, which is not installed: pip install ...")`, its
        `name` set to `missing`; the caller raises it (`from` the original error).
    """
    return ImportError(f"{user} needs {missing!r}, which is not installed: {install_line(extra)}", name=missing)
