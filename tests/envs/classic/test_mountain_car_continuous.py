import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.classic import mountain_car_continuous as mcc
from jaxenvs.spaces import to_gymnasium
from tests.envs.classic import gradcheck
from tests.envs.classic.conftest import box_action, float_state

ENV_ID = "MountainCarContinuous-v0"


def _state(position, velocity, time=1, dtype=jnp.float32):
    return float_state(mcc.MountainCarContinuousState, time, dtype, position=position, velocity=velocity)


def test_registration_and_spaces(raw):
    env, params, _ = raw
    assert params.max_steps_in_episode == 999
    act = to_gymnasium(env.action_space(params))
    assert act.shape == (1,) and act.dtype == np.float32
    assert act.low[0] == -1.0 and act.high[0] == 1.0
    obs = to_gymnasium(env.observation_space(params))
    assert np.array_equal(obs.low, np.array([-1.2, -0.07], np.float32))


def test_reward_uses_unclipped_action(raw):
    env, params, step = raw
    key = jax.random.key(0)
    _, s_big, r_big, *_ = step(key, _state(-0.5, 0.0), box_action(2.0), params)
    _, s_one, r_one, *_ = step(key, _state(-0.5, 0.0), box_action(1.0), params)
    # the force is clipped to 1, so the motion is the same ...
    assert float(s_big.position) == float(s_one.position)
    assert float(s_big.velocity) == float(s_one.velocity)
    # ... but the reward charges the action as given
    assert float(r_big) == pytest.approx(-0.4)
    assert float(r_one) == pytest.approx(-0.1)


def test_goal_reward_and_termination(raw):
    env, params, step = raw
    _, _, reward, terminated, truncated, _ = step(jax.random.key(0), _state(0.44, 0.03), box_action(0.5), params)
    assert bool(terminated) and not bool(truncated)
    assert float(reward) == pytest.approx(100.0 - 0.1 * 0.25)


def test_velocity_zeroed_at_left_wall(raw):
    env, params, step = raw
    _, state, _, terminated, _, _ = step(jax.random.key(0), _state(-1.19, -0.05), box_action(-1.0), params)
    assert float(state.position) == pytest.approx(-1.2) and float(state.velocity) == 0.0
    assert not bool(terminated)


def test_state_stored_as_float32_like_the_reference():
    with jax.enable_x64(True):
        env, params = jaxenvs.make(ENV_ID, autoreset=False)
        _, state = env.reset(jax.random.key(3), params)
        assert state.position.dtype == jnp.float64
        x = float(state.position)
        assert x != float(np.float32(x))  # the reset state is float64, as gymnasium's
        _, state, *_ = jax.jit(env.step)(jax.random.key(0), state, box_action(0.3), params)
        for value in (float(state.position), float(state.velocity)):
            assert value == float(np.float32(value))


def test_gradients_of_an_episode_match_finite_differences():
    """`jax.grad` of a 10-step episode with respect to every action and to `power` and
    `gravity`, against central differences (float64; the float32 rounding of the stored
    state, the reference's, limits their precision). The return depends on the physics only
    through the goal bonus, a step (gradient 0), so the trajectory is checked through the
    last observation; the return's gradient in each action is the action cost's, -0.2 a."""
    with jax.enable_x64(True):
        env, params = jaxenvs.make(ENV_ID, autoreset=False)
        state = _state(-0.5, 0.01, dtype=jnp.float64)
        actions = jnp.asarray(np.random.default_rng(0).uniform(-0.9, 0.9, (10, 1)))
        fields = {name: jnp.float64(getattr(params, name)) for name in ("power", "gravity")}
        last = gradcheck.episode(env, params, state, observe_last=True)
        g_actions, g_fields = gradcheck.assert_gradients_match(last, actions, fields, rtol=1e-2, atol=1e-6)
        assert float(jnp.abs(g_actions).min()) > 1e-4 and all(abs(float(v)) > 1.0 for v in g_fields.values())
        episode_return = gradcheck.episode(env, params, state)
        g_actions, g_fields = gradcheck.assert_gradients_match(episode_return, actions, fields, rtol=1e-2, atol=1e-6)
        np.testing.assert_allclose(np.asarray(g_actions), -0.2 * np.asarray(actions), rtol=1e-6)
        assert float(g_fields["power"]) == 0.0


def test_gradients_at_the_action_limit():
    """Beyond +-1 the force is clipped (gradient 0 in the action) while the reward still
    charges the unclipped action: the next position's gradient is 0, the reward's -0.2 a."""
    with jax.enable_x64(True):
        env, params = jaxenvs.make(ENV_ID, autoreset=False)
        state = _state(-0.5, 0.01, dtype=jnp.float64)

        def position_and_reward(action):
            obs, _, reward, *_ = env.step(jax.random.key(0), state, action, params)
            return obs[0].astype(jnp.float64), reward.astype(jnp.float64)

        jac = jax.jit(jax.jacobian(position_and_reward))
        d_position, d_reward = jac(jnp.asarray([1.5]))
        assert float(d_position[0]) == 0.0 and float(d_reward[0]) == pytest.approx(-0.3)
        d_position, _ = jac(jnp.asarray([0.5]))
        assert float(d_position[0]) == pytest.approx(params.power, rel=1e-6)
