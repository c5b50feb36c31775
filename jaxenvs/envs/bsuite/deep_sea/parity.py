"""DeepSea and DeepSeaStochastic against bsuite's: the checks of `_suite_deep_sea` in the family's
parity code (`jaxenvs.envs.bsuite._parity`), at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _suite_deep_sea, spec

SPEC = spec(_suite_deep_sea)
