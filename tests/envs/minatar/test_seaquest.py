import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.minatar import seaquest as sq

ENV_ID = "Seaquest-MinAtar"
NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
NO_SPAWN = sq.SeaquestDraws(
    enemy_lr=jnp.asarray(False),
    enemy_is_sub=jnp.asarray(False),
    enemy_y=jnp.int32(1),
    diver_lr=jnp.asarray(False),
    diver_y=jnp.int32(1),
)


@pytest.fixture(scope="module")
def act(raw):
    """The step after the sticky draw, with explicit draws: `(obs, state, reward, terminal)`."""
    env, params = raw
    return jax.jit(lambda s, a, d: env.act(s, jnp.int32(a), d, params))


def _put(state, prefix, index, **values):
    """Fill slot `index` of the list `prefix` (valid, stamped in list order by `index`)."""
    updates = {
        f"{prefix}_valid": getattr(state, f"{prefix}_valid").at[index].set(True),
        f"{prefix}_order": getattr(state, f"{prefix}_order").at[index].set(index - 100),
    }
    for k, v in values.items():
        field = getattr(state, f"{prefix}_{k}")
        updates[f"{prefix}_{k}"] = field.at[index].set(jnp.asarray(v, field.dtype))
    return state.replace(**updates)


def _state(**fields):
    """A quiet mid-dive state (no spawn due) with `fields` replaced."""
    state = sq.initial_state().replace(
        sub_y=jnp.int32(4), surface=jnp.asarray(False), e_spawn_timer=jnp.int32(7), d_spawn_timer=jnp.int32(7)
    )
    return state.replace(**{k: jnp.asarray(v, getattr(state, k).dtype) for k, v in fields.items()})


def test_minimal_action_set_spaces():
    raw, params = jaxenvs.make("Seaquest-MinAtar-v1", autoreset=False)
    assert raw.action_space(params).n == 6  # Seaquest's minimal set is all six actions
    assert raw.observation_space(params).shape == (10, 10, 10)


def test_reset_and_observation(raw):
    env, params = raw
    obs, state = env.reset(jax.random.key(0), params)
    assert np.argwhere(np.asarray(obs[..., 0])).tolist() == [[0, 5]]  # front
    assert np.argwhere(np.asarray(obs[..., 1])).tolist() == [[0, 6]]  # back: facing left
    assert np.argwhere(np.asarray(obs[..., 7])).tolist() == [[9, c] for c in range(10)]  # full oxygen
    assert not np.asarray(obs[..., 8]).any() and int(state.oxygen) == 200
    # divers gauge: columns 9-n .. 8; trails behind moving objects
    state = _put(state.replace(diver_count=jnp.int32(3)), "enemy", 0, x=4, y=2, lr=True, is_sub=True)
    state = _put(state, "diver", 0, x=0, y=6, lr=True)
    obs = sq.get_obs(state)
    assert np.argwhere(np.asarray(obs[..., 8])).tolist() == [[9, 6], [9, 7], [9, 8]]
    assert np.argwhere(np.asarray(obs[..., 6])).tolist() == [[2, 4]]
    assert {tuple(c) for c in np.argwhere(np.asarray(obs[..., 3]))} == {(2, 3)}  # the diver's trail is off-grid
    assert np.argwhere(np.asarray(obs[..., 9])).tolist() == [[6, 0]]


def test_shooting_an_enemy_gives_reward_one(act):
    # a fish right in front of the submarine: the bullet moves onto it in the same step
    state = _put(_state(sub_x=3, sub_or=True), "enemy", 0, x=4, y=4, lr=False, move_timer=3)
    _, nxt, reward, terminal = act(state, FIRE, NO_SPAWN)
    assert float(reward) == 1.0 and not bool(terminal)
    assert not bool(nxt.enemy_valid.any()) and not bool(nxt.f_bullet_valid.any())
    # two fish in one cell: the first in the list dies
    state = _put(state, "enemy", 1, x=4, y=4, lr=False, move_timer=1)
    _, nxt, reward, _ = act(state, FIRE, NO_SPAWN)
    assert float(reward) == 1.0 and np.asarray(nxt.enemy_valid).tolist()[:2] == [False, True]


def test_enemy_sub_fires_even_when_shot(act):
    # a sub moving onto a friendly bullet dies (+1) but still fires: its shot timer is out
    state = _put(_state(sub_x=0, sub_y=6), "enemy", 0, x=7, y=2, lr=False, move_timer=0, shot_timer=0, is_sub=True)
    state = _put(state, "f_bullet", 0, x=5, y=2, lr=True)
    _, nxt, reward, _ = act(state, NOOP, NO_SPAWN)
    assert float(reward) == 1.0 and not bool(nxt.enemy_valid[0]) and not bool(nxt.f_bullet_valid[0])
    assert np.argwhere(np.asarray(nxt.e_bullets)).tolist() == [[0, 2, 5]]  # fired at 6, moved left to 5


