"""gaussian_bandit: the env (`env.py`) and its parity spec (`parity.py`)."""

from jaxenvs.envs.misc.gaussian_bandit.env import GaussianBandit, GaussianBanditParams, GaussianBanditState, pull

__all__ = ["GaussianBanditState", "GaussianBanditParams", "pull", "GaussianBandit"]
