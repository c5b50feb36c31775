"""The harness can fail: a perturbed env, a shifted distribution, different means."""

import jax
import numpy as np
import pytest

import jaxenvs
from jaxenvs.parity import classic, harness

pytest.importorskip("gymnasium")
pytest.importorskip("scipy")


def test_perturbed_cartpole_fails_state_injection():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, gravity=9.9)
    ref = classic.REFERENCES["CartPole-v1"]()
    checks = harness.check_transitions(env, params, ref, num_steps=200, atol=1e-5)
    failed = {c.name for c in checks if not c.passed}
    assert "step theta_dot" in failed
    assert "step x" not in failed  # position integrates the old velocity: unchanged by gravity


def test_wrong_time_limit_fails_truncation():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=5)
    ref = classic.REFERENCES["CartPole-v1"]()
    checks = harness.check_transitions(env, params, ref, num_steps=100, atol=1e-5)
    assert any(c.name == "step truncated" and not c.passed for c in checks)


def test_distribution_checks_detect_differences():
    rng = np.random.default_rng(0)
    same = harness.ks_check("x", rng.uniform(size=(2000, 2)), rng.uniform(size=(2000, 2)))
    assert all(c.passed for c in same)
    shifted = harness.ks_check("x", rng.uniform(size=(2000, 2)) * 1.1, rng.uniform(size=(2000, 2)))
    assert not all(c.passed for c in shifted)

    a = rng.choice(4, size=3000, p=[0.25] * 4)
    b = rng.choice(4, size=3000, p=[0.25] * 4)
    assert all(c.passed for c in harness.chi_square_check("arm", a, b))
    c = rng.choice(4, size=3000, p=[0.3, 0.2, 0.25, 0.25])
    freq = harness.chi_square_check("arm", c, b)[1]
    assert not freq.passed and freq.value < harness.P_THRESHOLD
    outside = harness.chi_square_check("arm", np.append(a, 7), b)[0]
    assert not outside.passed and outside.value == 1


def test_mean_check():
    rng = np.random.default_rng(0)
    assert harness.mean_check("m", rng.normal(0, 1, 1000), rng.normal(0, 1, 1000)).passed
    assert not harness.mean_check("m", rng.normal(0.3, 1, 1000), rng.normal(0, 1, 1000)).passed


def test_user_reference_example():
    """The README's example: a user's own JAX env checked against a gymnasium env."""
    import gymnasium

    from jaxenvs.envs.classic.cartpole import CartPole, CartPoleState

    def get_state(env):
        x, x_dot, theta, theta_dot = env.unwrapped.state
        return dict(
            x=x, x_dot=x_dot, theta=theta, theta_dot=theta_dot, time=env._elapsed_steps
        )  # TimeLimit is the outermost wrapper here

    def to_jax(s, params):
        return CartPoleState(**{k: jax.numpy.asarray(v) for k, v in s.items()})

    ref = harness.Reference(
        make=lambda: gymnasium.make("CartPole-v1", disable_env_checker=True),
        get_state=get_state,
        to_jax=to_jax,
    )
    env, params = CartPole(), CartPole().default_params
    checks = harness.check_transitions(env, params, ref, num_steps=300, atol=1e-5)
    assert all(c.passed for c in checks), [c.describe() for c in checks]
