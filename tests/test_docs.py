"""The generated documentation pages (docs/gen_pages.py) match the code they are read from."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from jaxenvs.registry import BUILT_IN_FAMILIES

DOCS = Path(__file__).resolve().parent.parent / "docs"
BUILT_IN = list(BUILT_IN_FAMILIES)


def load(name):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(DOCS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(DOCS))
    return module


def sections(text):
    return dict(re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M))


def test_env_catalogue_is_current():
    """The built-in families' sections (the adapters need their libraries: regenerate by hand)."""
    gen_pages = load("gen_pages")
    fresh = sections(gen_pages.envs_page(families=BUILT_IN))
    committed = sections((DOCS / "envs.md").read_text())
    titles = [gen_pages.FAMILY_TITLES[f] for f in BUILT_IN]
    assert set(titles) <= set(fresh)
    for title in titles:
        stale = f"docs/envs.md, {title}: out of date; run python docs/gen_pages.py"
        assert committed.get(title, "").strip() == fresh[title].strip(), stale


def test_gymnax_page_is_current():
    pytest.importorskip("gymnax")
    gen_pages = load("gen_pages")
    assert (DOCS / "gymnax.md").read_text() == gen_pages.gymnax_page(), (
        "docs/gymnax.md is out of date; run python docs/gen_pages.py"
    )


def test_gymnax_page_names_breakouts_settings():
    """The difference that prompted the page: gymnax's Breakout-MinAtar is 3 actions, no sticky
    actions, 1,000 steps; the overrides the page gives reproduce it."""
    text = (DOCS / "gymnax.md").read_text()
    section = sections(text)["`Breakout-MinAtar`"]
    for line in ("| actions | 3 | 6 |", "| sticky_action_prob | none (0.0) | 0.1 |", "| max_steps_in_episode | 1000 |"):
        assert line in section
    assert "use_minimal_action_set=True" in section


def test_include_hook_rewrites_links(tmp_path, monkeypatch):
    hooks = load("hooks")
    (tmp_path / "GUIDE.md").write_text("# Guide\nSee [the design](docs/design.md) and [the Makefile](Makefile).\n")
    monkeypatch.setattr(hooks, "ROOT", tmp_path)
    out = hooks.on_page_markdown("# Page\n<!-- include GUIDE.md -->\n")
    assert "[the design](design.md)" in out
    assert "and the Makefile (`Makefile` in the repository)." in out
    assert "# Guide" not in out
    assert "is not in this checkout" in hooks.on_page_markdown("<!-- include MISSING.md -->")


def test_every_public_docstring_is_complete(capsys):
    """Google-style Args/Returns/Raises on every public callable of the package (the API reference)."""
    check = load("check_docstrings")
    status = check.main([str(DOCS.parent / "jaxenvs")])
    problems = [line for line in capsys.readouterr().out.splitlines() if "problems" not in line]
    assert status == 0, "incomplete docstrings:\n" + "\n".join(problems)


def test_the_wrapper_example_of_docs_wrappers_passes_check_env(tmp_path):
    """docs/wrappers.md's "Writing a wrapper" example runs, passes `check_env`, and starts from a
    level as its `reset` starts (its `_start`, written once)."""
    import jax
    import jax.numpy as jnp

    import jaxenvs
    from jaxenvs.levels import Level
    from jaxenvs.testing import check_env

    text = (DOCS / "wrappers.md").read_text()
    code = re.search(r"```python\n(.*?)```", text[text.index("## Writing a wrapper") :], re.S).group(1)
    (tmp_path / "wrapper_example.py").write_text(code)  # a module: chex reads its functions' source
    spec = importlib.util.spec_from_file_location("wrapper_example", tmp_path / "wrapper_example.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    wrapped = example.StepPenalty(env, 0.01)
    check_env(wrapped, params)
    _, state = wrapped.reset_to_level(jax.random.key(0), Level(settings={"length": jnp.float32(0.7)}), params)
    assert int(state.steps) == 0
