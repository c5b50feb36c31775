import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.minatar import space_invaders as si

ENV_ID = "SpaceInvaders-MinAtar"
FIRE, LEFT, RIGHT, NOOP = 5, 1, 3, 0


def _state(**fields):
    """The start state with `fields` replaced (maps given as lists of (row, column))."""
    state = si.initial_state()
    for name in ("alien_map", "f_bullet_map", "e_bullet_map"):
        if name in fields:
            grid = np.zeros((10, 10), bool)
            for r, c in fields.pop(name):
                grid[r, c] = True
            fields[name] = jnp.asarray(grid)
    return state.replace(**{k: jnp.asarray(v, getattr(state, k).dtype) for k, v in fields.items()})


def test_minimal_action_set_spaces():
    raw, params = jaxenvs.make("SpaceInvaders-MinAtar-v1", autoreset=False)
    assert raw.action_space(params).n == 4
    assert raw.observation_space(params).shape == (10, 10, 6)
    assert raw.observation_space(params).dtype == jnp.bool_


def test_reset_is_minatar_start(raw):
    env, params = raw
    obs, state = env.reset(jax.random.key(0), params)
    assert int(state.pos) == 5 and int(state.alien_dir) == -1
    assert int(state.alien_move_timer) == 12 and int(state.alien_shot_timer) == 10
    alien_cells = {tuple(c) for c in np.argwhere(np.asarray(obs[..., 1]))}
    assert alien_cells == {(r, c) for r in range(4) for c in range(2, 8)}
    assert np.array_equal(np.asarray(obs[..., 2]), np.asarray(obs[..., 1]))  # moving left
    assert not np.asarray(obs[..., 3]).any()
    assert np.argwhere(np.asarray(obs[..., 0])).tolist() == [[9, 5]]


def test_shooting_an_alien_gives_reward_one(stepper):
    step, params = stepper
    # an alien right above the cannon: the bullet appears on row 9, rises to row 8 and hits it
    state = _state(alien_map=[(8, 5), (0, 0)], alien_move_timer=3)
    _, nxt, reward, terminated, _, _ = step(jax.random.key(0), state, FIRE, params)
    assert float(reward) == 1.0 and not bool(terminated)
    assert not bool(nxt.alien_map[8, 5]) and not bool(nxt.f_bullet_map.any())
    assert int(nxt.shot_timer) == 4  # cool-down 5, counted down at the end of the step
    # fire during the cool-down does nothing
    _, again, _, _, _, _ = step(jax.random.key(0), nxt, FIRE, params)
    assert not bool(again.f_bullet_map.any()) and int(again.shot_timer) == 3


def test_cleared_wave_respawns_faster(stepper):
    step, params = stepper
    state = _state(alien_map=[(8, 5)], alien_move_timer=3, enemy_move_interval=9, ramp_index=3)
    _, nxt, reward, _, _, _ = step(jax.random.key(0), state, FIRE, params)
    assert float(reward) == 1.0
    assert np.array_equal(np.asarray(nxt.alien_map), np.asarray(si.initial_alien_map()))
    assert int(nxt.enemy_move_interval) == 8 and int(nxt.ramp_index) == 4
    # never below 6, and not at all without ramping
    _, nxt, _, _, _, _ = step(jax.random.key(0), state.replace(enemy_move_interval=jnp.int32(6)), FIRE, params)
    assert int(nxt.enemy_move_interval) == 6 and int(nxt.ramp_index) == 3
    no_ramp = params.replace(difficulty_ramping=False)
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, FIRE, no_ramp)
    assert int(nxt.enemy_move_interval) == 9 and int(nxt.alien_map.sum()) == 24


def test_block_moves_steps_down_and_speeds_up(stepper):
    step, params = stepper
    # two aliens, timer out: move one column left; the timer restarts at min(count, interval)
    state = _state(alien_map=[(2, 4), (3, 6)], alien_move_timer=0)
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, NOOP, params)
    assert bool(nxt.alien_map[2, 3]) and bool(nxt.alien_map[3, 5])
    assert int(nxt.alien_move_timer) == 1  # min(2, 12) - 1
    # at the left wall moving left: one row down, direction reversed
    state = _state(alien_map=[(2, 0), (3, 6)], alien_move_timer=0)
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, NOOP, params)
    assert bool(nxt.alien_map[3, 0]) and bool(nxt.alien_map[4, 6]) and int(nxt.alien_dir) == 1
    # the last alien moves on every step
    state = _state(alien_map=[(2, 4)], alien_move_timer=0, alien_dir=1)
    xs = []
    for _ in range(3):
        _, state, _, _, _, _ = step(jax.random.key(0), state, NOOP, params)
        xs.append(int(np.argwhere(np.asarray(state.alien_map))[0, 1]))
    assert xs == [5, 6, 7]


def test_deaths(stepper):
    step, params = stepper
    # an alien bullet falling onto the cannon
    state = _state(e_bullet_map=[(8, 5)])
    _, _, _, terminated, _, _ = step(jax.random.key(0), state, NOOP, params)
    assert bool(terminated)
    # dodging it
    _, _, _, terminated, _, _ = step(jax.random.key(0), state, LEFT, params)
    assert not bool(terminated)
    # the block stepping down from the bottom row at a wall
    state = _state(alien_map=[(9, 0)], alien_move_timer=0, pos=7)
    _, nxt, _, terminated, _, _ = step(jax.random.key(0), state, NOOP, params)
    assert bool(terminated)
    # a finished game does not change (MinAtar's act returns 0, True)
    _, after, reward, terminated, _, _ = step(jax.random.key(0), nxt, FIRE, params)
    assert bool(terminated) and float(reward) == 0.0
    same = after.replace(time=nxt.time, last_action=nxt.last_action)
    assert all(np.array_equal(a, b) for a, b in zip(jax.tree_util.tree_leaves(same), jax.tree_util.tree_leaves(nxt)))


def test_nearest_alien_shoots_ties_to_the_left(stepper):
    step, params = stepper
    # columns 3 and 7 are both 2 away from the cannon at 5: MinAtar's stable sort picks 3
    state = _state(alien_map=[(1, 3), (4, 3), (6, 7)], alien_shot_timer=0, alien_move_timer=5)
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, NOOP, params)
    assert np.argwhere(np.asarray(nxt.e_bullet_map)).tolist() == [[4, 3]]  # the lowest alien of column 3
    assert int(nxt.alien_shot_timer) == 9


def test_sticky_and_minimal_actions():
    env, params = jaxenvs.make("SpaceInvaders-MinAtar-v1", autoreset=False, sticky_action_prob=1.0)
    state = si.initial_state().replace(last_action=jnp.int32(LEFT))
    # always sticky: the previous executed action (left) replaces the chosen one (right)
    _, nxt, _, _, _, _ = jax.jit(env.step)(jax.random.key(0), state, 2, params)
    assert int(nxt.pos) == 4 and int(nxt.last_action) == LEFT
    env, params = jaxenvs.make("SpaceInvaders-MinAtar-v1", autoreset=False, sticky_action_prob=0.0)
    _, nxt, _, _, _, _ = jax.jit(env.step)(jax.random.key(0), state, 3, params)  # minimal index 3 = fire
    assert int(nxt.last_action) == FIRE and bool(nxt.f_bullet_map[8, 5])
