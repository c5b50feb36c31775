"""The base class's checks: actions exactly and eagerly, action shapes at trace time, keys."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs


def test_integer_actions_are_checked_exactly_eagerly():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    with pytest.raises(ValueError, match=r"CartPole: invalid action np.int64\(4294967297\) \(out of range\)"):
        env.step(jax.random.key(1), state, np.int64(2**32 + 1), params)  # int32 would read 1
    with pytest.raises(ValueError, match="valid actions are an integer in \\[0, 1\\]$"):
        env.step(jax.random.key(1), state, 2**31, params)  # not an OverflowError
    env.step(jax.random.key(1), state, np.int64(1), params)


@pytest.mark.parametrize("env_id", ["Taxi-v4", "Blackjack-v1", "FrozenLake-v1", "CartPole-v1"])
def test_a_wrong_action_shape_under_jit_raises_naming_the_action(env_id):
    env, params = jaxenvs.make(env_id)
    _, state = env.reset(jax.random.key(0), params)
    with pytest.raises(ValueError, match=r"invalid action of shape \(2,\)"):
        jax.jit(env.step)(jax.random.key(1), state, jnp.array([0, 1]), params)


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "MountainCarContinuous-v0", "Reacher-misc", "PointRobot-misc"])
def test_non_finite_and_huge_continuous_actions_give_finite_output_under_jit(env_id):
    env, params = jaxenvs.make(env_id, autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    step = jax.jit(env.step)
    shape = env.action_space(params).shape
    for value in (jnp.nan, jnp.inf, -jnp.inf, 3e38, -1e30):
        obs, _, reward, *_ = step(jax.random.key(1), state, jnp.full(shape, value, jnp.float32), params)
        assert bool(jnp.all(jnp.isfinite(obs))) and bool(jnp.isfinite(reward)), value
        assert bool(env.observation_space(params).contains(obs)), value


@pytest.mark.parametrize("env_id", ["CartPole-v1", "DeepSea-bsuite"])
def test_a_key_that_is_no_key_is_a_clear_error(env_id):
    env, params = jaxenvs.make(env_id)
    for key in (None, 0, np.zeros(3, np.uint32)):
        with pytest.raises(TypeError, match="key must be one JAX PRNG key"):
            env.reset(key, params)
    env.reset(jax.random.PRNGKey(0), params)  # a raw uint32[2] key is one


@pytest.mark.parametrize("env_id", ["pgx/tic_tac_toe", "jumanji/Snake-v1", "brax/fast"])
def test_an_int_or_none_key_into_an_adapter_is_a_clear_error(env_id):
    pytest.importorskip(env_id.split("/")[0])
    env, params = jaxenvs.make(env_id)
    for key in (None, 0):
        with pytest.raises(TypeError, match=f"{env_id}: key must be one JAX PRNG key"):
            env.reset(key, params)
