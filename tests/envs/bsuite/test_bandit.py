import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import bandit
from tests.envs.bsuite.bsuite_test_helpers import play


def test_arm_rewards_are_bsuites_for_each_mapping_seed():
    bsuite_bandit = pytest.importorskip("bsuite.environments.bandit")
    for seed in (0, 3, 19, 1234):
        np.testing.assert_allclose(
            bandit.arm_rewards(11, seed), bsuite_bandit.SimpleBandit(mapping_seed=seed)._rewards, atol=1e-7
        )
    assert sorted(bandit.arm_rewards(11, 5).tolist()) == pytest.approx(np.linspace(0, 1, 11).tolist())


def test_each_pull_pays_its_arm_and_ends_the_episode():
    env, params = jaxenvs.make("SimpleBandit-bsuite", autoreset=False)
    obs, _ = env.reset(jax.random.key(0), params)
    assert obs.shape == (1, 1) and obs.dtype == jnp.float32 and float(obs[0, 0]) == 1.0
    for arm in range(11):
        out = play(env, params, [arm])
        assert out["reward"] == [pytest.approx(float(params.rewards[arm]))]
        assert out["terminated"] == [True]
    assert params.bsuite_num_episodes == 10_000


def test_invalid_arm_is_clipped_under_jit():
    env, params = jaxenvs.make("SimpleBandit-bsuite", autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    reward = jax.jit(env.step)(jax.random.key(1), state, 99, params)[2]
    assert float(reward) == pytest.approx(float(params.rewards[10]))
    with pytest.raises(ValueError):
        env.step(jax.random.key(1), state, 99, params)


def test_sample_rewards_is_a_permutation_and_vmaps_over_params():
    keys = jax.random.split(jax.random.key(0), 8)
    rewards = jax.vmap(bandit.sample_rewards)(keys)
    assert np.allclose(np.sort(np.asarray(rewards), axis=1), np.linspace(0, 1, 11), atol=1e-6)
    assert len({tuple(np.argsort(r)) for r in np.asarray(rewards)}) > 1
    env, params = jaxenvs.make("SimpleBandit-bsuite", autoreset=False)
    batch = jax.vmap(lambda r: params.replace(rewards=r))(rewards)
    _, states = jax.vmap(env.reset)(keys, batch)
    pulled = jax.jit(jax.vmap(env.step, in_axes=(0, 0, None, 0)))(keys, states, 4, batch)[2]
    np.testing.assert_allclose(np.asarray(pulled), np.asarray(rewards)[:, 4])
