"""CartPole against gymnasium's: per step in float32 (within its own rounding) and float64
(to 1e-9), the time limit, whole episodes in float64, resets, random-policy statistics."""

from jaxenvs import parity as p
from jaxenvs.envs.classic._parity import classic_checks, vector_reference

SPEC = p.ParitySpec(
    reference=vector_reference(("x", "x_dot", "theta", "theta_dot")),
    checks=classic_checks(whole_episodes=True),
)
