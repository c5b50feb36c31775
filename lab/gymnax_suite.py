"""gymnax's own test suite run against jaxenvs' gymnax export.

```bash
git --git-dir=<gymnax git dir> archive <commit> tests | tar -x -C /tmp/gymnax_tests
python -m lab.gymnax_suite /tmp/gymnax_tests/tests            # gymnax's default env choices
python -m lab.gymnax_suite /tmp/gymnax_tests/tests --all      # every env of each family
python -m lab.gymnax_suite /tmp/gymnax_tests/tests -- -k frozen_lake
python -m lab.gymnax_suite /tmp/gymnax_tests/tests --json /tmp/suite.json  # every test's record
```

The tests run unmodified, in one pytest process (`-n 0`) started in the folder above `tests/`
(gymnax's tests import `tests.helpers`), with this module as a pytest plugin (`-p
lab.gymnax_suite`). The plugin imports `jaxenvs.export.gymnax` (which registers every jaxenvs
id with gymnax as `jaxenvs/<id>`) and puts the export's `make` where gymnax's is
(`gymnax.make`, `gymnax.registration.make` and any gymnax module holding it), so every
`gymnax.make(id)` in gymnax's tests builds the export. Tests that build gymnax's classes
directly (`DeepSea(size=4)`) still test gymnax: the summary says which tests reached the export.

Each failure is printed with its error and a hint read from its traceback (the verdict is the
reader's): "private" where the test reaches into gymnax's internals (a private attribute, or a
function of gymnax's env modules such as `breakout.step_agent`, which the export does not
replace), "field" where it reads a state or params field that jaxenvs' state or params lacks
(gymnax's own fields, as Seaquest's `f_bullets`), else "export" (look in jaxenvs).

`gymnax.registered_envs` holds every `jaxenvs/<id>` too, so `test_reproduction_matrix.py` makes,
resets and steps each of them (hundreds of compilations): `-- -k "not jaxenvs"` leaves them out.

pytest-timeout is not required: each test gets `--timeout` seconds (SIGALRM) when it is absent.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

REPORT_ENV = "JAXENVS_GYMNAX_SUITE_REPORT"
TIMEOUT_ENV = "JAXENVS_GYMNAX_SUITE_TIMEOUT"
TESTS_ENV = "JAXENVS_GYMNAX_SUITE_TESTS"
ROOT = Path(__file__).resolve().parent.parent

# gymnax's modules whose module-level functions are its env internals (not the Environment API)
PRIVATE_MODULES = ("gymnax.environments.",)


# --- the pytest plugin (loaded in the pytest process by `-p lab.gymnax_suite`) ---------------

_used: list[str] = []  # the ids the export built during the current test
_results: list[dict[str, Any]] = []


def _recording_make(make: Any) -> Any:
    def recorded(env_id: str, *args: Any, **kwargs: Any) -> Any:
        _used.append(str(env_id))
        return make(env_id, *args, **kwargs)

    recorded.__wrapped__ = make
    recorded.__doc__ = make.__doc__
    return recorded


def pytest_configure(config: pytest.Config) -> None:
    """Import the export (registering jaxenvs' ids with gymnax) and put its `make` in gymnax's place."""
    import gymnax

    from jaxenvs.export import gymnax as export

    original = gymnax.registration.make
    ours = _recording_make(export.make)
    for name, module in list(sys.modules.items()):
        if (name == "gymnax" or name.startswith("gymnax.")) and getattr(module, "make", None) is original:
            module.make = ours
    gymnax.make = gymnax.registration.make = ours


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Run the test under a wall-clock limit (where pytest-timeout is not installed)."""
    seconds = int(os.environ.get(TIMEOUT_ENV, "0") or 0)
    if seconds <= 0 or item.config.pluginmanager.hasplugin("timeout") or not hasattr(signal, "SIGALRM"):
        return (yield)

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"test ran over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        return (yield)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Start each test with no export built."""
    _used.clear()


def _chain(error: BaseException) -> list[BaseException]:
    """The error and those it was raised while handling, outermost first."""
    chain = [error]
    while chain[-1].__context__ is not None and chain[-1].__context__ not in chain and len(chain) < 8:
        chain.append(chain[-1].__context__)
    return chain


def _one_line(error: BaseException) -> str:
    """`Type: message`, the message's first line (JAX's notes and pytest's diffs left out), and
    the first error where it was raised while handling another (matplotlib's over gymnax's)."""

    def line(e: BaseException) -> str:
        message = str(e).strip().splitlines()
        return f"{type(e).__name__}: {message[0]}" if message else type(e).__name__

    chain = _chain(error)
    text = line(error) if len(chain) == 1 else f"{line(chain[-1])} (then {line(error)})"
    return text[:400]


def _hint(excinfo: Any) -> str:
    """Where the failure comes from, read from its traceback.

    Returns:
        "private": the test (or its helper) called a gymnax env module's function (module-level,
        as `breakout.step_agent`, or a private method) or read a private attribute; "field": it
        read a state or params field the export's (jaxenvs') state or params lacks; "export":
        anything else (look in jaxenvs).
    """
    tests = os.environ.get(TESTS_ENV, "")
    entries = list(excinfo.traceback)
    for caller, callee in zip(entries, entries[1:]):
        module = str(callee.frame.f_globals.get("__name__", ""))
        if tests and str(caller.path).startswith(tests) and module.startswith(PRIVATE_MODULES):
            if "self" not in callee.frame.f_locals or callee.frame.code.name.startswith("_"):
                return "private"
    for error in _chain(excinfo.value):
        if isinstance(error, AttributeError) and str(getattr(error, "name", "") or "").startswith("_"):
            return "private"
        owner = getattr(error, "obj", None) if isinstance(error, AttributeError) else None
        if dataclasses.is_dataclass(owner) and type(owner).__module__.startswith("jaxenvs."):
            return "field"
    return "export"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    """Record each phase's outcome, the ids the export built and, for a failure, its error."""
    report = yield
    failed = report.failed or (call.when == "call" and report.outcome == "failed")
    if call.when == "call" or failed or report.skipped:
        entry = {
            "nodeid": report.nodeid,
            "when": call.when,
            "outcome": report.outcome,
            "export_ids": sorted(set(_used)),
        }
        if failed and call.excinfo is not None:
            error = call.excinfo.value
            entry["error"] = _one_line(error)
            entry["hint"] = _hint(call.excinfo)
        elif report.skipped and isinstance(report.longrepr, tuple):
            entry["error"] = str(report.longrepr[2])[:300]
        _results.append(entry)
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Write the results where the driver asked."""
    path = os.environ.get(REPORT_ENV)
    if path:
        Path(path).write_text(json.dumps(_results, indent=1))


# --- the driver -----------------------------------------------------------------------------


def classify(results: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each test's outcome: passed, failed, error (a setup or teardown failure) or skipped.

    Args:
        results: The plugin's records (one per test phase that counts).

    Returns:
        The records by outcome, one per test (a test failing in call and teardown counts once,
        as failed).
    """
    by_test: dict[str, dict[str, Any]] = {}
    for entry in results:
        if entry["outcome"] == "failed":
            kind = "failed" if entry["when"] == "call" else "error"
        else:
            kind = entry["outcome"]
        entry = {**entry, "kind": kind}
        previous = by_test.get(entry["nodeid"])
        if previous is None or previous["kind"] in ("passed", "skipped"):
            by_test[entry["nodeid"]] = entry
    groups: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for entry in by_test.values():
        groups[entry["kind"]].append(entry)
    return groups


def run_suite(tests: Path, pytest_args: Sequence[str] = (), timeout: int = 600) -> tuple[int, list[dict[str, Any]]]:
    """Run gymnax's tests in `tests` on the export, in one pytest process.

    Args:
        tests: gymnax's `tests/` folder (its parent becomes pytest's root and working directory).
        pytest_args: More arguments for pytest (`--all`, `-k ...`).
        timeout: Seconds per test (0: none).

    Returns:
        `(pytest's exit code, the plugin's records)`.
    """
    tests = tests.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = dict(os.environ)
        env[REPORT_ENV], env[TIMEOUT_ENV], env[TESTS_ENV] = str(report), str(timeout), str(tests)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        cmd = [sys.executable, "-m", "pytest", str(tests), "-p", "lab.gymnax_suite", "-p", "no:cacheprovider"]
        cmd += ["-q", "--rootdir", str(tests.parent), "-c", os.devnull]
        try:
            import xdist  # noqa: F401

            cmd += ["-n", "0"]
        except ImportError:
            pass
        cmd += list(pytest_args)
        code = subprocess.run(cmd, cwd=tests.parent, env=env).returncode
        results = json.loads(report.read_text()) if report.exists() else []
    return code, results


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite and print its counts and each failure.

    Returns:
        0 when every test passed or was skipped, else 1.
    """
    parser = argparse.ArgumentParser(prog="python -m lab.gymnax_suite", description=__doc__.splitlines()[0])
    parser.add_argument("tests", type=Path, help="gymnax's tests/ folder (from its repository)")
    parser.add_argument("--all", action="store_true", help="every env of each family (gymnax's --all)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per test, 0 for none (default: 600)")
    parser.add_argument("--json", type=Path, help="write every test's record (outcome, error, hint) here")
    parser.epilog = "Arguments after -- go to pytest."
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if not (args.tests / "conftest.py").exists():
        parser.error(f"{args.tests}: not gymnax's tests folder (no conftest.py)")
    code, results = run_suite(args.tests, ["--all"] * args.all + pytest_args, args.timeout)
    if not results:
        print(f"pytest exited {code} with no results", file=sys.stderr)
        return 1
    groups = classify(results)
    if args.json:
        args.json.write_text(json.dumps({k: sorted(v, key=lambda e: e["nodeid"]) for k, v in groups.items()}, indent=1))
    total = sum(len(v) for v in groups.values())
    reached = sum(bool(e["export_ids"]) for v in groups.values() for e in v)
    print()
    print(f"gymnax's suite on jaxenvs' export: {total} tests, {reached} of them built the export")
    print(", ".join(f"{len(groups.get(k, []))} {k}" for k in ("passed", "failed", "error", "skipped")))
    hints = collections.Counter(e.get("hint", "?") for k in ("failed", "error") for e in groups.get(k, []))
    if hints:
        print("failures by hint: " + ", ".join(f"{n} {hint}" for hint, n in sorted(hints.items())))
    for kind in ("failed", "error"):
        for entry in sorted(groups.get(kind, []), key=lambda e: e["nodeid"]):
            built = "built " + ", ".join(entry["export_ids"]) if entry["export_ids"] else "no export built"
            print(f"  {kind} [{entry.get('hint', '?')}] {entry['nodeid']} ({built})")
            print(f"      {entry.get('error', '')}")
    return 0 if not (groups.get("failed") or groups.get("error")) else 1


if __name__ == "__main__":
    sys.exit(main())
