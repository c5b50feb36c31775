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


def test_listing_imports_no_library():
    code = (
        "import sys, jaxenvs; ids = jaxenvs.registered_envs(); "
        "print(len(ids), [m for m in ('brax', 'jumanji', 'pgx') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split(" ", 1)[1].strip() == "[]"


def test_brax_list_matches_installed():
    brax_envs = pytest.importorskip("brax.envs")
    assert set(registration.BRAX_ENVS) == set(brax_envs._envs)


def test_jumanji_list_matches_installed():
    jumanji = pytest.importorskip("jumanji")
    assert set(registration.JUMANJI_IDS) == set(jumanji.registered_environments())


def test_pgx_list_matches_installed():
    pgx = pytest.importorskip("pgx")
    assert set(registration.PGX_IDS) == set(pgx.available_envs())


@pytest.mark.parametrize(
    "env_id, modules, extra",
    [
        ("brax/fast", ["brax", "brax.envs"], "brax"),
        ("jumanji/Snake-v1", ["jumanji", "jumanji.specs", "jumanji.types"], "jumanji"),
        ("pgx/tic_tac_toe", ["pgx"], "pgx"),
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
