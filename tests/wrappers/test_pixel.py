import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs import spaces
from jaxenvs.testing import check_env
from jaxenvs.wrappers import AutoReset, PixelObservation


@pytest.fixture(scope="module")
def cartpole():
    return jaxenvs.make("CartPole-v1", autoreset=False)


def test_observation_is_the_render(cartpole):
    raw, params = cartpole
    env = PixelObservation(raw)
    space = env.observation_space(params)
    assert space == spaces.Box(0, 255, shape=(400, 600, 3), dtype=jnp.uint8)
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
    assert obs.dtype == jnp.uint8 and bool(space.contains(obs))
    np.testing.assert_array_equal(obs, raw.render(state, params))
    obs2, state2, *_ = jax.jit(env.step)(jax.random.key(1), state, 1, params)
    np.testing.assert_array_equal(obs2, raw.render(state2, params))
    assert (obs2 != obs).any()


def test_resize_to_a_static_shape_keeps_the_picture(cartpole):
    raw, params = cartpole
    env = PixelObservation(raw, shape=(40, 60))
    assert env.observation_space(params).shape == (40, 60, 3)
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
    full = np.asarray(raw.render(state, params), np.float32)
    assert obs.shape == (40, 60, 3) and obs.dtype == jnp.uint8
    # the same picture, 10x smaller: block means agree up to the filter's blur
    blocks = full.reshape(40, 10, 60, 10, 3).mean(axis=(1, 3))
    assert np.abs(blocks - np.asarray(obs, np.float32)).mean() < 6.0


def test_under_autoreset_final_observation_is_the_terminal_picture(cartpole):
    raw, params = cartpole
    pixel = PixelObservation(raw, shape=(20, 30))
    env = AutoReset(pixel)
    step, raw_step = jax.jit(env.step), jax.jit(raw.step)
    _, state = env.reset(jax.random.key(0), params)
    for t in range(60):
        key = jax.random.key(t)
        k_step, _ = jax.random.split(key)  # the key AutoReset hands to the inner step
        _, terminal_state, *_ = raw_step(k_step, state, 1, params)
        obs, state, _, terminated, truncated, info = step(key, state, 1, params)
        if bool(terminated | truncated):
            np.testing.assert_array_equal(info["final_observation"], pixel.pixels(terminal_state, params))
            assert (info["final_observation"] != obs).any()
            return
    pytest.fail("pushing right never ended an episode")


def test_conforms_and_vmaps():
    # a small picture (Catch's grid) keeps the checker's many compiles cheap
    raw, params = jaxenvs.make("Catch-bsuite", autoreset=False)
    env = AutoReset(PixelObservation(raw, shape=(20, 10)))
    check_env(env, params, num_steps=10, num_envs=2)
    obs, _ = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), 3), params)
    assert obs.shape == (3, 20, 10, 3) and obs.dtype == jnp.uint8


def test_refuses_an_autoresetting_env_and_bad_shapes(cartpole):
    raw, _ = cartpole
    with pytest.raises(ValueError, match="auto-reset"):
        PixelObservation(jaxenvs.make("CartPole-v1")[0])
    with pytest.raises(ValueError, match="shape"):
        PixelObservation(raw, shape=(0, 10))
