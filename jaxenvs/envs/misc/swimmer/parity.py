"""Swimmer against gymnax's (deterministic): transitions and whole first episodes; the reset
(KS per coordinate, everything in [-1, 1])."""

from jaxenvs.envs.misc import _parity as m

SPEC = m.suite(
    m.Gymnax(exact=("time",)),
    resets=m.continuous_resets(("urchin_xys", "xy", "goal_xy"), m.within(-1.0, 1.0)),
    whole_episodes=True,
)
