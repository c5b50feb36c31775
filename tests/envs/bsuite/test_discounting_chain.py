import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import discounting_chain
from tests.envs.bsuite.bsuite_test_helpers import play


@pytest.mark.parametrize("chain", range(5))
def test_chain_pays_once_at_its_time(chain):
    env, params = jaxenvs.make("DiscountingChain-bsuite", autoreset=False)
    out = play(env, params, [chain] + [0] * 99)
    paid = [t + 1 for t, r in enumerate(out["reward"]) if r != 0]
    assert paid == [discounting_chain.REWARD_TIMESTEP[chain]]
    bonus = 0 % 5  # mapping_seed 0
    assert out["reward"][paid[0] - 1] == pytest.approx(1.1 if chain == bonus else 1.0)
    assert out["terminated"] == [False] * 99 + [True]
    assert float(out["obs"][5][0, 0]) == chain and float(out["obs"][49][0, 1]) == pytest.approx(0.5)


def test_reset_observation_and_bonus_from_mapping_seed():
    env, params = jaxenvs.make("DiscountingChain-bsuite", autoreset=False)
    obs, _ = env.reset(jax.random.key(0), params)
    assert obs.shape == (1, 2) and obs.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(obs), [[-1.0, 0.0]])
    np.testing.assert_allclose(discounting_chain.chain_rewards(7), [1, 1, 1.1, 1, 1])
    assert params.bsuite_num_episodes == 1_000
