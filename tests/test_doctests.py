"""The `>>>` examples of the main entry points run and print what their docstrings say."""

import doctest
import importlib

import pytest

# the modules whose docstrings carry examples (tiny envs, a few steps each)
MODULES = [
    "jaxenvs.registry",
    "jaxenvs.rollout",
    "jaxenvs.environment",
    "jaxenvs.spaces",
    "jaxenvs.spaces.core",
    "jaxenvs.spaces.convert",
    "jaxenvs.wrappers.autoreset",
    "jaxenvs.wrappers.vector",
    "jaxenvs.wrappers.log",
    "jaxenvs.wrappers.normalize",
    "jaxenvs.wrappers.transform",
    "jaxenvs.wrappers.observation",
    "jaxenvs.wrappers.action",
    "jaxenvs.wrappers.frame_stack",
    "jaxenvs.wrappers.legacy",
    "jaxenvs.wrappers.defaults",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False)
    assert result.attempted > 0, f"{name} has no >>> example"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (output above)"
