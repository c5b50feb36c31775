"""With `jax_enable_x64` on, every misc env keeps its state dtypes from reset to step (the
auto-reset `lax.cond` needs it) and runs its continuous dynamics in float64."""

import jax
import jax.numpy as jnp
import pytest

import jaxenvs

FLOAT64_FIELD = {
    "PointRobot-misc": "pos",
    "GaussianBandit-misc": "mu",
    "Reacher-misc": "angles",
    "Swimmer-misc": "xy",
    "BernoulliBandit-misc": "reward_probs",
}


@pytest.mark.parametrize("env_id", jaxenvs.registered_envs("misc"))
def test_dtypes_stable_under_x64(env_id):
    with jax.enable_x64(True):
        env, params = jaxenvs.make(env_id, autoreset=False)

        def rollout(key):
            obs, state = env.reset(key, params)
            _, nxt, reward, *_ = env.step(key, state, env.action_space(params).sample(key), params)
            return obs, state, nxt, reward

        obs, state, nxt, reward = jax.jit(rollout)(jax.random.key(0))
        before = jax.tree_util.tree_map(lambda x: x.dtype, state)
        after = jax.tree_util.tree_map(lambda x: x.dtype, nxt)
        assert before == after, (before, after)
        assert obs.dtype == env.observation_space(params).dtype and reward.dtype == jnp.float32
        if env_id in FLOAT64_FIELD:
            assert getattr(state, FLOAT64_FIELD[env_id]).dtype == jnp.float64
