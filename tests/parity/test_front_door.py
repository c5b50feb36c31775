"""`run_parity` is the one entry, whatever the caller holds, and `jaxenvs.parity` is layered:
no import circle, no private name imported across its modules."""

from __future__ import annotations

import ast
import pathlib

import pytest

import jaxenvs
from jaxenvs import parity as p
from jaxenvs.parity import ParitySpec, Sizes, check, run_parity
from tests.parity.test_user_references import SIZES, Line, jax_reference

PARITY = pathlib.Path(jaxenvs.__file__).parent / "parity"


def _imports() -> dict[str, list[tuple[str, str]]]:
    """`{module: [(imported module, name)]}` within jaxenvs.parity, at any depth of each file."""
    out = {}
    for path in PARITY.glob("*.py"):
        found = []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jaxenvs.parity"):
                found += [(node.module, a.name) for a in node.names]
        out["" if path.stem == "__init__" else path.stem] = found
    return out


def test_parity_modules_import_only_downwards():
    modules = {name for name in _imports() if name}
    graph = {}
    for name, found in _imports().items():
        if not name:
            continue
        assert all(not n.startswith("_") for _, n in found), f"{name} imports a private name: {found}"
        # `from jaxenvs.parity import x` names a module; the package itself is only the public face
        deps = {n if m == "jaxenvs.parity" else m.removeprefix("jaxenvs.parity.") for m, n in found}
        assert "jaxenvs.parity" not in {m for m, n in found if n not in modules}, f"{name} imports the package"
        graph[name] = deps & modules

    def reaches(start, seen):
        for d in graph[start]:
            if d not in seen:
                seen.add(d)
                reaches(d, seen)
        return seen

    assert not [m for m in graph if m in reaches(m, set())]


def test_one_door_for_a_reference_is_check():
    env = Line()
    via_door = run_parity(jax_reference(), SIZES, 3, env=env)
    via_check = check(env, env.default_params, jax_reference(), sizes=SIZES, seed=3)
    assert via_door.passed, via_door.summary()
    assert [(c.name, c.n, c.value) for c in via_door.checks] == [(c.name, c.n, c.value) for c in via_check.checks]


def test_one_door_for_a_user_parity_spec():
    spec = ParitySpec(p.chain(p.transitions("atol", at_one=400), p.statistics()), reference=lambda _: jax_reference())
    result = run_parity(spec, 0.25, env=Line())
    assert result.passed, result.summary()
    assert result.env_id == "Line" and {c.n for c in result.checks if "step" in c.name} == {100}  # scaled(400, 0.25)


def test_door_errors_name_what_is_valid():
    with pytest.raises(TypeError, match="registered id, a jaxenvs.parity.ParitySpec or a jaxenvs.parity.Reference"):
        run_parity(42)
    with pytest.raises(TypeError, match=r"pass env="):
        run_parity(jax_reference())
    with pytest.raises(TypeError, match="unknown option"):
        check(Line(), Line().default_params, jax_reference(), sizes=SIZES, atoll=1.0)
    with pytest.raises(TypeError, match="scale must be a number"):
        run_parity(ParitySpec(p.statistics()), Sizes(), env=Line())


def test_one_scale_rule():
    from jaxenvs.parity.scale import scaled

    assert (
        Sizes.at(0.1)
        == Sizes(scaled(2000, 0.1, 50), scaled(2000, 0.1, 200), scaled(200, 0.1, 20))
        == Sizes(200, 200, 20)
    )
