"""`jaxenvs report` on adapter ids: what it skips, and that it says why."""

import importlib.util

from jaxenvs import cli
from jaxenvs.adapters import registration


def test_missing_library_is_named(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "brax" else real(name, *a))
    assert cli._report_skip("brax/fast", "brax", run_all=True) == 'needs pip install "jaxenvs[brax]"'


def test_downloads_and_slow_compiles_are_skipped_unless_all():
    for env_id, why in list(registration.NEEDS_DOWNLOAD.items()) + list(registration.SLOW_ON_CPU.items()):
        extra = env_id.split("/")[0]
        reason = cli._report_skip(env_id, extra, run_all=False)
        assert reason is not None and reason.startswith("skipped: ") and why in reason
        assert cli._report_skip(env_id, extra, run_all=True) is None
    assert cli._report_skip("brax/fast", "brax", run_all=False) is None
    assert cli._report_skip("brax/swimmer", "brax", run_all=True).startswith("not run: fails inside brax")
    assert cli._report_skip("CartPole-v1", None, run_all=False) is None


def test_report_prints_the_reason_without_rolling_out(capsys, monkeypatch):
    import jaxenvs.bench

    def no_rollout(*args, **kwargs):
        raise AssertionError("a skipped id must not be rolled out")

    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", no_rollout)
    monkeypatch.setenv("COLUMNS", "300")  # rich wraps cells to the terminal width
    assert cli.main(["report", "jumanji/Sokoban-v0", "--no-parity"]) == 0
    out = capsys.readouterr().out
    assert "skipped: downloads its Boxoban levels" in out


def test_a_failing_rollout_is_a_row_not_a_crash(capsys, monkeypatch):
    import jaxenvs.bench

    def broken(*args, **kwargs):
        raise AttributeError("'MultiDiscrete' object has no attribute 'low'")

    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", broken)
    monkeypatch.setenv("COLUMNS", "300")  # rich wraps cells to the terminal width
    assert cli.main(["report", "jumanji/Minesweeper-v0", "--no-parity"]) == 1
    out = capsys.readouterr().out
    assert "failed: AttributeError" in out
