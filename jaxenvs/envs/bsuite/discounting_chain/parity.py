"""DiscountingChain against bsuite's: the checks of `_suite_discounting_chain` in the family's
parity code (`jaxenvs.envs.bsuite._parity`), at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _suite_discounting_chain, spec

SPEC = spec(_suite_discounting_chain)
