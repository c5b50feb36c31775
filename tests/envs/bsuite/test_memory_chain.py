import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.bsuite import memory_chain
from tests.envs.bsuite.bsuite_test_helpers import play


def _state(context, query):
    return memory_chain.MemoryChainState(
        time=jnp.int32(0), context=jnp.asarray(context, jnp.int32), query=jnp.int32(query)
    )


def test_context_then_query_then_reward():
    env = memory_chain.MemoryChain(memory_length=3, num_bits=2)
    params = env.default_params
    state = _state([1, 0], query=1)
    obs0 = memory_chain.observation(state, params)
    np.testing.assert_allclose(np.asarray(obs0), [[1.0, 0.0, 1.0, -1.0]])
    right = play(env, params, [0, 0, 0, 0], state=state)
    assert right["terminated"] == [False, False, False, True]
    assert right["reward"] == [0.0, 0.0, 0.0, 1.0]
    # bsuite observes before advancing its clock: the context again after step 1, the query after step 3
    np.testing.assert_allclose(right["obs"][0], obs0)
    np.testing.assert_allclose(right["obs"][2], [[1 / 3, 1.0, 0.0, 0.0]], rtol=1e-6)
    wrong = play(env, params, [0, 0, 0, 1], state=state)
    assert wrong["reward"][-1] == -1.0


def test_reset_draws_fair_bits_and_a_uniform_query():
    env = memory_chain.MemoryChain(memory_length=2, num_bits=5)
    keys = jax.random.split(jax.random.key(0), 4000)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, env.default_params)
    assert abs(float(states.context.mean()) - 0.5) < 0.03
    counts = np.bincount(np.asarray(states.query), minlength=5)
    assert counts.min() > 700 and counts.max() < 900


def test_memory_length_is_a_param():
    env, params = jaxenvs.make("MemoryChain-bsuite", autoreset=False, memory_length=7)
    out = play(env, params, [0] * 8)
    assert out["terminated"] == [False] * 7 + [True]


def test_no_observation_column_has_equal_bounds():
    # gymnasium's checker warns of one ("maximum and minimum values are equal"): with one bit
    # the query column holds only 0 and is bounded [0, 1]
    for env_id, bits in (("MemoryChain-bsuite", 1), ("bsuite/memory_len/0", 1), ("bsuite/memory_size/3", 4)):
        env, params = jaxenvs.make(env_id, autoreset=False)
        space = env.observation_space(params)
        assert space.shape == (1, bits + 2)
        assert (space.low < space.high).all(), (env_id, space.low, space.high)
        obs, state = env.reset(jax.random.key(0), params)
        for t in range(3):
            assert bool(space.contains(obs)), (env_id, t, obs)
            obs, state, *_ = env.step(jax.random.key(t), state, 0, params)
