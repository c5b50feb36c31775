import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.misc import meta_maze

ID = "MetaMaze-misc"


def _state(pos, goal, last_action=0, time=0):
    return meta_maze.MetaMazeState(
        time=jnp.int32(time),
        last_action=jnp.int32(last_action),
        last_reward=jnp.float32(0.0),
        pos=jnp.asarray(pos, jnp.int32),
        goal=jnp.asarray(goal, jnp.int32),
    )


def test_layout_and_start():
    env = meta_maze.MetaMaze()
    assert env.open_map.shape == (11, 11)
    inner = env.open_map[1:-1, 1:-1]
    assert not inner[1::2, 1::2].any() and inner[0::2, :].all() and inner[:, 0::2].all()
    assert not env.open_map[0].any() and not env.open_map[:, -1].any()  # the border
    assert env.center_position.tolist() == [5, 5] and len(env.coords) == 81 - 16
    # a maze whose middle is a wall starts one row up; a wider window widens the border
    assert meta_maze.MetaMaze(maze_size=7).center_position.tolist() == [3, 4]
    assert meta_maze.MetaMaze(rf_size=5).open_map.shape == (13, 13)
    with pytest.raises(ValueError):
        meta_maze.MetaMaze(maze_size=8)


def test_walls_block_with_punishment():
    env, params = jaxenvs.make(ID, autoreset=False, punishment=-0.5)
    obs, state, reward, terminated, *_ = jax.jit(env.step)(jax.random.key(0), _state((1, 2), (9, 9)), 2, params)
    assert state.pos.tolist() == [1, 2] and float(reward) == -0.5 and not bool(terminated)
    assert int(state.last_action) == 2 and float(state.last_reward) == -0.5
    _, state, reward, *_ = jax.jit(env.step)(jax.random.key(0), _state((1, 2), (9, 9)), 1, params)
    assert state.pos.tolist() == [1, 3] and float(reward) == 0.0


def test_observation_window():
    env, params = jaxenvs.make(ID, autoreset=False)
    obs, state, *_ = jax.jit(env.step)(jax.random.key(0), _state((1, 1), (9, 9), time=4), 1, params)  # to (1, 2)
    walls = np.asarray(obs[:9]).reshape(3, 3)
    assert walls.tolist() == [[1, 1, 1], [0, 0, 0], [0, 1, 0]]
    assert obs[9:13].tolist() == [0, 1, 0, 0]  # last action one-hot
    assert float(obs[13]) == 0.0 and float(obs[14]) == 5.0  # last reward, time


def test_goal_pays_and_teleports():
    env, params = jaxenvs.make(ID, autoreset=False)
    keys = jax.random.split(jax.random.key(0), 3000)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))
    _, states, rewards, terminated, *_ = step(keys, _state((5, 5), (5, 6)), 1, params)
    assert np.all(np.asarray(rewards) == 10.0)
    cells = {tuple(p) for p in np.asarray(states.pos).tolist()}
    assert len(cells) > 55 and all(env.unwrapped.open_map[c] for c in cells)
    # it terminates only when the teleport lands on the goal: probability 1/65
    landed = np.all(np.asarray(states.pos) == [5, 6], axis=1)
    assert np.array_equal(landed, np.asarray(terminated))
    assert abs(landed.mean() - 1 / 65) < 4 * np.sqrt(1 / 65 / len(keys))
