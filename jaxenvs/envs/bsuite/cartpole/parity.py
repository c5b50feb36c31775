"""CartPole against bsuite's: per step in float32 (within its own rounding) and float64, whole
episodes in float64, resets, random-policy statistics (`_parity.continuous`)."""

from jaxenvs.envs.bsuite import _parity as b

SPEC = b.continuous(b._ref_cartpole, longest=1002)
