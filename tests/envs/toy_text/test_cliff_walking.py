import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.toy_text import cliff_walking
from jaxenvs.envs.toy_text.cliff_walking import DOWN, GOAL, LEFT, RIGHT, START, UP, CliffWalkingState
from tests.envs.toy_text.conftest import keyed_steps


def _state(s, time=0):
    return CliffWalkingState(time=jnp.int32(time), s=jnp.int32(s))


def test_ids_spaces_and_no_time_limit():
    env, params = jaxenvs.make("CliffWalking-v1")
    assert not params.is_slippery
    assert env.observation_space(params) == jaxenvs.spaces.Discrete(48)
    assert env.action_space(params) == jaxenvs.spaces.Discrete(4)
    _, slippery = jaxenvs.make("CliffWalkingSlippery-v1")
    assert slippery.is_slippery
    # gymnasium registers both without a time limit
    assert params.max_steps_in_episode == slippery.max_steps_in_episode == 2**31 - 1
    obs, state = env.reset(jax.random.key(0), params)
    assert int(obs) == START == 36


@pytest.fixture(scope="module")
def step():
    env, params = jaxenvs.make("CliffWalking-v1", autoreset=False)
    return lambda s, a: jax.jit(env.step)(jax.random.key(0), _state(s), a, params)


def test_cliff_sends_back_to_start_with_minus_100(step):
    # gymnasium 1.3: the cliff costs -100 and returns to the start; the episode goes on
    for s, a in [(START, RIGHT), (2 * 12 + 5, DOWN), (2 * 12 + 10, DOWN)]:
        obs, state, reward, terminated, truncated, _ = step(s, a)
        assert int(obs) == START and float(reward) == -100.0
        assert not bool(terminated) and not bool(truncated)


def test_goal_ends_with_minus_one(step):
    obs, _, reward, terminated, _, _ = step(2 * 12 + 11, DOWN)
    assert int(obs) == GOAL and float(reward) == -1.0 and bool(terminated)


def test_steps_cost_one_and_edges_clamp(step):
    cases = [(START, UP, 24), (START, LEFT, START), (START, DOWN, START), (0, UP, 0), (11, RIGHT, 11)]
    for s, a, expected in cases:
        obs, _, reward, terminated, _, info = step(s, a)
        assert int(obs) == expected and float(reward) == -1.0 and not bool(terminated), (s, a)
        assert float(info["prob"]) == 1.0


def test_tables_match_the_rules():
    t = cliff_walking.cliff_tables()
    cliff = set(range(37, 47))
    assert t["next_cell"].shape == (48, 4)
    assert not np.isin(t["next_cell"], list(cliff)).any()  # nobody stands on the cliff
    fell = t["reward"] == -100.0
    assert np.all(t["next_cell"][fell] == START) and not t["terminated"][fell].any()
    assert set(np.argwhere(t["terminated"])[:, 0]) == {35, 46, 47}  # above, left of, and on the goal


def test_slippery_moves_one_third_each():
    env, params = jaxenvs.make("CliffWalkingSlippery-v1", autoreset=False)
    obs, _, _, _, _, info = keyed_steps(env, params, n=3000, seed=3)(_state(13), UP)  # from (1, 1)
    obs = np.asarray(obs)
    # UP slips to LEFT (12) or RIGHT (14), never DOWN (25)
    assert set(np.unique(obs)) == {1, 12, 14}
    for cell in (1, 12, 14):
        assert abs(np.mean(obs == cell) - 1 / 3) < 0.035
    np.testing.assert_allclose(np.asarray(info["prob"]), 1 / 3, rtol=1e-6)


def test_render_shows_the_player():
    env, params = jaxenvs.make("CliffWalking-v1", autoreset=False)
    a = np.asarray(jax.jit(env.render)(_state(START), params))
    b = np.asarray(jax.jit(env.render)(_state(0), params))
    assert a.shape == (128, 384, 3) and not np.array_equal(a, b)
    assert tuple(a[3 * 32 + 16, 16]) == cliff_walking.PLAYER
