"""The gymnax peer's MinAtar and bsuite rows (jaxenvs.audit.gymnax): a failing row whose
failures are its finding, and exact transitions through the translated state."""

import pytest

pytest.importorskip("gymnax")
pytest.importorskip("bsuite")
pytest.importorskip("minatar")

from jaxenvs.audit import audit_one, peer_ids  # noqa: E402
from jaxenvs.audit import gymnax as audited  # noqa: E402
from lab.audit_page import findings  # noqa: E402


def test_rows_and_findings_name_audited_ids():
    rows = peer_ids("gymnax")
    for env_id in (*audited.MINATAR_GAMES, *audited.BSUITE_ENVS):
        assert env_id in rows and env_id + audited.DEFAULTS in rows
    assert set(findings("gymnax")) <= set(rows)


def test_discounting_chain_fails_only_at_the_end_of_the_chain():
    # gymnax ends the chain by truncation where bsuite terminates: docs/audit.md says so, and that is
    # all that fails (every other transition, reset and episode agrees)
    result = audit_one("gymnax", "DiscountingChain-bsuite", scale=0.01, seed=0)
    assert result.verdict == "FAIL"
    failed = {c.name for c in result.failures()}
    assert failed == {"step terminated", "step truncated"}
    for check in result.failures():
        assert 0 < check.value <= 0.02 * check.n  # the last step of each 100-step episode
        assert "'time': '99'" in check.mismatch
    assert "termination" in findings("gymnax")["DiscountingChain-bsuite"]


def test_breakout_transitions_exact_through_the_translation():
    # MinAtar's states written into gymnax's EnvState and read back: every field, observation,
    # reward and flag of gymnax's Breakout equals MinAtar's, scrambled states included
    game = audited._minatar_game("breakout")
    env, params = audited._gymnax(
        "Breakout-MinAtar", {"use_minimal_action_set": False}, {"max_steps_in_episode": 10_000}
    )
    ref = audited.translated(
        game.reference(), env, params, audited._minatar_to("breakout"), audited._minatar_from("breakout")
    )
    checks = audited._minatar_transitions(game, "breakout", env, params, ref, 100, 0)
    names = {c.name for c in checks}
    assert {"random policy brick_map", "scrambled states ball_dir", "scrambled states observation"} <= names
    assert all(c.passed and c.value == 0 for c in checks), [c.describe() for c in checks if not c.passed]
    assert sum(c.transitions for c in checks) == 200
