import jax
import numpy as np
import pytest
from jax.sharding import Mesh

import jaxenvs


def test_sharded_rollout_equals_unsharded():
    if jax.device_count() < 4:
        pytest.skip("needs XLA_FLAGS=--xla_force_host_platform_device_count=4 (tests/conftest.py)")
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    key = jax.random.key(3)
    plain = jaxenvs.rollout(env, params, None, key, num_envs=64, num_steps=50)
    mesh = Mesh(np.array(jax.devices()[:4]), ("envs",))
    sharded = jaxenvs.rollout(env, params, None, key, num_envs=64, num_steps=50, mesh=mesh)
    assert len(sharded["obs"].sharding.device_set) == 4
    np.testing.assert_array_equal(sharded["reward"], plain["reward"])
    np.testing.assert_array_equal(sharded["terminated"], plain["terminated"])
    np.testing.assert_array_equal(sharded["obs"], plain["obs"])
    assert plain["terminated"].any()  # episodes ended and were reset within the run


def test_rollout_with_policy_and_bad_mesh():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    out = jaxenvs.rollout(env, params, lambda k, obs: (obs[:, 2] > 0).astype("int32"), jax.random.key(0), 8, 100)
    # a pole-angle policy balances far longer than random actions
    assert out["terminated"].sum() < 8 * 100 / 22
    if jax.device_count() >= 4:
        mesh = Mesh(np.array(jax.devices()[:4]), ("envs",))
        with pytest.raises(ValueError, match="divide evenly"):
            jaxenvs.rollout(env, params, None, jax.random.key(0), 6, 10, mesh=mesh)
