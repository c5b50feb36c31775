"""gymnasium 1.3.0's vector tests that step a real env, on the jaxenvs ids.

From gymnasium's repository at v1.3.0 (MIT; notice and license in this package's
__init__.py): of `tests/vector/test_vector_env.py` `test_vector_env_equal`,
`test_random_seeding_basics`, `test_random_seeds_set_at_retrieval`, `test_partial_reset`,
`test_partial_reset_failure`, `test_action_count_compatibility`; of
`test_async_vector_env.py` and `test_sync_vector_env.py` the tests on CartPole and FrozenLake;
`test_autoreset_mode.py`'s `test_make_vec_autoreset`; `test_vector_wrapper.py`'s
`test_vector_env_wrapper_inheritance` and `test_vector_env_metadata`. Changed:

- gymnasium's ids are the jaxenvs ids (`_utils.CARTPOLE`, `_utils.FROZENLAKE`);
- every `AsyncVectorEnv` gets `context=async_context` (forkserver: see conftest.py; gymnasium's
  default, fork, is refused by the exports), also through `make_vec`'s `vector_kwargs`;
- where a test takes a vectoriser, the jaxenvs vector env (`JaxVectorEnv`, through
  `gymnasium.make_vec`) is one more; gymnasium's vectorisers check a reset mask with `assert`,
  ours raise `TypeError` or `ValueError`, so `test_partial_reset_failure` expects those for it;
- `test_sync_vector_determinism` runs over the jaxenvs ids (`_utils.env_ids`);
- the fast form (`make test`'s default) runs one `AsyncVectorEnv` test (`test_vector_env_equal`
  with shared memory, NEXT_STEP); its other variants and the second value of
  `use_single_action_space` run under `slow`; gymnasium's other async tests (about 230 workers,
  five minutes here) under `slow` with JAXENVS_TEST_GYMNASIUM_ASYNC=1.
"""

from __future__ import annotations

import os
import re
from functools import partial

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import VectorizeMode
from gymnasium.error import AlreadyPendingCallError, ClosedEnvironmentError, NoAsyncCallError
from gymnasium.spaces import Box, Discrete, MultiDiscrete
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorWrapper
from gymnasium.vector.vector_env import AutoresetMode

from tests.export.gymnasium_suite._utils import CARTPOLE, FROZENLAKE, assert_rng_equal, env_ids, make_env

slow = pytest.mark.slow
# gymnasium's other AsyncVectorEnv tests start 4 to 8 workers each, about 230 in all: some five
# minutes on 2 cores (each worker starts JAX and loads its compiled steps), more than `make test`
# affords; JAXENVS_TEST_GYMNASIUM_ASYNC=1 runs them (every one passed when they were vendored)
every_async = pytest.mark.skipif(
    os.environ.get("JAXENVS_TEST_GYMNASIUM_ASYNC") != "1",
    reason="one of gymnasium's many AsyncVectorEnv tests: JAXENVS_TEST_GYMNASIUM_ASYNC=1 runs them",
)
HEAVY = [slow, every_async]
SHARED_MEMORY = [True, pytest.param(False, marks=slow)]


def JaxVector(env_fns, **kwargs):
    """The jaxenvs vector env as a vectoriser: `gymnasium.make_vec` of the id the env makers make
    (every test that takes a vectoriser builds CartPole)."""
    return gym.make_vec(CARTPOLE, len(list(env_fns)), **kwargs)


def vectorisers(async_context):
    return {
        "Sync": SyncVectorEnv,
        "Async(shared_memory=True)": partial(AsyncVectorEnv, context=async_context),
        "Async(shared_memory=False)": partial(AsyncVectorEnv, shared_memory=False, context=async_context),
        "JaxVectorEnv": JaxVector,
    }


VECTORISERS = [
    "Sync",
    pytest.param("Async(shared_memory=True)", marks=HEAVY),
    pytest.param("Async(shared_memory=False)", marks=HEAVY),
    "JaxVectorEnv",
]


# --- tests/vector/test_vector_env.py ---------------------------------------------------------


