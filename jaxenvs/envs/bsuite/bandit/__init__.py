"""bandit: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.bandit.env import (
    NUM_EPISODES,
    SimpleBandit,
    SimpleBanditParams,
    SimpleBanditState,
    arm_rewards,
    observation,
    sample_rewards,
)

__all__ = [
    "NUM_EPISODES",
    "SimpleBanditState",
    "SimpleBanditParams",
    "arm_rewards",
    "sample_rewards",
    "observation",
    "SimpleBandit",
]
