"""cartpole_swingup: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.cartpole_swingup.env import NUM_EPISODES, CartPoleSwingup, CartPoleSwingupParams, is_upright

__all__ = ["NUM_EPISODES", "CartPoleSwingupParams", "is_upright", "CartPoleSwingup"]