@pytest.mark.parametrize("shared_memory", SHARED_MEMORY)
@pytest.mark.parametrize("autoreset_mode", [AutoresetMode.NEXT_STEP, pytest.param(AutoresetMode.SAME_STEP, marks=slow)])
def test_vector_env_equal(shared_memory, autoreset_mode, async_context):
    """Test that vector environment are equal for both async and sync variants."""
    env_fns = [make_env(CARTPOLE, i) for i in range(4)]
    num_steps = 100

    async_env = AsyncVectorEnv(
        env_fns, shared_memory=shared_memory, autoreset_mode=autoreset_mode, context=async_context
    )
    sync_env = SyncVectorEnv(env_fns, autoreset_mode=autoreset_mode)

    assert async_env.num_envs == sync_env.num_envs
    assert async_env.observation_space == sync_env.observation_space
    assert async_env.single_observation_space == sync_env.single_observation_space
    assert async_env.action_space == sync_env.action_space
    assert async_env.single_action_space == sync_env.single_action_space

    async_observations, async_infos = async_env.reset(seed=0)
    sync_observations, sync_infos = sync_env.reset(seed=0)
    assert np.all(async_observations == sync_observations)
    assert data_equivalence(async_infos, sync_infos)

    for _ in range(num_steps):
        actions = async_env.action_space.sample()
        assert actions in sync_env.action_space

        (
            async_observations,
            async_rewards,
            async_terminations,
            async_truncations,
            async_infos,
        ) = async_env.step(actions)
        (
            sync_observations,
            sync_rewards,
            sync_terminations,
            sync_truncations,
            sync_infos,
        ) = sync_env.step(actions)

        assert np.all(async_observations == sync_observations)
        assert np.all(async_rewards == sync_rewards)
        assert np.all(async_terminations == sync_terminations)
        assert np.all(async_truncations == sync_truncations)
        assert data_equivalence(async_infos, sync_infos)

    async_env.close()
    sync_env.close()


@pytest.fixture
def example_env_list():
    """Example vector environment."""
    return [make_env(CARTPOLE, i) for i in range(4)]


GYM_VECTORISERS = VECTORISERS[:3]  # the seeding tests read each sub-env's generator


@pytest.mark.parametrize("venv_constructor", GYM_VECTORISERS)
def test_random_seeding_basics(venv_constructor, example_env_list, async_context):
    venv_constructor = vectorisers(async_context)[venv_constructor]
    seed = 42
    vector_env = venv_constructor(example_env_list)
    vector_env.reset(seed=seed)
    assert vector_env.np_random_seed == tuple(seed + i for i in range(vector_env.num_envs))
    # resetting with seed=None means seed remains the same
    vector_env.reset(seed=None)
    assert vector_env.np_random_seed == tuple(seed + i for i in range(vector_env.num_envs))
    vector_env.close()


@pytest.mark.parametrize("venv_constructor", GYM_VECTORISERS)
def test_random_seeds_set_at_retrieval(venv_constructor, example_env_list, async_context):
    venv_constructor = vectorisers(async_context)[venv_constructor]
    vector_env = venv_constructor(example_env_list)
    assert len(set(vector_env.np_random_seed)) == vector_env.num_envs
    # default seed starts at zero. Adjust or remove this test if the default seed changes
    assert vector_env.np_random_seed == tuple(range(vector_env.num_envs))
    vector_env.close()


@pytest.mark.parametrize("vectoriser", VECTORISERS)
def test_partial_reset(vectoriser, async_context):
    vectoriser = vectorisers(async_context)[vectoriser]
    envs = vectoriser(
        [lambda: gym.make(CARTPOLE) for _ in range(3)],
        autoreset_mode=AutoresetMode.DISABLED,
    )
    reset_obs, _ = envs.reset(seed=[0, 1, 2])

    envs.action_space.seed(123)
    envs.step(envs.action_space.sample())
    envs.step(envs.action_space.sample())
    step_obs, *_ = envs.step(envs.action_space.sample())

    reset_mask_obs, _ = envs.reset(seed=[0, 1, 0], options={"reset_mask": np.array([True, True, False])})
    assert np.all(reset_mask_obs[:2] == reset_obs[:2])
    assert np.all(reset_mask_obs[2] == step_obs[2])

    envs.close()


