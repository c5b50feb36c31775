"""LunarLander (unregistered: no continuous collision yet) against gymnasium's LunarLander-v3.

The reference's random draws are replayed: its generator is `np.random.default_rng(seed)`
(gymnasium's seeding), drawn in its order (12 terrain heights, the initial push, then two
dispersions every step), and our `start` / `advance` take those numbers. Compared: the reset
observation, then every step's observation and reward in free flight, up to the first step where
either side reports ground contact (at touchdown Box2D's continuous collision moves a leg back to
its time of impact and reports the contact a step earlier; not implemented here).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.envs.box2d.lunar_lander import env as ll
from jaxenvs.testing import check_env

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("Box2D")


def replay(seed, continuous, max_steps=400):
    """Reset and step both envs on the reference's draws until either reports ground contact.

    Returns:
        `(reset_error, observations, rewards)`: the reset observation's largest difference,
        then `[T, 8]` observation and `[T]` reward pairs `(reference, ours)` over the
        free-flight steps.
    """
    ref = gymnasium.make("LunarLanderContinuous-v3" if continuous else "LunarLander-v3").unwrapped
    params = ll.LunarLanderParams()
    advance = jax.jit(lambda s, a, d: ll.advance(s, a, d, params, continuous))
    reward = jax.jit(ll.reward_and_termination)

    rng = np.random.default_rng(seed)
    height = rng.uniform(0, ll.H / 2, size=12)
    push = [rng.uniform(-ll.INITIAL_RANDOM, ll.INITIAL_RANDOM) for _ in range(2)]
    dispersion = [rng.uniform(-1, 1) / ll.SCALE for _ in range(2)]
    ref_obs, _ = ref.reset(seed=seed)
    state = ll.start(jnp.asarray(height), jnp.asarray(push), 0, 0)
    state, _, _ = advance(state, jnp.zeros(2) if continuous else jnp.int32(0), jnp.asarray(dispersion))
    state = state.replace(prev_shaping=ll.shaping(ll.observation_values(state)))
    reset_error = np.abs(np.asarray(ll.observation(state)) - ref_obs).max()

    actions = np.random.default_rng(1000 + seed)
    obs, rewards = [], []
    for _ in range(max_steps):
        # The two dispersions the reference is about to draw, from a copy of its generator.
        upcoming = np.random.Generator(np.random.PCG64())
        upcoming.bit_generator.state = ref.np_random.bit_generator.state
        dispersion = [upcoming.uniform(-1, 1) / ll.SCALE for _ in range(2)]
        if continuous:
            action = actions.uniform(-1, 1, 2).astype(np.float32)
        else:
            action = int(actions.integers(0, 4))
        ref_obs, ref_reward, ref_terminated, _, _ = ref.step(action)
        state, m_power, s_power = advance(state, jnp.asarray(action), jnp.asarray(dispersion))
        r, _, new_shaping = reward(state, m_power, s_power)
        state = state.replace(prev_shaping=new_shaping)
        ours = np.asarray(ll.observation(state))
        if ref_obs[6] or ref_obs[7] or ours[6] or ours[7] or ref_terminated:
            break
        obs.append((ref_obs, ours))
        rewards.append((ref_reward, float(r)))
    return reset_error, np.asarray(obs, np.float64), np.asarray(rewards, np.float64)


@pytest.mark.parametrize("continuous", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_free_flight_matches_gymnasium(seed, continuous):
    # Measured: reset 2e-7; free flight (60-110 steps) observations 4e-6, rewards 5e-4 (the
    # reference computes the reward in float64 from float32 observations).
    reset_error, obs, rewards = replay(seed, continuous)
    assert reset_error <= 1e-5
    assert len(obs) >= 40, "the lander should fly a while before touching down"
    np.testing.assert_allclose(obs[:, 1], obs[:, 0], atol=5e-5, rtol=0)
    np.testing.assert_allclose(rewards[:, 1], rewards[:, 0], atol=5e-3, rtol=0)


def test_terrain_matches_gymnasium():
    ref = gymnasium.make("LunarLander-v3").unwrapped
    ref.reset(seed=3)
    height = np.random.default_rng(3).uniform(0, ll.H / 2, size=12)
    ours = np.asarray(ll.terrain(jnp.asarray(height)))
    edges = [f.shape.vertices for f in ref.moon.fixtures[1:]]
    np.testing.assert_allclose(ours[:-1], [v[0][1] for v in edges], atol=1e-6)
    np.testing.assert_allclose(ours[1:], [v[1][1] for v in edges], atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("continuous", [False, True])
def test_check_env(continuous):
    check_env(ll.LunarLander(continuous=continuous), num_steps=100, num_envs=2)


def test_lander_crashing_ends_the_episode_with_minus_100():
    env = ll.LunarLander()
    params = env.default_params
    _, state = jax.jit(env.reset)(jax.random.key(0), params)
    step = jax.jit(env.step)
    for i in range(300):
        _, state, reward, terminated, _, _ = step(jax.random.key(i), state, 0, params)
        if terminated:
            break
    assert bool(terminated) and float(reward) in (-100.0, 100.0)
    assert bool(env.is_terminal(state, params))
