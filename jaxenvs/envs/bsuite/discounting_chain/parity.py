"""DiscountingChain against bsuite's: the chain rewards of every mapping_seed bsuite's sweeps use,
per step, random-policy statistics."""

import numpy as np

from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.envs.bsuite.discounting_chain import chain_rewards
from jaxenvs.parity import spec as p
from jaxenvs.parity.checks import Check, error_check


def _chain_rewards(ctx: p.Context) -> list[Check]:
    chain, seeds = b._bsuite_env("discounting_chain", "DiscountingChain"), range(20)
    mine, theirs = [chain_rewards(s) for s in seeds], [chain(mapping_seed=s)._rewards for s in seeds]
    return [error_check("chain rewards (mapping_seed 0..19)", np.stack(mine), np.stack(theirs), 1e-7)]


SPEC = b.spec(b._ref_discounting_chain, _chain_rewards, b.STEP, longest=100)