@pytest.mark.parametrize("vectoriser", VECTORISERS)
def test_partial_reset_failure(vectoriser, async_context):
    ours = vectoriser == "JaxVectorEnv"
    vectoriser = vectorisers(async_context)[vectoriser]
    envs = vectoriser(
        [lambda: gym.make(CARTPOLE) for _ in range(3)],
        autoreset_mode=AutoresetMode.DISABLED,
    )

    def raises(error, message, gymnasiums):
        # gymnasium's vectorisers assert; the jaxenvs vector env raises `error`, naming what it expects
        if ours:
            return pytest.raises(error, match=re.escape(message))
        return pytest.raises(AssertionError, match=re.escape(gymnasiums))

    expected = "options['reset_mask'] must be a numpy bool array of shape (3,)"

    # Test first reset using a mask
    # with pytest.raises(AssertionError):
    #     envs.reset(options={"reset_mask": np.array([True, True, False])})

    # Reset with all trues
    envs.reset(options={"reset_mask": np.array([True, True, True])})

    # Reset with mask of an incorrect shape
    with raises(
        ValueError, f"{expected}, got shape (1,)", "`options['reset_mask': mask]` must have shape `(3,)`, got (1,)"
    ):
        envs.reset(options={"reset_mask": np.array([True])})
    with raises(
        ValueError, f"{expected}, got shape (4,)", "options['reset_mask': mask]` must have shape `(3,)`, got (4,)"
    ):
        envs.reset(options={"reset_mask": np.array([True, True, False, False])})
    with raises(
        ValueError, f"{expected}, got shape (1, 3)", "`options['reset_mask': mask]` must have shape `(3,)`, got (1, 3)"
    ):
        envs.reset(options={"reset_mask": np.array([[True, True, True]])})
    with raises(
        ValueError,
        "options['reset_mask'] must have at least one True",
        "`options['reset_mask': mask]` must contain a boolean array, got reset_mask=[False False False]",
    ):
        envs.reset(options={"reset_mask": np.array([False, False, False])})
    with raises(
        TypeError, f"{expected}, got dtype int64", "`options['reset_mask': mask]` must have `dtype=np.bool_`, got int64"
    ):
        envs.reset(options={"reset_mask": np.array([1, 1, 0])})
    with raises(
        TypeError,
        f"{expected}, got dtype float64",
        "`options['reset_mask': mask]` must have `dtype=np.bool_`, got float64",
    ):
        envs.reset(options={"reset_mask": np.array([1.0, 1.0, 0.0])})
    envs.close()


@pytest.mark.parametrize("vectoriser", VECTORISERS)
def test_action_count_compatibility(vectoriser, async_context):
    """Test that the number of actions is compatible with the number of environments."""
    vectoriser = vectorisers(async_context)[vectoriser]
    num_envs = 4
    envs = vectoriser(
        [lambda: gym.make(CARTPOLE) for _ in range(num_envs)],
        autoreset_mode=AutoresetMode.DISABLED,
    )

    # Reset the environment
    envs.reset()

    # Test correct number of actions (should work)
    correct_actions = envs.action_space.sample()
    assert len(correct_actions) == num_envs

    # Test with actions that match the number of environments
    obs, rewards, terminations, truncations, infos = envs.step(correct_actions)
    assert len(obs) == num_envs
    assert len(rewards) == num_envs
    assert len(terminations) == num_envs
    assert len(truncations) == num_envs

    # Test with too few actions (should raise error)
    with pytest.raises(ValueError):
        envs.step(correct_actions[: num_envs - 1])

    # Test with too many actions (should raise error)
    with pytest.raises(ValueError):
        envs.step(np.concatenate([correct_actions, correct_actions[:1]]))
    envs.close()


