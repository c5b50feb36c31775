"""`jaxenvs audit [PEER ...]`: other libraries' ports of our ids under our parity harness."""

from __future__ import annotations

import argparse

from jaxenvs.cli._common import UsageError, console, interrupted_line, print_line, progress


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit the peers and print the table (docs/audit.md gives the findings in words).

    Args:
        args: The parsed `jaxenvs audit` arguments (`peers`, `scale`, `seed`).

    Returns:
        0 when every row was obtained (a peer's FAIL is a finding, not an error), 130 if
        interrupted (the finished rows are printed).

    Raises:
        UsageError: For a peer the audit does not cover.
    """
    from rich.table import Table

    from jaxenvs import audit

    unknown = [p for p in args.peers if p not in audit.PEERS]
    if unknown:
        raise UsageError(f"unknown peer {unknown[0]!r}; the audit covers: {', '.join(audit.PEERS)}")
    out = console()
    rows: list[audit.AuditRow] = []
    peers = list(args.peers) or list(audit.PEERS)
    total = sum(len(audit.peer_ids(p)) for p in peers)
    interrupted = False
    try:
        with progress(out) as bar:
            task = bar.add_task("audit", total=total)

            def advance(done: int, total: int, what: str) -> None:
                bar.update(task, completed=done, description=f"audit {what}")

            rows = audit.audit(peers, scale=args.scale, seed=args.seed, progress=advance)
    except KeyboardInterrupt:
        interrupted = True
    table = Table("id", "implementation", "verdict", "transitions", "worst error", "smallest p")
    for r in rows:
        worst = "-" if r.worst_error != r.worst_error else f"{r.worst_error:.2g}"
        min_p = "-" if r.min_p != r.min_p else f"{r.min_p:.2g}"
        table.add_row(r.env_id, r.peer, r.verdict, f"{r.transitions:,}", worst, min_p)
    out.print(table)
    for r in rows:
        if r.failed:
            for c in r.failed[:3]:
                print_line(out, [f"{r.peer} {r.env_id}: {c}"])
            print_line(out, [f"  reproduce: {r.reproduce}"], style="dim")
    if interrupted:
        out.print(interrupted_line(len(rows) // 2, total), markup=False)
        return 130
    return 0
