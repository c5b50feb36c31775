"""`jaxenvs bench`: make_vec alone, or side by side with the peers that are installed."""

import pytest

from jaxenvs.cli import main as cli_main


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps table cells to the terminal's width


def test_bench_make_vec(capsys):
    assert cli_main(["bench", "Catch-bsuite", "--num-envs", "4", "--num-steps", "20", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "Catch-bsuite" in out and "gymnax" not in out


def test_bench_compare_times_the_peers(capsys):
    pytest.importorskip("gymnax")
    pytest.importorskip("bsuite")
    assert (
        cli_main(["bench", "Catch-bsuite", "--num-envs", "1", "--num-steps", "20", "--repeats", "1", "--compare"]) == 0
    )
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "Catch-bsuite" in line]
    libraries = {lib for lib in ("jaxenvs make_vec", "jaxenvs vmap", "gymnax", "bsuite") if any(lib in r for r in rows)}
    assert libraries == {"jaxenvs make_vec", "jaxenvs vmap", "gymnax", "bsuite"}, out
    make_vec_row = next(r for r in rows if "jaxenvs make_vec" in r)
    assert "1.00x" in make_vec_row  # the ratio column is make_vec over each library
