"""Acrobot against gymnasium's: per step only (float32 within its own rounding, float64 to
1e-9), the time limit, resets, random-policy statistics. No whole episodes: the double
pendulum is chaotic, so float64 rounding differences (~1e-16 a step) grow until whole
trajectories part after a few hundred steps. The reference's `torque_noise_max` is 0."""

import numpy as np

from jaxenvs.envs.classic._reference import classic_checks, vector_reference
from jaxenvs.parity import spec as p


def _pump(ref, rng: np.random.Generator):
    """Toward the goal line often: push with the second joint's speed, a quarter random."""
    if rng.random() < 0.25:
        return ref.env.action_space.sample()
    return 2 if ref.env.unwrapped.state[3] >= 0 else 0


SPEC = p.ParitySpec(
    reference=vector_reference(
        ("theta1", "theta2", "dtheta1", "dtheta2"),
        # float32 after a reset (the reference casts its draw), float64 after a step
        stored_dtype=lambda time: np.float32 if time == 0 else np.float64,
        policy=_pump,
    ),
    checks=classic_checks(whole_episodes=False),
)
