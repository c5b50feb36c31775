"""MountainCarContinuous against gymnasium's: per step in float32 and float64, the time limit,
whole episodes in float64, resets, random-policy statistics. Both sides get the very same
float32 actions; the per-step policy pushes with the velocity, at times beyond |a| = 1 (the
clipped force and the unclipped-action reward)."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.classic._parity import classic_checks, vector_reference


def _pump(ref, rng: np.random.Generator):
    direction = 1.0 if ref.env.unwrapped.state[1] >= 0 else -1.0
    return np.array([direction * rng.uniform(0.0, 1.5)], dtype=np.float32)


SPEC = p.ParitySpec(
    reference=vector_reference(
        ("position", "velocity"),
        # float64 after a reset, float32 after every step
        stored_dtype=lambda time: np.float64 if time == 0 else np.float32,
        policy=_pump,
    ),
    checks=classic_checks(whole_episodes=True),
)