def test_enemy_bullet_and_collisions_end_the_game(act):
    state = _state(sub_x=5, sub_y=3)
    bullets = state.e_bullets.at[1, 3, 4].set(True)  # moving right, next to the submarine
    _, _, _, terminal = act(state.replace(e_bullets=bullets), NOOP, NO_SPAWN)
    assert bool(terminal)
    fish = _put(state, "enemy", 0, x=6, y=3, lr=False, move_timer=0)
    _, _, _, terminal = act(fish, NOOP, NO_SPAWN)
    assert bool(terminal)
    _, _, _, terminal = act(fish, DOWN, NO_SPAWN)  # dodged
    assert not bool(terminal)


def test_oxygen_runs_out(act):
    state = _state(oxygen=1)
    _, state, _, terminal = act(state, NOOP, NO_SPAWN)
    assert int(state.oxygen) == 0 and not bool(terminal)
    _, state, _, terminal = act(state, NOOP, NO_SPAWN)
    assert bool(terminal)


def test_surfacing_rules(act, raw):
    env, params = raw
    # six divers: all of them go, bonus oxygen * 10 // 200, oxygen refilled, difficulty ramps
    state = _state(sub_y=1, diver_count=6, oxygen=150)
    _, nxt, reward, terminal = act(state, UP, NO_SPAWN)
    assert float(reward) == 7.0 and not bool(terminal)
    assert int(nxt.oxygen) == 200 and bool(nxt.surface)
    assert int(nxt.diver_count) == -1  # MinAtar sets 0, then takes one more
    assert (int(nxt.e_spawn_speed), int(nxt.move_speed), int(nxt.ramp_index)) == (19, 5, 1)
    # ...and then surfacing again does not end the game (the count goes on down)
    _, down, _, _ = act(nxt, DOWN, NO_SPAWN)
    _, up, _, terminal = act(down, UP, NO_SPAWN)
    assert not bool(terminal) and int(up.diver_count) == -2 and int(up.move_speed) == 4
    # fewer divers: one goes, no bonus
    _, nxt, reward, terminal = act(_state(sub_y=1, diver_count=3, oxygen=50), UP, NO_SPAWN)
    assert float(reward) == 0.0 and not bool(terminal) and int(nxt.diver_count) == 2 and int(nxt.oxygen) == 200
    # none: the game ends
    _, nxt, _, terminal = act(_state(sub_y=1, diver_count=0), UP, NO_SPAWN)
    assert bool(terminal)
    # no ramp without difficulty_ramping
    no_ramp = params.replace(difficulty_ramping=False)
    _, nxt, _, _ = jax.jit(lambda s: env.act(s, jnp.int32(UP), NO_SPAWN, no_ramp))(_state(sub_y=1, diver_count=6))
    assert (int(nxt.e_spawn_speed), int(nxt.ramp_index)) == (20, 0)


def test_diver_pickup_up_to_six(act):
    state = _put(_state(sub_x=5, sub_y=4, diver_count=2), "diver", 0, x=6, y=4, lr=False, move_timer=0)
    _, nxt, _, _ = act(state, NOOP, NO_SPAWN)  # the diver swims onto the submarine
    assert int(nxt.diver_count) == 3 and not bool(nxt.diver_valid[0])
    _, nxt, _, _ = act(state.replace(diver_count=jnp.int32(6)), NOOP, NO_SPAWN)  # full: it stays
    assert int(nxt.diver_count) == 6 and bool(nxt.diver_valid[0]) and int(nxt.diver_x[0]) == 5


def test_spawns_and_the_blocked_row(act):
    state = _put(_state(e_spawn_timer=0), "enemy", 0, x=5, y=3, lr=False, move_timer=3)
    draws = NO_SPAWN.replace(enemy_lr=jnp.asarray(True), enemy_is_sub=jnp.asarray(True), enemy_y=jnp.int32(3))
    _, nxt, _, _ = act(state, NOOP, draws)  # row 3 holds a fish moving the other way
    assert int(nxt.enemy_valid.sum()) == 1 and int(nxt.e_spawn_timer) == 19
    _, nxt, _, _ = act(state, NOOP, draws.replace(enemy_y=jnp.int32(4)))
    new = np.asarray(nxt.enemy_valid).nonzero()[0][-1]
    assert (int(nxt.enemy_x[new]), int(nxt.enemy_y[new]), bool(nxt.enemy_is_sub[new])) == (0, 4, True)
    assert int(nxt.enemy_shot_timer[new]) == 9 and int(nxt.enemy_move_timer[new]) == 4


def test_draws_from_bits_are_uniform():
    words = jax.random.bits(jax.random.key(0), (200_000,), jnp.uint32)
    d = jax.vmap(sq.draws_from_bits)(words)
    assert set(np.unique(np.asarray(d.enemy_y)).tolist()) == set(range(1, 9))
    assert abs(float(d.enemy_is_sub.mean()) - 1 / 3) < 0.005
    assert abs(float(d.enemy_lr.mean()) - 0.5) < 0.005 and abs(float(d.diver_lr.mean()) - 0.5) < 0.005


