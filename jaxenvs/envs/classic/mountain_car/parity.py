"""MountainCar against gymnasium's: per step in float32 and float64, the time limit, whole
episodes in float64, resets, random-policy statistics. The per-step policy pumps energy into
the car (push with the velocity, a quarter random) to reach the goal and the left wall."""

import numpy as np

from jaxenvs.envs.classic._reference import classic_checks, vector_reference
from jaxenvs.parity import spec as p


def _pump(ref, rng: np.random.Generator):
    if rng.random() < 0.25:
        return ref.env.action_space.sample()
    return 2 if ref.env.unwrapped.state[1] >= 0 else 0


SPEC = p.ParitySpec(
    reference=vector_reference(("position", "velocity"), policy=_pump),
    checks=classic_checks(whole_episodes=True),
)
