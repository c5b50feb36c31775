import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxenvs import spaces
from jaxenvs.spaces import to_gymnasium

gymnasium = pytest.importorskip("gymnasium")

# examples from the profile (tests/conftest.py: 8 in CI, 100 with HYPOTHESIS_PROFILE=dev): each
# example compiles its space's functions again
SETTINGS = settings(deadline=None)


@SETTINGS
@given(n=st.integers(1, 50), start=st.integers(-5, 5), seed=st.integers(0, 2**31 - 1))
def test_discrete_sample_contains(n, start, seed):
    space = spaces.Discrete(n, start=start)
    x = jax.jit(space.sample)(jax.random.key(seed))
    assert bool(jax.jit(space.contains)(x))
    assert start <= int(x) < start + n
    assert not bool(space.contains(start + n))
    assert not bool(space.contains(start - 1))


@SETTINGS
@given(nvec=st.lists(st.integers(1, 9), min_size=1, max_size=5), seed=st.integers(0, 2**31 - 1))
def test_multidiscrete_sample_contains(nvec, seed):
    space = spaces.MultiDiscrete(nvec)
    x = space.sample(jax.random.key(seed))
    assert x.shape == (len(nvec),)
    assert bool(jax.jit(space.contains)(x))
    assert not bool(space.contains(jnp.asarray(nvec)))  # every entry one past its bound


bounds = st.tuples(st.floats(-10, 10), st.floats(0, 10))


@SETTINGS
@given(b=bounds, shape=st.lists(st.integers(1, 4), min_size=0, max_size=3), seed=st.integers(0, 2**31 - 1))
def test_box_bounded_sample_contains(b, shape, seed):
    low, width = b
    space = spaces.Box(low, low + width, shape=tuple(shape))
    x = jax.jit(space.sample)(jax.random.key(seed))
    assert x.shape == tuple(shape) and x.dtype == jnp.float32
    assert bool(jax.jit(space.contains)(x))
    assert not bool(space.contains(x + width + 1.0)) or x.size == 0


@pytest.mark.parametrize("low,high", [(-np.inf, np.inf), (0.0, np.inf), (-np.inf, 0.0)])
def test_box_unbounded_sample_respects_bounds(low, high):
    space = spaces.Box(low, high, shape=(1000,))
    x = space.sample(jax.random.key(0))
    assert bool(space.contains(x))
    assert np.isfinite(np.asarray(x)).all()


def test_box_bool_and_wrong_shape():
    space = spaces.Box(False, True, (10, 10, 4), jnp.bool_)
    x = space.sample(jax.random.key(0))
    assert x.dtype == jnp.bool_ and bool(space.contains(x))
    assert not bool(space.contains(jnp.zeros((10, 10, 3), bool)))


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1))
def test_dict_and_tuple(seed):
    space = spaces.Dict({"a": spaces.Discrete(3), "b": spaces.Tuple([spaces.Box(-1, 1, (2,)), spaces.Discrete(2)])})
    x = space.sample(jax.random.key(seed))
    assert bool(space.contains(x))
    bad = {"a": x["a"], "b": (x["b"][0] + 5.0, x["b"][1])}
    assert not bool(space.contains(bad))
    assert not bool(space.contains({"a": x["a"]}))


def test_contains_is_jittable_on_composites():
    space = spaces.Dict({"a": spaces.Discrete(3), "b": spaces.Box(-1, 1, (2,))})
    f = jax.jit(space.contains)
    assert bool(f({"a": jnp.int32(2), "b": jnp.zeros(2)}))
    assert not bool(f({"a": jnp.int32(3), "b": jnp.zeros(2)}))


@pytest.mark.parametrize(
    "space",
    [
        spaces.Discrete(4),
        spaces.Discrete(3, start=-1),
        spaces.MultiDiscrete([2, 3, 4]),
        spaces.Box(-1.0, 2.0, (3, 2)),
        spaces.Box(np.array([-1.0, -np.inf]), np.array([1.0, np.inf])),
        spaces.Box(False, True, (2, 2), jnp.bool_),
        spaces.Dict({"x": spaces.Discrete(2), "y": spaces.Box(0, 1, (2,))}),
        spaces.Tuple([spaces.Discrete(32), spaces.Discrete(11), spaces.Discrete(2)]),
    ],
    ids=repr,
)
def test_gymnasium_round_trip(space):
    g = to_gymnasium(space)
    assert isinstance(g, gymnasium.spaces.Space)
    back = spaces.from_gymnasium(g)
    assert back == space
    # a gymnasium sample is a member of ours and vice versa
    g.seed(0)
    sample = g.sample()
    if isinstance(space, spaces.Dict):
        sample = {k: jnp.asarray(v) for k, v in sample.items()}
    elif isinstance(space, spaces.Tuple):
        sample = tuple(jnp.asarray(v) for v in sample)
    else:
        sample = jnp.asarray(sample)
    assert bool(space.contains(sample))


