"""The parity checks' power: every deliberate mutant (`lab/power/mutants.py`) changes
something observable and fails its id's own suite at the size the family's tests use."""

from __future__ import annotations

import pytest

import jaxenvs
from jaxenvs.registry import BUILT_IN_FAMILIES
from lab.power.mutants import MUTANTS, observable_change
from tests.parity.test_parity import SCALES

# the size each family's parity tests run at (tests/parity/test_parity.py)
# a mutant is caught at the parity tests' scale, or smaller where that is the demo's (Box2D:
# each mutant compiles the whole physics step anew, and is caught at 0.05)
TEST_SCALE = {family: SCALES[family] for family in BUILT_IN_FAMILIES} | {"box2d": 0.05}
REFERENCE_LIBRARY = {
    "classic": "gymnasium",
    "toy_text": "gymnasium",
    "minatar": "minatar",
    "bsuite": "bsuite",
    "misc": "gymnax",
    "box2d": "Box2D",
}

# grouped by id, so that a worker runs one id's mutants one after the other (shared compiles)
REQUIRED = sorted((m for m in MUTANTS.values() if m.in_tests and not m.needs), key=lambda m: (m.env_id, m.name))


def test_every_family_with_a_reference_has_mutants():
    families = {jaxenvs.spec(m.env_id).family for m in MUTANTS.values()}
    assert families == set(TEST_SCALE)
    assert len(REQUIRED) >= 30


@pytest.mark.slow
@pytest.mark.parametrize("mutant", REQUIRED, ids=lambda m: m.name)
def test_mutant_changes_something_and_fails_its_suite(mutant):
    family = jaxenvs.spec(mutant.env_id).family
    pytest.importorskip(REFERENCE_LIBRARY[family])
    from jaxenvs.parity import run_parity
    from jaxenvs.parity.verdict import stop_at_first_failure

    assert observable_change(mutant, num_envs=16, num_steps=64) is not None, f"{mutant.name} changes nothing"
    env, params = mutant.build()
    # the verdict only: a failed deterministic check ends the run (p-values still run to the end)
    with stop_at_first_failure():
        result = run_parity(mutant.env_id, scale=TEST_SCALE[family], env=env, params=params)
    assert result.verdict == "FAIL", f"{mutant.name} ({mutant.bug}) passed:\n{result.summary()}"


def test_stopping_at_the_first_failure_gives_the_full_runs_verdict():
    pytest.importorskip("bsuite")
    from jaxenvs.parity import run_parity
    from jaxenvs.parity.verdict import stop_at_first_failure

    env, params = MUTANTS["deepsea-move-cost"].build()
    full = run_parity("DeepSea-bsuite", scale=SCALES["bsuite"], env=env, params=params)
    with stop_at_first_failure():
        short = run_parity("DeepSea-bsuite", scale=SCALES["bsuite"], env=env, params=params)
    assert full.verdict == short.verdict == "FAIL"
    assert len(short.checks) == 1 and short.checks[0].name in {c.name for c in full.failures()}


def test_power_section_is_kept_and_replaced():
    from jaxenvs.parity.report import BEGIN, END, section_of, with_section

    table = "# Parity\n\n| env |\n\n## Every check\n\nlong"
    one = with_section(table, f"{BEGIN}\none\n{END}")
    assert one.index(BEGIN) < one.index("## Every check") and section_of(one) == f"{BEGIN}\none\n{END}"
    two = with_section(one, f"{BEGIN}\ntwo\n{END}")
    assert "one" not in two and section_of(two) == f"{BEGIN}\ntwo\n{END}" and two.endswith("long")


def test_a_mutant_that_changes_nothing_is_refused(monkeypatch):
    from lab.power import measure as power
    from lab.power import mutants

    same = mutants.Mutant("cartpole-gravity-unchanged", "CartPole-v1", "gravity as registered", {"gravity": 9.8})
    assert observable_change(same, num_envs=8, num_steps=16) is None
    monkeypatch.setitem(mutants.MUTANTS, same.name, same)
    with pytest.raises(ValueError, match="cartpole-gravity-unchanged is not a mutant"):
        power.measure_power([same.name])
