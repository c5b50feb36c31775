"""Griffe extension for the API reference: jaxenvs docstrings describe arguments as
`name: what it is` lines (continued indented), which Markdown would run into one paragraph;
this turns each such block into a list with the name in code."""

from __future__ import annotations

import re

import griffe

PARAM = re.compile(r"^([A-Za-z_][\w.]*|\*\*?\w+): (.*)$")


def as_list(text: str) -> str:
    out, in_item = [], False
    for line in text.splitlines():
        match = PARAM.match(line)
        if match and "`" not in match.group(1):
            if not in_item and out and out[-1].strip():
                out.append("")  # a list needs a blank line before it
            out.append(f"- `{match.group(1)}`: {match.group(2)}")
            in_item = True
        elif in_item and line.startswith("    ") and line.strip():
            out.append("  " + line.strip())
        else:
            if in_item and line.strip():
                out.append("")
            in_item = False
            out.append(line)
    return "\n".join(out)


class ParamsAsList(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = as_list(obj.docstring.value)
