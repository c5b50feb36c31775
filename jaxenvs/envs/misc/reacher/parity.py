"""Reacher against gymnax's (deterministic): transitions and whole first episodes; the reset
(KS per coordinate: angles in [-pi, pi], velocities in [-1, 1], goal in [-2, 2]^2)."""

import numpy as np

from jaxenvs.envs.misc import _parity as m

# 2 joints: angles, angle velocities, goal
_RESET = m.within([-np.pi] * 2 + [-1.0] * 2 + [-2.0] * 2, [np.pi] * 2 + [1.0] * 2 + [2.0] * 2)

SPEC = m.suite(
    m.Gymnax(exact=("time",)),
    resets=m.continuous_resets(("angles", "angle_vels", "goal_xy"), _RESET),
    whole_episodes=True,
)
