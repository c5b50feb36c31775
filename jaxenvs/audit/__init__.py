"""The audit of the peers: our parity harness pointed at other libraries' ports of our ids.

`audit_one(peer, env_id)` checks the peer's env of `env_id` with `env_id`'s own spec (the
same reference, checks, sizes and false-alarm control as `run_parity`), and our own env is
the control in the same table (`jaxenvs audit`, `docs/audit.md`). Peers so far: gymnax's
classic control (`jaxenvs.audit.gymnax`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from jaxenvs.parity.checks import ParityResult, check_scale, two_stage

PEERS = ("gymnax",)
# the checks run under jax_enable_x64 (`transitions("f64")`, `episodes("f64")`): set aside, with
# their figures, for a peer whose step computes in float32 even under x64
FLOAT64_CHECKS = ("f64 ", "episode ")


def peer_ids(peer: str) -> list[str]:
    """Our ids the peer has a port of that the audit can check.

    Args:
        peer: one of `PEERS`.

    Returns:
        The ids, in registration order.

    Raises:
        ValueError: an unknown peer.
    """
    if peer not in PEERS:
        raise ValueError(f"unknown peer {peer!r}; the audit covers {list(PEERS)}")
    from jaxenvs.audit import gymnax

    return list(gymnax.TRANSLATED)


def reproduce(peer: str, env_id: str, scale: float, seed: int) -> str:
    """The line that reproduces one row of the audit.

    Args:
        peer: one of `PEERS`.
        env_id: the audited id.
        scale: the run's scale.
        seed: the run's seed.

    Returns:
        A `python -c "..."` command printing `audit_one(...)`'s summary.
    """
    return (
        f'python -c "from jaxenvs.audit import audit_one; '
        f'print(audit_one({peer!r}, {env_id!r}, scale={scale}, seed={seed}).summary())"'
    )


def audit_one(peer: str, env_id: str, scale: float = 0.25, seed: int = 0) -> ParityResult:
    """The peer's port of `env_id` under `env_id`'s own parity spec, decided in two stages.

    Args:
        peer: one of `PEERS`.
        env_id: one of `peer_ids(peer)`.
        scale: the size of the run (1.0 = the full suite).
        seed: the seed of both sides' draws.

    Returns:
        The `ParityResult`, named `"<peer>/<peer id>"`.

    Raises:
        TypeError: `scale` is not a number.
        ValueError: `scale` is not positive and finite; an unknown peer or an id the peer has
            no audited port of.
    """
    import jaxenvs
    from jaxenvs.audit import gymnax
    from jaxenvs.parity.spec import run as run_spec
    from jaxenvs.registry import resolve

    check_scale(scale)
    if env_id not in peer_ids(peer):
        raise ValueError(f"{peer} has no audited port of {env_id!r}; audited: {peer_ids(peer)}")
    spec = resolve(jaxenvs.spec(env_id).parity)
    env, params = gymnax.peer_env(gymnax.TRANSLATED[env_id])
    renames = gymnax.RENAMES.get(env_id, {})
    audited = dataclasses.replace(spec, reference=lambda i: gymnax.translating(spec.reference(i), env, params, renames))

    float64 = gymnax.has_float64_path(env, params)

    def run(factor: int, stage_seed: int) -> ParityResult:
        result = run_spec(audited, env_id, scale=scale * factor, seed=stage_seed, env=env, params=params)
        result.env_id = f"{peer}/{gymnax.TRANSLATED[env_id]}"
        if not float64:  # float64 checks say nothing of a float32 implementation: set aside
            result.set_aside = [c for c in result.checks if c.name.startswith(FLOAT64_CHECKS)]
            result.checks = [c for c in result.checks if not c.name.startswith(FLOAT64_CHECKS)]
        return result

    return two_stage(run, seed)


@dataclasses.dataclass(frozen=True)
class AuditRow:
    """One row of the audit: a peer's port (or our own env, the control) against the reference.

    Args:
        peer: the implementation (`"jaxenvs"` for the control, else one of `PEERS`).
        env_id: our id.
        verdict: `"pass"`, `"FAIL"` or `"skipped"`.
        transitions: reference transitions compared.
        num_tests: p-values decided together.
        worst_error: the largest error of any error check (NaN when none).
        min_p: the smallest p-value (NaN when none).
        failed: the failed checks, described.
        set_aside: the checks set aside as not applicable, described.
        reproduce: the command that reproduces the row.
        finding: what the failure found, in words (gymnax's known findings).
        first_mismatch: the first mismatch, in words.
    """

    peer: str
    env_id: str
    verdict: str
    transitions: int
    num_tests: int
    worst_error: float
    min_p: float
    failed: tuple[str, ...]
    set_aside: tuple[str, ...]
    reproduce: str
    finding: str = ""
    first_mismatch: str = ""


def row(peer: str, env_id: str, result: ParityResult, scale: float, seed: int) -> AuditRow:
    """The audit row of a result.

    Args:
        peer: `"jaxenvs"` (the control) or one of `PEERS`.
        env_id: our id.
        result: the run's result.
        scale: the run's scale.
        seed: the run's seed.

    Returns:
        The `AuditRow`, with the command that reproduces it.
    """
    from jaxenvs.audit import gymnax

    failed = tuple(c.describe() for c in result.failures())
    set_aside = tuple(c.describe() for c in result.set_aside)
    finding = gymnax.FINDINGS.get(env_id, "") if peer == "gymnax" and failed else ""
    if peer == "jaxenvs":
        call = f"run_parity({env_id!r}, scale={scale}, seed={seed}).summary()"
        line = f'python -c "from jaxenvs.parity import run_parity; print({call})"'
    else:
        line = reproduce(peer, env_id, scale, seed)
    return AuditRow(
        peer,
        env_id,
        result.verdict,
        result.transitions,
        result.num_tests,
        result.worst(),
        result.min_p(),
        failed,
        set_aside,
        line,
        finding,
        next((c.mismatch for c in result.failures() if c.mismatch), ""),
    )


def markdown(rows: list[AuditRow], scale: float, seed: int) -> str:
    """The page docs/audit.md.

    Args:
        rows: the audit's rows (`audit`).
        scale: the run's scale, named in the header.
        seed: the run's seed, named in the header.

    Returns:
        The page: the method, the table, and each failing row's checks and reproduction.
    """
    lines = [
        "# The audit of the peers",
        "",
        f"Generated by `jaxenvs audit --markdown docs/audit.md` (scale {scale:g}, seed {seed}); do not edit by hand.",
        "",
        "Each peer's port of one of our ids is checked by that id's own parity spec: the same",
        "reference, the same checks at the same sizes, the same false-alarm control (each env's",
        "p-values decided together by Holm at family-wise level 2.5e-4, in two stages). Our own",
        "env of the id is the control, in the row above it. A peer's state is translated into the",
        "reference's field names where they differ (gymnax's Acrobot), and every action reaches",
        "the peer as given (the adapter's clipping of out-of-range continuous actions is off).",
        "",
        "gymnax: classic control. For these ids gymnax's defaults are the reference's settings",
        "(the same time limits and constants), so each has one row. Not yet audited: gymnax's",
        "MinAtar and bsuite ports (their states are laid out differently from the references'),",
        "NAVIX, XLand-MiniGrid, Craftax, brax / MuJoCo Playground and JAXAtari.",
        "",
        "| id | implementation | verdict | transitions | p-values | worst error | smallest p |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        worst = "-" if r.worst_error != r.worst_error else f"{r.worst_error:.2g}"
        min_p = "-" if r.min_p != r.min_p else f"{r.min_p:.2g}"
        lines.append(f"| {r.env_id} | {r.peer} | {r.verdict} | {r.transitions:,} | {r.num_tests} | {worst} | {min_p} |")
    for r in rows:
        if not r.failed and not r.set_aside:
            continue
        lines += ["", f"## {r.peer}: {r.env_id} ({r.verdict})", ""]
        if r.finding:
            lines += [r.finding, ""]
        lines += [f"- `{c}`" for c in r.failed]
        if r.first_mismatch:
            lines += ["", f"First mismatch: {r.first_mismatch}"]
        lines += [f"- set aside (not applicable): `{c}`" for c in r.set_aside]
        lines += ["", "Reproduce:", "", "```bash", r.reproduce, "```"]
    return "\n".join(lines) + "\n"


def audit(peers: list[str] | None = None, scale: float = 0.25, seed: int = 0, progress: Any = None) -> list[AuditRow]:
    """Every audited id of each peer, each beside our own env of the id (the control).

    Args:
        peers: the peers to audit (default every one in `PEERS`).
        scale: the size of each run.
        seed: the seed of each run.
        progress: called with `(done, total, what)` after each run, if given.

    Returns:
        The rows, our env's first for each id.

    Raises:
        ValueError: an unknown peer; `scale` is not positive and finite.
        TypeError: `scale` is not a number.
    """
    from jaxenvs.parity import run_parity

    peers = list(peers or PEERS)
    jobs = [(peer, env_id) for peer in peers for env_id in peer_ids(peer)]
    rows: list[AuditRow] = []
    for i, (peer, env_id) in enumerate(jobs):
        rows.append(row("jaxenvs", env_id, run_parity(env_id, scale=scale, seed=seed), scale, seed))
        rows.append(row(peer, env_id, audit_one(peer, env_id, scale, seed), scale, seed))
        if progress is not None:
            progress(i + 1, len(jobs), f"{peer} {env_id}")
    return rows
