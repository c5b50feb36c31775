"""`jaxenvs` CLI bad input: validated before work, one line, exit 2 for usage and 1 at runtime."""

import pytest

from jaxenvs.cli import main


def _one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


def _no_work(monkeypatch):
    import jaxenvs.bench
    import jaxenvs.export.video
    import jaxenvs.parity

    def work(*args, **kwargs):
        raise AssertionError("did work before rejecting the arguments")

    for module, name in (
        (jaxenvs.parity, "run_parity"),
        (jaxenvs.bench, "rollout_throughput"),
        (jaxenvs.bench, "compare"),
        (jaxenvs.export.video, "record"),
    ):
        monkeypatch.setattr(module, name, work)


USAGE_ERRORS = [
    (["list", "--family", "bogus"], "unknown family 'bogus'; valid families: "),
    (["bench", "--family", "bogus"], "unknown family 'bogus'"),
    (["parity", "CartPole-v1", "--markdown", "/missing/dir/p.md"], "the directory '/missing/dir' does not exist"),
    (["render", "CartPole-v1", "--steps", "-5"], "argument --steps: expected a positive integer"),
    (["bench", "CartPole-v1", "--num-envs", "0"], "argument --num-envs: expected a positive integer"),
    (["bench", "CartPole-v1", "--num-steps", "0"], "argument --num-steps: expected a positive integer"),
    (["bench", "CartPole-v1", "--num-envs", "2.5"], "expected a positive integer, got '2.5'"),
    (["report", "--scale", "nan"], "expected a positive finite number"),
    (["parity", "Nope-v1"], "No environment registered as 'Nope-v1'"),
]


@pytest.mark.parametrize(("argv", "message"), USAGE_ERRORS)
def test_usage_errors_exit_2_with_one_line_before_any_work(argv, message, monkeypatch, capsys):
    _no_work(monkeypatch)
    with pytest.raises(SystemExit) as e:
        raise SystemExit(main(argv))
    assert e.value.code == 2
    captured = capsys.readouterr()
    assert message in _one_line(captured.err) and captured.out == ""


def test_render_of_an_env_without_render_is_a_usage_error(monkeypatch, capsys, tmp_path):
    pytest.importorskip("pgx")
    _no_work(monkeypatch)
    assert main(["render", "pgx/tic_tac_toe", "--out", str(tmp_path / "x.gif")]) == 2
    assert "pgx/tic_tac_toe cannot be rendered" in _one_line(capsys.readouterr().err)


def test_a_runtime_error_is_one_line_and_exit_1(monkeypatch, capsys):
    import jaxenvs.bench

    def boom(*args, **kwargs):
        raise RuntimeError("the device fell over\nsecond line")

    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", boom)
    assert main(["bench", "CartPole-v1", "--num-envs", "2", "--num-steps", "2", "--repeats", "1"]) == 1
    assert _one_line(capsys.readouterr().err) == "error: RuntimeError: the device fell over"


def test_printed_text_keeps_square_brackets(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "brax" else real(name, *a))
    monkeypatch.setenv("COLUMNS", "200")  # a wide console: rich would cut the cell short
    assert main(["report", "brax/fast", "--no-parity"]) == 0
    assert 'brax/fast not installed: pip install "jaxenvs[brax]"' in capsys.readouterr().out


def test_version(capsys):
    import jaxenvs

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip() == f"jaxenvs {jaxenvs.__version__}"
