"""Shared by the MinAtar game tests: each test module names its game's id in `ENV_ID`."""

import jax
import pytest

import jaxenvs


@pytest.fixture(scope="module")
def raw(request):
    """`(env, params)` of the test module's `ENV_ID`: raw (no autoreset), no sticky actions."""
    return jaxenvs.make(request.module.ENV_ID, autoreset=False, sticky_action_prob=0.0)


@pytest.fixture(scope="module")
def stepper(raw):
    """`(jitted step, params)` of `raw`."""
    env, params = raw
    return jax.jit(env.step), params
