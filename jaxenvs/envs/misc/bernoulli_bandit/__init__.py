"""bernoulli_bandit: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.bernoulli_bandit.env import BernoulliBandit, BernoulliBanditParams, BernoulliBanditState, pull

__all__ = ["BernoulliBanditState", "BernoulliBanditParams", "pull", "BernoulliBandit"]
