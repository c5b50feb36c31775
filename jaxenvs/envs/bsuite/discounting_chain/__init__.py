"""discounting_chain: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.discounting_chain.env import (
    NUM_ACTIONS,
    NUM_EPISODES,
    REWARD_TIMESTEP,
    DiscountingChain,
    DiscountingChainParams,
    DiscountingChainState,
    chain_rewards,
    observation,
)

__all__ = [
    "NUM_EPISODES",
    "REWARD_TIMESTEP",
    "NUM_ACTIONS",
    "DiscountingChainState",
    "DiscountingChainParams",
    "chain_rewards",
    "observation",
    "DiscountingChain",
]
