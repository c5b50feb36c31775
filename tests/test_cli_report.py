"""`jaxenvs report`'s rendering: compact at 80 columns, every message escaped, a summary per
family, and one line per family for the ids it did not roll out (never a table row)."""

import io

from rich.console import Console

from jaxenvs.cli.report_plan import BROKEN, DOWNLOAD, REST, SWEEP, LeftOut, ReportRow
from jaxenvs.cli.report_print import print_family, print_title
from jaxenvs.parity import Check, ParityResult


def _parity(env_id, passed=True, skipped=None):
    check = Check(name="episode return", n=125, value=0.5 if passed else 3.3, threshold=3.0, passed=passed)
    return ParityResult(env_id, "gymnasium", checks=[check], skipped=skipped)


def _row(env_id, family, speed, parity=None, small=False, error=None):
    return ReportRow(
        env_id,
        family,
        rollout=(16, 10) if small else (1024, 100),
        small=small,
        steps_per_second=speed,
        compile_seconds=40.0 if small else 1.2,
        error=error,
        parity=parity,
        reference="gymnasium CartPole-v1 (classic_control)" if env_id == "CartPole-v1" else "ref [lib]",
        seconds=30.0 if small else 2.0,
    )


ROWS = [
    _row("CartPole-v1", "classic", 12.5e6, _parity("CartPole-v1")),
    _row("MountainCarContinuous-v0", "classic", 3.1e6, _parity("MountainCarContinuous-v0", passed=False)),
    _row("Pendulum-v1", "classic", 4.0e6, _parity("Pendulum-v1", skipped="reference not installed [x]")),
    _row("Catch-bsuite", "bsuite", 20e6, _parity("Catch-bsuite")),
    _row("brax/fast", "brax", 2.5e6),
    _row("brax/inverted_pendulum", "brax", 830.0, small=True),
    _row("jumanji/Snake-v1", "jumanji", None, error="AttributeError: no attribute 'low' [x]"),
]
LEFT_OUT = [
    LeftOut("bsuite/catch/0", "bsuite", SWEEP),
    LeftOut("bsuite/catch/1", "bsuite", SWEEP),
    LeftOut("brax/ant", "brax", REST),
    LeftOut("brax/hopper", "brax", REST),
    LeftOut("brax/swimmer", "brax", BROKEN),
    LeftOut("jumanji/Sokoban-v0", "jumanji", DOWNLOAD),
    LeftOut("navix/Navix-Empty-5x5-v0", "navix", "not installed"),
]


def render(width, verbose=False):
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, legacy_windows=False)
    print_title(console, "jaxenvs report: test")
    for family in dict.fromkeys(r.family for r in ROWS + LEFT_OUT):
        rows = [r for r in ROWS if r.family == family]
        left_out = [i for i in LEFT_OUT if i.family == family]
        print_family(console, family, rows, left_out, verbose=verbose)
    return out.getvalue()


def table_lines(text):
    return [line for line in text.splitlines() if line.startswith("│")]


def test_compact_at_80_columns_no_wrapped_rows():
    text = render(80)
    assert max(len(line) for line in text.splitlines()) <= 80
    rows = table_lines(text)
    assert len(rows) == len(ROWS)  # one line per rolled-out id, nothing wrapped, no left-out id
    for row in ROWS:
        assert any(f" {row.env_id} " in line for line in rows), f"{row.env_id} cut or wrapped"
    assert "┃ reference" not in text and "compile s" not in text  # wide terminals and -v only


def test_figures_and_marks_in_the_cells():
    rows = {line.split("│")[1].strip(): line for line in table_lines(render(80))}
    assert "12.5M" in rows["CartPole-v1"] and "pass" in rows["CartPole-v1"]
    assert "FAIL" in rows["MountainCarContinuous-v0"]
    assert "830 *" in rows["brax/inverted_pendulum"]  # the smaller rollout is marked
    assert "failed" in rows["jumanji/Snake-v1"]


