"""The brax audit's model comparison (the whole audit runs in `jaxenvs audit brax`)."""

import pytest

pytest.importorskip("brax")
pytest.importorskip("mujoco")
gymnasium = pytest.importorskip("gymnasium")

from jaxenvs.audit import brax as brax_audit  # noqa: E402


def failed(env_id):
    return {c.name.removeprefix("model ") for c in brax_audit.model_checks(env_id) if not c.passed}


def test_inverted_pendulum_integrates_with_euler_where_gymnasium_uses_rk4():
    assert failed("InvertedPendulum-v5") == {"integrator"}


def test_halfcheetah_differs_only_in_solver_iterations():
    """So its transitions are compared (the solver's iteration count is a numerical setting)."""
    different = failed("HalfCheetah-v5")
    assert different == {"solver iterations"}
    assert different <= set(brax_audit.NUMERICAL)
