import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.misc import four_rooms

ID = "FourRooms-misc"


def _state(pos, goal=(8, 9), time=0):
    return four_rooms.FourRoomsState(
        time=jnp.int32(time), pos=jnp.asarray(pos, jnp.int32), goal=jnp.asarray(goal, jnp.int32)
    )


def test_visual_observation_conformance():
    env = four_rooms.FourRooms(use_visual_obs=True)
    obs, state = jax.jit(env.reset)(jax.random.key(0))
    assert obs.shape == (13, 13, 2)
    assert float(obs[4, 1, 1]) == 1.0 and float(obs[:, :, 1].sum()) == 1.0  # agent at (row, col)
    assert float(obs[0, 0, 0]) == 1.0 and float(obs[1, 1, 0]) == 0.0  # walls channel


def test_defaults():
    env, params = jaxenvs.make(ID)
    assert params.max_steps_in_episode == 500
    assert params.fail_prob == pytest.approx(1 / 3)
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
    assert obs.tolist() == [4.0, 1.0, 8.0, 9.0] and obs.dtype == jnp.float32


def test_reaching_the_goal_pays_and_terminates():
    env, params = jaxenvs.make(ID, autoreset=False, fail_prob=0.0)
    step = jax.jit(env.step)
    obs, state, reward, terminated, truncated, info = step(jax.random.key(0), _state((8, 8)), 1, params)
    assert state.pos.tolist() == [8, 9]
    assert float(reward) == 1.0 and bool(terminated) and not bool(truncated)
    assert float(info["discount"]) == 0.0
    # one step short of it: nothing
    _, state, reward, terminated, *_ = step(jax.random.key(0), _state((8, 7)), 1, params)
    assert state.pos.tolist() == [8, 8] and float(reward) == 0.0 and not bool(terminated)


def test_walls_block_and_doorways_open():
    env, params = jaxenvs.make(ID, autoreset=False, fail_prob=0.0)
    step = jax.jit(env.step)
    for pos, action, expected in [
        ((1, 1), 0, (1, 1)),  # outer wall above
        ((1, 1), 3, (1, 1)),  # outer wall to the left
        ((1, 5), 1, (1, 5)),  # inner wall between the top rooms
        ((3, 5), 1, (3, 6)),  # the doorway between the top rooms
        ((5, 1), 2, (5, 1)),  # inner wall below the top-left room
        ((5, 2), 2, (6, 2)),  # the doorway below it
        ((2, 2), 2, (3, 2)),  # open floor
    ]:
        _, state, *_ = step(jax.random.key(0), _state(pos), action, params)
        assert tuple(state.pos.tolist()) == expected, (pos, action)


def test_slip_probability():
    env, params = jaxenvs.make(ID, autoreset=False)
    keys = jax.random.split(jax.random.key(1), 6000)
    _, states, *_ = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))(keys, _state((3, 3)), 1, params)
    moved_right = np.mean(np.all(np.asarray(states.pos) == [3, 4], axis=1))
    # the chosen move happens with probability 1 - fail_prob = 2/3
    assert abs(moved_right - 2 / 3) < 4 * np.sqrt(2 / 9 / len(keys))
    assert {tuple(p) for p in np.asarray(states.pos).tolist()} == {(2, 3), (3, 4), (4, 3), (3, 2)}


def test_fixed_cells_must_be_open():
    with pytest.raises(ValueError, match="goal_fixed"):
        four_rooms.FourRooms(goal_fixed=(0, 0))


def test_resampled_start_never_on_goal():
    env, params = jaxenvs.make(ID, resample_init_pos=True, resample_goal_pos=True)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(0), 2000), params)
    assert not np.any(np.all(np.asarray(states.pos) == np.asarray(states.goal), axis=1))
    assert len({tuple(g) for g in np.asarray(states.goal).tolist()}) > 90  # of 104 open cells
