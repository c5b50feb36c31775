import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.misc import bernoulli_bandit

ID = "BernoulliBandit-misc"


def test_arm_reward_probabilities():
    env, params = jaxenvs.make(ID, autoreset=False, reward_prob=0.2)
    state = bernoulli_bandit.BernoulliBanditState(
        time=jnp.int32(0),
        last_action=jnp.int32(0),
        last_reward=jnp.float32(0),
        exp_reward_best=jnp.float32(0.8),
        reward_probs=jnp.asarray([0.2, 0.8], jnp.float32),
    )
    n = 4000
    step = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))
    for arm, p in [(0, 0.2), (1, 0.8)]:
        obs, states, rewards, *_ = step(jax.random.split(jax.random.key(arm), n), state, arm, params)
        rewards = np.asarray(rewards)
        assert set(np.unique(rewards)) <= {0.0, 1.0}
        assert abs(rewards.mean() - p) < 4 * np.sqrt(p * (1 - p) / n)
        assert np.all(np.asarray(obs)[:, 1 + arm] == 1.0) and np.array_equal(np.asarray(obs)[:, 0], rewards)


def test_reset_draws_which_arm_is_better():
    env, params = jaxenvs.make(ID)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(0), 1000), params)
    probs = np.round(np.asarray(states.reward_probs, np.float64), 6)
    first = probs[:, 0]
    assert set(np.unique(first)) == {0.1, 0.9}
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert abs(np.mean(first == 0.1) - 0.5) < 4 * np.sqrt(0.25 / 1000)
    np.testing.assert_allclose(states.exp_reward_best, 0.9, atol=1e-6)


def test_time_feature_and_limit():
    env, params = jaxenvs.make(ID, autoreset=False)
    assert params.max_steps_in_episode == 100
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
    assert float(obs[3]) == -1.0
    state = state.replace(time=jnp.int32(99))
    obs, state, _, terminated, truncated, _ = jax.jit(env.step)(jax.random.key(0), state, 0, params)
    assert float(obs[3]) == 1.0 and bool(truncated) and not bool(terminated)
