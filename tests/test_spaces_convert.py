"""The converter registry (`jaxenvs.spaces.convert`): round trips, values, and the error for a
space type no converter knows."""

import doctest

import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs import spaces
from jaxenvs.spaces import convert

gymnasium = pytest.importorskip("gymnasium")

NESTED = spaces.Dict(
    {
        "pos": spaces.Box(-1.0, 2.0, (3,)),
        "tag": spaces.Discrete(4),
        "pair": spaces.Tuple([spaces.Discrete(2), spaces.Box(0, 9, (2,), jnp.int32)]),
        "on": spaces.Box(False, True, (2,), jnp.bool_),
    }
)


class Ring(spaces.Space):
    """A space class of a user's, registered with no converter."""

    def __repr__(self) -> str:
        return "Ring()"


@pytest.mark.parametrize(
    "name, call",
    [
        ("to_gymnasium", lambda s: convert.to_gymnasium(s)),
        ("to_dm_env", lambda s: convert.to_dm_env(s, "obs")),
        ("to_gymnax", lambda s: convert.to_gymnax(s, "MyEnv-v0")),
        ("cast", lambda s: convert.cast(0, s)),
        ("to_gymnasium", lambda s: convert.to_gymnasium(spaces.Dict({"inner": s}))),  # found inside a Dict too
    ],
)
def test_a_space_type_with_no_converter_is_named(name, call):
    with pytest.raises(
        TypeError, match=rf"{name}: no converter for {__name__}\.Ring \(Ring\(\)\); it converts Box, Dict"
    ):
        call(Ring())


def test_a_foreign_type_with_no_converter_is_named():
    with pytest.raises(TypeError, match=r"from_gymnasium: no converter for gymnasium\.spaces\.text\.Text"):
        convert.from_gymnasium(gymnasium.spaces.Text(5))
    with pytest.raises(TypeError, match=r"from_gymnax: no converter for builtins\.str"):
        convert.from_gymnax("Box")
    pytest.importorskip("jumanji")
    with pytest.raises(TypeError, match=r"from_jumanji: no converter for builtins\.int \(3\); it converts Array"):
        convert.from_jumanji(3)


def test_a_registered_class_joins_the_conversion():
    class Coin(spaces.Space):
        pass

    convert.to_gymnasium.register(Coin, lambda space: gymnasium.spaces.Discrete(2))
    assert convert.to_gymnasium(Coin()) == gymnasium.spaces.Discrete(2)
    assert convert.to_gymnasium(spaces.Tuple([Coin()])) == gymnasium.spaces.Tuple([gymnasium.spaces.Discrete(2)])


def test_gymnasium_round_trip_of_nested_spaces():
    g = convert.to_gymnasium(NESTED)
    assert isinstance(g["pair"][1], gymnasium.spaces.Box) and g["pair"][1].dtype == np.int32
    assert convert.from_gymnasium(g) == NESTED
    assert convert.from_gymnasium(gymnasium.spaces.MultiBinary(3)) == spaces.Box(0, 1, (3,), jnp.int8)


def test_gymnax_round_trip():
    pytest.importorskip("gymnax")
    assert convert.from_gymnax(convert.to_gymnax(NESTED)) == NESTED
    # gymnax has no MultiDiscrete: the integer Box holding the same values
    box = convert.from_gymnax(convert.to_gymnax(spaces.MultiDiscrete([2, 3])))
    assert box == spaces.Box(0, np.array([1, 2]), (2,), jnp.int32)
    with pytest.raises(ValueError, match="MyEnv-v0: its space Discrete\\(3, start=1\\) starts at 1"):
        convert.to_gymnax(spaces.Discrete(3, start=1), "MyEnv-v0")


def test_dm_env_specs_hold_the_same_values():
    specs = pytest.importorskip("dm_env.specs")
    spec = convert.to_dm_env(NESTED, "obs")
    assert isinstance(spec["tag"], specs.DiscreteArray) and spec["tag"].num_values == 4
    assert spec["pair"][0].name == "pair_0" and spec["on"].dtype == np.bool_
    np.testing.assert_array_equal(spec["pos"].minimum, np.full(3, -1.0, np.float32))
    shifted = convert.to_dm_env(spaces.Discrete(3, start=-1), "a")
    assert (shifted.minimum, shifted.maximum) == (-1, 1)
    # an infinite integer bound is the dtype's limit (a cast made it 0 before)
    wide = convert.to_dm_env(spaces.Box(0, np.inf, (2,), jnp.uint8), "x")
    np.testing.assert_array_equal(wide.maximum, [255, 255])


def test_jumanji_specs():
    specs = pytest.importorskip("jumanji.specs")
    nested = specs.Spec(dict, "obs", b=specs.BoundedArray((2,), jnp.float32, 0.0, 1.0), a=specs.DiscreteArray(3))
    assert convert.from_jumanji(nested) == spaces.Dict({"a": spaces.Discrete(3), "b": spaces.Box(0.0, 1.0, (2,))})
    assert convert.from_jumanji(specs.MultiDiscreteArray(jnp.asarray([2, 3]))) == spaces.MultiDiscrete([2, 3])


def test_navix_spaces():
    navix_spaces = pytest.importorskip("navix.spaces")
    assert convert.from_navix(navix_spaces.Discrete.create(5)) == spaces.Discrete(5)
    grid = convert.from_navix(navix_spaces.Discrete.create(9, shape=(2, 2)))
    assert grid == spaces.Box(0, 8, (2, 2), jnp.int32)
    box = convert.from_navix(navix_spaces.Continuous.create((3,), jnp.asarray(-1.0), jnp.asarray(1.0)))
    assert box == spaces.Box(-1.0, 1.0, (3,))


def test_values_by_their_space():
    value = {"pos": [0.5, 1, 2], "tag": 3, "pair": (1, [4, 5]), "on": [1, 0]}
    for xp in (np, jnp):
        cast = convert.cast(value, NESTED, xp)
        assert cast["pos"].dtype == np.float32 and cast["tag"].dtype == np.int32
        assert isinstance(cast["pair"], tuple) and cast["pair"][1].dtype == np.int32
        assert cast["on"].dtype == np.bool_ and isinstance(cast["pos"], xp.ndarray)
    g = convert.to_gymnasium(NESTED)
    one = convert.to_numpy(convert.cast(value, NESTED, jnp), g, batched=False)
    assert type(one["tag"]) is int and one["tag"] == 3  # as gymnasium's own envs return
    assert one["pos"].dtype == g["pos"].dtype and isinstance(one["pair"], tuple)
    batch = convert.to_numpy(jnp.asarray([1, 2]), gymnasium.vector.utils.batch_space(g["tag"], 2), batched=True)
    assert batch.dtype == np.int64 and batch.tolist() == [1, 2]


def test_docstring_examples_run():
    for module in (spaces, convert):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0


def test_the_space_classes_import_no_conversion():
    # one direction only: `convert` imports `core`, never the other way (no import circle)
    import ast

    from jaxenvs.spaces import core

    tree = ast.parse(open(core.__file__).read())
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in imported if m and m.startswith("jaxenvs")], imported
    assert not hasattr(spaces.Space, "to_gymnasium")  # the conversion is `spaces.to_gymnasium(space)`