def test_invalid_constructions():
    with pytest.raises(ValueError):
        spaces.Discrete(0)
    with pytest.raises(ValueError):
        spaces.Box(1.0, 0.0, (2,))
    with pytest.raises(ValueError):
        spaces.MultiDiscrete([2, 0])


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.int64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("low,high", [(-np.inf, np.inf), (0, np.inf), (-np.inf, 5)])
def test_integer_box_with_infinite_bounds_to_gymnasium(dtype, low, high):
    # gymnasium's integer Box needs finite bounds; an infinite one is the dtype's limit
    space = spaces.Box(low, high, (3,), dtype)
    info = np.iinfo(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "invalid value encountered in cast"
        g = to_gymnasium(space)
    assert g.dtype == np.dtype(dtype) and g.shape == (3,)
    np.testing.assert_array_equal(g.low, np.full(3, max(low, info.min), dtype))
    np.testing.assert_array_equal(g.high, np.full(3, min(high, info.max), dtype))
    if np.dtype(dtype).itemsize < 8:  # without jax_enable_x64, JAX holds no int64
        g.seed(0)
        for _ in range(20):
            assert bool(space.contains(jnp.asarray(g.sample())))
        for seed in range(5):  # and ours lie in gymnasium's (a narrow dtype must not wrap)
            assert g.contains(np.asarray(space.sample(jax.random.key(seed))))
    back = spaces.from_gymnasium(g)
    assert back == space and back.dtype == space.dtype


def test_integer_box_bounds_are_the_integers_inside():
    # a fractional bound holds the integers within it; bounds past the dtype are its limits
    g = to_gymnasium(spaces.Box(np.array([-0.5, -1e12]), np.array([2.5, 1e12]), dtype=jnp.int32))
    np.testing.assert_array_equal(g.low, [0, np.iinfo(np.int32).min])
    np.testing.assert_array_equal(g.high, [2, np.iinfo(np.int32).max])
    assert spaces.Box(0, 255, (2,), jnp.uint8) == spaces.Box(0, np.inf, (2,), jnp.uint8)
    assert spaces.Box(0, 254, (2,), jnp.uint8) != spaces.Box(0, np.inf, (2,), jnp.uint8)
    assert spaces.Box(0.0, 255.0, (2,)) != spaces.Box(0.0, np.inf, (2,))  # floats: as written


def test_why_not_is_exact_and_nan_inf_are_outside_a_box():
    from jaxenvs.spaces import why_not

    d = spaces.Discrete(2)
    assert why_not(d, np.int64(2**32 + 1)) == "out of range"  # int32 would wrap it to 1
    assert why_not(d, 2**31) == "out of range" and why_not(d, 2**80) == "out of range"
    assert why_not(d, 1.5) == "not an integer" and why_not(d, np.nan) == "not finite (NaN or inf)"
    assert why_not(d, np.int64(1)) is None and why_not(d, 1.0) is None
    box = spaces.Box(-np.inf, np.inf, shape=(2,))
    assert why_not(box, np.array([0.0, np.inf], np.float32)) == "not finite (NaN or inf)"
    assert not bool(box.contains(jnp.array([0.0, jnp.nan]))) and not bool(box.contains(jnp.array([0.0, jnp.inf])))
    assert why_not(spaces.Box(-0.1, 0.1, (1,)), np.array([0.1], np.float32)) is None  # float32(0.1) > 0.1
    assert why_not(d, np.zeros((2,), np.int32), batch=(2,)) is None
    assert "integers in integers" not in d.describe() and d.describe() == "an integer in [0, 1]"


def test_contains_why_not_and_flatten_space_read_one_definition():
    from jaxenvs.spaces import why_not

    space = spaces.Dict(
        {
            "d": spaces.Discrete(3, start=-1),
            "m": spaces.MultiDiscrete([2, 3]),
            "f": spaces.Box(-1.0, 2.0, (2,)),
            "i": spaces.Box(-0.5, np.inf, (2,), jnp.uint8),
            "b": spaces.Box(False, True, (2,), jnp.bool_),
        }
    )
    good = {
        "d": np.int32(1),
        "m": np.array([1.0, 2.0], np.float32),  # integral floats and bools read as the integers they hold
        "f": np.array([-1.0, 2.0], np.float32),
        "i": np.array([0, 255], np.int32),
        "b": np.array([True, False]),
    }
    bad = {
        "d": [np.int32(2), np.float32(0.5), np.float32(np.nan), np.zeros(1, np.int32)],
        "m": [np.array([2, 0], np.int32), np.array([0.5, 0.0], np.float32), np.array([True, True, False])],
        "f": [np.array([2.5, 0.0], np.float32), np.array([True, False]), np.array([np.inf, 0.0], np.float32)],
        "i": [np.array([0, 256], np.int32), np.array([-1, 0], np.int32), np.array([0.5, 1.0], np.float32)],
        "b": [np.array([0, 1], np.int32), np.array([0.0, 1.0], np.float32)],
    }
    assert bool(space.contains(good)) and why_not(space, good) is None
    for key, values in bad.items():
        for value in values:
            x = dict(good, **{key: value})
            reason = why_not(space, x)
            assert reason is not None and reason.startswith(f"[{key!r}]: "), (key, value, reason)
            assert not bool(space.contains(x)), (key, value, reason)
    flat = spaces.flatten_space(space)  # sorted keys; an integer Box's bounds are the integers it holds
    np.testing.assert_array_equal(flat.low, [0, 0, -1, -1, -1, 0, 0, 0, 0])
    np.testing.assert_array_equal(flat.high, [1, 1, 1, 2, 2, 255, 255, 1, 2])


def test_a_box_bounded_at_the_float32_limit_samples_inside_it():
    """`hi - lo` overflows there; the samples stay finite and in the space (they used to be inf)."""
    top = np.finfo(np.float32).max
    box = spaces.Box(-top, top, (3,), np.float32)
    samples = np.asarray(jax.vmap(box.sample)(jax.random.split(jax.random.key(0), 200)))
    assert np.isfinite(samples).all() and all(box.contains(x) for x in samples[:10])
    assert samples.min() < -1e37 and samples.max() > 1e37  # spread over the range, not stuck at 0