# --- tests/vector/test_async_vector_env.py ---------------------------------------------------


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_create_async_vector_env(shared_memory, async_context):
    """Test creating an async vector environment with or without shared memory."""
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]

    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
    assert env.num_envs == 8
    env.close()


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_reset_async_vector_env(shared_memory, async_context):
    """Test the reset of async vector environment with or without shared memory."""
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]

    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
    observations, infos = env.reset()

    env.close()

    assert isinstance(env.observation_space, Box)
    assert isinstance(observations, np.ndarray)
    assert observations.dtype == env.observation_space.dtype
    assert observations.shape == (8,) + env.single_observation_space.shape
    assert observations.shape == env.observation_space.shape

    try:
        env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
        observations, infos = env.reset()
    finally:
        env.close()

    assert isinstance(env.observation_space, Box)
    assert isinstance(observations, np.ndarray)
    assert observations.dtype == env.observation_space.dtype
    assert observations.shape == (8,) + env.single_observation_space.shape
    assert observations.shape == env.observation_space.shape
    assert isinstance(infos, dict)
    assert all([isinstance(info, dict) for info in infos])


@slow
@every_async
def test_render_async_vector(async_context):
    envs = AsyncVectorEnv([make_env(CARTPOLE, i, render_mode="rgb_array") for i in range(3)], context=async_context)
    assert envs.render_mode == "rgb_array"

    envs.reset()
    rendered_frames = envs.render()
    assert isinstance(rendered_frames, tuple)
    assert len(rendered_frames) == envs.num_envs
    assert all(isinstance(frame, np.ndarray) for frame in rendered_frames)
    envs.close()

    envs = AsyncVectorEnv([make_env(CARTPOLE, i) for i in range(3)], context=async_context)
    assert envs.render_mode is None
    envs.close()


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
@pytest.mark.parametrize("use_single_action_space", [True, False])
def test_step_async_vector_env(shared_memory, use_single_action_space, async_context):
    """Test the step async vector environment with and without shared memory."""
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]

    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
    env.reset()

    assert isinstance(env.single_action_space, Discrete)
    assert isinstance(env.action_space, MultiDiscrete)

    if use_single_action_space:
        actions = [env.single_action_space.sample() for _ in range(8)]
    else:
        actions = env.action_space.sample()
    observations, rewards, terminations, truncations, _ = env.step(actions)

    env.close()

    assert isinstance(env.observation_space, Box)
    assert isinstance(observations, np.ndarray)
    assert observations.dtype == env.observation_space.dtype
    assert observations.shape == (8,) + env.single_observation_space.shape
    assert observations.shape == env.observation_space.shape

    assert isinstance(rewards, np.ndarray)
    assert isinstance(rewards[0], (float, np.floating))
    assert rewards.ndim == 1
    assert rewards.size == 8

    assert isinstance(terminations, np.ndarray)
    assert terminations.dtype == np.bool_
    assert terminations.ndim == 1
    assert terminations.size == 8

    assert isinstance(truncations, np.ndarray)
    assert truncations.dtype == np.bool_
    assert truncations.ndim == 1
    assert truncations.size == 8


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_copy_async_vector_env(shared_memory, async_context):
    """Test observations are a copy of the true observation with and without shared memory."""
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]

    # TODO, these tests do nothing, understand the purpose of the tests and fix them
    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, copy=True, context=async_context)
    observations, infos = env.reset()
    observations[0] = 0

    env.close()


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_no_copy_async_vector_env(shared_memory, async_context):
    """Test observation are not a copy of the true observation with and without shared memory."""
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]

    # TODO, these tests do nothing, understand the purpose of the tests and fix them
    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, copy=False, context=async_context)
    observations, infos = env.reset()
    observations[0] = 0

    env.close()


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_reset_out_of_order_async_vector_env(shared_memory, async_context):
    """Test reset being called out of order with and without shared memory."""
    env_fns = [make_env(CARTPOLE, i) for i in range(4)]

    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
    with pytest.raises(
        NoAsyncCallError,
        match=re.escape("Calling `reset_wait` without any prior call to `reset_async`."),
    ):
        env.reset_wait()

    env.close(terminate=True)

    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
    with pytest.raises(
        AlreadyPendingCallError,
        match=re.escape("Calling `reset_async` while waiting for a pending call to `step` to complete"),
    ):
        actions = env.action_space.sample()
        env.reset()
        env.step_async(actions)
        env.reset_async()

    with pytest.warns(
        UserWarning,
        match=re.escape("Calling `close` while waiting for a pending call to `step` to complete."),
    ):
        env.close(terminate=True)


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_step_out_of_order_async_vector_env(shared_memory, async_context):
    """Test step out of order with and without shared memory."""
    env_fns = [make_env(CARTPOLE, i) for i in range(4)]

    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
    with pytest.raises(
        NoAsyncCallError,
        match=re.escape("Calling `step_wait` without any prior call to `step_async`."),
    ):
        env.action_space.sample()
        env.reset()
        env.step_wait()

    env.close(terminate=True)

    env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
    with pytest.raises(
        AlreadyPendingCallError,
        match=re.escape("Calling `step_async` while waiting for a pending call to `reset` to complete"),
    ):
        actions = env.action_space.sample()
        env.reset_async()
        env.step_async(actions)

    with pytest.warns(
        UserWarning,
        match=re.escape("Calling `close` while waiting for a pending call to `reset` to complete."),
    ):
        env.close(terminate=True)


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_already_closed_async_vector_env(shared_memory, async_context):
    """Test the error if a function is called if environment is already closed."""
    env_fns = [make_env(CARTPOLE, i) for i in range(4)]
    with pytest.raises(ClosedEnvironmentError):
        env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
        env.close()
        env.reset()


