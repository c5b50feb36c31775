import jax
import jax.numpy as jnp

import jaxenvs
from jaxenvs.envs.classic import cartpole


def test_time_limits():
    assert jaxenvs.make("CartPole-v1")[1].max_steps_in_episode == 500
    assert jaxenvs.make("CartPole-v0")[1].max_steps_in_episode == 200


def test_terminates_past_threshold_with_reward():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    state = cartpole.CartPoleState(
        time=jnp.int32(3),
        x=jnp.float32(2.39),
        x_dot=jnp.float32(1.0),
        theta=jnp.float32(0.0),
        theta_dot=jnp.float32(0.0),
    )
    _, next_state, reward, terminated, truncated, info = jax.jit(env.step)(jax.random.key(0), state, 1, params)
    assert bool(terminated) and not bool(truncated)
    assert float(reward) == 1.0  # gymnasium rewards the terminating step too
    assert float(info["discount"]) == 0.0
    assert int(next_state.time) == 4


def test_sutton_barto_reward():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, sutton_barto_reward=True)
    _, state = env.reset(jax.random.key(0), params)
    _, _, reward, terminated, _, _ = jax.jit(env.step)(jax.random.key(0), state, 0, params)
    assert not bool(terminated) and float(reward) == 0.0


def test_x64_dynamics_are_float64():
    with jax.enable_x64(True):
        env, params = jaxenvs.make("CartPole-v1", autoreset=False)
        obs, state = env.reset(jax.random.key(0), params)
        assert state.x.dtype == jnp.float64
        assert obs.dtype == jnp.float32
