"""umbrella_chain: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.umbrella_chain.env import (
    NUM_EPISODES,
    UmbrellaChain,
    UmbrellaChainParams,
    UmbrellaChainState,
    observation,
)

__all__ = ["NUM_EPISODES", "UmbrellaChainState", "UmbrellaChainParams", "observation", "UmbrellaChain"]
