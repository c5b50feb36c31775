"""CartPole against bsuite's: the checks of `_suite_continuous` in the family's parity code
(`jaxenvs.envs.bsuite._parity`): per step in float32 (within its own rounding) and float64,
whole episodes in float64, resets, random-policy statistics, at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _ref_cartpole, _suite_continuous, spec

SPEC = spec(_suite_continuous(_ref_cartpole, longest=1002, whole_episodes=True))
