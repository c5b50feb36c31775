"""MNISTBandit against bsuite's: the checks of `_suite_mnist` in the family's parity code
(`jaxenvs.envs.bsuite._parity`): on a synthetic data set unless the env under test has its own,
at `Sizes.at(scale)`."""

from jaxenvs.envs.bsuite._parity import _suite_mnist, spec

SPEC = spec(_suite_mnist, builds_env=True)  # the built-in env downloads MNIST
