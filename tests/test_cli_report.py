"""`jaxenvs report`'s rendering: compact at 80 columns, every message escaped, a summary per family."""

import io

from rich.console import Console

from jaxenvs.cli import print_report

ROWS = [
    ("CartPole-v1", "classic", "12.50M", "1.2", "pass", "gymnasium CartPole-v1 (classic_control)"),
    ("MountainCarContinuous-v0", "classic", "3.10M", "0.9", "FAIL", "gymnasium MountainCarContinuous-v0"),
    ("Pendulum-v1", "classic", "4.00M", "1.0", "skipped: reference not installed (gymnasium)", "gymnasium"),
    ("jumanji/RubiksCube-partly-scrambled-v0", "jumanji", 'needs pip install "jaxenvs[jumanji]"', "-", "-", "lib"),
    ("jumanji/Sokoban-v0", "jumanji", "skipped: downloads its levels [hf] (--all runs it)", "-", "-", "lib"),
    ("brax/ant", "brax", "skipped: slow on a CPU; run `jaxenvs bench brax/ant`", "-", "-", "lib"),
    ("brax/hopper", "brax", "skipped: slow on a CPU; run `jaxenvs bench brax/hopper`", "-", "-", "lib"),
]


def render(width, verbose=False):
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, legacy_windows=False)
    print_report(console, ROWS, "jaxenvs report: test", verbose=verbose)
    return out.getvalue()


def table_lines(text):
    return [line for line in text.splitlines() if line.startswith("│")]


def test_compact_at_80_columns_no_wrapped_rows():
    text = render(80)
    assert max(len(line) for line in text.splitlines()) <= 80
    rows = table_lines(text)
    assert len(rows) == len(ROWS)  # one line per row: nothing wrapped
    for env_id, *_ in ROWS:
        assert any(f" {env_id} " in row for row in rows), f"{env_id} cut or wrapped"
    assert "┃ reference" not in text and "compile s" not in text  # wide terminals and -v only


def test_messages_escaped_and_kept_in_full():
    text = render(80)
    # the extra in brackets survives (rich markup would eat "[jumanji]")
    assert 'jumanji/RubiksCube-partly-scrambled-v0: needs pip install "jaxenvs[jumanji]"' in text
    assert "downloads its levels [hf] (--all runs it)" in text
    row = next(r for r in table_lines(text) if "Sokoban" in r)
    assert "skipped" in row and "downloads" not in row


def test_same_message_noted_once():
    text = render(80)
    assert "brax/ant, brax/hopper: skipped: slow on a CPU; run `jaxenvs bench <id>`" in text
    assert "jumanji/Sokoban-v0: skipped: downloads" in text


def test_summary_line_per_family():
    text = render(80)
    assert "classic: 3 ids; median 4.00M steps/s (3.10-12.50M);\n  parity 1 FAIL, 1 pass, 1 skipped\n" in text
    wide = "classic: 3 ids; median 4.00M steps/s (3.10-12.50M); parity 1 FAIL, 1 pass, 1 skipped\n"
    assert wide in render(200)
    assert "jumanji: 2 ids, 2 not rolled out\n" in text


def test_verbose_and_wide_show_every_column():
    for text in (render(80, verbose=True), render(200)):
        assert "compile s" in text and "┃ reference" in text
    assert "gymnasium CartPole-v1 (classic_control)" in render(200)
