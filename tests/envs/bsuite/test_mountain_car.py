import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import mountain_car
from tests.envs.bsuite.bsuite_test_helpers import play


def _state(position, velocity=0.0, time=0):
    return mountain_car.MountainCarState(
        time=jnp.int32(time), position=jnp.float32(position), velocity=jnp.float32(velocity)
    )


def test_left_wall_stops_the_car():
    env, params = jaxenvs.make("MountainCar-bsuite", autoreset=False)
    out = play(env, params, [0], state=_state(-1.19, -0.05))
    s = out["state"][0]
    assert float(s.position) == pytest.approx(-1.2) and float(s.velocity) == 0.0
    assert out["reward"] == [-1.0]


def test_goal_and_step_limit_terminate():
    env, params = jaxenvs.make("MountainCar-bsuite", autoreset=False)
    assert play(env, params, [2], state=_state(0.49, 0.02))["terminated"] == [True]
    assert play(env, params, [1], state=_state(-0.5, 0.0, time=998))["terminated"] == [False]
    assert play(env, params, [1], state=_state(-0.5, 0.0, time=999))["terminated"] == [True]
    short, params = jaxenvs.make("MountainCar-bsuite", autoreset=False, max_steps=10)
    assert play(short, params, [1] * 10)["terminated"] == [False] * 9 + [True]


def test_reset_and_observation():
    env, params = jaxenvs.make("MountainCar-bsuite", autoreset=False)
    obs, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), 256), params)
    pos = np.asarray(states.position)
    assert pos.min() >= -0.6 and pos.max() <= -0.4 and np.all(np.asarray(states.velocity) == 0)
    assert obs.shape == (256, 1, 3) and obs.dtype == jnp.float32
    out = play(env, params, [1] * 5)
    assert out["obs"][-1][0, 2] == pytest.approx(0.005)
