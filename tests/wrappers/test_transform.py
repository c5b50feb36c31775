import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs import spaces
from jaxenvs.testing import check_env
from jaxenvs.wrappers import TransformObservation, TransformReward
from tests.wrappers.replay import rollout


def test_check_env():
    env, params = jaxenvs.make("Pendulum-v1")
    doubled = spaces.Box(-2 * env.observation_space(params).high, 2 * env.observation_space(params).high)
    check_env(TransformReward(TransformObservation(env, lambda o: 2 * o, doubled), jnp.tanh), params, num_steps=40)
    env, params = jaxenvs.make("Breakout-MinAtar")
    as_float = spaces.Box(0.0, 1.0, env.observation_space(params).shape)
    check_env(TransformObservation(env, lambda o: o.astype(jnp.float32), as_float), params, num_steps=20)


def test_applies_func_to_every_output():
    """The transformed rollout is the inner one with `func` applied, the terminal observation too."""
    venv, params = jaxenvs.make_vec("CartPole-v1", 3, max_steps_in_episode=10)
    reset_obs, (obs, reward, te, tr, info) = rollout(venv, params, 25, num_envs=3)
    wrapped = TransformReward(TransformObservation(venv, lambda o: o[..., :2] * 10.0), lambda r: r - 0.5)
    w_reset, (w_obs, w_reward, w_te, w_tr, w_info) = rollout(wrapped, params, 25, num_envs=3)
    assert (te | tr).any()
    np.testing.assert_allclose(w_reset, reset_obs[..., :2] * 10.0)
    np.testing.assert_allclose(w_obs, obs[..., :2] * 10.0)
    np.testing.assert_allclose(w_info["final_observation"], info["final_observation"][..., :2] * 10.0)
    np.testing.assert_allclose(w_reward, reward - 0.5)
    np.testing.assert_array_equal(w_te | w_tr, te | tr)
    assert w_reward.dtype == np.float32


def test_space_defaults_to_the_wrapped_envs():
    env, params = jaxenvs.make("CartPole-v1")
    wrapped = TransformObservation(env, lambda o: jnp.clip(o, -1, 1))
    assert wrapped.observation_space(params) == env.observation_space(params)
    obs, _ = jax.jit(wrapped.reset)(jax.random.key(0), params)
    assert float(jnp.abs(obs).max()) <= 1.0


def test_bad_input():
    env, _ = jaxenvs.make("CartPole-v1")
    with pytest.raises(TypeError, match="func must be callable"):
        TransformObservation(env, 2.0)
    with pytest.raises(TypeError, match="func must be callable"):
        TransformReward(env, None)
    with pytest.raises(TypeError, match="observation_space must be a jaxenvs.spaces.Space"):
        TransformObservation(env, jnp.abs, observation_space=(4,))
