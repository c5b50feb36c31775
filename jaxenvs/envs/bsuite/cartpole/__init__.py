"""cartpole: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.bsuite.cartpole.env import (
    NUM_EPISODES,
    CartPole,
    CartPoleParams,
    CartPoleState,
    base_observation,
    is_rewarded,
    reset_state,
    step_cartpole,
)

__all__ = [
    "NUM_EPISODES",
    "CartPoleState",
    "CartPoleParams",
    "step_cartpole",
    "reset_state",
    "base_observation",
    "is_rewarded",
    "CartPole",
]
