"""Fixtures of the vendored gymnasium tests: MNIST's data, and the start method of
`AsyncVectorEnv`'s workers."""

from __future__ import annotations

import multiprocessing
import os

import pytest

pytest.importorskip("gymnasium")

# the workers' start method: forkserver forks each worker from one server process that imported
# jaxenvs but never started JAX (safe, and about a second a worker); "spawn" starts an interpreter
# per worker (safe too, 5-10 s a worker here). gymnasium's default, fork, is refused by the exports.
CONTEXT = os.environ.get("JAXENVS_GYMNASIUM_SUITE_CONTEXT", "forkserver")


@pytest.fixture(autouse=True)
def _mnist_data(request):
    """MNIST's ids read a small generated data set (tests/conftest.py's `mnist_data_dir`)."""
    if "mnist" in request.node.name.lower():
        request.getfixturevalue("mnist_data_dir")


@pytest.fixture(scope="session")
def async_context() -> str:
    """The `context=` of every `AsyncVectorEnv` here: the forkserver starts once, with jaxenvs
    imported and this session's JAX compilation cache and XLA flags in its environment."""
    if CONTEXT == "forkserver":
        from multiprocessing import forkserver

        import jax

        multiprocessing.get_context("forkserver").set_forkserver_preload(
            ["jaxenvs.export.gymnasium", "tests.export.gymnasium_suite._utils"]
        )
        cache = jax.config.jax_compilation_cache_dir
        names = ("JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS")
        saved = {name: os.environ.get(name) for name in names}
        if cache:
            os.environ.update(dict(zip(names, (cache, str(jax.config.jax_persistent_cache_min_compile_time_secs)))))
        try:
            forkserver.ensure_running()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return CONTEXT
