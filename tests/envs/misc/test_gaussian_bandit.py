import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.misc import gaussian_bandit

ID = "GaussianBandit-misc"


def test_arm_rewards():
    env, params = jaxenvs.make(ID, autoreset=False)
    state = gaussian_bandit.GaussianBanditState(
        time=jnp.int32(0), last_action=jnp.int32(0), last_reward=jnp.float32(0), mu=jnp.float32(-0.7)
    )
    n = 4000
    step = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))
    _, _, safe, *_ = step(jax.random.split(jax.random.key(0), n), state, 0, params)
    assert np.all(np.asarray(safe) == 0.0)
    obs, _, risky, *_ = step(jax.random.split(jax.random.key(1), n), state, 1, params)
    risky = np.asarray(risky)
    assert abs(risky.mean() + 0.7) < 4 * 0.1 / np.sqrt(n)
    assert abs(risky.std() - 0.1) < 0.01
    assert np.array_equal(np.asarray(obs)[:, 0], risky) and np.all(np.asarray(obs)[:, 2] == 1.0)


def test_reset_mean_distribution():
    env, params = jaxenvs.make(ID)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(0), 4000), params)
    mu = np.asarray(states.mu)
    assert abs(mu.mean() + 1.0) < 4 / np.sqrt(len(mu)) and abs(mu.std() - 1.0) < 0.05
