"""xminigrid adapter (check_env: tests/test_conformance.py): the library's time limit as a truncation, make_vec, PPO."""

import pytest

pytest.importorskip("xminigrid")

import jaxenvs  # noqa: E402

from .conftest import check_vec_autoreset, ppo_few_updates, step_flags, vec_rollout  # noqa: E402

ENV_ID = "xminigrid/MiniGrid-Empty-5x5"


@pytest.mark.slow  # xminigrid's vmapped step compiles in ~45 s here
def test_library_time_limit_is_a_truncation_and_make_vec_resets():
    raw, params = jaxenvs.make(ENV_ID, autoreset=False)
    params = params.replace(env_params=params.env_params.replace(max_steps=4))
    flags, _ = step_flags(raw, params, 0, 4)  # 0: turn
    assert flags == [(False, False)] * 3 + [(False, True)]
    assert check_vec_autoreset(vec_rollout(ENV_ID, max_steps_in_episode=5)).any(axis=0).all()


@pytest.mark.slow
def test_ppo_trains():
    ppo_few_updates(ENV_ID)
