"""The audit of Craftax-Classic against Crafter: a cheap slice (worlds only, a few of Crafter's).

`jaxenvs audit craftax` runs the whole row (worlds and random-policy episodes of both).
"""

import numpy as np
import pytest

from jaxenvs import audit
from jaxenvs.audit import craftax as cx
from lab.audit_page import findings

pytest.importorskip("craftax")
pytest.importorskip("crafter")


@pytest.fixture(scope="module")
def worlds():
    """Craftax-Classic's worlds (32, through our adapter) and Crafter's (2, cached on disk)."""
    return cx.craftax_sample(32, seed=0, episodes=False), cx.crafter_sample(2, seed=0, episodes=False)


def test_the_peer_and_its_row_are_registered():
    assert audit.PEERS["craftax"] == "jaxenvs.audit.craftax"
    assert audit.peer_ids("craftax") == [cx.ROW] and set(findings("craftax")) <= set(cx.ids())
    with pytest.raises(ValueError, match="craftax has no audited port of 'Crafter'"):
        audit.audit_one("craftax", "Crafter")
    with pytest.raises(ValueError, match="one row"):
        cx.audit("Craftax-Symbolic-v1", 0.05, 0)


def test_worlds_start_alike_but_craftax_grows_trees_beside_the_start(worlds):
    mine, ref = worlds
    checks = {c.name: c for c in cx.world_checks(mine, ref)}
    # both start the player at the centre, and generate only Crafter's block types
    assert checks["world start position"].passed and checks["world start position"].value == 0
    assert checks["world block types"].passed
    assert set(map(tuple, mine["start"].tolist())) == set(map(tuple, ref["start"].tolist())) == {(32, 32)}
    # every cell is counted once: the fractions of a world sum to one
    assert np.all(mine["blocks"].sum(axis=1) + mine["other_blocks"] == 64 * 64)
    assert np.all(ref["blocks"].sum(axis=1) + ref["other_blocks"] == 64 * 64)
    # Crafter's generator keeps the start and its neighbours grass; Craftax-Classic's lets trees
    # grow there (a finding of the audit, in docs/audit.md) and places no creature at generation
    area = checks["world start area"]
    assert not area.passed and area.value >= 5 and np.all(ref["start_area"] == 0), area.describe()
    assert np.all(mine["creatures"] == 0) and np.all(ref["creatures"][:, 0] > 0)
    for name in (c.name for c in checks.values() if c.kind != "p-value" and not c.passed):
        assert f"`{name}`" in findings("craftax")[cx.ROW]


def _episodes(n, dead_health, lava):
    """A synthetic side: n episodes, each unlocking collect_wood, dying (in lava where `lava`)."""
    achievements = np.zeros((n, len(cx.achievement_names())), bool)
    achievements[:, cx.achievement_names().index("collect_wood")] = True
    return {
        "length": np.arange(100, 100 + n),
        "return": 1.0 + (dead_health - 9) / 10 + np.zeros(n),
        "achievements": achievements,
        "final_health": np.full(n, dead_health),
        "dead": np.ones(n, bool),
        "lava": np.asarray(lava, bool),
    }


def test_the_death_reward_check_catches_an_unpenalised_lava_death():
    """Craftax-Classic before 1.6.0: a lava death kept the health (and its reward) it had."""
    ref = _episodes(40, 0, [True] * 4 + [False] * 36)
    good = {c.name: c for c in cx.episode_checks(_episodes(40, 0, [True] * 4 + [False] * 36), ref, 0)}
    assert good["death health reward"].passed and good["lava deaths"].value == 1.0
    assert good["achievement collect_wood"].value == 1.0 and "40/40" in good["achievement collect_wood"].detail
    old = _episodes(40, 0, [True] * 4 + [False] * 36)
    old["return"][:4] = 1.0  # four lava deaths at full health: no health reward
    bad = {c.name: c for c in cx.episode_checks(old, ref, 0)}["death health reward"]
    assert not bad.passed and abs(bad.value - 0.9) < 1e-9


def test_the_lava_step_check_catches_an_unpenalised_step():
    """The step into lava: -0.9 and death in Crafter; a reward of 0 (Craftax-Classic < 1.6.0) fails."""
    ref = {"reward": np.full(5, -0.9), "done": np.ones(5, bool), "health": np.zeros(5, int), "lava": np.ones(5, bool)}
    same = {**ref, "reward": np.full(5, -0.9, np.float32)}
    assert all(c.passed for c in cx.lava_step_checks(same, ref))
    old = {**ref, "reward": np.zeros(5, np.float32), "health": np.full(5, 9)}
    reward, death = cx.lava_step_checks(old, ref)
    assert not reward.passed and abs(reward.value - 0.9) < 1e-6 and not death.passed and death.value == 5


def test_sizes_are_checked():
    with pytest.raises(ValueError, match="positive number of worlds"):
        cx.crafter_sample(0, seed=0)
    with pytest.raises(ValueError, match="positive number of worlds"):
        cx.craftax_sample(0, seed=0)
