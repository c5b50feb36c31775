"""`Checked`: valid actions pass for the envs whose spaces come from params; every invalid one,
wrong shape included, is an error; it pickles."""

import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify

import jaxenvs
from jaxenvs.wrappers import Checked, checked_jit

SPACE_FROM_PARAMS = ["Pendulum-v1", "MountainCarContinuous-v0", "PointRobot-misc"]


@pytest.mark.parametrize("env_id", SPACE_FROM_PARAMS)
def test_valid_actions_pass_when_the_action_space_is_built_from_params(env_id):
    env, params = jaxenvs.make(env_id)
    checked = Checked(env)
    obs, state = checked.reset(jax.random.key(0), params)
    action = env.action_space(params).sample(jax.random.key(1))
    obs, *_ = checked.step(jax.random.key(2), state, action, params)
    assert bool(env.observation_space(params).contains(obs))
    # plain jit with params as an argument (they are traced there)
    obs, *_ = jax.jit(env.step)(jax.random.key(2), state, action, params)
    assert obs.shape == env.observation_space(params).shape

    # and inside the user's own jitted function, params traced
    def rollout(state, action, params):
        return checked.step(jax.random.key(3), state, action, params)[2]

    assert np.isfinite(float(checked_jit(rollout)(state, action, params)))
    with pytest.raises(checkify.JaxRuntimeError, match="invalid action"):
        checked_jit(rollout)(state, action * jnp.nan, params)


def test_every_invalid_action_is_an_error_wrong_shape_included():
    env, params = jaxenvs.make("CartPole-v1")
    checked = Checked(env)
    _, state = checked.reset(jax.random.key(0), params)
    for bad in (np.int64(2**32 + 1), 2, -1, np.array([0, 1])):
        with pytest.raises(ValueError, match="CartPole: invalid action"):
            checked.step(jax.random.key(1), state, bad, params)
    with pytest.raises(ValueError, match=r"CartPole: invalid action of shape \(2,\)"):
        jax.jit(checked.step)(jax.random.key(1), state, jnp.array([0, 1]), params)


def test_checked_pickles():
    env, params = jaxenvs.make("CartPole-v1")
    again = pickle.loads(pickle.dumps(Checked(env)))
    _, state = again.reset(jax.random.key(0), params)
    assert again.step(jax.random.key(1), state, 1, params)[2] == 1.0
