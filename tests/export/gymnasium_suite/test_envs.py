"""gymnasium 1.3.0's env tests on the jaxenvs ids registered with gymnasium.

From gymnasium's repository at v1.3.0 (MIT; notice and license in this package's
__init__.py): `tests/envs/test_envs.py` (all four tests), `tests/envs/test_rendering.py`
(`check_rendered`, `test_render_modes`) and `tests/envs/test_action_dim_check.py`
(`test_discrete_actions_out_of_bound`, `test_box_actions_out_of_bound`). Changed: the env
lists (`all_testing_env_specs`, `all_testing_initialised_envs`, `DISCRETE_ENVS`, `BOX_ENVS`) are
the jaxenvs ids (`_utils.env_ids`), each env made inside its test rather than at import; the
modes `check_rendered` knows but no jaxenvs env has (ansi, depth, state pixels) are left out;
the ids whose reference does not clip skip `test_box_actions_out_of_bound` (see __init__.py).
"""

import pickle
import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.logger import warn
from gymnasium.utils.env_checker import check_env, data_equivalence

from jaxenvs import spaces as jaxenvs_spaces
from tests.export.gymnasium_suite._utils import env_ids

ALL_IDS = env_ids()
DISCRETE_IDS = env_ids(jaxenvs_spaces.Discrete)
BOX_IDS = env_ids(jaxenvs_spaces.Box)

# the ids whose reference gives no clipped action's observation for an out-of-range one
REFERENCE_DOES_NOT_CLIP = {
    "jaxenvs/PointRobot-misc": "gymnax's PointRobot clips the move but observes the action as given",
    "jaxenvs/Reacher-misc": "gymnax's Reacher applies an out-of-range torque as given",
    "jaxenvs/Swimmer-misc": "gymnax's Swimmer applies an out-of-range acceleration as given",
}

# --- tests/envs/test_envs.py ------------------------------------------------------------------

# This runs a smoketest on each official registered env. We may want
# to try also running environments which are not officially registered envs.
PASSIVE_CHECK_IGNORE_WARNING = [
    r"\x1b\[33mWARN: The environment (.*?) is out of date\. You should consider upgrading to version `v(\d)`\.\x1b\[0m",
]


CHECK_ENV_IGNORE_WARNINGS = [
    f"\x1b[33mWARN: {message}\x1b[0m"
    for message in [
        "A Box observation space minimum value is -infinity. This is probably too low.",
        "A Box observation space maximum value is infinity. This is probably too high.",
        "For Box action spaces, we recommend using a symmetric and normalized space (range=[-1, 1] or [0, 1]). See https://stable-baselines3.readthedocs.io/en/master/guide/rl_tips.html for more information.",  # noqa: E501
    ]
]


@pytest.mark.parametrize("spec_id", ALL_IDS)
def test_all_env_api(spec_id):
    """Check that all environments pass the environment checker with no warnings other than the expected."""
    spec = gym.spec(spec_id)
    with warnings.catch_warnings(record=True) as caught_warnings:
        env = spec.make().unwrapped

        check_env(env, skip_render_check=True)

        env.close()

    for warning in caught_warnings:
        if warning.message.args[0] not in CHECK_ENV_IGNORE_WARNINGS:
            raise gym.error.Error(f"Unexpected warning: {warning.message}")


@pytest.mark.parametrize("spec_id", ALL_IDS)
def test_all_env_passive_env_checker(spec_id):
    spec = gym.spec(spec_id)
    with warnings.catch_warnings(record=True) as caught_warnings:
        env = gym.make(spec.id)
        env.reset()
        env.step(env.action_space.sample())

        env.close()

    passive_check_pattern = re.compile("|".join(PASSIVE_CHECK_IGNORE_WARNING))

    for warning in caught_warnings:
        if not passive_check_pattern.search(str(warning.message)):
            raise ValueError(f"Unexpected warning: {warning.message}")


# Note that this precludes running this test in multiple threads.
# However, we probably already can't do multithreading due to some environments.
SEED = 0
NUM_STEPS = 50


