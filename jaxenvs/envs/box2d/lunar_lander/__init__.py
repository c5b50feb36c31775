"""LunarLander and LunarLanderContinuous (gymnasium's `LunarLander-v3`): `env.LunarLander`."""

from jaxenvs.envs.box2d.lunar_lander.env import LunarLander, LunarLanderParams, LunarLanderState

__all__ = ["LunarLander", "LunarLanderParams", "LunarLanderState"]
