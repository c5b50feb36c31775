"""The audit of JAXAtari against the Arcade Learning Environment (a cheap slice of `jaxenvs audit jaxatari`)."""

import os

import pytest

from jaxenvs import audit
from jaxenvs.audit import jaxatari
from lab.audit_page import findings


def test_the_rows_are_the_ale_ids_and_need_neither_library():
    assert audit.peer_ids("jaxatari") == list(jaxatari.GAMES)
    assert all(i.startswith("ALE/") and i.endswith("-v5") for i in jaxatari.ids())


def test_without_jaxatari_the_rows_are_skipped_with_the_install_line(monkeypatch):
    monkeypatch.setattr(jaxatari, "LIBRARY", "jaxtari_not_installed")
    result = audit.audit_one("jaxatari", "ALE/Pong-v5", scale=0.05)
    assert result.verdict == "skipped" and "jaxtari_not_installed is not installed" in result.skipped
    assert "[audit]" in result.skipped


def test_an_unknown_game_is_named():
    with pytest.raises(ValueError, match="jaxatari has no audited port of 'ALE/Tetris-v5'"):
        audit.audit_one("jaxatari", "ALE/Tetris-v5")
    with pytest.raises(ValueError, match="no game 'ALE/Tetris-v5'; audited: .*ALE/Pong-v5"):
        jaxatari.audit("ALE/Tetris-v5", 0.05, 0)


def test_every_finding_is_of_an_audited_game_and_names_its_rating():
    for env_id, finding in findings("jaxatari").items():
        assert env_id in jaxatari.GAMES
        rating = jaxatari.GAMES[env_id][1]
        assert "JAXAtari's own rating of" in finding and (f": {rating}," in finding or f"({rating}," in finding)
        assert "bug" in finding or "design choice" in finding


def test_breakout_plays_like_the_ale_under_random_play():
    pytest.importorskip("jaxtari")
    pytest.importorskip("ale_py")
    result = audit.audit_one("jaxatari", "ALE/Breakout-v5", scale=0.05)
    assert result.passed, result.summary()
    checks = {c.name: c for c in result.checks}
    assert checks["minimal action set"].value == 0  # NOOP, FIRE, RIGHT, LEFT on both sides
    assert result.transitions > 1000 and checks["random-policy episode length"].n == 10


@pytest.mark.skipif(not os.environ.get("JAXENVS_AUDIT_FINDINGS"), reason="minutes: set JAXENVS_AUDIT_FINDINGS=1")
@pytest.mark.parametrize("env_id", sorted(findings("jaxatari")))
def test_each_finding_is_a_real_failure(env_id):
    pytest.importorskip("jaxtari")
    pytest.importorskip("ale_py")
    result = audit.audit_one("jaxatari", env_id, scale=0.25)
    assert not result.passed, result.summary()
    assert all(c.name in findings("jaxatari")[env_id] for c in result.failures()), result.summary()