@pytest.mark.parametrize("spec_id", ALL_IDS)
def test_env_determinism_rollout(spec_id):
    """Run a rollout with two environments and assert equality.

    This test run a rollout of NUM_STEPS steps with two environments
    initialized with the same seed and assert that:

    - observation after first reset are the same
    - same actions are sampled by the two envs
    - observations are contained in the observation space
    - obs, rew, done and info are equals between the two envs
    """
    env_spec = gym.spec(spec_id)
    # Don't check rollout equality if it's a nondeterministic environment.
    if env_spec.nondeterministic is True:
        pytest.skip(f"Skipping {env_spec.id} as it is non-deterministic")

    env_1 = env_spec.make(disable_env_checker=True)
    env_2 = env_spec.make(disable_env_checker=True)

    if env_1.metadata.get("jax", False):
        env_1 = gym.wrappers.JaxToNumpy(env_1)
        env_2 = gym.wrappers.JaxToNumpy(env_2)

    initial_obs_1, initial_info_1 = env_1.reset(seed=SEED)
    initial_obs_2, initial_info_2 = env_2.reset(seed=SEED)
    assert data_equivalence(initial_obs_1, initial_obs_2, exact=True)

    env_1.action_space.seed(SEED)

    for time_step in range(NUM_STEPS):
        # We don't evaluate the determinism of actions
        action = env_1.action_space.sample()

        obs_1, rew_1, terminated_1, truncated_1, info_1 = env_1.step(action)
        obs_2, rew_2, terminated_2, truncated_2, info_2 = env_2.step(action)

        assert data_equivalence(obs_1, obs_2, exact=True), f"[{time_step}] obs_1={obs_1}, obs_2={obs_2}"
        assert env_1.observation_space.contains(obs_1)  # obs_2 verified by previous assertion

        assert rew_1 == rew_2, f"[{time_step}] reward 1={rew_1}, reward 2={rew_2}"
        assert terminated_1 == terminated_2, f"[{time_step}] done 1={terminated_1}, done 2={terminated_2}"
        assert truncated_1 == truncated_2, f"[{time_step}] done 1={truncated_1}, done 2={truncated_2}"
        assert data_equivalence(info_1, info_2, exact=True), f"[{time_step}] info_1={info_1}, info_2={info_2}"

        if terminated_1 or truncated_1:  # terminated_2, truncated_2 verified by previous assertion
            env_1.reset(seed=SEED)
            env_2.reset(seed=SEED)

    env_1.close()
    env_2.close()


@pytest.mark.parametrize("spec_id", ALL_IDS)
def test_pickle_env(spec_id):
    # gymnasium's `all_testing_initialised_envs`: `spec.make(disable_env_checker=True).unwrapped`
    env = gym.spec(spec_id).make(disable_env_checker=True).unwrapped
    if env.metadata.get("jax", False):
        env = gym.wrappers.JaxToNumpy(env)

    action = env.action_space.sample()

    env_reset = env.reset(seed=123)
    env_step = env.step(action)

    pickled_env = pickle.loads(pickle.dumps(env))
    pickle_reset = pickled_env.reset(seed=123)
    pickle_step = pickled_env.step(action)

    assert data_equivalence(env_reset, pickle_reset)
    assert data_equivalence(env_step, pickle_step)

    env.close()
    pickled_env.close()


# --- tests/envs/test_rendering.py -------------------------------------------------------------


def check_rendered(rendered_frame, mode: str):
    """Check that the rendered frame is as expected."""
    if mode == "rgb_array_list":
        assert isinstance(rendered_frame, list)
        for frame in rendered_frame:
            check_rendered(frame, "rgb_array")
    elif mode == "rgb_array":
        assert isinstance(rendered_frame, np.ndarray)
        assert len(rendered_frame.shape) == 3
        assert rendered_frame.shape[2] == 3
        assert np.all(rendered_frame >= 0) and np.all(rendered_frame <= 255)
    else:
        warn(
            f"Unknown render mode: {mode}, cannot check that the rendered data is correct. Add case to `check_rendered`"
        )


