import jax
import numpy as np

import jaxenvs
from jaxenvs.wrappers import LogWrapper
from jaxenvs.wrappers.log import TIMESTEP_MAX


def test_log_wrapper_matches_python_recount():
    """10,000 vmapped steps (100 envs x 100 steps); every finished episode counted once."""
    num_envs, num_steps = 100, 100
    env, params = jaxenvs.make("CartPole-v1", max_steps_in_episode=30)
    env = LogWrapper(env)
    keys = jax.random.split(jax.random.key(0), num_envs)
    _, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
    act = env.action_space(params)

    def body(state, k):
        ka, ks = jax.random.split(k)
        actions = jax.vmap(act.sample)(jax.random.split(ka, num_envs))
        _, state, reward, te, tr, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
            jax.random.split(ks, num_envs), state, actions, params
        )
        return state, (reward, te | tr, info)

    _, (rewards, dones, infos) = jax.jit(
        lambda s: jax.lax.scan(body, s, jax.random.split(jax.random.key(1), num_steps))
    )(state)
    rewards, dones = np.asarray(rewards), np.asarray(dones)
    returned = np.asarray(infos["returned_episode"])
    np.testing.assert_array_equal(returned, dones)

    # plain Python recount
    expected_returns, expected_lengths = [], []
    for e in range(num_envs):
        ret, length = 0.0, 0
        for t in range(num_steps):
            ret += rewards[t, e]
            length += 1
            if dones[t, e]:
                expected_returns.append(ret)
                expected_lengths.append(length)
                ret, length = 0.0, 0
    logged_returns = np.asarray(infos["returned_episode_returns"])[returned]
    logged_lengths = np.asarray(infos["returned_episode_lengths"])[returned]
    # order: scan is time-major, the recount env-major -> compare as sorted multisets
    assert len(logged_returns) == len(expected_returns) > 100
    np.testing.assert_allclose(sorted(logged_returns), sorted(expected_returns))
    np.testing.assert_array_equal(sorted(logged_lengths), sorted(expected_lengths))
    assert (np.asarray(infos["returned_episode_lengths"]) <= 30).all()
    np.testing.assert_array_equal(np.asarray(infos["timestep"])[:, 0], np.arange(1, num_steps + 1))


def test_counters_saturate_at_the_int32_limit_and_episodes_still_count_once():
    """A state injected 2 steps below 2**31 - 1: `timestep` stops there instead of wrapping
    negative; every 2-step episode is still reported once, on the step that ends it."""
    env, params = jaxenvs.make("Pendulum-v1", max_steps_in_episode=2)
    env = LogWrapper(env)
    _, state = env.reset(jax.random.key(0), params)
    state = state.replace(timestep=np.int32(TIMESTEP_MAX - 2), episode_lengths=np.int32(TIMESTEP_MAX - 1))

    def body(state, k):
        _, state, _, te, tr, info = env.step(k, state, np.zeros(1, np.float32), params)
        return state, (te | tr, info)

    _, (dones, infos) = jax.jit(lambda s: jax.lax.scan(body, s, jax.random.split(jax.random.key(1), 6)))(state)
    timestep = np.asarray(infos["timestep"])
    assert timestep.dtype == np.int32
    np.testing.assert_array_equal(timestep, [TIMESTEP_MAX - 1] + [TIMESTEP_MAX] * 5)
    np.testing.assert_array_equal(np.asarray(infos["returned_episode"]), np.asarray(dones))
    np.testing.assert_array_equal(np.asarray(dones), [False, True] * 3)
    # the injected episode ends at the limit (saturated, not negative); the next ones are 2 long
    np.testing.assert_array_equal(np.asarray(infos["returned_episode_lengths"])[1::2], [TIMESTEP_MAX, 2, 2])
