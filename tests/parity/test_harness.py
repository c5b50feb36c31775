"""The harness can fail: a perturbed built-in env, a shifted distribution, different means."""

import numpy as np
import pytest

import jaxenvs
from jaxenvs.parity import checks, classic, harness

pytest.importorskip("gymnasium")
pytest.importorskip("scipy")


def test_perturbed_cartpole_fails_state_injection():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, gravity=9.9)
    result = harness.check_transitions(env, params, classic.REFERENCES["CartPole-v1"](), num_steps=100, atol=1e-5)
    failed = {c.name: c for c in result if not c.passed}
    assert "step theta_dot" in failed
    assert "step x" not in failed  # position integrates the old velocity: unchanged by gravity
    assert "field 'theta_dot' at transition 0" in failed["step theta_dot"].mismatch


def test_wrong_time_limit_fails_truncation():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=5)
    result = harness.check_transitions(env, params, classic.REFERENCES["CartPole-v1"](), num_steps=60, atol=1e-5)
    assert any(c.name == "step truncated" and not c.passed for c in result)


def test_distribution_checks_detect_differences():
    rng = np.random.default_rng(0)
    same = checks.ks_check("x", rng.uniform(size=(2000, 2)), rng.uniform(size=(2000, 2)))
    assert all(c.passed for c in same)
    shifted = checks.ks_check("x", rng.uniform(size=(2000, 2)) * 1.1, rng.uniform(size=(2000, 2)))
    assert not all(c.passed for c in shifted)

    a = rng.choice(4, size=3000, p=[0.25] * 4)
    b = rng.choice(4, size=3000, p=[0.25] * 4)
    assert all(c.passed for c in checks.chi_square_check("arm", a, b))
    c = rng.choice(4, size=3000, p=[0.3, 0.2, 0.25, 0.25])
    freq = checks.chi_square_check("arm", c, b)[1]
    assert not freq.passed and freq.value < checks.P_THRESHOLD
    outside = checks.chi_square_check("arm", np.append(a, 7), b)[0]
    assert not outside.passed and outside.value == 1
    declared = checks.chi_square_check("arm", a, b, support={0, 1, 2})[0]  # 3 happens: outside it
    assert not declared.passed


def test_stratified_chi_square_detects_one_shifted_case():
    rng = np.random.default_rng(1)
    cases = np.repeat([0, 1, 2], 1000)
    ref = rng.integers(0, 3, 3000)
    same = rng.integers(0, 3, 3000)
    assert checks.stratified_chi_square_check("s", cases, same, cases, ref).passed
    shifted = same.copy()
    shifted[2000:] = rng.choice(3, 1000, p=[0.5, 0.25, 0.25])
    assert not checks.stratified_chi_square_check("s", cases, shifted, cases, ref).passed


def test_mean_check():
    rng = np.random.default_rng(0)
    assert checks.mean_check("m", rng.normal(0, 1, 1000), rng.normal(0, 1, 1000)).passed
    assert not checks.mean_check("m", rng.normal(0.3, 1, 1000), rng.normal(0, 1, 1000)).passed


def test_error_check_points_at_the_first_bad_row():
    check = checks.error_check("x", [0.0, 1.0, 5.0, 9.0], [0.0, 1.0, 2.0, 3.0], atol=0.5)
    assert not check.passed and check.first == 2 and check.value == 6.0
    assert checks.exact_check("f", [True, False, True], [True, True, False]).first == 1
