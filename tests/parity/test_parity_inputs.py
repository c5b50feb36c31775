"""Bad input to the public parity harness is named before any work: sizes, scales, seeds, an
id where an env belongs, an auto-resetting env, something that is not a Reference, and a typo
in a registered id's reference (an error, never a skip)."""

from __future__ import annotations

import math

import pytest

import jaxenvs
from jaxenvs import registry
from jaxenvs.parity import Sizes, check, run_parity
from jaxenvs.parity.reference import JaxReference


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "10"])
def test_sizes_must_be_positive_ints(bad):
    with pytest.raises(ValueError, match="Sizes.steps must be a positive int"):
        Sizes(steps=bad)


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


def test_a_typo_in_a_reference_module_is_an_error_and_a_missing_library_a_skip(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    entry = "jaxenvs.envs.classic.cartpole:CartPole"
    registry.register("mine/Typo-v0", entry, reference="jaxenvs.parity.clasic:REFERENCES")
    registry.register("mine/Missing-v0", entry, reference="no_such_reference_lib_xyz.refs:CARTPOLE")
    with pytest.raises(ImportError, match="clasic"):
        run_parity("mine/Typo-v0", scale=0.1)
    skipped = run_parity("mine/Missing-v0", scale=0.1)
    assert skipped.verdict == "skipped" and "no_such_reference_lib_xyz" in skipped.skipped
