"""The audit of the peers: our parity harness pointed at other libraries' ports of our ids.

`audit_one(peer, env_id)` checks the peer's env of `env_id` with `env_id`'s own spec (the
same reference, checks, sizes and false-alarm control as `run_parity`), and our own env is
the control in the same table (`jaxenvs audit`). Each peer is a module (`PEERS`) that is a
`Peer`; where we have no env of the id, the peer's module builds the checks itself. What the
audit found, in words, is docs/audit.md's prose; the checks that found it are here.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
from typing import Any, Protocol, runtime_checkable

import jaxenvs
from jaxenvs.parity import ParityResult
from jaxenvs.parity.scale import check_scale
from jaxenvs.parity.verdict import two_stage


@runtime_checkable
class Peer(Protocol):
    """What a peer's module declares: its library, its references, its rows and their checks.

    Attributes:
        LIBRARY: the peer's import name (a row is skipped without it).
        REFERENCES: the references' import names (likewise).
    """

    LIBRARY: str
    REFERENCES: tuple[str, ...]

    def ids(self) -> list[str]:
        """The rows it audits: our ids, or the reference's where we have no env (imports neither library)."""
        ...

    def audit(self, row_id: str, scale: float, seed: int) -> ParityResult:
        """One stage of the row's checks (`audit_one` decides in two).

        Args:
            row_id: one of `ids()`.
            scale: the size of the run (1.0 = the full size).
            seed: the seed of both sides' draws.

        Returns:
            The stage's `ParityResult`.
        """
        ...


# peer -> the module auditing it, a `Peer`
PEERS = {
    "gymnax": "jaxenvs.audit.gymnax",
    "navix": "jaxenvs.audit.navix",
    "xminigrid": "jaxenvs.audit.xminigrid",
    "craftax": "jaxenvs.audit.craftax",
    "brax": "jaxenvs.audit.brax",
    "jaxatari": "jaxenvs.audit.jaxatari",
}
# the checks run under jax_enable_x64 (`transitions("f64")`, `episodes("f64")`): set aside, with
# their figures, for a peer whose step computes in float32 even under x64
FLOAT64_CHECKS = ("f64 ", "episode ")


def peer_module(peer: str) -> Peer:
    """The module auditing `peer`.

    Args:
        peer: one of `PEERS`.

    Returns:
        The module, a `Peer`.

    Raises:
        ValueError: an unknown peer.
        TypeError: the module does not declare what a `Peer` declares.
    """
    if peer not in PEERS:
        raise ValueError(f"unknown peer {peer!r}; the audit covers {list(PEERS)}")
    module = importlib.import_module(PEERS[peer])
    if not isinstance(module, Peer):
        missing = [n for n in ("LIBRARY", "REFERENCES", "ids", "audit") if not hasattr(module, n)]
        raise TypeError(f"{PEERS[peer]} is not an audit Peer: it lacks {missing}")
    return module


def peer_ids(peer: str) -> list[str]:
    """The rows the audit checks for `peer`: our ids it ports, or the reference's own ids.

    Args:
        peer: one of `PEERS`.

    Returns:
        The ids, in the peer module's order.

    Raises:
        ValueError: an unknown peer.
    """
    return list(peer_module(peer).ids())


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
    """The peer's port of `env_id` under the audit's checks, decided in two stages.

    Args:
        peer: one of `PEERS`.
        env_id: one of `peer_ids(peer)`.
        scale: the size of the run (1.0 = the full size).
        seed: the seed of both sides' draws.

    Returns:
        The `ParityResult`, named `"<peer>/<peer id>"`.

    Raises:
        TypeError: `scale` is not a number.
        ValueError: `scale` is not positive and finite; an unknown peer or an id the peer has
            no audited port of.
    """
    check_scale(scale)
    module = peer_module(peer)
    if env_id not in peer_ids(peer):
        raise ValueError(f"{peer} has no audited port of {env_id!r}; audited: {peer_ids(peer)}")
    missing = [name for name in (module.LIBRARY, *module.REFERENCES) if importlib.util.find_spec(name) is None]
    if missing:
        from jaxenvs.extras import install_line

        why = f"{missing[0]} is not installed ({install_line('audit')})"
        return ParityResult(f"{peer}/{env_id}", peer, skipped=why)
    return two_stage(lambda factor, stage_seed: module.audit(env_id, scale * factor, stage_seed), seed)


def run_spec_on_peer(
    peer: str, env_id: str, peer_id: str, spec: Any, env: Any, params: Any, scale: float, seed: int
) -> ParityResult:
    """One stage of `spec`'s checks of `env_id` run on a peer's env (what most peer modules do).

    Checks run under jax_enable_x64 are set aside, with their figures, where the peer's step
    computes in float32 even under x64 (they say nothing of a float32 implementation).

    Args:
        peer: the peer's name, for the result's name.
        env_id: our id whose checks run.
        peer_id: the peer's id of the env, for the result's name.
        spec: the `ParitySpec` to run (usually `env_id`'s own, its reference translating).
        env: the peer's env, raw.
        params: its params.
        scale: the run's scale.
        seed: the run's seed.

    Returns:
        The `ParityResult`, named `"<peer>/<peer_id>"`.
    """
    from jaxenvs.parity import env_under_test
    from jaxenvs.parity.spec import run_stage

    env, params = env_under_test(env_id, env, params)
    described = jaxenvs.spec(env_id).reference or spec.description or env_id
    result = run_stage(spec, env_id, env, params, scale, seed, described)
    result.env_id = f"{peer}/{peer_id}"
    if not has_float64_path(env, params):
        result.set_aside = [c for c in result.checks if c.name.startswith(FLOAT64_CHECKS)]
        result.checks = [c for c in result.checks if not c.name.startswith(FLOAT64_CHECKS)]
    return result


def has_float64_path(env: Any, params: Any) -> bool:
    """Whether `env`'s step computes in float64 under `jax_enable_x64` (any float64 state leaf).

    Args:
        env: the env.
        params: its params.

    Returns:
        True where some float state leaf is float64 after a step under x64.
    """
    import jax
    import jax.numpy as jnp

    with jax.enable_x64(True):
        _, state = jax.eval_shape(env.reset, jax.random.key(0), params)
        action = jax.eval_shape(env.action_space(params).sample, jax.random.key(1))
        out = jax.eval_shape(env.step, jax.random.key(2), state, action, params)
    return any(leaf.dtype == jnp.float64 for leaf in jax.tree_util.tree_leaves(out[1]))


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
    failed = tuple(c.describe() for c in result.failures())
    set_aside = tuple(c.describe() for c in result.set_aside)
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
        next((c.mismatch for c in result.failures() if c.mismatch), ""),
    )


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
    import jaxenvs
    from jaxenvs.parity import run_parity

    peers = list(peers or PEERS)
    jobs = [(peer, env_id) for peer in peers for env_id in peer_ids(peer)]
    rows: list[AuditRow] = []
    for i, (peer, env_id) in enumerate(jobs):
        if env_id in jaxenvs.registered_envs() and jaxenvs.spec(env_id).parity is not None:  # the control
            rows.append(row("jaxenvs", env_id, run_parity(env_id, scale=scale, seed=seed), scale, seed))
        rows.append(row(peer, env_id, audit_one(peer, env_id, scale, seed), scale, seed))
        if progress is not None:
            progress(i + 1, len(jobs), f"{peer} {env_id}")
    return rows
