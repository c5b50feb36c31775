"""The audit of the peers (a slice; `jaxenvs audit` runs it all; its page: tests/lab/test_audit_page.py)."""

import pytest

from jaxenvs import audit
from jaxenvs.cli import main

pytest.importorskip("gymnax")
pytest.importorskip("gymnasium")


@pytest.fixture(scope="module")
def mountain_car():
    return audit.audit_one("gymnax", "MountainCar-v0", scale=0.05)


def test_a_correct_port_passes_our_own_checks(mountain_car):
    result = mountain_car
    assert result.passed, result.summary()
    assert result.env_id == "gymnax/MountainCar-v0" and result.transitions > 0


def test_gymnax_mountain_car_continuous_keeps_its_velocity_at_the_left_wall():
    """The audit's finding: gymnasium stops the car at the left wall, gymnax does not."""
    result = audit.audit_one("gymnax", "MountainCarContinuous-v0", scale=0.25)
    failed = {c.name: c for c in result.failures()}
    assert "f32 step velocity" in failed, result.summary()
    assert "-1.19" in failed["f32 step velocity"].mismatch and "reference 0.0" in failed["f32 step velocity"].mismatch


def test_a_row_names_its_reproduction(mountain_car):
    row = audit.row("gymnax", "MountainCar-v0", mountain_car, 0.05, 0)
    assert row.verdict == "pass" and row.transitions == mountain_car.transitions and not row.failed
    assert row.reproduce == audit.reproduce("gymnax", "MountainCar-v0", 0.05, 0)


def test_bad_peers_and_ids_are_named(capsys):
    assert main(["audit", "navix-typo"]) == 2
    assert "unknown peer 'navix-typo'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="gymnax has no audited port of 'Taxi-v4'"):
        audit.audit_one("gymnax", "Taxi-v4")


def test_the_reference_side_is_drawn_once_per_key(tmp_path, monkeypatch):
    from jaxenvs.audit.cache import cached

    monkeypatch.setenv("JAXENVS_CACHE", str(tmp_path))
    draws = []

    def draw():
        draws.append(1)
        return {"lengths": [3, 4]}

    assert cached("ref 1.0 n=2 seed=0", draw) == {"lengths": [3, 4]}
    assert cached("ref 1.0 n=2 seed=0", draw) == {"lengths": [3, 4]} and len(draws) == 1
    cached("ref 1.0 n=2 seed=1", draw)
    cached("ref 1.0 n=2 seed=0", draw, refresh=True)
    assert len(draws) == 3
    with pytest.raises(TypeError, match="key must be a non-empty string"):
        cached("", draw)
