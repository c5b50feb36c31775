import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.toy_text import frozen_lake
from jaxenvs.envs.toy_text.frozen_lake import DOWN, LEFT, RIGHT, UP, FrozenLakeState
from jaxenvs.envs.toy_text.frozen_lake.env import _goal_reachable
from tests.envs.toy_text.conftest import keyed_steps


def _state(s, time=0):
    return FrozenLakeState(time=jnp.int32(time), s=jnp.int32(s))


def test_ids_spaces_and_time_limits():
    env, params = jaxenvs.make("FrozenLake-v1")
    assert params.max_steps_in_episode == 100 and params.is_slippery
    assert params.desc == frozen_lake.MAPS["4x4"]
    assert env.observation_space(params) == jaxenvs.spaces.Discrete(16)
    assert env.action_space(params) == jaxenvs.spaces.Discrete(4)
    env, params = jaxenvs.make("FrozenLake8x8-v1")
    assert params.max_steps_in_episode == 200 and params.desc == frozen_lake.MAPS["8x8"]
    assert env.observation_space(params) == jaxenvs.spaces.Discrete(64)


@pytest.fixture(scope="module")
def dry():
    env, params = jaxenvs.make("FrozenLake-v1", autoreset=False, is_slippery=False)
    return env, params, jax.jit(env.step)


def test_goal_gives_one_and_ends(dry):
    env, params, step = dry
    obs, state, reward, terminated, truncated, info = step(jax.random.key(0), _state(14), RIGHT, params)
    assert int(obs) == 15 and float(reward) == 1.0 and bool(terminated) and not bool(truncated)
    assert float(info["prob"]) == 1.0 and int(state.time) == 1


def test_hole_ends_with_zero(dry):
    env, params, step = dry
    obs, _, reward, terminated, _, _ = step(jax.random.key(0), _state(4), RIGHT, params)  # (1, 1) is a hole
    assert int(obs) == 5 and float(reward) == 0.0 and bool(terminated)
    # a hole absorbs: every action stays, reward 0, still terminated (gymnasium's table)
    for a in range(4):
        obs, _, reward, terminated, _, _ = step(jax.random.key(a), _state(5), a, params)
        assert int(obs) == 5 and float(reward) == 0.0 and bool(terminated)


def test_walls_clamp_and_ice_gives_zero(dry):
    env, params, step = dry
    for s, a, expected in [(0, LEFT, 0), (0, UP, 0), (0, DOWN, 4), (0, RIGHT, 1), (3, RIGHT, 3), (13, DOWN, 13)]:
        obs, _, reward, terminated, _, _ = step(jax.random.key(0), _state(s), a, params)
        assert int(obs) == expected and float(reward) == 0.0 and not bool(terminated), (s, a)


def test_time_limit_truncates(dry):
    env, params, step = dry
    _, state, _, terminated, truncated, _ = step(jax.random.key(0), _state(0, time=99), DOWN, params)
    assert int(state.time) == 100 and bool(truncated) and not bool(terminated)


def test_slippery_moves_follow_success_rate():
    env, params = jaxenvs.make("FrozenLake-v1", autoreset=False, success_rate=0.6)
    obs, _, _, _, _, info = keyed_steps(env, params, n=4000, seed=1)(_state(9), DOWN)  # from (2, 1)
    obs = np.asarray(obs)
    # DOWN slips to RIGHT (10) or LEFT (8) with 0.2 each; never UP
    assert set(np.unique(obs)) == {8, 10, 13}
    freq = {c: np.mean(obs == c) for c in (8, 10, 13)}
    assert abs(freq[13] - 0.6) < 0.03 and abs(freq[8] - 0.2) < 0.03 and abs(freq[10] - 0.2) < 0.03
    probs = np.asarray(info["prob"])
    np.testing.assert_allclose(probs[obs == 13], 0.6, rtol=1e-6)
    np.testing.assert_allclose(probs[obs != 13], 0.2, rtol=1e-6)


def test_success_rate_one_is_deterministic():
    env, params = jaxenvs.make("FrozenLake-v1", autoreset=False, success_rate=1.0)
    keys = jax.random.split(jax.random.key(2), 200)
    obs = jax.vmap(lambda k: env.step(k, _state(0), RIGHT, params)[0])(keys)
    assert np.all(np.asarray(obs) == 1)


def test_custom_map_and_reward_schedule():
    desc = ["SFH", "FFF", "HFG"]  # a list is accepted and kept as a tuple
    env, params = jaxenvs.make(
        "FrozenLake-v1",
        autoreset=False,
        is_slippery=False,
        desc=desc,
        reward_schedule=(5.0, -2.0, -0.5),
        max_steps_in_episode=10,
    )
    assert params.desc == tuple(desc)
    assert env.observation_space(params) == jaxenvs.spaces.Discrete(9)
    step = jax.jit(env.step)
    cases = [(1, RIGHT, 2, -2.0, True), (0, RIGHT, 1, -0.5, False), (5, DOWN, 8, 5.0, True), (1, LEFT, 0, -0.5, False)]
    for s, a, cell, reward, term in cases:
        obs, _, r, te, _, _ = step(jax.random.key(0), _state(s), a, params)
        assert (int(obs), float(r), bool(te)) == (cell, reward, term), (s, a)
    img = jax.jit(env.render)(_state(4), params)
    assert img.shape[:2] == (3 * 64, 3 * 64)


def test_bad_maps_raise():
    with pytest.raises(ValueError, match="equal length"):
        frozen_lake.FrozenLakeParams(desc=("SF", "FFG"))
    with pytest.raises(ValueError, match="start"):
        frozen_lake.FrozenLakeParams(desc=("FF", "FG"))
    with pytest.raises(ValueError, match="only S, F, H, G"):
        frozen_lake.FrozenLakeParams(desc=("SX", "FG"))


def test_several_starts_are_drawn_uniformly():
    env, params = jaxenvs.make("FrozenLake-v1", autoreset=False, desc=("SFFS", "FHFH", "FFFH", "HFFG"))
    obs, _ = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), 2000), params)
    obs = np.asarray(obs)
    assert set(np.unique(obs)) == {0, 3} and abs(np.mean(obs == 3) - 0.5) < 0.05


def test_generate_random_map_is_valid_and_seeded():
    for seed in range(5):
        desc = frozen_lake.generate_random_map(6, p=0.6, seed=seed)
        assert len(desc) == 6 and desc[0][0] == "S" and desc[-1][-1] == "G"
        assert _goal_reachable(np.array([list(r) for r in desc]))
        assert desc == frozen_lake.generate_random_map(6, p=0.6, seed=seed)
    # no path: the goal walled off by holes
    assert not _goal_reachable(np.array([list(r) for r in ("SFF", "FHH", "FHG")]))


def test_generate_random_map_matches_gymnasium():
    gym_fl = pytest.importorskip("gymnasium.envs.toy_text.frozen_lake")
    for seed in range(4):
        assert frozen_lake.generate_random_map(8, seed=seed) == tuple(gym_fl.generate_random_map(8, seed=seed))


def test_render_shows_the_player():
    env, params = jaxenvs.make("FrozenLake-v1", autoreset=False)
    render = jax.jit(env.render)
    a, b = np.asarray(render(_state(0), params)), np.asarray(render(_state(10), params))
    assert a.shape == (256, 256, 3) and a.dtype == np.uint8
    assert not np.array_equal(a, b)
    assert tuple(a[32, 32]) == frozen_lake.PLAYER and tuple(b[32, 32]) != frozen_lake.PLAYER
