"""Adapter ids: listed without importing the libraries, equal to what the installed libraries
offer, and a clear ImportError naming the extra when a library is missing."""

import subprocess
import sys

import pytest

import jaxenvs
from jaxenvs.adapters import registration


def test_ids_by_namespace():
    assert jaxenvs.registered_envs("brax") == [f"brax/{n}" for n in registration.BRAX_ENVS]
    assert jaxenvs.registered_envs("jumanji") == [f"jumanji/{i}" for i in registration.JUMANJI_IDS]
    assert jaxenvs.registered_envs("pgx") == [f"pgx/{i}" for i in registration.PGX_IDS]
    assert "brax/fast" in jaxenvs.registered_envs()
    for env_id in [*registration.NEEDS_DOWNLOAD, *registration.SLOW_ON_CPU, *registration.BROKEN_UPSTREAM]:
        assert env_id in jaxenvs.registered_envs()
    assert jaxenvs.spec("pgx/tic_tac_toe").extra == "pgx"
    assert jaxenvs.registered_envs("gymnax") == [f"gymnax/{i}" for i in registration.GYMNAX_IDS]
    assert jaxenvs.registered_envs("craftax") == [f"craftax/{i}" for i in registration.CRAFTAX_IDS]
    assert jaxenvs.registered_envs("xminigrid") == [f"xminigrid/{i}" for i in registration.XMINIGRID_IDS]
    assert jaxenvs.registered_envs("navix") == [f"navix/{i}" for i in registration.NAVIX_IDS]
    playground = registration.PLAYGROUND_DM_CONTROL_SUITE + registration.PLAYGROUND_LOCOMOTION
    playground += registration.PLAYGROUND_MANIPULATION
    assert jaxenvs.registered_envs("playground") == [f"playground/{n}" for n in playground]
    assert jaxenvs.spec("playground/CartpoleBalance").extra == "playground"
    for family in dict.fromkeys(entry["family"] for entry in registration.REGISTRATIONS):
        sample = jaxenvs.registry.representatives(family)
        assert sample and set(sample) <= set(jaxenvs.registered_envs(family)), family


def test_listing_imports_no_library():
    code = (
        "import sys, jaxenvs; ids = jaxenvs.registered_envs(); "
        "libs = ('brax', 'jumanji', 'pgx', 'gymnax', 'craftax', 'mujoco_playground', 'xminigrid', 'navix'); "
        "import jaxenvs.adapters; print(len(ids), [m for m in libs if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split(" ", 1)[1].strip() == "[]"


@pytest.mark.parametrize(
    "module, ours, theirs",
    [
        ("brax.envs", "BRAX_ENVS", lambda lib: lib._envs),
        ("jumanji", "JUMANJI_IDS", lambda lib: lib.registered_environments()),
        ("pgx", "PGX_IDS", lambda lib: lib.available_envs()),
        ("xminigrid", "XMINIGRID_IDS", lambda lib: lib.registered_environments()),
        ("navix", "NAVIX_IDS", lambda lib: lib.registry()),
    ],
)
def test_id_list_matches_installed(module, ours, theirs):
    library = pytest.importorskip(module)
    assert set(getattr(registration, ours)) == set(theirs(library))


def test_gymnax_list_matches_installed():
    gymnax = pytest.importorskip("gymnax")
    # gymnax's own ids (jaxenvs.export.gymnax adds every jaxenvs id as "jaxenvs/<id>")
    assert set(registration.GYMNAX_IDS) == {i for i in gymnax.registered_envs if not i.startswith("jaxenvs/")}


def test_craftax_list_matches_installed():
    """Craftax has no registry: its names are the string literals `make_craftax_env_from_name`
    compares with (building the pixel envs would load their textures: not here)."""
    import inspect
    import re

    craftax_env = pytest.importorskip("craftax.craftax_env")
    names = set(re.findall(r'name == "([^"]+)"', inspect.getsource(craftax_env.make_craftax_env_from_name)))
    assert set(registration.CRAFTAX_IDS) == {n for n in names if "AutoReset" not in n}


def test_playground_list_matches_installed():
    registry = pytest.importorskip("mujoco_playground").registry
    assert registration.PLAYGROUND_DM_CONTROL_SUITE == tuple(registry.dm_control_suite.ALL_ENVS)
    assert registration.PLAYGROUND_LOCOMOTION == tuple(registry.locomotion.ALL_ENVS)
    assert registration.PLAYGROUND_MANIPULATION == tuple(registry.manipulation.ALL_ENVS)


@pytest.mark.parametrize(
    "env_id, modules, extra",
    [
        ("brax/fast", ["brax", "brax.envs"], "brax"),
        ("jumanji/Snake-v1", ["jumanji", "jumanji.specs", "jumanji.types"], "jumanji"),
        ("pgx/tic_tac_toe", ["pgx"], "pgx"),
        ("gymnax/CartPole-v1", ["gymnax"], "gymnax"),
        ("craftax/Craftax-Classic-Symbolic-v1", ["craftax", "craftax.craftax_env"], "craftax"),
        ("playground/CartpoleBalance", ["mujoco_playground"], "playground"),
        ("xminigrid/MiniGrid-Empty-5x5", ["xminigrid"], "xminigrid"),
        ("navix/Navix-Empty-5x5-v0", ["navix"], "navix"),
    ],
)
def test_missing_library_names_the_extra(monkeypatch, env_id, modules, extra):
    # the adapter modules import their library in the constructor, so this holds whether or
    # not the adapter module was imported before
    __import__(f"jaxenvs.adapters.{extra}")
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)  # `import name` now raises ImportError
    with pytest.raises(ImportError, match=rf'pip install "jaxenvs\[{extra}\]"'):
        jaxenvs.make(env_id)
