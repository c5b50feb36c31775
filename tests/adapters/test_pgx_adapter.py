"""pgx adapter: conformance on a sample of games, the reward modes on tic-tac-toe, masks,
termination vs truncation, fresh resets and the key reaching every pgx step."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("pgx")

import jaxenvs  # noqa: E402
from jaxenvs.adapters.pgx import NO_LIMIT, PgxEnv  # noqa: E402
from jaxenvs.testing import check_env  # noqa: E402
from jaxenvs.wrappers import AutoReset  # noqa: E402

from .conftest import step_flags  # noqa: E402

# tic-tac-toe cells, row-major: 0 1 2 / 3 4 5 / 6 7 8


def first_legal(key, observation, legal_action_mask):
    """A deterministic opponent: the lowest legal cell."""
    return jnp.argmax(legal_action_mask).astype(jnp.int32)


def test_conformance_raw_and_opponent_mode():
    raw, params = jaxenvs.make("pgx/tic_tac_toe", autoreset=False)
    check_env(raw, params)
    env, params = jaxenvs.make("pgx/tic_tac_toe", reward_mode="opponent")
    check_env(env, params)


def test_spaces_and_limits():
    env, params = jaxenvs.make("pgx/tic_tac_toe", autoreset=False)
    assert env.action_space(params).n == 9
    space = env.observation_space(params)
    assert space.shape == (3, 3, 2) and space.dtype == jnp.bool_
    assert params.max_steps_in_episode == NO_LIMIT and params.reward_mode == "actor"
    assert jaxenvs.make("pgx/minatar-breakout")[1].max_steps_in_episode == 1000
    with pytest.raises(ValueError, match="reward_mode='nobody' is not valid; valid values: one of 'actor', 'all'"):
        params.replace(reward_mode="nobody")


def _play(env, params, actions, key=0):
    """Play `actions` with the raw env from a reset; returns the reset and each step's outputs."""
    step = jax.jit(env.step)
    obs, state = env.reset(jax.random.key(key), params)
    outs = []
    for i, a in enumerate(actions):
        obs, state, reward, terminated, truncated, info = step(jax.random.key(100 + i), state, a, params)
        outs.append((obs, state, reward, terminated, truncated, info))
    return state, outs


def test_win_terminates_and_actor_mode_rewards_the_mover():
    env, params = jaxenvs.make("pgx/tic_tac_toe", autoreset=False)
    # the first mover takes the top row (0, 1, 2) while the other plays 3, 4
    _, outs = _play(env, params, [0, 3, 1, 4, 2])
    for _, _, reward, terminated, _, _ in outs[:-1]:
        assert float(reward) == 0.0 and not bool(terminated)
    _, state, reward, terminated, truncated, info = outs[-1]
    assert bool(terminated) and not bool(truncated)
    assert float(reward) == 1.0  # the winner made the last move
    rewards = np.asarray(info["rewards"])
    assert sorted(rewards.tolist()) == [-1.0, 1.0]


def test_all_mode_returns_the_vector():
    env, params = jaxenvs.make("pgx/tic_tac_toe", autoreset=False, reward_mode="all")
    _, outs = _play(env, params, [0, 3, 1, 4, 2])
    _, state, reward, terminated, _, info = outs[-1]
    assert reward.shape == (2,) and reward.dtype == jnp.float32
    np.testing.assert_array_equal(reward, info["rewards"])
    first_mover = int(outs[-2][1].pgx_state.current_player)  # to move 5th: who moved 1st
    assert float(reward[1 - first_mover]) == -1.0 and float(reward[first_mover]) == 1.0


def _opponent_env(agent_first):
    env = PgxEnv("tic_tac_toe", opponent=first_legal)
    params = env.default_params.replace(reward_mode="opponent")
    # pgx shuffles the seats: find a key where the agent (player 0) moves first, or second
    for k in range(50):
        obs, state = env.reset(jax.random.key(k), params)
        if bool(np.asarray(obs).any()) != agent_first:
            return env, params, k
    raise AssertionError("no such key")


@pytest.mark.parametrize("agent_first", [True, False])
def test_opponent_mode(agent_first):
    env, params, key = _opponent_env(agent_first)
    obs, state = env.reset(jax.random.key(key), params)
    if not agent_first:
        # the opponent's opening move (cell 0) is already made, seen as the opponent's mark
        assert bool(obs[0, 0, 1]) and int(np.asarray(obs).sum()) == 1
    step = jax.jit(env.step)
    # the agent plays 8, 7, 6 (bottom row); the opponent fills 0, 1, 2 (top row)
    rewards = []
    for i, a in enumerate([8, 7, 6]):
        obs, state, reward, terminated, truncated, info = step(jax.random.key(i), state, a, params)
        rewards.append(float(reward))
        if bool(terminated):
            break
        # the agent sees only its own turns, from its own view: its marks in plane 0
        assert int(info["current_player"]) == params.agent_player
        assert bool(obs[2, 2, 0]) and not bool(obs[2, 2, 1])
    assert bool(terminated)
    if agent_first:
        assert rewards == [0.0, 0.0, 1.0]  # bottom row completed by the agent
    else:
        assert rewards == [0.0, -1.0]  # the opponent completes the top row after the agent's 7
        assert bool(obs[0, 2, 1])  # and the final board is from the agent's view


