"""mnist: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.mnist.env import (
    NUM_CLASSES,
    NUM_EPISODES,
    MNISTBandit,
    MNISTBanditParams,
    MNISTBanditState,
    pixels,
)

__all__ = ["NUM_EPISODES", "NUM_CLASSES", "MNISTBanditState", "MNISTBanditParams", "pixels", "MNISTBandit"]
