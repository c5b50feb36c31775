"""Ctrl-C keeps what was measured: `jaxenvs report` and `jaxenvs parity`, interrupted, print the
rows of the ids already finished and exit 130, without a traceback. The rollouts and checks
are stand-ins (nothing compiles); one test sends a real SIGINT to a real process."""

import pytest

import jaxenvs
import jaxenvs.bench
import jaxenvs.parity
from jaxenvs.cli import main
from jaxenvs.parity import Check, ParityResult

IDS = ["CartPole-v1", "CartPole-v0", "Acrobot-v1", "MountainCar-v0"]


def _fake_rollout(env_id, num_envs, num_steps, repeats):
    return jaxenvs.bench.Throughput(env_id, num_envs, num_steps, 2.0e6, 0.5, repeats)


def _interrupting(after: int):
    """A run_parity that passes `after` ids, then raises KeyboardInterrupt, as Ctrl-C would."""
    calls = []

    def run_parity(env_id, scale=1.0, seed=0):
        if len(calls) == after:
            raise KeyboardInterrupt
        calls.append((env_id, seed))
        check = Check(name="state", n=10, value=0.0, threshold=1e-5, passed=True)
        return ParityResult(env_id, "gymnasium", checks=[check])

    return run_parity, calls


def _rows(out: str) -> list[str]:
    return [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]


def test_report_interrupted_prints_the_finished_rows_and_exits_130(monkeypatch, capsys):
    run_parity, calls = _interrupting(after=2)
    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", _fake_rollout)
    monkeypatch.setattr(jaxenvs.parity, "run_parity", run_parity)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", *IDS, "--seed", "7"]) == 130
    captured = capsys.readouterr()
    assert _rows(captured.out) == IDS[:2]  # the third was interrupted mid-way: no row
    assert "classic: 2 ids rolled out; median 2M steps/s (2M to 2M); parity: 2 pass" in captured.out
    assert "2 envs checked" in captured.out  # the run's false-alarm budget, over what ran
    assert "interrupted (Ctrl-C): the 2 of 4 ids finished are shown above" in captured.out
    assert calls == [("CartPole-v1", 7), ("CartPole-v0", 7)]  # --seed reaches the checks
    assert "Traceback" not in captured.out + captured.err


def test_parity_interrupted_prints_the_finished_rows_and_exits_130(monkeypatch, capsys, tmp_path):
    run_parity, calls = _interrupting(after=3)
    monkeypatch.setattr(jaxenvs.parity, "run_parity", run_parity)
    monkeypatch.setenv("COLUMNS", "200")
    markdown = tmp_path / "parity.md"
    assert main(["parity", *IDS, "--seed", "3", "--markdown", str(markdown)]) == 130
    captured = capsys.readouterr()
    assert _rows(captured.out) == IDS[:3]
    assert "parity: 3 pass" in captured.out
    assert "3 envs checked" in captured.out
    assert "interrupted (Ctrl-C): the 3 of 4 ids finished are shown above" in captured.out
    assert not markdown.exists()  # a partial table must not pass for the generated report
    assert "Traceback" not in captured.out + captured.err


def test_report_seed_is_validated_before_any_work(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "CartPole-v1", "--seed", "-1"])
    assert exit_info.value.code == 2
    assert "argument --seed: expected a non-negative integer seed" in capsys.readouterr().err


def test_each_family_prints_as_soon_as_it_is_done(monkeypatch, capsys):
    printed_before = {}

    def rollout(env_id, num_envs, num_steps, repeats):
        printed_before[env_id] = capsys.readouterr().out
        return _fake_rollout(env_id, num_envs, num_steps, repeats)

    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", rollout)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", "CartPole-v1", "Catch-bsuite", "--no-parity"]) == 0
    assert "classic: 1 id rolled out" not in printed_before["CartPole-v1"]
    assert "classic: 1 id rolled out" in printed_before["Catch-bsuite"]  # before bsuite's rollout


def test_parity_at_80_columns_cuts_no_id(monkeypatch, capsys):
    run_parity, _ = _interrupting(after=99)
    monkeypatch.setattr(jaxenvs.parity, "run_parity", run_parity)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["parity", "CartPole-v1", "DeepSeaStochastic-bsuite"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert _rows(out) == ["CartPole-v1", "DeepSeaStochastic-bsuite"]  # whole, one line each
    assert "┃ reference" not in out  # -v or a wide terminal shows it
