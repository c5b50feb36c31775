import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.spaces import to_gymnasium
from jaxenvs.testing import check_env
from jaxenvs.wrappers import NormalizeObservation, NormalizeReward, TransformObservation
from tests.wrappers.replay import ReplayEnv, rollout, split_episodes, stream_episode

GAMMA = 0.99


class PureJaxRLStatistics:
    """PureJaxRL's NormalizeVecObservation / NormalizeVecReward arithmetic, in numpy float64: one
    running mean/variance over the rows of each batch, starting from mean 0, variance 1, count 1e-4."""

    def __init__(self, shape=()):
        self.mean, self.var, self.count = np.zeros(shape), np.ones(shape), 1e-4

    def update(self, batch):
        batch_mean, batch_var, batch_count = batch.mean(0), batch.var(0), batch.shape[0]
        delta = batch_mean - self.mean
        tot = self.count + batch_count
        m2 = self.var * self.count + batch_var * batch_count + delta**2 * self.count * batch_count / tot
        self.mean, self.var, self.count = self.mean + delta * batch_count / tot, m2 / tot, tot


def reference_normalized_obs(reset_obs, obs):
    """Every returned observation (reset's, then each step's) added to the statistics, then normalized."""
    stats = PureJaxRLStatistics(reset_obs.shape[1:])
    out = []
    for batch in [reset_obs, *obs]:
        stats.update(batch.astype(np.float64))
        out.append((batch - stats.mean) / np.sqrt(stats.var + 1e-8))
    return np.stack(out)


def reference_normalized_reward(reward, done):
    stats, return_val, out = PureJaxRLStatistics(), np.zeros(reward.shape[1]), []
    for r, d in zip(reward.astype(np.float64), done):
        return_val = return_val * GAMMA * (1 - d) + r
        stats.update(return_val)
        out.append(r / np.sqrt(stats.var + 1e-8))
    return np.stack(out)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "Catch-bsuite"])
def test_check_env(env_id):
    env, params = jaxenvs.make(env_id)
    check_env(NormalizeReward(NormalizeObservation(env), gamma=GAMMA), params, num_steps=40)


def test_matches_gymnasium_single_env():
    """gymnasium's NormalizeObservation / NormalizeReward on a replay of the same env's stream."""
    env, params = jaxenvs.make("CartPole-v1")
    num_steps = 120
    reset_obs, (obs, reward, terminated, truncated, info) = rollout(env, params, num_steps)
    assert terminated.sum() >= 3 and not truncated.any()  # episodes end inside the window

    wrapped = NormalizeReward(NormalizeObservation(env), gamma=GAMMA)
    w_reset, (w_obs, w_reward, _, _, w_info) = rollout(wrapped, params, num_steps)

    # observations: the stream the wrapper normalizes is what the auto-reset env returns
    space = to_gymnasium(env.observation_space(params))
    gym_obs_env = gymnasium.wrappers.NormalizeObservation(ReplayEnv(stream_episode(reset_obs, obs, reward), space))
    expected = [gym_obs_env.reset()[0]] + [gym_obs_env.step(0)[0] for _ in range(num_steps)]
    np.testing.assert_allclose(np.stack([w_reset, *w_obs]), np.stack(expected), rtol=1e-5, atol=1e-5)

    # rewards: gymnasium's manual-reset loop over the same episodes
    episodes = split_episodes(reset_obs, obs, reward, terminated, truncated, info["final_observation"])
    gym_rew_env = gymnasium.wrappers.NormalizeReward(ReplayEnv(episodes, space), gamma=GAMMA)
    gym_rew_env.reset()
    expected_rewards = []
    for _ in range(num_steps):
        _, r, te, tr, _ = gym_rew_env.step(0)
        expected_rewards.append(r)
        if te or tr:
            gym_rew_env.reset()
    np.testing.assert_allclose(w_reward, expected_rewards, rtol=1e-5)

    # the terminal observation is normalized with the statistics of its step
    done = terminated | truncated
    rms = PureJaxRLStatistics(reset_obs.shape)
    for t, batch in enumerate([reset_obs, *obs]):
        rms.update(batch[None].astype(np.float64))
        if t and done[t - 1]:
            final = (info["final_observation"][t - 1] - rms.mean) / np.sqrt(rms.var + 1e-8)
            np.testing.assert_allclose(w_info["final_observation"][t - 1], final, rtol=1e-5, atol=1e-5)


