"""MountainCar against bsuite's: the checks of `_suite_continuous` in the family's parity code
(`jaxenvs.envs.bsuite._parity`): per step in float32 and float64, the steps that end an episode,
whole episodes in float64, resets, random-policy statistics, at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _ref_mountain_car, _suite_continuous, spec

SPEC = spec(_suite_continuous(_ref_mountain_car, longest=1000, whole_episodes=True))
