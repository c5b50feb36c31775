"""The ids the vendored gymnasium tests run over, and gymnasium's test helpers (from
tests/vector/testing_utils.py and tests/envs/utils.py of gymnasium 1.3.0, MIT: see __init__.py).

A worker of gymnasium's `AsyncVectorEnv` imports this module (its env makers are pickled by
reference): it imports nothing of the tests but this.
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Callable

import gymnasium as gym
import numpy as np

# gymnasium's ids in its vector tests, as jaxenvs ids
CARTPOLE = "jaxenvs/CartPole-v1"
FROZENLAKE = "jaxenvs/FrozenLake-v1"


def builtin_ids() -> list[tuple[str, str]]:
    """`(family, gymnasium id)` of every built-in jaxenvs id registered with gymnasium, bsuite's
    sweeps one id per experiment (the rest are the same envs with other settings), Box2D's
    sampled (`tests.conftest.BOX2D_SAMPLE`)."""
    import jaxenvs
    from jaxenvs.export.gymnasium import gymnasium_id
    from tests.conftest import compiled_per_id  # at collection only (workers never call this)

    ids, experiments = [], set()
    for env_id in jaxenvs.registered_envs():
        spec = jaxenvs.spec(env_id)
        if not str(spec.entry_point).startswith("jaxenvs.envs."):
            continue  # an adapter's id: its library's env
        if not compiled_per_id(env_id):
            continue  # the Box2D sample (tests/conftest.py)
        if env_id.startswith("bsuite/"):
            if spec.env_kwargs["experiment"] in experiments:
                continue
            experiments.add(spec.env_kwargs["experiment"])
        if gymnasium_id(env_id) in gym.registry:
            ids.append((spec.family, gymnasium_id(env_id)))
    return ids


@functools.cache
def _action_space_type(gym_id: str) -> type:
    """The class of the id's jaxenvs action space (MNIST's ids built on a small generated data
    set: at collection no test's data is there yet)."""
    import jaxenvs
    from jaxenvs.envs.bsuite import mnist_data

    with tempfile.TemporaryDirectory() as data:
        rng = np.random.default_rng(0)
        mnist_data.write_idx(os.path.join(data, mnist_data.IMAGES), rng.integers(0, 256, (2, 28, 28), dtype=np.uint8))
        mnist_data.write_idx(os.path.join(data, mnist_data.LABELS), np.arange(2, dtype=np.uint8))
        before = os.environ.get(mnist_data.ENV_VAR)
        os.environ[mnist_data.ENV_VAR] = data
        try:
            env, params = jaxenvs.make(gym.spec(gym_id).kwargs["env_id"], autoreset=False)
        finally:
            if before is None:
                del os.environ[mnist_data.ENV_VAR]
            else:
                os.environ[mnist_data.ENV_VAR] = before
    return type(env.action_space(params))


def env_ids(action_space: type | None = None) -> list:
    """The ids a test runs over: the first of each family by default, the others `slow`.

    Args:
        action_space: Only the ids with an action space of this jaxenvs class (gymnasium's
            tests filter their env list so; converted, the class is gymnasium's of that name).

    Returns:
        pytest params, one per id.
    """
    import pytest

    params, represented = [], set()
    for family, gym_id in builtin_ids():
        if action_space is not None and _action_space_type(gym_id) is not action_space:
            continue
        marks = [pytest.mark.slow] if family in represented else []
        represented.add(family)
        params.append(pytest.param(gym_id, marks=marks, id=gym_id))
    return params


def make_env(env_name: str, seed: int, **kwargs) -> Callable[[], gym.Env]:
    """Creates an environment (gymnasium's `tests/vector/testing_utils.make_env`)."""

    def _make():
        env = gym.make(env_name, disable_env_checker=True, **kwargs)
        env.action_space.seed(seed)
        env.reset(seed=seed)
        return env

    return _make


def assert_rng_equal(rng_1: np.random.Generator, rng_2: np.random.Generator):
    """Tests whether two random number generators are equal."""
    assert rng_1.bit_generator.state == rng_2.bit_generator.state
