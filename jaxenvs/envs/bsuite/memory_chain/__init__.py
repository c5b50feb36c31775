"""memory_chain: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.memory_chain.env import (
    NUM_EPISODES,
    MemoryChain,
    MemoryChainParams,
    MemoryChainState,
    draw_context,
    observation,
)

__all__ = ["NUM_EPISODES", "MemoryChainState", "MemoryChainParams", "observation", "draw_context", "MemoryChain"]