@slow
@every_async
@pytest.mark.parametrize("shared_memory", [True, False])
def test_check_spaces_async_vector_env(shared_memory, async_context):
    """Test check spaces for async vector environment with and without shared memory."""
    # CartPole-v1 - observation_space: Box(4,), action_space: Discrete(2)
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]
    # FrozenLake-v1 - Discrete(16), action_space: Discrete(4)
    env_fns[1] = make_env(FROZENLAKE, 1)
    with pytest.raises(RuntimeError):
        env = AsyncVectorEnv(env_fns, shared_memory=shared_memory, context=async_context)
        env.close(terminate=True)


# --- tests/vector/test_sync_vector_env.py ----------------------------------------------------


def test_create_sync_vector_env():
    """Tests creating the sync vector environment."""
    env_fns = [make_env(FROZENLAKE, i) for i in range(8)]
    env = SyncVectorEnv(env_fns)
    env.close()

    assert env.num_envs == 8


def test_reset_sync_vector_env():
    """Tests sync vector `reset` function."""
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]
    env = SyncVectorEnv(env_fns)
    observations, infos = env.reset()
    env.close()

    assert isinstance(env.observation_space, Box)
    assert isinstance(observations, np.ndarray)
    assert observations.dtype == env.observation_space.dtype
    assert observations.shape == (8,) + env.single_observation_space.shape
    assert observations.shape == env.observation_space.shape

    del observations


@pytest.mark.parametrize("use_single_action_space", [True, pytest.param(False, marks=slow)])
def test_step_sync_vector_env(use_single_action_space):
    """Test sync vector `steps` function."""
    env = SyncVectorEnv([make_env(FROZENLAKE, i) for i in range(8)])
    env.reset()

    assert isinstance(env.single_action_space, Discrete)
    assert isinstance(env.action_space, MultiDiscrete)

    if use_single_action_space:
        actions = [env.single_action_space.sample() for _ in range(8)]
    else:
        actions = env.action_space.sample()
    observations, rewards, terminations, truncations, _ = env.step(actions)

    env.close()

    assert isinstance(env.observation_space, MultiDiscrete)
    assert isinstance(observations, np.ndarray)
    assert observations.dtype == env.observation_space.dtype
    assert observations.shape == (8,) + env.single_observation_space.shape
    assert observations.shape == env.observation_space.shape

    assert isinstance(rewards, np.ndarray)
    assert isinstance(rewards[0], (float, np.floating))
    assert rewards.ndim == 1
    assert rewards.size == 8

    assert isinstance(terminations, np.ndarray)
    assert terminations.dtype == np.bool_
    assert terminations.ndim == 1
    assert terminations.size == 8

    assert isinstance(truncations, np.ndarray)
    assert truncations.dtype == np.bool_
    assert truncations.ndim == 1
    assert truncations.size == 8


