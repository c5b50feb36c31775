"""BipedalWalker (gymnasium's `BipedalWalker-v3`): `env.BipedalWalker`, on its terrain
(`terrain.generate_terrain`, which also generates the hardcore course, not registered yet: its
obstacles are polygons the physics step does not collide with)."""

from jaxenvs.envs.box2d.bipedal_walker.env import BipedalWalker, BipedalWalkerParams, BipedalWalkerState

__all__ = ["BipedalWalker", "BipedalWalkerParams", "BipedalWalkerState"]
