"""The package as an index shows it and a packager checks it: the long description has no
relative link or image, one version source, py.typed and LICENSE shipped, and ruff's target
the oldest Python the package supports. (The built archives themselves: `make wheel-smoke`.)"""

import re
import tomllib
from pathlib import Path

import pytest

import jaxenvs

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def relative_targets(markdown: str) -> list[str]:
    """Every link and image target in `markdown` (its HTML too) that is not an absolute URL."""
    from markdown_it import MarkdownIt

    targets = []
    for token in MarkdownIt("commonmark").parse(markdown):
        for t in [token, *(token.children or [])]:
            if t.type in ("link_open", "image"):
                targets.append(t.attrs.get("href") or t.attrs.get("src"))
            elif t.type in ("html_inline", "html_block"):
                targets += re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)["']""", t.content)
    return [t for t in targets if not re.match(r"(https?|mailto):", t or "")]


def test_the_long_description_has_no_relative_link_or_image():
    readme = PYPROJECT["project"]["readme"]
    assert readme["content-type"] == "text/markdown"
    assert relative_targets((ROOT / readme["file"]).read_text()) == []


def test_the_relative_link_check_finds_them():
    # the repository's README links its docs and images relatively: the check must see those
    found = relative_targets((ROOT / "README.md").read_text())
    assert "docs/img/CartPole-v1.gif" in found and "docs/parity-your-env.md" in found
    assert relative_targets("[a](https://x.org/a) ![b](img/b.png) <img src='c.gif'>") == ["img/b.png", "c.gif"]


def test_the_version_is_written_once():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "jaxenvs.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", jaxenvs.__version__)


def test_py_typed_and_the_license_are_shipped():
    assert (ROOT / "jaxenvs" / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["jaxenvs"]
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text
    assert re.search(r"include .*\bLICENSE\b", (ROOT / "MANIFEST.in").read_text())


def test_the_build_backend_reads_the_spdx_license():
    (requirement,) = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    assert requirement == "setuptools>=77"


def test_ruff_targets_the_oldest_supported_python():
    oldest = re.fullmatch(r">=3\.(\d+)", PYPROJECT["project"]["requires-python"]).group(1)
    assert PYPROJECT["tool"]["ruff"]["target-version"] == f"py3{oldest}"


def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower().replace("_", "-")


def test_the_jax_stack_is_not_capped():
    project = PYPROJECT["project"]
    stack = {"jax", "jaxlib", "flax", "chex", "numpy", "optax", "gymnasium"}
    requirements = project["dependencies"] + [r for reqs in project["optional-dependencies"].values() for r in reqs]
    for requirement in requirements:
        # a cap is a stack library's own, or an upstream one's, stated in the extra beside it
        if _name(requirement) in stack and "<" in requirement:
            extra = [e for e, reqs in project["optional-dependencies"].items() if requirement in reqs]
            assert requirement == "jax<0.12" and all(
                any(_name(r) == "gymnax" for r in project["optional-dependencies"][e]) for e in extra
            ), requirement


def test_the_constraints_pin_every_declared_library():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[_name(name)] = version
    project = PYPROJECT["project"]
    declared = {_name(r) for r in project["dependencies"]} | {
        _name(r) for reqs in project["optional-dependencies"].values() for r in reqs if not r.startswith("jaxenvs")
    }
    assert sorted(declared - set(pins)) == []
    assert pins["torch"].endswith("+cpu") and pins["gymnasium"] == "1.3.0" and "jaxenvs" not in pins


@pytest.mark.parametrize("extra", ["gymnax", "parity", "bench", "clients", "jaxued"])
def test_an_extra_with_gymnax_says_its_jax_cap(extra):
    assert "jax<0.12" in PYPROJECT["project"]["optional-dependencies"][extra]


def test_the_lab_stays_beside_the_package():
    """lab/ (what only the project runs) is neither found as a package nor imported by one."""
    assert PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"] == ["jaxenvs*"]
    assert re.search(r"^prune lab$", (ROOT / "MANIFEST.in").read_text(), re.M)
    importing = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "jaxenvs").rglob("*.py")
        if re.search(r"^\s*(from lab\b|import lab\b)", p.read_text(), re.M)
    ]
    assert not importing, f"modules of the package import the lab: {importing}"