@pytest.mark.parametrize("spec_id", ALL_IDS)
def test_render_modes(spec_id):
    spec = gym.spec(spec_id)
    env = spec.make()

    assert "rgb_array" in env.metadata["render_modes"]

    for mode in env.metadata["render_modes"]:
        if mode != "human":
            new_env = spec.make(render_mode=mode)

            try:
                new_env.reset()
                rendered = new_env.render()
                check_rendered(rendered, mode)

                new_env.step(new_env.action_space.sample())
                rendered = new_env.render()
                check_rendered(rendered, mode)
            except Exception as e:
                if "gladLoadGL error" in str(e):
                    pytest.skip("OpenGL not available")
                else:
                    raise
            finally:
                new_env.close()
    env.close()


# --- tests/envs/test_action_dim_check.py ------------------------------------------------------


@pytest.mark.parametrize("spec_id", DISCRETE_IDS)
def test_discrete_actions_out_of_bound(spec_id):
    """Test out of bound actions in Discrete action_space.

    In discrete action_space environments, `out-of-bound`
    actions are not allowed and should raise an exception.

    Args:
        spec_id: the gymnasium id of the environment
    """
    env = gym.spec(spec_id).make(disable_env_checker=True).unwrapped
    if env.metadata.get("jax", False):
        assert env.spec is not None
        pytest.skip(f"Skipping jax-based environment ({env.spec.id})")

    assert isinstance(env.action_space, spaces.Discrete)
    upper_bound = env.action_space.start + env.action_space.n - 1

    env.reset()
    with pytest.raises(Exception):  # noqa: B017
        env.step(upper_bound + 1)

    env.close()


OOB_VALUE = 100


@pytest.mark.parametrize("spec_id", BOX_IDS)
def test_box_actions_out_of_bound(spec_id):
    """Test out of bound actions in Box action_space.

    Environments with Box actions spaces perform clipping inside `step`.
    The expected behaviour is that an action `out-of-bound` has the same effect
    of an action with value exactly at the upper (or lower) bound.

    Args:
        spec_id: the gymnasium id of the environment
    """
    if spec_id in REFERENCE_DOES_NOT_CLIP:
        pytest.skip(f"cannot apply: {REFERENCE_DOES_NOT_CLIP[spec_id]} (tests/test_box_actions.py checks it)")
    env = gym.spec(spec_id).make(disable_env_checker=True).unwrapped
    if env.metadata.get("jax", False):
        assert env.spec is not None
        pytest.skip(f"Skipping jax-based environment ({env.spec.id})")

    env.reset(seed=42)

    assert env.spec is not None
    oob_env = gym.make(env.spec.id, disable_env_checker=True)
    oob_env.reset(seed=42)

    assert isinstance(env.action_space, spaces.Box)
    dtype = env.action_space.dtype
    upper_bounds = env.action_space.high
    lower_bounds = env.action_space.low

    for i, (is_upper_bound, is_lower_bound) in enumerate(
        zip(env.action_space.bounded_above, env.action_space.bounded_below, strict=True)
    ):
        if is_upper_bound:
            obs, _, _, _, _ = env.step(upper_bounds)
            oob_action = upper_bounds.copy()
            oob_action[i] += np.asarray(OOB_VALUE, dtype=dtype)

            assert oob_action[i] > upper_bounds[i]
            oob_obs, _, _, _, _ = oob_env.step(oob_action)

            assert np.all(obs == oob_obs)

        if is_lower_bound:
            obs, _, _, _, _ = env.step(lower_bounds)
            oob_action = lower_bounds.copy()
            oob_action[i] -= np.asarray(OOB_VALUE, dtype=dtype)

            assert oob_action[i] < lower_bounds[i]
            oob_obs, _, _, _, _ = oob_env.step(oob_action)

            assert np.all(obs == oob_obs)

    env.close()
