import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite.catch import Catch, CatchState
from jaxenvs.envs.bsuite.wrappers import RewardNoise, RewardScale


def _about_to_land(ball_x=2):
    return CatchState(
        time=jnp.int32(8), ball_x=jnp.int32(ball_x), ball_y=jnp.int32(8), paddle_x=jnp.int32(2), paddle_y=jnp.int32(9)
    )


def test_reward_noise_adds_standard_normal_times_scale():
    env = RewardNoise(Catch(), noise_scale=3.0)
    keys = jax.random.split(jax.random.key(0), 20_000)
    rewards = np.asarray(jax.jit(jax.vmap(lambda k: env.step(k, _about_to_land(), 1)[2]))(keys))
    assert rewards.dtype == np.float32
    assert abs(rewards.mean() - 1.0) < 0.07 and abs(rewards.std() - 3.0) < 0.07
    assert env.noise_scale == 3.0 and env.name == "Catch"


def test_reward_scale_multiplies():
    env = RewardScale(Catch(), reward_scale=30.0)
    _, _, reward, terminated, _, _ = jax.jit(env.step)(jax.random.key(0), _about_to_land(ball_x=0), 1)
    assert float(reward) == -30.0 and bool(terminated)
    assert float(env.step(jax.random.key(0), _about_to_land(), 1, env.default_params)[2]) == 30.0


def test_sweep_ids_wrap_and_log_noisy_returns():
    env, params = jaxenvs.make("bsuite/catch_noise/3", autoreset=False)
    assert env.unwrapped.name == "Catch" and env.noise_scale == pytest.approx(0.1)
    env, params = jaxenvs.make("bsuite/catch_scale/19")
    assert env.reward_scale == 1000.0
    from jaxenvs.wrappers import LogWrapper

    logged = LogWrapper(env)
    obs, state = logged.reset(jax.random.key(0), params)

    def body(state, key):
        ka, ks = jax.random.split(key)
        _, state, reward, *_ = logged.step(ks, state, jax.random.randint(ka, (), 0, 3), params)
        return state, reward

    _, rewards = jax.lax.scan(body, state, jax.random.split(jax.random.key(1), 45))
    assert set(np.unique(np.asarray(rewards)).tolist()) <= {-1000.0, 0.0, 1000.0}
    assert np.sum(np.asarray(rewards) != 0) == 5  # five 9-step episodes


def test_noise_wrapper_under_make_vec():
    venv, params = jaxenvs.make_vec("bsuite/bandit_noise/19", 8)
    obs, state = venv.reset(jax.random.key(0), params)
    _, _, reward, terminated, _, _ = jax.jit(venv.step)(jax.random.key(1), state, jnp.zeros(8, jnp.int32), params)
    assert reward.shape == (8,) and bool(terminated.all())
    assert np.std(np.asarray(reward)) > 1.0  # noise_scale 10 around one arm's reward
