"""MkDocs hook: pages that show a file from the repository root (CONTRIBUTING.md) include it
where they say `<!-- include CONTRIBUTING.md -->`, its links into docs/ made relative to the
site, so the text has one home and the site never holds a stale copy."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r"<!-- include ([\w.-]+) -->")
LINK = re.compile(r"\[([^\]]+)\]\((?!https?://|#|mailto:)([^)]+)\)")


def _included(match: re.Match) -> str:
    path = ROOT / match.group(1)
    if not path.exists():
        return f"*`{match.group(1)}` is not in this checkout.*"
    text = path.read_text()
    text = re.sub(r"^# .*\n", "", text, count=1)  # the page has its own title
    return LINK.sub(_relink, text)


def _relink(match: re.Match) -> str:
    """Links into docs/ become site-relative; other repository files are named, not linked."""
    text, target = match.groups()
    if target.startswith("docs/"):
        return f"[{text}]({target[len('docs/') :]})"
    return f"{text} (`{target}` in the repository)"


def on_page_markdown(markdown: str, **kwargs) -> str:
    return INCLUDE.sub(_included, markdown)
