"""Pendulum against gymnasium's: per step in float32 and float64, the time limit, whole
episodes in float64, resets, random-policy statistics. The per-step policy reaches the
clipped torque and speed (torques beyond the limit half the time)."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.classic._parity import classic_checks, vector_reference


def _pump(ref, rng: np.random.Generator):
    if rng.random() < 0.5:
        return np.array([rng.uniform(-3.0, 3.0)], dtype=np.float32)
    return np.array([2.5 if ref.env.unwrapped.state[1] >= 0 else -2.5], dtype=np.float32)


SPEC = p.ParitySpec(
    reference=vector_reference(("theta", "theta_dot"), policy=_pump),
    checks=classic_checks(whole_episodes=True),
)