def test_enemy_capacity_bound():
    """The enemy bound of `Seaquest`'s docstring, computed: over every spawn schedule and every ramp
    path (levels may even jump at any step), at most 30 enemies are alive at the end of a
    step; with the next step's spawn, 31 = NUM_ENEMIES."""
    import functools

    def level(k):  # (e_spawn_speed, move_speed) after k ramps, as MinAtar's _surface
        spawn_speed, move_speed = 20, 5
        for j in range(k):
            move_speed -= move_speed > 2 and j % 2 == 1
            spawn_speed -= spawn_speed > 1
        return spawn_speed, move_speed

    levels = [level(k) for k in range(20)]
    assert levels[0] == (20, 5) and levels[6] == (14, 2) and levels[19] == (1, 2)
    horizon = 60  # no enemy lives 60 steps

    @functools.cache
    def most_before(age, k, extra):
        """Most enemies alive `extra` steps before step T among spawns older than one spawned
        `age` steps before T at level `k` (an earlier spawn at level j <= k comes at least its
        interval earlier: the spawn timer restarts at the interval of the level it spawned
        at). An enemy spawned at move interval m is alive for 10 m + 9 steps at most."""
        best = 0
        for j in range(k + 1):
            interval, move = levels[j]
            for older in range(age + interval, horizon):
                best = max(best, (older <= 10 * move + 8 + extra) + most_before(older, j, extra))
        return best

    def most_alive(extra):
        return max(
            (age <= 10 * levels[k][1] + 8 + extra) + most_before(age, k, extra)
            for k in range(20)
            for age in range(horizon)
        )

    assert most_alive(0) == 30  # at the end of a step
    assert most_alive(1) == sq.NUM_ENEMIES  # those alive after the previous step, plus a spawn


def _occupancy_run(env, params, state, policy, num_steps, key):
    """Per step: slots used at the end of the step, for each list, over a vmapped batch."""

    def body(carry, k):
        state, t = carry
        obs, state, _, _, _, _ = env.step(k, state, policy(t), params)
        used = (state.enemy_valid.sum(), state.f_bullet_valid.sum(), state.diver_valid.sum(), state.e_bullets.sum())
        return (state, t + 1), (jnp.stack(used), state.terminal)

    def run(k):
        _, (used, terminal) = jax.lax.scan(body, (state, 0), jax.random.split(k, num_steps))
        return used, terminal

    return jax.jit(jax.vmap(run))(key)


@pytest.mark.slow
def test_capacities_hold_in_the_densest_game():
    """Ramping maxed out (a spawn every step, enemies crossing in 29 steps) and a submarine
    that never dies (it stays on the surface, where nothing reaches it, firing left and right
    so that two bullets are always out): no list ever needs more than its slots, and the enemy
    pool always keeps a free slot for the next step's spawn."""
    env, params = jaxenvs.make("Seaquest-MinAtar", autoreset=False)
    state = sq.initial_state().replace(
        e_spawn_speed=jnp.int32(1), move_speed=jnp.int32(2), ramp_index=jnp.int32(19)
    )  # the ramp's end, reached after 19 surfacings
    pattern = jnp.asarray([FIRE, LEFT, FIRE, RIGHT, NOOP], jnp.int32)
    used, terminal = _occupancy_run(
        env, params, state, lambda t: pattern[t % 5], 3000, jax.random.split(jax.random.key(0), 32)
    )
    assert not bool(terminal.any())
    most = np.asarray(used).max(axis=(0, 1))
    enemies, f_bullets, divers, e_bullets = (int(v) for v in most)
    print(
        f"most slots used: enemies {enemies}/{sq.NUM_ENEMIES}, friendly bullets {f_bullets}/{sq.NUM_F_BULLETS},"
        f" divers {divers}/{sq.NUM_DIVERS}; enemy bullets at most {e_bullets}"
    )
    assert enemies <= sq.NUM_ENEMIES - 1  # a free slot for the next spawn
    assert enemies >= 15  # the run is dense: the bound is exercised, not idle
    assert f_bullets == sq.NUM_F_BULLETS and divers == sq.NUM_DIVERS


def test_capacity_worst_case_schedule(act):
    """The densest schedule the real game allows: an enemy at the slowest level, then the
    ramp driven as fast as surfacing allows (down, up, ... with a negative diver count), all
    spawns in free rows moving right so that none is blocked. The pool never fills."""
    state = _state(sub_y=0, surface=True, diver_count=-1, e_spawn_timer=0)
    most = 0
    for t in range(150):
        # fish only, in rows 2-8 (the submarine dips into row 1), divers in row 8
        draws = NO_SPAWN.replace(enemy_lr=jnp.asarray(True), enemy_y=jnp.int32(2 + t % 7), diver_y=jnp.int32(8))
        _, state, _, terminal = act(state, DOWN if t % 2 == 0 else UP, draws)
        assert not bool(terminal)
        most = max(most, int(state.enemy_valid.sum()))
    assert int(state.e_spawn_speed) == 1 and int(state.move_speed) == 2
    assert 25 <= most <= sq.NUM_ENEMIES - 1, most  # 29: close to the proven bound, 30
