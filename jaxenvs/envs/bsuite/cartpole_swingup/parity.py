"""CartPoleSwingup against bsuite's: per step in float32 and float64, resets, random-policy
statistics; no whole episodes (`_parity.continuous`)."""

from jaxenvs.envs.bsuite import _parity as b

SPEC = b.continuous(b._ref_cartpole_swingup, longest=1002, whole_episodes=False)
