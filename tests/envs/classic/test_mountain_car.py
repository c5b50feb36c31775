import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.envs.classic import mountain_car
from jaxenvs.spaces import to_gymnasium
from tests.envs.classic.conftest import batch_reset, float_state

ENV_ID = "MountainCar-v0"


def _state(position, velocity, time=0, dtype=jnp.float32):
    return float_state(mountain_car.MountainCarState, time, dtype, position=position, velocity=velocity)


def test_registration_and_spaces(raw):
    env, params, _ = raw
    assert params.max_steps_in_episode == 200
    space = to_gymnasium(env.observation_space(params))
    assert space.dtype == np.float32
    assert np.array_equal(space.low, np.array([-1.2, -0.07], np.float32))
    assert np.array_equal(space.high, np.array([0.6, 0.07], np.float32))
    assert env.action_space(params).n == 3


def test_velocity_zeroed_at_left_wall(raw):
    env, params, step = raw
    _, state, reward, terminated, _, _ = step(jax.random.key(0), _state(-1.19, -0.05), 0, params)
    assert float(state.position) == pytest.approx(-1.2)
    assert float(state.velocity) == 0.0
    assert not bool(terminated) and float(reward) == -1.0
    # moving right off the wall keeps its velocity
    _, state, *_ = step(jax.random.key(0), _state(-1.2, 0.0), 2, params)
    assert float(state.velocity) > 0.0


def test_goal_terminates(raw):
    env, params, step = raw
    _, state, reward, terminated, truncated, info = step(jax.random.key(0), _state(0.49, 0.03), 2, params)
    assert float(state.position) >= 0.5
    assert bool(terminated) and not bool(truncated) and float(reward) == -1.0
    assert float(info["discount"]) == 0.0
    # a goal velocity the car does not reach: no termination
    _, _, _, terminated, _, _ = step(jax.random.key(0), _state(0.49, 0.03), 2, params.replace(goal_velocity=0.05))
    assert not bool(terminated)


def test_velocity_clipped_before_position(raw):
    env, params, step = raw
    _, state, *_ = step(jax.random.key(0), _state(-0.5, 0.0699), 2, params)
    assert float(state.velocity) == pytest.approx(0.07)
    assert float(state.position) == pytest.approx(-0.5 + 0.07)


def test_out_of_range_action_clipped_under_jit(raw):
    env, params, step = raw
    a = step(jax.random.key(0), _state(-0.5, 0.01), 7, params)[1]
    b = step(jax.random.key(0), _state(-0.5, 0.01), 2, params)[1]
    assert float(a.velocity) == float(b.velocity)
    with pytest.raises(ValueError):
        env.step(jax.random.key(0), _state(-0.5, 0.01), 7, params)


def test_reset_distribution_and_dtypes():
    with jax.enable_x64(True):
        obs, states = batch_reset(ENV_ID, 512)
        assert states.position.dtype == jnp.float64 and obs.dtype == jnp.float32
        pos = np.asarray(states.position)
        assert pos.min() >= -0.6 and pos.max() <= -0.4 and np.all(np.asarray(states.velocity) == 0)
