import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.classic import pendulum
from jaxenvs.spaces import to_gymnasium
from tests.envs.classic import gradcheck
from tests.envs.classic.conftest import box_action, float_state

ENV_ID = "Pendulum-v1"


def _state(theta, theta_dot, time=0, dtype=jnp.float32):
    return float_state(pendulum.PendulumState, time, dtype, theta=theta, theta_dot=theta_dot)


def test_registration_and_spaces(raw):
    env, params, _ = raw
    assert params.max_steps_in_episode == 200 and params.g == 10.0
    act = to_gymnasium(env.action_space(params))
    assert act.shape == (1,) and act.dtype == np.float32 and act.low[0] == -2.0 and act.high[0] == 2.0
    obs = to_gymnasium(env.observation_space(params))
    assert np.array_equal(obs.high, np.array([1.0, 1.0, 8.0], np.float32))


def test_never_terminates_truncates_at_200(raw):
    env, params, _ = raw

    def rollout(key):
        _, state = env.reset(key, params)

        def body(state, k):
            _, state, _, te, tr, _ = env.step(k, state, box_action(2.0), params)
            return state, (te, tr)

        return jax.lax.scan(body, state, jax.random.split(key, 200))[1]

    terminated, truncated = jax.jit(rollout)(jax.random.key(0))
    assert not np.asarray(terminated).any()
    assert np.asarray(truncated).tolist() == [False] * 199 + [True]


def test_reward_from_normalized_angle_and_clipped_torque(raw):
    env, params, step = raw
    key = jax.random.key(0)
    # theta is never wrapped in the state; the cost wraps it
    _, _, reward, *_ = step(key, _state(2 * np.pi + 0.5, 1.0), box_action(1.0), params)
    assert float(reward) == pytest.approx(-(0.25 + 0.1 + 0.001), rel=1e-5)
    # the torque is clipped to 2 for both the motion and the cost
    _, s5, r5, *_ = step(key, _state(0.3, 0.0), box_action(5.0), params)
    _, s2, r2, *_ = step(key, _state(0.3, 0.0), box_action(2.0), params)
    assert float(s5.theta) == float(s2.theta) and float(r5) == float(r2)


def test_speed_clipped_before_angle(raw):
    env, params, step = raw
    _, state, *_ = step(jax.random.key(0), _state(np.pi / 2, 7.99), box_action(2.0), params)
    assert float(state.theta_dot) == pytest.approx(8.0)
    assert float(state.theta) == pytest.approx(np.pi / 2 + 8.0 * 0.05)


def test_x64_dynamics_are_float64():
    with jax.enable_x64(True):
        env, params = jaxenvs.make(ENV_ID, autoreset=False)
        obs, state = env.reset(jax.random.key(0), params)
        assert state.theta.dtype == jnp.float64 and obs.dtype == jnp.float32
        assert abs(float(state.theta)) <= np.pi and abs(float(state.theta_dot)) <= 1.0


def test_gradients_of_an_episode_return_match_finite_differences():
    """`jax.grad` of a 10-step return with respect to every action and to the physics params
    `g`, `m`, `l`, `dt` agrees with central differences (float64; the reference's float32
    torque terms limit the differences' precision, hence the tolerance)."""
    with jax.enable_x64(True):
        env, params = jaxenvs.make(ENV_ID, autoreset=False)
        f = gradcheck.episode(env, params, _state(2.0, 0.3, dtype=jnp.float64))
        actions = jnp.asarray(np.random.default_rng(0).uniform(-1.5, 1.5, (10, 1)))
        fields = {name: jnp.float64(getattr(params, name)) for name in ("g", "m", "l", "dt")}
        g_actions, g_fields = gradcheck.assert_gradients_match(f, actions, fields, rtol=1e-2, atol=1e-3)
        assert all(abs(float(v)) > 0.1 for v in g_fields.values()) and float(jnp.abs(g_actions).min()) > 1e-3


def test_gradients_at_the_limits_and_through_params_as_leaves():
    """The documented choices: beyond `max_torque` the clipped torque has gradient 0 in the
    action (and the clip's bound takes it); params are pytree leaves, so `jax.grad` with
    respect to the whole params (`allow_int` for the integer time limit) gives each field's."""
    with jax.enable_x64(True):
        env, params = jaxenvs.make(ENV_ID, autoreset=False)
        state = _state(2.0, 0.3, dtype=jnp.float64)

        def reward(action, p):
            return env.step(jax.random.key(0), state, action, p)[2]

        grad = jax.jit(jax.grad(reward, argnums=(0, 1), allow_int=True))
        g_action, g_params = grad(jnp.asarray([3.0]), params)
        assert float(g_action[0]) == 0.0
        assert float(g_params.max_torque) == pytest.approx(-0.002 * 2.0)  # d(-0.001 u**2)/du at u = 2
        g_action, _ = grad(jnp.asarray([1.0]), params)
        assert float(g_action[0]) == pytest.approx(-0.002)
