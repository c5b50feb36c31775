"""lab/gymnax_suite.py: counting outcomes, the failure line, and a small gymnax-style suite on the export."""

import json

import pytest

from lab import gymnax_suite


def _record(nodeid, when, outcome, **extra):
    return {"nodeid": nodeid, "when": when, "outcome": outcome, "export_ids": [], **extra}


def test_classify_counts_each_test_once():
    groups = gymnax_suite.classify(
        [
            _record("t::a", "call", "passed"),
            _record("t::b", "call", "failed"),
            _record("t::b", "teardown", "failed"),  # still one failed test
            _record("t::c", "setup", "failed"),  # a fixture's failure: an error
            _record("t::d", "setup", "skipped"),
            _record("t::e", "call", "passed"),
            _record("t::e", "teardown", "failed"),  # passed, then its teardown failed
        ]
    )
    assert {k: sorted(e["nodeid"] for e in v) for k, v in groups.items()} == {
        "passed": ["t::a"],
        "failed": ["t::b"],
        "error": ["t::c", "t::e"],
        "skipped": ["t::d"],
    }


def test_one_line_names_the_first_error_of_a_chain():
    try:
        try:
            raise AttributeError("'GymnaxExport' object has no attribute 'rows'\nmore")
        except AttributeError:
            raise IndexError("list index out of range")  # noqa: B904
    except IndexError as e:
        chained = e
    assert gymnax_suite._one_line(chained) == (
        "AttributeError: 'GymnaxExport' object has no attribute 'rows' (then IndexError: list index out of range)"
    )
    assert gymnax_suite._one_line(ValueError("one\ntwo")) == "ValueError: one"


def test_a_folder_without_gymnax_conftest_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        gymnax_suite.main([str(tmp_path)])


@pytest.mark.slow
def test_gymnax_make_builds_the_export_and_failures_get_hints(tmp_path, capsys):
    pytest.importorskip("gymnax")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    (tests / "conftest.py").write_text("")
    (tests / "test_small.py").write_text(
        "import gymnax\n"
        "\n"
        "def test_make_is_the_export():\n"
        "    env, params = gymnax.make('CartPole-v1')\n"
        "    assert type(env).__name__ == 'GymnaxExport'\n"
        "\n"
        "def test_private():\n"
        "    env, params = gymnax.make('CartPole-v1')\n"
        "    env._a_private_helper()\n"
        "\n"
        "def test_no_export():\n"
        "    assert gymnax.registered_envs[0] == 'CartPole-v1'\n"
    )
    out = tmp_path / "records.json"
    assert gymnax_suite.main([str(tests), "--json", str(out)]) == 1
    groups = json.loads(out.read_text())
    assert sorted(e["nodeid"].split("::")[1] for e in groups["passed"]) == ["test_make_is_the_export", "test_no_export"]
    (failure,) = groups["failed"]
    assert failure["hint"] == "private" and failure["export_ids"] == ["CartPole-v1"]
    assert "2 passed, 1 failed, 0 error, 0 skipped" in capsys.readouterr().out
