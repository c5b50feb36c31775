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
    (["parity", "Nope-v1"], "no environment registered as 'Nope-v1'"),
    (["render", "CartPole-v2"], "did you mean CartPole-v1, CartPole-v0"),
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
    assert main(["report", "brax/fast", "--no-parity"]) == 1  # nothing rolled out, and why
    out = capsys.readouterr().out
    assert 'brax/fast not installed: pip install "jaxenvs[brax]"' in out
    assert "error: nothing was rolled out: 1 id left out" in " ".join(out.split())


def test_version(capsys):
    import jaxenvs

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip() == f"jaxenvs {jaxenvs.__version__}"


# --- exit codes that never hide a run that checked nothing ------------------------------------


@pytest.fixture
def skipping_ids(monkeypatch):
    """Two ids whose declared reference library is not installed, and one whose check runs."""
    from jaxenvs import registry
    from jaxenvs.parity import Check, ParitySpec

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    entry = "jaxenvs.envs.classic.cartpole:CartPole"
    absent = ParitySpec(checks=lambda ctx: [], library="no_such_reference_lib_xyz")
    registry.register("mine/Absent-v0", entry, parity=absent, extra="parity")
    registry.register("mine/Absent-v1", entry, parity=absent, extra="parity")
    ran = ParitySpec(checks=lambda ctx: [Check("the same", n=1, value=0.0, threshold=0.0, passed=True)], library="jax")
    registry.register("mine/Checked-v0", entry, parity=ran)
    monkeypatch.setenv("COLUMNS", "200")


def test_parity_that_checked_nothing_exits_1_saying_why(skipping_ids, capsys):
    assert main(["parity", "mine/Absent-v0", "mine/Absent-v1"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "error: nothing was checked (2 ids, each skipped): mine/Absent-v0: reference not installed" in out
    assert 'pip install "jaxenvs[parity]"' in out
    assert "envs checked" not in out and "probability" not in out  # no budget of a run that did not happen


def test_parity_exits_1_for_a_named_id_it_skipped(skipping_ids, capsys):
    assert main(["parity", "mine/Checked-v0"]) == 0
    capsys.readouterr()
    assert main(["parity", "mine/Checked-v0", "mine/Absent-v0"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "error: not checked: mine/Absent-v0: reference not installed (no_such_reference_lib_xyz)" in out
    assert "mine/Checked-v0" not in out.split("error:")[-1]


def test_parity_with_a_typo_in_its_reference_module_exits_1_naming_it(monkeypatch, capsys):
    from jaxenvs import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("mine/Typo-v0", "jaxenvs.envs.classic.cartpole:CartPole", parity="my_parity_modul:SPEC")
    assert main(["parity", "mine/Typo-v0"]) == 1
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("error: mine/Typo-v0: cannot load its parity reference 'my_parity_modul:SPEC'")


def test_report_whose_parity_checks_all_skipped_exits_1(skipping_ids, monkeypatch, capsys):
    import jaxenvs.bench
    from jaxenvs.bench import Throughput

    monkeypatch.setattr(
        jaxenvs.bench,
        "rollout_throughput",
        lambda env_id, num_envs, num_steps, repeats: Throughput(env_id, num_envs, num_steps, 1e6, 0.5, repeats),
    )
    assert main(["report", "mine/Absent-v0", "--num-envs", "2", "--num-steps", "2"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "error: no parity check ran (1 skipped; mine/Absent-v0: reference not installed" in out
    assert main(["report", "mine/Absent-v0", "--num-envs", "2", "--num-steps", "2", "--no-parity"]) == 0


def test_python_m_jaxenvs_is_the_command():
    import subprocess
    import sys

    import jaxenvs

    out = subprocess.run([sys.executable, "-m", "jaxenvs", "--version"], capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout.strip()) == (0, f"jaxenvs {jaxenvs.__version__}"), out.stderr


def test_the_cli_re_exports_nothing_of_the_report():
    import jaxenvs.cli

    for name in ("report_policy", "ReportRow", "LeftOut", "FULL", "print_family", "print_title"):
        assert not hasattr(jaxenvs.cli, name), name  # import them from report_plan / report_print
    assert jaxenvs.cli.__all__ == ["UsageError", "build_parser", "main"]
