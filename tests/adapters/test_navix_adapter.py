"""navix adapter (check_env: tests/test_conformance.py): the library's time limit as a truncation, the observation-space
correction, make_vec, PPO."""

import jax
import numpy as np
import pytest

navix = pytest.importorskip("navix")

import jaxenvs  # noqa: E402

from .conftest import check_vec_autoreset, ppo_few_updates, step_flags, vec_rollout  # noqa: E402

ENV_ID = "navix/Navix-Empty-5x5-v0"


def test_symbolic_space_correction_is_still_needed():
    """navix declares symbolic observations in [0, 8]; when its own reset fits that, drop the fix."""
    env = navix.make("Navix-Empty-5x5-v0")
    obs = np.asarray(env.reset(jax.random.PRNGKey(0)).observation)
    assert obs.max() > int(env.observation_space.maximum)
    raw, params = jaxenvs.make(ENV_ID, autoreset=False)
    assert bool(raw.observation_space(params).contains(raw.reset(jax.random.key(0), params)[0]))


def test_library_time_limit_is_a_truncation_and_make_vec_resets():
    raw = jaxenvs.adapters.navix.NavixEnv("Navix-Empty-5x5-v0", max_steps=4)
    flags, _ = step_flags(raw, raw.default_params, 0, 4)  # 0: rotate
    assert flags == [(False, False)] * 3 + [(False, True)]
    assert check_vec_autoreset(vec_rollout(ENV_ID, max_steps_in_episode=5)).any(axis=0).all()


@pytest.mark.slow
def test_ppo_trains():
    ppo_few_updates(ENV_ID)
