import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.bsuite import umbrella_chain
from tests.envs.bsuite.bsuite_test_helpers import play


def _state(need, has=0):
    return umbrella_chain.UmbrellaChainState(
        time=jnp.int32(0), need_umbrella=jnp.int32(need), has_umbrella=jnp.int32(has)
    )


def test_only_the_first_action_decides_the_final_reward():
    env, params = jaxenvs.make("UmbrellaChain-bsuite", autoreset=False)
    take = play(env, params, [1] + [0] * 19, state=_state(need=1))
    assert take["terminated"] == [False] * 19 + [True]
    assert take["reward"][-1] == 1.0 and int(take["state"][-1].has_umbrella) == 1
    assert set(take["reward"][:-1]) <= {-1.0, 1.0}
    leave = play(env, params, [0] + [1] * 19, state=_state(need=1))
    assert leave["reward"][-1] == -1.0


def test_observation_layout():
    env, params = jaxenvs.make("UmbrellaChain-bsuite", autoreset=False)
    out = play(env, params, [1, 0], state=_state(need=0))
    obs = out["obs"][1]
    assert obs.shape == (1, 23) and obs.dtype == np.float32
    np.testing.assert_allclose(obs[0, :3], [0.0, 1.0, 0.9], rtol=1e-6)
    assert set(np.unique(obs[0, 3:]).tolist()) <= {0.0, 1.0}


def test_distract_and_length_settings():
    env, params = jaxenvs.make("bsuite/umbrella_distract/3", autoreset=False)
    assert params.chain_length == 20 and env.observation_space(params).shape == (1, 7)
    env, params = jaxenvs.make("bsuite/umbrella_length/0", autoreset=False)
    assert params.chain_length == 1 and env.observation_space(params).shape == (1, 23)
    assert play(env, params, [0], state=_state(need=0))["terminated"] == [True]


def test_a_start_state_draws_its_distractors_from_the_key():
    """No `observe` (fresh noise each step), yet a start state works: from the state `reset(key)`
    returns, `reset_to_level` with that key gives exactly `reset(key)`; another key, other bits."""
    import jax

    from jaxenvs.levels import Level

    env, params = jaxenvs.make("bsuite/umbrella_distract/5", autoreset=False)
    raw = env.unwrapped
    assert raw.n_distractor > 4
    obs, state = raw.reset(jax.random.key(3), params)
    again, start = raw.reset_to_level(jax.random.key(3), Level(state=state), params)
    assert np.array_equal(again, obs) and start == state
    other, _ = raw.reset_to_level(jax.random.key(4), Level(state=state), params)
    assert np.array_equal(other[0, :3], obs[0, :3]) and not np.array_equal(other[0, 3:], obs[0, 3:])