def test_notes_say_what_a_cell_cannot():
    text = render(80)
    assert "* compiling dominates on a CPU: 16 envs x 10 steps (compile:\n  brax/inverted_pendulum 40 s)" in text
    assert "MountainCarContinuous-v0: parity FAIL: episode return: error 3.3 <= 3 over 125\n  [FAIL]" in text
    # brackets survive (rich markup would eat "[x]")
    assert "jumanji/Snake-v1: rollout failed: AttributeError: no attribute 'low' [x]" in text
    assert "Pendulum-v1: parity skipped: reference not installed [x]" in text


def test_left_out_ids_are_one_line_per_family_naming_the_command():
    import jax

    text = render(200)
    lines = text.splitlines()
    brax = [line for line in lines if line.startswith("not rolled out") and "brax" in line]
    assert len(brax) == 1
    # the estimate: brax/ant and brax/hopper at the rollouts just measured, the smaller one
    # (30 s) on a CPU, where compiling dominates them, else brax/fast's (2 s)
    about = "about 60 s here" if jax.default_backend() == "cpu" else "about 4 s here"
    assert f"2 more brax ids: `jaxenvs report --family brax --all`, {about}" in brax[0]
    assert "brax/swimmer not run: fails inside brax" in brax[0]  # the registration's reason
    assert (
        "not rolled out: jumanji/Sokoban-v0 downloads its Boxoban levels from Hugging Face when constructed "
        "(`jaxenvs report --family jumanji --all` runs it)" in text
    )
    # the sweeps' estimate: two ids at the median rollout of the bsuite rows (2 s each)
    assert "2 sweep ids (bsuite's experiments: settings of the ids above): " in text
    assert "`jaxenvs report --family bsuite --sweeps`, about 4 s here" in text
    assert 'navix\nnot rolled out: navix/Navix-Empty-5x5-v0 not installed: pip install "jaxenvs[navix]"' in text
    assert not any("Sokoban" in line or "swimmer" in line or "brax/ant" in line for line in table_lines(text))


def test_summary_line_per_family():
    text = render(80)
    assert "classic: 3 ids rolled out; median 4M steps/s (3.1M to 12.5M);\n  parity: 1 pass, 1 FAIL, 1 skipped" in text
    wide = "classic: 3 ids rolled out; median 4M steps/s (3.1M to 12.5M); parity: 1 pass, 1 FAIL, 1 skipped\n"
    assert wide in render(200)
    # a smaller rollout's figure is not a throughput: it stays out of the median
    assert "brax: 2 ids rolled out\n" in text


def test_verbose_and_wide_show_every_column():
    for text in (render(80, verbose=True), render(200)):
        assert "compile s" in text and "┃ reference" in text
    assert "gymnasium CartPole-v1 (classic_control)" in render(200)


def test_a_data_set_the_user_provides_is_a_note_not_a_failure(monkeypatch, capsys):
    import jaxenvs.bench
    from jaxenvs.cli import main
    from jaxenvs.envs.bsuite.mnist_data import DataNotFoundError

    def no_data(*args, **kwargs):
        raise DataNotFoundError(
            "MNISTBandit needs MNIST, and none was given (no network).\nSet JAXENVS_MNIST_DIR=/path"
        )

    monkeypatch.setattr(jaxenvs.bench, "rollout_throughput", no_data)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", "MNISTBandit-bsuite", "--no-parity"]) == 0  # nothing is wrong with the env
    out = capsys.readouterr().out
    assert "│ MNISTBandit-bsuite │ no data │" in out
    # compact: the reason; -v: how to provide the data too
    words = " ".join(out.split())  # wherever the lines wrap
    assert (
        "MNISTBandit-bsuite: no rollout: MNISTBandit needs MNIST, and none was given (-v: how to provide it)" in words
    )
    assert "bsuite: 1 id, 0 rolled out\n" in out and "total: 1 id, 0 rolled out in 1 s" in out
    assert main(["report", "MNISTBandit-bsuite", "--no-parity", "-v"]) == 0
    out = capsys.readouterr().out
    assert (
        "no rollout: MNISTBandit needs MNIST, and none was given (no network). Set JAXENVS_MNIST_DIR=/path"
        in " ".join(out.split())
    )
