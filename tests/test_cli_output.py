"""What `jaxenvs` prints, read as a user reads it: at 80 columns, in a pipe, in `--help`.

Nothing here compiles an env: the parity checks, the benchmarks and the rollouts are stand-ins
where the command would run them.
"""

import re
import warnings

import pytest
from rich.console import Console

import jaxenvs.bench
import jaxenvs.parity
import jaxenvs.registry
from jaxenvs.cli import build_parser, main
from jaxenvs.parity import Check, ParityResult
from jaxenvs.registry import MISSING_EXTRA, Availability, registered_envs


def _terminal(monkeypatch, width: int) -> None:
    """Make the commands print as on a terminal `width` columns wide (without colours)."""
    import jaxenvs.cli._common as common

    def console():
        return Console(markup=False, force_terminal=True, color_system=None, width=width)

    for module in ("envs", "parity", "bench"):
        monkeypatch.setattr(f"jaxenvs.cli.{module}.console", console)
    monkeypatch.setattr(common, "console", console)


def _without_cartpole_v0(monkeypatch) -> None:
    """CartPole-v0 cannot run here: its (made-up) extra is missing."""
    real = jaxenvs.registry.availability

    def availability(env_id, **kwargs):
        if env_id == "CartPole-v0":
            return Availability(env_id, False, MISSING_EXTRA, "'gym0' is not installed", 'pip install "jaxenvs[gym0]"')
        return real(env_id, **kwargs)

    monkeypatch.setattr(jaxenvs.registry, "availability", availability)


def _width(out: str) -> int:
    return max((len(line.rstrip()) for line in out.splitlines()), default=0)


# --- jaxenvs list -----------------------------------------------------------------------------