def test_render_sync_vector():
    envs = SyncVectorEnv([make_env(CARTPOLE, i, render_mode="rgb_array") for i in range(3)])
    assert envs.render_mode == "rgb_array"

    envs.reset()
    rendered_frames = envs.render()
    assert isinstance(rendered_frames, tuple)
    assert len(rendered_frames) == envs.num_envs
    assert all(isinstance(frame, np.ndarray) for frame in rendered_frames)

    envs = SyncVectorEnv([make_env(CARTPOLE, i) for i in range(3)])
    assert envs.render_mode is None


def test_check_spaces_sync_vector_env():
    """Tests the sync vector `check_spaces` function."""
    # CartPole-v1 - observation_space: Box(4,), action_space: Discrete(2)
    env_fns = [make_env(CARTPOLE, i) for i in range(8)]
    # FrozenLake-v1 - Discrete(16), action_space: Discrete(4)
    env_fns[1] = make_env(FROZENLAKE, 1)
    with pytest.raises(
        AssertionError,
        match=re.escape(
            "SyncVectorEnv(..., observation_mode='same') however the sub-environments observation spaces are not equivalent."  # noqa: E501
        ),
    ):
        env = SyncVectorEnv(env_fns)
        env.close()


@pytest.mark.parametrize("spec_id", env_ids())
def test_sync_vector_determinism(spec_id: str, seed: int = 123, n: int = 3):
    """Check that for all environments, the sync vector envs produce the same action samples using the same seeds."""
    env_1 = SyncVectorEnv([make_env(spec_id, seed=seed) for _ in range(n)])
    env_2 = SyncVectorEnv([make_env(spec_id, seed=seed) for _ in range(n)])
    assert_rng_equal(env_1.action_space.np_random, env_2.action_space.np_random)

    for _ in range(100):
        env_1_samples = env_1.action_space.sample()
        env_2_samples = env_2.action_space.sample()
        assert np.all(env_1_samples == env_2_samples)

    env_1.close()
    env_2.close()


# --- tests/vector/test_autoreset_mode.py -----------------------------------------------------


@pytest.mark.parametrize("vectorization_mode", [VectorizeMode.SYNC, pytest.param(VectorizeMode.ASYNC, marks=HEAVY)])
@pytest.mark.parametrize(
    "autoreset_mode",
    [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED, AutoresetMode.SAME_STEP],
)
def test_make_vec_autoreset(vectorization_mode, autoreset_mode, async_context):
    context = {"context": async_context} if vectorization_mode == VectorizeMode.ASYNC else {}
    envs = gym.make_vec(
        CARTPOLE,
        vectorization_mode=vectorization_mode,
        vector_kwargs={"autoreset_mode": autoreset_mode, **context},
    )
    envs.metadata["autoreset_mode"] = autoreset_mode
    envs.close()

    envs = gym.make_vec(
        CARTPOLE,
        vectorization_mode=vectorization_mode,
        vector_kwargs={"autoreset_mode": autoreset_mode.value, **context},
    )
    envs.metadata["autoreset_mode"] = autoreset_mode
    envs.close()


# --- tests/vector/test_vector_wrapper.py -----------------------------------------------------


class DummyVectorWrapper(VectorWrapper):
    """Dummy Vector wrapper that contains a counter function to logging the number of times that reset is called."""

    def __init__(self, env):
        """Initialises the wrapper with the environment creating a counter variable."""
        super().__init__(env)

        self.counter = 0

    def reset(self, *, seed=None, options=None):
        """Updates the ``counter`` each time at ``reset`` is called."""
        self.counter += 1

        return super().reset(seed=seed, options=options)


def test_vector_env_wrapper_inheritance():
    """Test vector environment wrapper inheritance."""
    env = gym.make_vec(FROZENLAKE, vectorization_mode="sync")
    wrapped = DummyVectorWrapper(env)
    wrapped.reset()
    assert wrapped.counter == 1

    env.close()


def test_vector_env_metadata():
    """Test if `metadata` property for VectorWrapper correctly forwards to the vector env it is wrapping."""
    env = gym.make_vec(CARTPOLE, num_envs=3, vectorization_mode="sync")
    wrapped = DummyVectorWrapper(gym.make_vec(CARTPOLE, num_envs=3, vectorization_mode="sync"))

    assert env.metadata == wrapped.metadata
    env.metadata = {"render_modes": ["rgb_array"]}
    assert env.metadata != wrapped.metadata

    env.close()
