"""MountainCar against gymnasium's: per step in float32 and float64, the time limit, whole
episodes in float64, resets, random-policy statistics. The per-step policy pumps energy into
the car (push with the velocity, a quarter random) to reach the goal and the left wall."""

from jaxenvs import parity as p
from jaxenvs.envs.classic._parity import classic_checks, push_with_velocity, vector_reference

SPEC = p.ParitySpec(
    reference=vector_reference(("position", "velocity"), policy=push_with_velocity(1)),
    checks=classic_checks(whole_episodes=True),
)
