"""UmbrellaChain against bsuite's: the checks of `_suite_umbrella_chain` in the family's parity
code (`jaxenvs.envs.bsuite._parity`), at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _suite_umbrella_chain, spec

SPEC = spec(_suite_umbrella_chain)
