"""The audit of NAVIX and XLand-MiniGrid against `minigrid` (jaxenvs.audit.minigrid and its peers)."""

from __future__ import annotations

import numpy as np
import pytest

from jaxenvs.audit import PEERS
from jaxenvs.audit import minigrid as mg
from lab.audit_page import findings

pytest.importorskip("minigrid")


def _grid(text: str) -> tuple[np.ndarray, tuple[int, int]]:
    """A layout from `render`'s characters (the inverse of `minigrid.render`, yellow objects)."""
    codes = {
        ".": (mg.EMPTY, 0, 0),
        "#": (mg.WALL, 5, 0),
        "~": (mg.LAVA, 0, 0),
        "G": (mg.GOAL, 1, 0),
        "K": (mg.KEY, 4, 0),
        "L": (mg.DOOR, 4, mg.LOCKED),
        "D": (mg.DOOR, 4, mg.CLOSED),
        "A": (mg.EMPTY, 0, 0),
    }
    lines = text.split()
    grid = np.array([[codes[ch] for ch in line] for line in lines], np.uint8)
    agent = next((r, line.index("A")) for r, line in enumerate(lines) if "A" in line)
    return grid, agent


def test_solvable_search():
    # a locked door with its key on the agent's side, and without
    assert mg.solvable(*_grid("######\n#AK#.#\n#..LG#\n######")) is True
    assert mg.solvable(*_grid("######\n#A.#.#\n#..LG#\n######")) is False
    assert mg.solvable(*_grid("#####\n#A~G#\n#####")) is False
    assert mg.solvable(*_grid("#####\n#A.D#\n#####")) is True  # no goal square: the door is reachable
    assert mg.solvable(*_grid("#####\n#A.L#\n#####")) is False  # a locked door without its key
    grid, agent = _grid("#####\n#A.G#\n#####")
    assert mg.render(grid, agent) == "#####\n#A.G#\n#####"


def test_layout_checks_catch_unsolvable_layouts():
    good, agent = _grid("#####\n#A.G#\n#####")
    bad, _ = _grid("#####\n#A~G#\n#####")
    ref = {"grid": np.stack([good] * 60), "agent": np.array([agent] * 60), "dir": np.zeros(60, int)}
    peer = {"grid": np.stack([good] * 57 + [bad] * 3), "agent": np.array([agent] * 60), "dir": np.zeros(60, int)}
    checks = {c.name: c for c in mg.layout_checks(peer, ref, 0)}
    assert not checks["layout solvable"].passed and checks["layout solvable"].value == pytest.approx(0.05)
    assert "3 of 60" in checks["layout solvable"].detail
    assert {c.name: c for c in mg.layout_checks(ref, ref, 0)}["layout solvable"].passed


def test_peers_registered_and_findings_name_rows():
    from jaxenvs.audit import navix as nv
    from jaxenvs.audit import xminigrid as xm

    assert PEERS["navix"] == "jaxenvs.audit.navix" and PEERS["xminigrid"] == "jaxenvs.audit.xminigrid"
    for peer, module in (("navix", nv), ("xminigrid", xm)):
        assert module.REFERENCES == ("minigrid",)
        assert set(findings(peer)) <= set(module.ids()) and len(module.ids()) >= 10


def test_navix_simple_crossing_layouts_fail_as_its_finding_says():
    # the row's reset checks only (its episodes and steps cost a compile of navix's step)
    pytest.importorskip("navix")
    import jax

    from jaxenvs.audit import navix as nv
    from jaxenvs.parity import ParityResult

    env_id, n = "MiniGrid-SimpleCrossingS9N1-v0", 50
    ref = mg.minigrid_resets(env_id, n, 0)
    env, params = nv.make(nv.PAIRS[env_id], ref["max_steps"])
    _, states = jax.jit(jax.vmap(lambda k: env.reset_env(k, params)))(jax.random.split(jax.random.key(0), n))
    result = ParityResult(env_id, "minigrid", checks=mg.layout_checks(nv.layouts(states), ref, 0)).decide()
    checks = {c.name: c for c in result.checks}
    assert checks["grid size"].passed and checks["layout solvable"].passed  # S9N1: all solvable
    assert result.verdict == "FAIL"
    assert not checks["reset interior obstacle count frequencies"].passed
    assert checks["reset interior obstacle count frequencies"].value < 1e-6
    assert "obstacle count" in findings("navix")[env_id]