def test_list_piped_prints_one_whole_id_a_line(capsys):
    assert main(["list"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == registered_envs()  # whole ids: `| grep navix` gives pasteable ones
    assert "…" not in captured.out


def test_list_piped_says_on_stderr_which_ids_cannot_run_here(monkeypatch, capsys):
    _without_cartpole_v0(monkeypatch)
    assert main(["list", "--family", "classic"]) == 0
    captured = capsys.readouterr()
    assert "CartPole-v0" in captured.out.splitlines()
    assert "1 of these 6 ids cannot run here: 1 not installed" in captured.err
    assert main(["list", "--family", "classic", "--runnable"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [i for i in registered_envs("classic") if i != "CartPole-v0"]
    assert captured.err == ""


def test_list_on_an_80_column_terminal_is_a_table_of_whole_ids_saying_which_run(monkeypatch, capsys):
    _without_cartpole_v0(monkeypatch)
    _terminal(monkeypatch, 80)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert _width(out) <= 80 and "…" not in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.split()}
    for env_id in registered_envs():
        assert env_id in rows, env_id  # every id whole, on one line
    assert rows["CartPole-v1"] == ["classic", "yes"]
    assert rows["CartPole-v0"] == ["classic", "not", "installed"]
    text = " ".join(out.split())
    assert 'CartPole-v0: not installed: pip install "jaxenvs[gym0]"' in text  # why, under the table
    assert f"{len(registered_envs())} ids in" in text


def test_list_shows_references_only_where_they_fit_and_plain_lines_where_nothing_does(monkeypatch, capsys):
    _terminal(monkeypatch, 160)
    assert main(["list", "--family", "classic"]) == 0
    out = capsys.readouterr().out
    assert "reference" in out.splitlines()[0] and "gymnasium CartPole-v1 (classic_control)" in out
    _terminal(monkeypatch, 30)  # too narrow for the columns: the ids, one a line
    assert main(["list", "--family", "classic"]) == 0
    assert capsys.readouterr().out.splitlines() == registered_envs("classic")
    _terminal(monkeypatch, 160)
    assert main(["list", "--family", "classic", "--plain"]) == 0
    assert capsys.readouterr().out.splitlines() == registered_envs("classic")


# --- --help -----------------------------------------------------------------------------------


def _help(argv, monkeypatch, capsys) -> str:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    return capsys.readouterr().out


def _subcommands():
    parser = build_parser()
    return next(a for a in parser._actions if a.dest == "command").choices


@pytest.mark.parametrize("command", list(_subcommands()))
def test_every_option_says_what_it_does_and_its_default(command, monkeypatch, capsys):
    text = " ".join(_help([command], monkeypatch, capsys).split())
    for action in _subcommands()[command]._actions:
        if action.dest == "help":
            continue
        assert action.help, f"{command} {action.dest}: no help"
        flag = action.nargs == 0  # a switch: off unless given
        if not flag and not (action.required and action.option_strings == []):
            assert "(default: " in action.help, f"{command} {action.dest}: no default in {action.help!r}"
        assert (action.help % {"default": action.default}).split(" (default")[0] in text
    assert not re.search(r"\w+/\w+\.py", text), "help cites a file of the repository"


def test_the_defaults_users_asked_about_are_in_the_help(monkeypatch, capsys):
    render = " ".join(_help(["render"], monkeypatch, capsys).split())
    assert "overwritten (default: run.gif in the current directory)" in render
    bench = " ".join(_help(["bench"], monkeypatch, capsys).split())
    assert "(default: 1 64 1024 8192)" in bench and "the median is reported (default: 5)" in bench
    assert "benchmarks/" not in bench


def test_the_top_level_help_speaks_to_users(monkeypatch, capsys):
    text = " ".join(_help([], monkeypatch, capsys).split())
    assert "markup" not in text and "traceback" not in text.lower()
    assert "`jaxenvs COMMAND --help` gives a command's options and their defaults" in text


# --- jaxenvs parity ---------------------------------------------------------------------------


def _long_result(env_id, scale=1.0, seed=0):
    detail = "bound 2 x own float32 rounding + 4 ulp; worst error/bound 0.026; " * 3
    checks = [
        Check(f"f32 step field_{i}", n=2000, value=1e-8, threshold=5e-7, passed=True, detail=detail) for i in range(4)
    ]
    return ParityResult(env_id, "gymnasium CartPole-v1 (classic_control), a long reference name", checks=checks)


def test_parity_verbose_fits_80_columns_indents_its_details_and_ends_with_its_summary(monkeypatch, capsys):
    monkeypatch.setattr(jaxenvs.parity, "run_parity", _long_result)
    _terminal(monkeypatch, 80)
    assert main(["parity", "-v", "CartPole-v1"]) == 0
    lines = [line.rstrip() for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert max(len(line) for line in lines) <= 80
    assert not any("…" in line for line in lines)  # no column cut ("referen…", "transit…")
    first = next(i for i, line in enumerate(lines) if line.startswith("CartPole-v1 vs "))
    last = next(i for i, line in enumerate(lines) if line.startswith("parity: "))
    assert lines[first + 1 : last] and all(line.startswith("  ") for line in lines[first + 1 : last])
    assert lines[last] == "parity: 1 pass"
    summary = " ".join(lines[last + 1 :])
    assert summary.startswith("1 env checked, 0 p-values") and summary.endswith("%.")  # one env, not "1 envs"


def test_parity_of_an_id_without_a_check_says_nothing_was_checked(capsys):
    assert main(["parity", "brax/ant"]) == 1
    out = capsys.readouterr().out
    assert "error: nothing was checked: brax/ant: it has no parity check (no reference declared;" in " ".join(
        out.split()
    )
    assert "envs checked" not in out and "probability" not in out and "┃" not in out


def test_parity_of_an_id_that_cannot_run_here_says_so_before_any_work(monkeypatch, capsys):
    def run_parity(*args, **kwargs):
        raise AssertionError("ran the checks of an id that cannot run here")

    _without_cartpole_v0(monkeypatch)
    monkeypatch.setattr(jaxenvs.parity, "run_parity", run_parity)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["parity", "CartPole-v0"]) == 1
    out = capsys.readouterr().out
    assert (
        "error: nothing was checked: CartPole-v0: cannot run here "
        """('gym0' is not installed: pip install "jaxenvs[gym0]")"""
    ) in out
    assert "envs checked" not in out


@pytest.mark.parametrize("argv", [["parity", "CartPole-v2"], ["render", "CartPole-v2"], ["fingerprint", "CartPole-v2"]])
def test_an_unknown_id_points_to_jaxenvs_list(argv, capsys):
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err
    assert "no environment registered as 'CartPole-v2'; did you mean CartPole-v1" in err
    assert "`jaxenvs list` lists every id" in err and "registered_envs" not in err


# --- jaxenvs bench --compare ------------------------------------------------------------------


def test_bench_compare_prints_captured_warnings_once_without_escape_codes(monkeypatch, capsys):
    def compare(env_id, num_envs, num_steps=None, repeats=5, on_skip=None):
        for _ in range(3):  # as gymnasium does, coloured, once per env it builds
            warnings.warn("\x1b[33mWARN: Box low's precision lowered by casting to float32\x1b[0m", stacklevel=1)
        return [jaxenvs.bench.Result(env_id, "jaxenvs make_vec", num_envs, 10, 1e6, 0.5, None)]

    monkeypatch.setattr(jaxenvs.bench, "compare", compare)
    monkeypatch.setenv("COLUMNS", "80")  # piped: where escape codes would show
    assert main(["bench", "CartPole-v1", "--num-envs", "4", "--compare"]) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err
    text = " ".join(captured.out.split())
    assert text.count("Box low's precision lowered by casting to float32") == 1
    assert "warning (" in text and "WARN:" not in text
    assert _width(captured.out) <= 80


# --- jaxenvs render ---------------------------------------------------------------------------


def test_render_shows_a_progress_bar_and_says_it_replaced_a_file(monkeypatch, capsys, tmp_path):
    pytest.importorskip("PIL")
    import numpy as np

    import jaxenvs.export.video

    monkeypatch.setattr(
        jaxenvs.export.video, "rollout_frames", lambda env_id, steps, seed: np.zeros((steps + 1, 8, 8, 3), np.uint8)
    )
    _terminal(monkeypatch, 80)
    out = tmp_path / "run.gif"
    assert main(["render", "CartPole-v1", "--steps", "3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "render CartPole-v1: 4 frames" in printed and "━" in printed  # the bar, finished
    words = " ".join(printed.split())  # a long temporary path wraps at 80 columns
    assert f"wrote {out}" in words and "replacing" not in words
    assert main(["render", "CartPole-v1", "--steps", "3", "--out", str(out)]) == 0
    assert f"wrote {out} (replacing the file there)" in " ".join(capsys.readouterr().out.split())
