import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.wrappers import AutoReset


def test_final_observation_equals_raw_step():
    raw, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=20)
    env = AutoReset(raw)
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    step, raw_step = jax.jit(env.step), jax.jit(raw.step)
    finished = 0
    for t in range(200):
        k = jax.random.key(t + 1)
        action = t % 2
        # what AutoReset's inner step sees: the first half of its split key
        k_step, k_reset = jax.random.split(k)
        raw_obs, raw_state, raw_r, raw_te, raw_tr, _ = raw_step(k_step, state, action, params)
        obs, state, r, te, tr, info = step(k, state, action, params)
        np.testing.assert_array_equal(info["final_observation"], raw_obs)
        assert bool(te) == bool(raw_te) and bool(tr) == bool(raw_tr) and float(r) == float(raw_r)
        assert bool(info["final_terminated"]) == bool(te) and bool(info["final_truncated"]) == bool(tr)
        if bool(te) or bool(tr):
            finished += 1
            assert int(state.time) == 0
            reset_obs, _ = raw.reset(k_reset, params)
            np.testing.assert_array_equal(obs, reset_obs)
            assert not np.array_equal(obs, raw_obs)
        else:
            np.testing.assert_array_equal(obs, raw_obs)
    assert finished >= 5


def test_info_keys_same_at_every_step():
    env, params = jaxenvs.make("CartPole-v1", max_steps_in_episode=3)
    _, state = env.reset(jax.random.key(0), params)

    def body(s, k):
        o, s, r, te, tr, info = env.step(k, s, 0, params)
        return s, info

    _, infos = jax.jit(lambda s: jax.lax.scan(body, s, jax.random.split(jax.random.key(1), 10)))(state)
    assert set(infos) == {"discount", "final_observation", "final_terminated", "final_truncated"}
    assert infos["final_truncated"].sum() >= 3


def test_action_mask_describes_the_returned_state():
    """After an auto-reset, info["action_mask"] is the new episode's (Taxi, 1-step episodes)."""
    from jaxenvs.envs.toy_text import taxi

    env, params = jaxenvs.make("Taxi-v4", max_steps_in_episode=1)
    _, state = env.reset(jax.random.key(0), params)
    for t in range(5):
        obs, state, _, _, truncated, info = jax.jit(env.step)(jax.random.key(t), state, 0, params)
        assert bool(truncated)
        np.testing.assert_array_equal(info["action_mask"], env.action_mask(state, params))
    venv, params = jaxenvs.make_vec("Taxi-v4", 8, max_steps_in_episode=1)
    _, state = venv.reset(jax.random.key(0), params)
    _, state, _, _, truncated, info = jax.jit(venv.step)(jax.random.key(1), state, jnp.zeros(8, jnp.int32), params)
    assert bool(truncated.all())
    expected = jax.vmap(taxi.action_mask)(state)
    np.testing.assert_array_equal(info["action_mask"], expected)
