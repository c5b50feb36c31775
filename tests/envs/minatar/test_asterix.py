import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.minatar import asterix

ENV_ID = "Asterix-MinAtar"


def test_spaces_and_action_sets():
    env, params = jaxenvs.make("Asterix-MinAtar-v1")
    assert env.observation_space(params).shape == (10, 10, 4)
    assert env.action_space(params).n == 5


def _with_entity(state, slot, x, lr, gold):
    row = jnp.asarray([x, slot + 1, int(lr), int(gold)], jnp.int32)
    return state.replace(
        entities=state.entities.at[slot].set(row), entity_active=state.entity_active.at[slot].set(True)
    )


def test_gold_gives_reward_and_disappears(stepper):
    step, params = stepper
    state = asterix.initial_state()  # player at (5, 5), i.e. slot 4's row
    state = _with_entity(state, 4, 6, lr=False, gold=True)
    _, nxt, reward, terminated, _, _ = step(jax.random.key(0), state, 3, params)  # r: onto the gold
    assert float(reward) == 1.0 and not bool(terminated) and not bool(nxt.entity_active[4])


def test_gold_moving_onto_the_player_is_taken(stepper):
    step, params = stepper
    state = _with_entity(asterix.initial_state().replace(move_timer=jnp.int32(0)), 4, 4, lr=True, gold=True)
    _, nxt, reward, _, _, _ = step(jax.random.key(0), state, 0, params)
    assert float(reward) == 1.0 and not bool(nxt.entity_active[4])


def test_an_enemy_ends_the_game(stepper):
    step, params = stepper
    state = _with_entity(asterix.initial_state(), 4, 4, lr=True, gold=False)
    _, nxt, reward, terminated, _, info = step(jax.random.key(0), state, 1, params)  # l: into the enemy
    assert bool(terminated) and float(reward) == 0.0 and float(info["discount"]) == 0.0
    _, after, reward, terminated, _, _ = step(jax.random.key(1), nxt, 3, params)
    assert bool(terminated) and float(reward) == 0.0 and int(after.player_x) == int(nxt.player_x)


def test_player_stays_in_rows_one_to_eight(stepper):
    step, params = stepper
    state = asterix.initial_state().replace(player_y=jnp.int32(1))
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, 2, params)
    assert int(nxt.player_y) == 1
    _, nxt, _, _, _, _ = step(jax.random.key(0), state.replace(player_y=jnp.int32(8)), 4, params)
    assert int(nxt.player_y) == 8


def test_spawns_fill_free_slots_only(stepper):
    step, params = stepper
    state = asterix.initial_state().replace(spawn_timer=jnp.int32(0), player_x=jnp.int32(5))
    for slot in (0, 1, 2, 3, 5, 6, 7):
        state = _with_entity(state, slot, 3, lr=True, gold=False)
    keys = jax.random.split(jax.random.key(0), 64)
    _, nxt, _, _, _, _ = jax.vmap(step, in_axes=(0, None, None, None))(keys, state, 0, params)
    assert np.all(np.asarray(nxt.entity_active[:, 4]))  # the only free slot
    x = np.asarray(nxt.entities[:, 4, asterix.X])
    assert set(x.tolist()) == {0, 9} and np.all(np.asarray(nxt.spawn_timer) == 9)
    full = state.replace(entity_active=jnp.ones(8, bool))
    _, nxt, _, _, _, _ = step(jax.random.key(1), full, 0, params)
    assert int(nxt.spawn_timer) == 9 and np.array_equal(np.asarray(nxt.entities), np.asarray(full.entities))


def test_difficulty_ramps_when_the_ramp_timer_runs_out(stepper):
    step, params = stepper
    state = asterix.initial_state().replace(ramp_timer=jnp.int32(-1), ramp_index=jnp.int32(1))
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, 0, params)
    assert (int(nxt.spawn_speed), int(nxt.move_speed), int(nxt.ramp_index), int(nxt.ramp_timer)) == (9, 4, 2, 100)
    _, nxt, _, _, _, _ = step(jax.random.key(0), state.replace(ramp_index=jnp.int32(2)), 0, params)
    assert (int(nxt.spawn_speed), int(nxt.move_speed)) == (9, 5)  # move speed ramps on odd ramps only
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, 0, params.replace(difficulty_ramping=False))
    assert (int(nxt.spawn_speed), int(nxt.move_speed), int(nxt.ramp_timer)) == (10, 5, -1)
    # the first ramp comes after 102 steps from a reset (the timer counts 100..0, then ramps below 0)
    s = asterix.initial_state().replace(spawn_timer=jnp.int32(10_000))
    for t in range(102):
        s = asterix.ramp(s, jnp.asarray(True))
        assert int(s.ramp_index) == (1 if t == 101 else 0)


def test_observation_channels():
    state = _with_entity(_with_entity(asterix.initial_state(), 0, 0, lr=True, gold=False), 7, 5, lr=False, gold=True)
    obs = np.asarray(asterix.get_obs(state))
    assert obs[5, 5, 0] and obs[1, 0, 1] and obs[8, 5, 3] and obs[8, 6, 2]
    assert obs[:, :, 2].sum() == 1  # the enemy at the left edge has its trail off screen