def test_random_opponent_only_plays_legal_moves(rollout, check_rollout):
    env, params = jaxenvs.make("pgx/tic_tac_toe", reward_mode="opponent")

    def legal_policy(key, obs, state):
        mask = env.action_mask(state.env_state, params)
        return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)

    outs = rollout(env, params, num_envs=8, num_steps=30, policy=legal_policy)
    done = check_rollout(outs)
    _, reward, terminated, _, info = outs
    assert done.sum() >= 8
    # a game ends in a win (+1), a loss (-1) or a draw (0); no reward before the end
    assert set(np.unique(np.asarray(reward)[done])).issubset({-1.0, 0.0, 1.0})
    assert (np.asarray(reward)[~done] == 0).all()
    # between episodes, it is always the agent's turn
    assert (np.asarray(info["current_player"])[~done] == params.agent_player).all()


def test_action_mask_in_info_and_from_state():
    env, params = jaxenvs.make("pgx/tic_tac_toe")  # auto-resetting
    obs, state = env.reset(jax.random.key(0), params)
    assert np.asarray(env.action_mask(state, params)).all()
    obs, state, *_, info = jax.jit(env.step)(jax.random.key(1), state, 4, params)
    mask = np.asarray(info["action_mask"])
    assert mask.dtype == bool and mask.shape == (9,) and not mask[4] and mask.sum() == 8
    np.testing.assert_array_equal(mask, env.action_mask(state, params))


def test_illegal_move_ends_the_game_with_a_penalty():
    env, params = jaxenvs.make("pgx/tic_tac_toe", autoreset=False)
    _, outs = _play(env, params, [4, 4])
    _, _, reward, terminated, truncated, info = outs[-1]
    assert bool(terminated) and not bool(truncated) and float(reward) == -1.0


def test_time_limit_truncates_minatar():
    env, params = jaxenvs.make("pgx/minatar-freeway", max_steps_in_episode=5)
    flags, (_, state, _, _, _, info) = step_flags(env, params, 0, 5)
    assert flags == [(False, False)] * 4 + [(False, True)]
    assert float(info["discount"]) == 1.0 and int(state.time) == 0  # reset after the truncation


def test_fresh_resets_and_a_key_for_every_step():
    raw = PgxEnv("2048")
    params = raw.default_params
    obs_a, state = raw.reset(jax.random.key(0), params)
    obs_b, _ = raw.reset(jax.random.key(1), params)
    assert not np.array_equal(np.asarray(obs_a), np.asarray(obs_b))
    # from one state and action, the new tile lands where the step key says
    legal = int(np.argmax(np.asarray(raw.action_mask(state))))
    step = jax.jit(raw.step)
    boards = {np.asarray(step(jax.random.key(k), state, legal, params)[0]).tobytes() for k in range(8)}
    assert len(boards) > 1
    # under AutoReset each episode starts from its own random board (a 1-step limit: a new
    # episode at every step)
    env = AutoReset(raw)
    params = params.replace(max_steps_in_episode=1)
    step = jax.jit(env.step)
    starts = [np.asarray(obs_a)]
    for k in range(6):
        obs, state, _, terminated, truncated, _ = step(jax.random.key(10 + k), state, 0, params)
        assert bool(terminated) or bool(truncated)
        starts.append(np.asarray(obs))
    assert len({s.tobytes() for s in starts}) == len(starts)


def test_all_mode_under_vmap_and_autoreset():
    env, params = jaxenvs.make("pgx/tic_tac_toe", reward_mode="all")
    keys = jax.random.split(jax.random.key(0), 4)
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

    def body(state, key):
        k_act, k_step = jax.random.split(key)
        actions = jax.vmap(env.action_space(params).sample)(jax.random.split(k_act, 4))
        _, state, reward, terminated, truncated, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
            jax.random.split(k_step, 4), state, actions, params
        )
        return state, (reward, terminated, info["final_observation"])

    _, (reward, terminated, final_obs) = jax.jit(lambda s: jax.lax.scan(body, s, jax.random.split(keys[0], 12)))(state)
    assert reward.shape == (12, 4, 2) and final_obs.shape == (12, 4, 3, 3, 2)
    assert np.asarray(terminated).any()
    np.testing.assert_array_equal(np.asarray(reward).sum(-1), 0.0)  # tic-tac-toe is zero-sum
