"""`jaxenvs report` on adapter ids: which it rolls out (the registrations' notes decide), and
that every other id is named in its family's line, never a table row."""

import importlib.util

import pytest

import jaxenvs
from jaxenvs import cli
from jaxenvs.adapters import registration
from jaxenvs.cli.report_plan import (
    BROKEN,
    DOWNLOAD,
    FULL,
    NOT_INSTALLED,
    REST,
    SMALL,
    SMALL_ROLLOUT,
    SWEEP,
    report_policy,
)
from tests.conftest import CONFORMANCE_SAMPLE

ADAPTED = list(dict.fromkeys(entry["family"] for entry in registration.REGISTRATIONS))


def test_missing_library_is_named(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "brax" else real(name, *a))
    assert report_policy("brax/fast", run_all=True) == NOT_INSTALLED


@pytest.mark.parametrize("family", ADAPTED)
def test_each_adapted_family_rolls_out_its_representatives_by_default(family):
    ids = jaxenvs.registered_envs(family)
    rolled = [i for i in ids if report_policy(i) in (FULL, SMALL)]
    assert rolled == jaxenvs.registry.representatives(family) == list(CONFORMANCE_SAMPLE[family])  # in order
    for env_id in ids:
        notes = jaxenvs.spec(env_id).notes
        policy = report_policy(env_id)
        if "broken_upstream" in notes:
            assert policy == BROKEN and report_policy(env_id, run_all=True) == BROKEN
        elif "needs_download" in notes:
            assert policy == DOWNLOAD and report_policy(env_id, run_all=True) in (FULL, SMALL)
        elif "representative" not in notes:
            assert policy == REST and report_policy(env_id, run_all=True) in (FULL, SMALL)
        # named on the command line, a slow id runs; on a CPU, smaller, even with --all
        if "slow_on_cpu" in notes and "needs_download" not in notes and "broken_upstream" not in notes:
            assert report_policy(env_id, named=True) == SMALL == report_policy(env_id, run_all=True)


def test_built_in_ids_all_roll_out_in_full_and_sweeps_on_request():
    for env_id in jaxenvs.registered_envs("classic") + jaxenvs.registered_envs("minatar"):
        assert report_policy(env_id) == FULL
    assert report_policy("Catch-bsuite") == FULL
    assert report_policy("bsuite/catch/0") == SWEEP
    assert report_policy("bsuite/catch/0", sweeps=True) == FULL
    assert report_policy("bsuite/catch/0", named=True) == FULL


def test_compile_dominated_representatives_roll_out_smaller(monkeypatch, capsys):
    import jaxenvs.bench

    sizes = {}

    def fake_rollout(env_id, num_envs, num_steps, repeats):
        sizes[env_id] = (num_envs, num_steps)
        return jaxenvs.bench.Throughput(env_id, num_envs, num_steps, 1000.0, 42.0, repeats)

    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", fake_rollout)
    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["report", "--family", "brax", "--no-parity"]) == 0
    assert sizes == {"brax/fast": (1024, 100), "brax/inverted_pendulum": SMALL_ROLLOUT}
    out = capsys.readouterr().out
    assert "1k *" in out and "compile:\n  brax/inverted_pendulum 42 s" in out
    assert "not rolled out: 9 more brax ids: `jaxenvs report --family brax --all`" in out
    assert "brax/swimmer not run: fails inside brax" in out
    assert "brax/ant" not in out  # the rest are counted, not listed


def _report(monkeypatch, capsys, env_id, rollout):
    """`jaxenvs report <env_id> --no-parity` with `rollout` as the rollout; its code and output."""
    import jaxenvs.bench

    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", rollout)
    monkeypatch.setenv("COLUMNS", "300")
    code = cli.main(["report", env_id, "--no-parity"])
    return code, capsys.readouterr().out


def test_a_download_is_named_without_rolling_out(capsys, monkeypatch):
    def no_rollout(*args, **kwargs):
        raise AssertionError("an id that downloads data must not be rolled out without --all")

    code, out = _report(monkeypatch, capsys, "jumanji/Sokoban-v0", no_rollout)
    assert code == 1  # the one id asked for was not rolled out: nothing checked is a failure
    assert (
        "not rolled out: jumanji/Sokoban-v0 downloads its Boxoban levels from Hugging Face when constructed "
        "(`jaxenvs report jumanji/Sokoban-v0 --all` runs it)" in out
    )
    assert "│" not in out  # no table: nothing was rolled out


def test_a_failing_rollout_is_a_row_not_a_crash(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise AttributeError("'MultiDiscrete' object has no attribute 'low'")

    code, out = _report(monkeypatch, capsys, "jumanji/Minesweeper-v0", broken)
    assert code == 1
    assert "│ jumanji/Minesweeper-v0 │  failed │" in out
    assert "rollout failed: AttributeError: 'MultiDiscrete' object has no attribute 'low'" in out


def test_every_adapted_family_declares_representatives():
    assert set(CONFORMANCE_SAMPLE) == set(ADAPTED)
    for env_id in registration.REPRESENTATIVE:  # a representative is one the report can roll out
        assert not {"needs_download", "broken_upstream"} & set(jaxenvs.spec(env_id).notes), env_id
