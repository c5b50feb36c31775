"""CartPoleSwingup against bsuite's: the checks of `_suite_continuous` in the family's parity code
(`jaxenvs.envs.bsuite._parity`): per step in float32 and float64, resets, random-policy
statistics; no whole episodes, at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _ref_cartpole_swingup, _suite_continuous, spec

SPEC = spec(_suite_continuous(_ref_cartpole_swingup, longest=1002, whole_episodes=False))
