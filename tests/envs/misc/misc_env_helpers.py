"""Shared by the misc env tests: conformance and a gymnax parity run at CI scale."""

import pytest

import jaxenvs
from jaxenvs.testing import check_env

PARITY_SCALE = 0.02  # the minimum sizes of jaxenvs.parity.misc (256 transitions, 400 samples)


def conformance(env_id, **overrides):
    env, params = jaxenvs.make(env_id, **overrides)
    check_env(env, params, num_steps=50, check_render=True)
    raw, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    check_env(raw, params, num_steps=50)


def parity(env_id):
    pytest.importorskip("gymnax")
    from jaxenvs.parity import run_parity

    result = run_parity(env_id, scale=PARITY_SCALE)
    assert result.passed, result.summary()
    return result
