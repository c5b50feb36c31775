import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.misc import grid_world

ID = "GridWorld-misc"


def test_walls_clip():
    env, params = jaxenvs.make(ID, autoreset=False)
    step = jax.jit(env.step)
    _, state = jax.jit(env.reset)(jax.random.key(0), params)
    for action in (0, 3):  # up and left from the top-left corner
        obs, nxt, reward, terminated, *_ = step(jax.random.key(0), state, action, params)
        assert nxt.pos.tolist() == [0, 0] and int(obs) == 0
        assert float(reward) == -1.0 and not bool(terminated)
    corner = grid_world.GridWorldState(time=jnp.int32(0), pos=jnp.asarray([4, 3], jnp.int32))
    _, nxt, *_ = step(jax.random.key(0), corner, 2, params)  # down off the bottom edge
    assert nxt.pos.tolist() == [4, 3]


def test_observation_is_the_cell_index():
    env, params = jaxenvs.make(ID, autoreset=False, height=3, width=4)
    state = grid_world.GridWorldState(time=jnp.int32(0), pos=jnp.asarray([1, 2], jnp.int32))
    obs, nxt, *_ = jax.jit(env.step)(jax.random.key(0), state, 1, params)  # right: (1, 3)
    assert int(obs) == 1 * 4 + 3 and obs.dtype == jnp.int32
    assert env.observation_space(params).n == 12


@pytest.mark.parametrize("height,width", [(5, 5), (3, 7), (1, 4)])
def test_shortest_path_length(height, width):
    """Breadth-first search over the env's own transitions finds the goal after exactly
    height + width - 2 moves, and the straight route pays -1 per step."""
    env, params = jaxenvs.make(ID, autoreset=False, height=height, width=width)
    n = height * width
    cells = jnp.stack(jnp.divmod(jnp.arange(n), width), axis=1).astype(jnp.int32)
    states = grid_world.GridWorldState(time=jnp.zeros(n, jnp.int32), pos=cells)
    step_all = jax.vmap(jax.vmap(env.step, in_axes=(None, 0, None, None)), in_axes=(None, None, 0, None))
    next_obs, *_ = jax.jit(step_all)(jax.random.key(0), states, jnp.arange(4), params)
    successors = np.asarray(next_obs).T  # [cell, action] -> next cell
    assert successors.min() >= 0 and successors.max() < env.observation_space(params).n
    distance = {0: 0}
    frontier = [0]
    while frontier:
        frontier_next = []
        for cell in frontier:
            for nxt in successors[cell]:
                if int(nxt) not in distance:
                    distance[int(nxt)] = distance[cell] + 1
                    frontier_next.append(int(nxt))
        frontier = frontier_next
    assert distance[n - 1] == grid_world.shortest_path_length(params) == height + width - 2

    _, state = jax.jit(env.reset)(jax.random.key(0), params)
    route = [1] * (width - 1) + [2] * (height - 1)
    total = 0.0
    step = jax.jit(env.step)
    for i, action in enumerate(route):
        _, state, reward, terminated, truncated, _ = step(jax.random.key(0), state, action, params)
        total += float(reward)
        assert bool(terminated) == (i == len(route) - 1)
    assert total == -(height + width - 2)


def test_sparse_reward_convention():
    env, params = jaxenvs.make(ID, autoreset=False, height=2, width=2, step_reward=0.0, goal_reward=1.0)
    step = jax.jit(env.step)
    _, state = jax.jit(env.reset)(jax.random.key(0), params)
    _, state, r1, t1, *_ = step(jax.random.key(0), state, 1, params)
    _, state, r2, t2, *_ = step(jax.random.key(0), state, 2, params)
    assert (float(r1), bool(t1), float(r2), bool(t2)) == (0.0, False, 1.0, True)


def test_the_goal_is_terminal_and_the_raw_env_stays_there():
    """`is_terminal` is the goal cell; past it, `make(id, autoreset=False)` absorbs (reward 0)."""
    env, params = jaxenvs.make(ID, autoreset=False, height=2, width=2)
    raw = env.unwrapped
    at = lambda row, col: grid_world.GridWorldState(time=jnp.int32(0), pos=jnp.asarray([row, col], jnp.int32))  # noqa: E731
    assert [bool(raw.is_terminal(at(r, c), params)) for r, c in ((0, 0), (0, 1), (1, 0), (1, 1))] == [
        False,
        False,
        False,
        True,
    ]
    obs, nxt, reward, terminated, truncated, _ = jax.jit(env.step)(jax.random.key(0), at(1, 1), 0, params)
    assert nxt.pos.tolist() == [1, 1] and int(obs) == 3
    assert (float(reward), bool(terminated), bool(truncated)) == (0.0, True, False)


def test_time_limit():
    env, params = jaxenvs.make(ID, autoreset=False, max_steps_in_episode=3)
    step = jax.jit(env.step)
    _, state = jax.jit(env.reset)(jax.random.key(0), params)
    for _ in range(3):
        _, state, _, terminated, truncated, _ = step(jax.random.key(0), state, 0, params)
    assert bool(truncated) and not bool(terminated)
    assert jaxenvs.make(ID)[1].max_steps_in_episode == 100
