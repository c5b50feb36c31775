"""deep_sea: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.deep_sea.env import (
    NUM_EPISODES,
    DeepSea,
    DeepSeaParams,
    DeepSeaState,
    action_mapping,
    is_right,
    observation,
    sample_action_mapping,
)

__all__ = [
    "NUM_EPISODES",
    "DeepSeaState",
    "DeepSeaParams",
    "action_mapping",
    "sample_action_mapping",
    "observation",
    "is_right",
    "DeepSea",
]
