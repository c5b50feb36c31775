"""DiscountingChain against bsuite's: the chain rewards of every mapping_seed bsuite's sweeps use,
per step, random-policy statistics."""

from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.envs.bsuite.discounting_chain import chain_rewards

SPEC = b.spec(
    b._ref_discounting_chain,
    b.rewards_by_mapping_seed("chain rewards", "discounting_chain", "DiscountingChain", chain_rewards),
    b.STEP,
    longest=100,
)
