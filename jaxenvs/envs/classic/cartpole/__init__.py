"""cartpole: the env (`env.py`), its drawing (`render.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.classic.cartpole.env import CartPole, CartPoleParams, CartPoleState, dynamics, get_obs, is_terminal

__all__ = ["CartPoleState", "CartPoleParams", "dynamics", "is_terminal", "get_obs", "CartPole"]
