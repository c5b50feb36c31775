"""Acrobot against gymnasium's: per step only (float32 within its own rounding, float64 to
1e-9), the time limit, resets, random-policy statistics. No whole episodes: the double
pendulum is chaotic, so float64 rounding differences (~1e-16 a step) grow until whole
trajectories part after a few hundred steps. The reference's `torque_noise_max` is 0."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.classic._parity import classic_checks, push_with_velocity, vector_reference

SPEC = p.ParitySpec(
    reference=vector_reference(
        ("theta1", "theta2", "dtheta1", "dtheta2"),
        # float32 after a reset (the reference casts its draw), float64 after a step
        stored_dtype=lambda time: np.float32 if time == 0 else np.float64,
        policy=push_with_velocity(3),  # toward the goal line often: with the second joint's speed
    ),
    checks=classic_checks(whole_episodes=False),
)
