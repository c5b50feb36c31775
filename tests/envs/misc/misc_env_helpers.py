"""Shared by the misc env tests: a gymnax parity run at CI scale."""

import pytest

PARITY_SCALE = 0.02  # the minimum sizes of jaxenvs.parity.misc (256 transitions, 400 samples)


def parity(env_id):
    pytest.importorskip("gymnax")
    from jaxenvs.parity import run_parity

    result = run_parity(env_id, scale=PARITY_SCALE)
    assert result.passed, result.summary()
    return result
