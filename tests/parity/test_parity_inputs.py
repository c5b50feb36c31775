"""Bad input to the public parity harness is named before any work: sizes, scales, seeds, an
id where an env belongs, an auto-resetting env, something that is not a Reference, and a typo
in a registered id's reference (an error naming the module, never a skip: only the library a
ParitySpec declares may be missing)."""

from __future__ import annotations

import dataclasses
import math
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

import jaxenvs
from jaxenvs import registry
from jaxenvs.parity import JaxReference, ParitySpec, Sizes, check, run_parity


@given(
    field=st.sampled_from(["steps", "samples", "episodes"]),
    bad=st.one_of(st.integers(max_value=0), st.floats(), st.booleans(), st.text(max_size=3), st.none()),
)
def test_sizes_must_be_positive_ints(field, bad):
    with pytest.raises(ValueError, match=f"Sizes.{field} must be a positive int"):
        Sizes(**{field: bad})


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf])
def test_scale_must_be_positive_and_finite(bad):
    with pytest.raises(ValueError, match="scale must be a positive, finite number"):
        run_parity("CartPole-v1", scale=bad)
    with pytest.raises(ValueError, match="scale must be a positive"):
        Sizes.at(bad)


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_seed_must_be_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        run_parity("CartPole-v1", scale=0.1, seed=bad)


def test_check_names_what_it_cannot_check():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    reference = JaxReference(env=env, params=params)
    with pytest.raises(TypeError, match="run_parity\\('CartPole-v1'\\)"):
        check("CartPole-v1", params, reference)
    auto, _ = jaxenvs.make("CartPole-v1")
    with pytest.raises(ValueError, match="auto-resets.*pass the raw env"):
        check(auto, params, reference)
    with pytest.raises(TypeError, match="reference must be a jaxenvs.parity.Reference"):
        check(env, params, "gymnasium CartPole-v1")
    with pytest.raises(TypeError, match="sizes must be a jaxenvs.parity.Sizes"):
        check(env, params, reference, sizes=(100, 100, 10))


def test_a_reference_module_that_fails_to_import_is_an_error_naming_it(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    entry = "jaxenvs.envs.classic.cartpole:CartPole"
    registry.register("mine/Typo-v0", entry, reference="jaxenvs.envs.classic.cartpole.paritty:SPEC")
    # a user's module that is not there is a typo too, never "reference not installed"
    registry.register("mine/Missing-v0", entry, parity="my_parity_modul:SPEC")
    registry.register("mine/NoAttr-v0", entry, parity="jaxenvs.envs.classic.cartpole.parity:SPECS")
    with pytest.raises(ImportError, match="mine/Typo-v0: cannot load its parity reference .*paritty"):
        run_parity("mine/Typo-v0", scale=0.1)
    with pytest.raises(ImportError, match="'my_parity_modul:SPEC'.*No module named 'my_parity_modul'") as e:
        run_parity("mine/Missing-v0", scale=0.1)
    assert e.value.name == "my_parity_modul"
    with pytest.raises(ImportError, match="SPECS"):
        run_parity("mine/NoAttr-v0", scale=0.1)


def _missing_helper(ctx):
    import no_such_helper_xyz  # noqa: F401

    return []


def test_only_the_library_a_spec_declares_may_be_missing(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    entry = "jaxenvs.envs.classic.cartpole:CartPole"
    optional = ParitySpec(checks=lambda ctx: [], library="no_such_reference_lib_xyz")
    registry.register("mine/Optional-v0", entry, parity=optional, extra="parity")
    skipped = run_parity("mine/Optional-v0", scale=0.1)
    assert skipped.verdict == "skipped"
    assert "no_such_reference_lib_xyz" in skipped.skipped and 'pip install "jaxenvs[parity]"' in skipped.skipped
    # the declared library is there (jax); a check importing another missing module is a bug
    registry.register("mine/Helper-v0", entry, parity=ParitySpec(checks=_missing_helper, library="jax"))
    with pytest.raises(ImportError, match="no_such_helper_xyz"):
        run_parity("mine/Helper-v0", scale=0.1)


# --- a reference whose fields cannot be compared is named before any check runs -------------

_FIELDS = ("theta", "theta_dot", "time", "x", "x_dot")
_names = st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=12).filter(lambda n: n not in _FIELDS)


def _cartpole_reference(**changes):
    from jaxenvs.envs.classic.cartpole.parity import SPEC

    return dataclasses.replace(SPEC.reference("CartPole-v1"), **changes)


@given(option=st.sampled_from(["exact_fields", "angle_fields", "random_fields", "random_step_fields"]), name=_names)
def test_a_misspelt_field_option_is_named(option, name):
    pytest.importorskip("gymnasium")
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    with pytest.raises(ValueError, match=f"{option} names \\[{name!r}\\], not fields of the reference's state"):
        check(env, params, _cartpole_reference(**{option: ("x", name)}))


@given(name=_names)
def test_a_field_the_jax_state_lacks_is_named(name):
    pytest.importorskip("gymnasium")
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    ref = _cartpole_reference()
    read = ref.read_state
    ref = dataclasses.replace(ref, read_state=lambda e: {**read(e), name: 0.0})
    with pytest.raises(ValueError, match=f"read_state gives \\[{name!r}\\], which the JAX state"):
        check(env, params, ref)


@pytest.mark.parametrize("bad", [[("x", 0.0)], None, 3.0, "x"])
def test_read_state_must_return_a_dict(bad):
    pytest.importorskip("gymnasium")
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    with pytest.raises(TypeError, match=f"read_state must return a dict .* got {type(bad).__name__}"):
        check(env, params, _cartpole_reference(read_state=lambda e: bad))
