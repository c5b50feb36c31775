import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import deep_sea
from tests.envs.bsuite.bsuite_test_helpers import play


def _policy(params, go_right: bool):
    """The actions of always going right (or always left) along the diagonal."""
    mapping = np.asarray(params.action_mapping)
    right = [int(mapping[i, i]) for i in range(mapping.shape[0])]
    return right if go_right else [1 - a for a in [int(mapping[i, 0]) for i in range(mapping.shape[0])]]


def test_mapping_is_bsuites_and_in_params():
    bsuite_deep_sea = pytest.importorskip("bsuite.environments.deep_sea")
    env, params = jaxenvs.make("DeepSea-bsuite", autoreset=False)
    np.testing.assert_array_equal(
        np.asarray(params.action_mapping), bsuite_deep_sea.DeepSea(size=10, mapping_seed=42)._action_mapping
    )
    np.testing.assert_array_equal(deep_sea.action_mapping(4, None, randomize_actions=False), np.ones((4, 4)))


def test_always_right_earns_one_minus_cost_and_left_earns_nothing():
    env, params = jaxenvs.make("DeepSea-bsuite", autoreset=False)
    right = play(env, params, _policy(params, go_right=True))
    assert right["terminated"] == [False] * 9 + [True]
    assert sum(right["reward"]) == pytest.approx(0.99, abs=1e-6)
    assert not bool(right["state"][-1].bad_episode)
    left = play(env, params, _policy(params, go_right=False))
    assert sum(left["reward"]) == 0.0 and left["terminated"][-1]
    assert bool(left["state"][-1].bad_episode)  # left the diagonal at the first step


def test_observation_is_one_hot_then_empty_at_the_end():
    env, params = jaxenvs.make("DeepSea-bsuite", autoreset=False)
    obs, _ = env.reset(jax.random.key(0), params)
    assert obs.shape == (10, 10) and obs.dtype == jnp.float32 and float(obs[0, 0]) == 1.0 and float(obs.sum()) == 1
    out = play(env, params, _policy(params, go_right=True))
    assert float(out["obs"][3][4, 4]) == 1.0
    assert float(out["obs"][-1].sum()) == 0.0


def test_stochastic_right_sometimes_fails():
    env, params = jaxenvs.make("DeepSeaStochastic-bsuite", autoreset=False)
    assert not params.deterministic
    state = deep_sea.DeepSeaState(
        time=jnp.int32(2), row=jnp.int32(2), column=jnp.int32(2), bad_episode=jnp.asarray(False)
    )
    right = int(params.action_mapping[2, 2])
    keys = jax.random.split(jax.random.key(0), 4000)
    nxt = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))(keys, state, right, params)[1]
    stayed = float(np.mean(np.asarray(nxt.column) == 2))
    assert abs(stayed - 0.1) < 0.02  # 1 / size
    assert set(np.asarray(nxt.column).tolist()) == {2, 3}


def test_action_mapping_vmaps_over_params():
    env, params = jaxenvs.make("DeepSea-bsuite", autoreset=False)
    keys = jax.random.split(jax.random.key(1), 6)
    mappings = jax.vmap(lambda k: deep_sea.sample_action_mapping(k, 10))(keys)
    batch = jax.vmap(lambda m: params.replace(action_mapping=m))(mappings)
    _, states = jax.vmap(env.reset)(keys, batch)
    nxt = jax.jit(jax.vmap(env.step, in_axes=(0, 0, None, 0)))(keys, states, 1, batch)[1]
    np.testing.assert_array_equal(np.asarray(nxt.column), np.asarray(mappings[:, 0, 0]))
