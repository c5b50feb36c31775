"""docs/audit.md's measured rows: `jaxenvs audit` run, and its table written between the page's
markers. The rest of the page (the summary, the findings, the method) is prose, edited by hand.

```bash
python -m lab.audit_page                    # every peer, scale 0.25, seed 0 (make audit-page)
python -m lab.audit_page --peers gymnax --scale 0.05
```
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

from jaxenvs.audit import AuditRow

PAGE = Path(__file__).resolve().parents[1] / "docs" / "audit.md"
BEGIN, END = "<!-- audit: measured rows -->", "<!-- audit: end of measured rows -->"


def _figure(value: float) -> str:
    return "-" if value != value else f"{value:.2g}"


def measured(rows: Sequence[AuditRow]) -> str:
    """The measured part of the page: the table, then each row with a failed or set-aside check.

    Args:
        rows: the audit's rows (`jaxenvs.audit.audit`).

    Returns:
        Markdown: the table and, per such row, its checks, first mismatch and reproduction.
    """
    lines = [
        "| id | implementation | verdict | transitions | p-values | worst error | smallest p |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.env_id} | {r.peer} | {r.verdict} | {r.transitions:,} | {r.num_tests} "
            f"| {_figure(r.worst_error)} | {_figure(r.min_p)} |"
        )
    for r in rows:
        if not r.failed and not r.set_aside:
            continue
        lines += ["", f"### {r.peer}: {r.env_id} ({r.verdict})", ""]
        lines += [f"- `{c}`" for c in r.failed]
        if r.first_mismatch:
            lines += ["", f"First mismatch: {r.first_mismatch}"]
        lines += [f"- set aside (not applicable): `{c}`" for c in r.set_aside]
        lines += ["", "Reproduce:", "", "```bash", r.reproduce, "```"]
    return "\n".join(lines)


def with_measured(page: str, rows: Sequence[AuditRow]) -> str:
    """`page` with the text between its markers replaced by `measured(rows)`.

    Args:
        page: docs/audit.md's text.
        rows: the audit's rows.

    Returns:
        The new text; the prose outside the markers is kept as it is.

    Raises:
        ValueError: the page lacks a marker.
    """
    if BEGIN not in page or END not in page:
        raise ValueError(f"the page has no {BEGIN!r} ... {END!r} section to write the rows into")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{measured(rows)}\n{END}{tail}"


def findings(peer: str, page: str | None = None) -> dict[str, str]:
    """The findings the page gives for `peer`'s rows, in words (its `### <peer>: <row>` sections).

    Args:
        peer: one of `jaxenvs.audit.PEERS`.
        page: the page's text (docs/audit.md by default).

    Returns:
        Row id -> the finding's text.
    """
    text = PAGE.read_text() if page is None else page
    section = text.split("\n## Findings\n", 1)[1].split("\n## ", 1)[0]
    found = {}
    for block in re.split(r"^### ", section, flags=re.M)[1:]:
        title, _, body = block.partition("\n")
        who, _, row_id = title.partition(": ")
        if who == peer:
            found[row_id.strip()] = body.strip()
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run the audit and write its rows into docs/audit.md; returns the exit status."""
    from jaxenvs.audit import PEERS, audit

    parser = argparse.ArgumentParser(prog="python -m lab.audit_page", description=__doc__.splitlines()[0])
    parser.add_argument("--peers", nargs="*", choices=list(PEERS), help="the peers (default: every one)")
    parser.add_argument("--scale", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = audit(args.peers or None, scale=args.scale, seed=args.seed)
    PAGE.write_text(with_measured(PAGE.read_text(), rows))
    print(f"wrote {len(rows)} rows into {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
