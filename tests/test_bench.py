"""`jaxenvs.bench`: the timed rollouts consume every step's observation, and the footprints."""

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.bench import consume, footprints, random_actions, vec_rollout, vmap_rollout


def _read(x: np.ndarray) -> np.float32:
    """`consume` in numpy: one-byte arrays as their bytes in little-endian uint32 words summed
    modulo 2**32, wider ones summed; as float32."""
    if x.dtype.itemsize > 1:
        return np.float32(np.sum(x, dtype=np.float64))
    data = np.ascontiguousarray(x).tobytes()
    data += bytes(-len(data) % 4)
    return np.float32(int(np.frombuffer(data, "<u4").sum(dtype=np.uint64) % 2**32))


def _stepped_by_hand(venv, params, key, num_steps):
    """The rollout `vec_rollout` times, written as a Python loop: (obs read, reward sum, obs)."""
    space = venv.action_space(params)
    k_reset, k_run = jax.random.split(key)
    obs, state = venv.reset(k_reset, params)
    step = jax.jit(lambda keys, state: venv.step(keys[1], state, random_actions(keys[0], space, venv.num_envs), params))
    obs_total, reward_total = np.float32(0), 0.0
    for keys in jax.random.split(k_run, (num_steps, 2)):
        obs, state, reward, *_ = step(keys, state)
        obs_total = np.float32(obs_total + _read(np.asarray(obs)))
        reward_total += float(jnp.sum(reward))
    return obs_total, reward_total, obs


def test_vec_rollout_reads_every_observation():
    venv, params = jaxenvs.make_vec("Breakout-MinAtar", 8)
    key = jax.random.key(5)
    state, obs, obs_total, reward_total = jax.jit(vec_rollout(venv, params, 30))(key)
    want_obs_total, want_reward_total, want_obs = _stepped_by_hand(venv, params, key, 30)
    assert obs_total == want_obs_total and want_obs_total > 0
    assert reward_total == want_reward_total
    np.testing.assert_array_equal(obs, want_obs)
    # rewards only: the same transitions, the observation left out of the carry
    state_r, _, obs_total_r, reward_total_r = jax.jit(vec_rollout(venv, params, 30, observations=False))(key)
    assert obs_total_r == 0 and reward_total_r == reward_total
    jax.tree_util.tree_map(np.testing.assert_array_equal, state_r, state)


def test_consume_reads_every_element_of_every_dtype():
    for x in (
        np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5.5,
        np.arange(7) % 3 == 0,  # 7 bytes: padded to two words
        np.arange(-3, 6, dtype=np.int16),
        np.arange(5, dtype=np.int8),
    ):
        assert float(consume(jnp.asarray(x))) == _read(x), x.dtype
    assert float(consume({"a": jnp.ones(3, jnp.bool_), "b": jnp.ones(2, jnp.int32)})) == 0x00010101 + 2


def test_vmap_rollout_reads_every_observation():
    env, params = jaxenvs.make("CartPole-v1")
    run = jax.jit(vmap_rollout(env, params, 4, 3))
    _, obs, obs_total, _ = run(jax.random.key(0))
    assert obs.shape == (4, 4)
    # a different number of steps sums different observations
    _, _, obs_total_2, _ = jax.jit(vmap_rollout(env, params, 4, 4))(jax.random.key(0))
    assert obs_total != obs_total_2


def test_footprints():
    ours = footprints("CartPole-v1")[0]
    assert ours.library == "jaxenvs"
    assert ours.state_bytes == 5 * 4  # x, x_dot, theta, theta_dot (float32) and time (int32)
    # observation and final_observation (4 float32 each), reward, flags, discount
    assert 2 * 16 + 4 + 2 <= ours.step_output_bytes <= 64
