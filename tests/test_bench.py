"""`jaxenvs.bench`: the timed rollouts consume every step's observation, and the footprints."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.bench import consume, consume_weights, footprints, random_actions, vec_rollout, vmap_rollout


def _read(x: np.ndarray) -> float:
    """`consume` in numpy (float64): every element as float, weighted by `consume_weights` of an
    env's observation shape (the leading axis is the batch for two axes or more), summed."""
    x = np.asarray(x)
    weights = consume_weights(x.shape[1:] if x.ndim >= 2 else x.shape).astype(np.float64)
    return float(np.sum(x.astype(np.float64) * weights))


def _stepped_by_hand(venv, params, key, num_steps):
    """The rollout `vec_rollout` times, written as a Python loop: (obs read, reward sum, obs)."""
    space = venv.action_space(params)
    k_reset, k_run = jax.random.split(key)
    obs, state = venv.reset(k_reset, params)
    step = jax.jit(lambda keys, state: venv.step(keys[1], state, random_actions(keys[0], space, venv.num_envs), params))
    obs_total, reward_total = 0.0, 0.0
    for keys in jax.random.split(k_run, (num_steps, 2)):
        obs_total += _read(np.asarray(obs))  # the observation the step acts on
        obs, state, reward, *_ = step(keys, state)
        reward_total += float(jnp.sum(reward))
    return obs_total, reward_total, obs


def test_vec_rollout_reads_every_observation():
    venv, params = jaxenvs.make_vec("Breakout-MinAtar", 8)
    key = jax.random.key(5)
    state, obs, obs_total, reward_total = jax.jit(vec_rollout(venv, params, 30))(key)
    want_obs_total, want_reward_total, want_obs = _stepped_by_hand(venv, params, key, 30)
    # float32 sums in XLA's order against float64 in numpy's
    np.testing.assert_allclose(float(obs_total), want_obs_total, rtol=1e-5)
    assert want_obs_total > 0
    assert reward_total == want_reward_total
    np.testing.assert_array_equal(obs, want_obs)
    # rewards only: the same transitions, the observation left out of the carry
    state_r, _, obs_total_r, reward_total_r = jax.jit(vec_rollout(venv, params, 30, observations=False))(key)
    assert obs_total_r == 0 and reward_total_r == reward_total
    jax.tree_util.tree_map(np.testing.assert_array_equal, state_r, state)


def test_consume_is_a_weighted_float32_sum_of_every_dtype():
    rng = np.random.default_rng(0)
    for x in (
        np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5.5,
        np.arange(7) % 3 == 0,
        np.arange(-3, 6, dtype=np.int16),
        rng.integers(0, 256, (5, 10, 10, 4)).astype(np.uint8),
        np.float32(2.5),
    ):
        np.testing.assert_allclose(float(consume(jnp.asarray(x))), _read(x), rtol=1e-6, err_msg=str(x.dtype))
    tree = {"a": np.ones((2, 3), np.bool_), "b": np.arange(4, dtype=np.int32)}
    np.testing.assert_allclose(float(consume(tree)), _read(tree["a"]) + _read(tree["b"]), rtol=1e-6)
    # the weights: fixed, none zero, and one per element of an env's observation (not per batch row)
    w = consume_weights((10, 10, 4))
    assert w.dtype == np.float32 and w.min() >= 0.5 and w.max() < 1.5 and len(np.unique(w)) == w.size
    np.testing.assert_array_equal(w, consume_weights((10, 10, 4)))


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.float32])
def test_consume_reads_every_element(dtype):
    """A change to any one element of an observation, of any dtype, changes what `consume` returns."""
    rng = np.random.default_rng(1)
    shape = (3, 5, 4)  # a batch of 3 envs' [5, 4] observations
    if dtype is np.bool_:
        x = rng.random(shape) < 0.5
    elif dtype is np.float32:
        x = rng.normal(size=shape).astype(np.float32)
    else:
        x = rng.integers(0, 100, shape).astype(dtype)
    read = jax.jit(consume)
    base = float(read(x))
    changed = []
    for i in np.ndindex(shape):
        y = x.copy()
        y[i] = ~y[i] if dtype is np.bool_ else y[i] + 1
        changed.append(float(read(y)) != base)
    assert all(changed), f"{changed.count(False)} of {len(changed)} changed elements went unread"


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
