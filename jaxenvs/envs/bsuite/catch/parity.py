"""Catch against bsuite's: the checks of `_suite_catch` in the family's parity code
(`jaxenvs.envs.bsuite._parity`), at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _suite_catch, spec

SPEC = spec(_suite_catch)