def test_batch_statistics_match_purejaxrl():
    """Over make_vec the statistics are shared by the batch, as PureJaxRL's NormalizeVec* compute them;
    episodes truncate (max 15 steps) as well as terminate, and both restart the discounted sum."""
    num_envs, num_steps = 6, 40
    venv, params = jaxenvs.make_vec("CartPole-v1", num_envs, max_steps_in_episode=15)
    reset_obs, (obs, reward, terminated, truncated, _) = rollout(venv, params, num_steps, num_envs=num_envs)
    assert truncated.any() and terminated.any()

    wrapped = NormalizeReward(NormalizeObservation(venv), gamma=GAMMA)
    (
        w_reset,
        (w_obs, w_reward, *_),
    ) = rollout(wrapped, params, num_steps, num_envs=num_envs)
    np.testing.assert_allclose(
        np.concatenate([w_reset[None], w_obs]), reference_normalized_obs(reset_obs, obs), rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(w_reward, reference_normalized_reward(reward, terminated | truncated), rtol=1e-5)

    _, state = jax.jit(wrapped.reset)(jax.random.key(0), params)
    assert state.return_rms.mean.shape == () and state.env_state.obs_rms.mean.shape == (4,)


def test_per_env_statistics_under_vmap():
    """jax.vmap of a single env keeps one set of statistics per env: each env's outputs are its
    own stream normalized alone."""
    num_envs, num_steps = 3, 30
    env, params = jaxenvs.make("CartPole-v1", max_steps_in_episode=12)
    wrapped = NormalizeReward(NormalizeObservation(env), gamma=GAMMA)

    def run(wrapper):
        def one(key):
            return rollout_fn(wrapper, key)

        return jax.tree_util.tree_map(np.asarray, jax.jit(jax.vmap(one))(jax.random.split(jax.random.key(3), num_envs)))

    def rollout_fn(e, key):
        k_reset, k_steps = jax.random.split(key)
        obs, state = e.reset(k_reset, params)

        def body(state, k):
            k_act, k_step = jax.random.split(k)
            o, state, r, te, tr, _ = e.step(k_step, state, e.action_space(params).sample(k_act), params)
            return state, (o, r, te, tr)

        return obs, jax.lax.scan(body, state, jax.random.split(k_steps, num_steps))[1]

    reset_obs, (obs, reward, terminated, truncated) = run(env)
    w_reset, (w_obs, w_reward, _, _) = run(wrapped)
    for i in range(num_envs):
        expected_obs = reference_normalized_obs(reset_obs[i : i + 1], obs[i][:, None])[:, 0]
        np.testing.assert_allclose(np.concatenate([w_reset[i : i + 1], w_obs[i]]), expected_obs, rtol=1e-4, atol=1e-4)
        done = (terminated[i] | truncated[i])[:, None]
        expected_reward = reference_normalized_reward(reward[i][:, None], done)[:, 0]
        np.testing.assert_allclose(w_reward[i], expected_reward, rtol=1e-5)


def test_statistics_jit_and_checkpoint():
    """The statistics are part of the state: a jitted scan carries them, and a restored state resumes them."""
    from flax import serialization

    env, params = jaxenvs.make("Pendulum-v1")
    wrapped = NormalizeObservation(env)
    _, state = wrapped.reset(jax.random.key(0), params)
    step = jax.jit(wrapped.step)
    for k in range(5):
        _, state, *_ = step(jax.random.key(k), state, jnp.zeros(1), params)
    assert float(state.obs_rms.count) == pytest.approx(6 + 1e-4)
    restored = serialization.from_bytes(state, serialization.to_bytes(state))
    a = step(jax.random.key(9), state, jnp.ones(1), params)[0]
    b = step(jax.random.key(9), restored, jnp.ones(1), params)[0]
    np.testing.assert_array_equal(a, b)


def test_bad_input():
    env, params = jaxenvs.make("CartPole-v1")
    with pytest.raises(ValueError, match="gamma must be in"):
        NormalizeReward(env, gamma=1.5)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        NormalizeObservation(env, epsilon=0.0)
    box = env.observation_space(params)
    dict_env = TransformObservation(env, lambda o: {"x": o}, jaxenvs.spaces.Dict({"x": box}))
    with pytest.raises(TypeError, match="needs a Box observation space.*FlattenObservation"):
        NormalizeObservation(dict_env)
