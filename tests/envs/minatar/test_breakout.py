import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.minatar import breakout
from jaxenvs.envs.minatar._common import palette_uint8

ENV_ID = "Breakout-MinAtar"


def test_spaces_and_action_sets():
    env, params = jaxenvs.make("Breakout-MinAtar")
    space = env.observation_space(params)
    assert space.shape == (10, 10, 4) and space.dtype == jnp.bool_
    assert env.action_space(params).n == 6
    env1, params1 = jaxenvs.make("Breakout-MinAtar-v1")
    assert env1.action_space(params1).n == 3
    assert env1.unwrapped.action_set(params1) == (0, 1, 3)
    assert params.sticky_action_prob == 0.1 and params.max_steps_in_episode == 10_000


def _state(**kw):
    s = breakout.initial_state(0)
    return s.replace(**{k: jnp.asarray(v) for k, v in kw.items()})


def test_brick_breaks_with_reward_one(stepper):
    step, params = stepper
    state = _state(ball_x=3, ball_y=4, ball_dir=0, last_x=4, last_y=5)  # heading up-left into row 3
    obs, nxt, reward, terminated, truncated, _ = step(jax.random.key(0), state, 0, params)
    assert float(reward) == 1.0 and not bool(terminated)
    assert not bool(nxt.brick_map[3, 2]) and int(nxt.brick_map.sum()) == 29
    assert (int(nxt.ball_x), int(nxt.ball_y), int(nxt.ball_dir)) == (2, 4, 3)  # bounced down-left
    assert bool(nxt.strike)
    assert bool(obs[4, 2, 1]) and bool(obs[4, 3, 2]) and not bool(obs[3, 2, 3])  # ball, trail, brick gone


def test_ball_passes_through_the_next_brick_after_a_strike(stepper):
    step, params = stepper
    state = _state(ball_x=3, ball_y=4, ball_dir=0, strike=True)
    _, nxt, reward, _, _, _ = step(jax.random.key(0), state, 0, params)
    assert float(reward) == 0.0 and (int(nxt.ball_x), int(nxt.ball_y)) == (2, 3)
    assert int(nxt.brick_map.sum()) == 30 and bool(nxt.strike)


def test_wall_is_rebuilt_when_the_ball_comes_down_with_no_brick_left(stepper):
    step, params = stepper
    empty = jnp.zeros((10, 10), bool)
    state = _state(ball_x=5, ball_y=8, ball_dir=2, pos=5, brick_map=empty)  # paddle under the ball
    _, nxt, reward, terminated, _, _ = step(jax.random.key(0), state, 0, params)
    assert not bool(terminated) and float(reward) == 0.0
    assert np.array_equal(np.asarray(nxt.brick_map), np.asarray(breakout.full_brick_map()))
    assert (int(nxt.ball_y), int(nxt.ball_dir)) == (8, 1)  # straight back up, still heading right


def test_paddle_bounces_and_missing_ends_the_game(stepper):
    step, params = stepper
    # paddle under the ball's new column: bounced back diagonally
    _, nxt, _, terminated, _, _ = step(jax.random.key(0), _state(ball_x=5, ball_y=8, ball_dir=2, pos=6), 0, params)
    assert not bool(terminated) and int(nxt.ball_dir) == 0
    # paddle elsewhere: the game ends; a further step changes nothing and gives 0
    state = _state(ball_x=5, ball_y=8, ball_dir=2, pos=0)
    _, nxt, reward, terminated, truncated, info = step(jax.random.key(0), state, 3, params)
    assert bool(terminated) and not bool(truncated) and float(info["discount"]) == 0.0
    _, after, reward, terminated, _, _ = step(jax.random.key(1), nxt, 3, params)
    assert bool(terminated) and float(reward) == 0.0
    assert int(after.pos) == int(nxt.pos) and int(after.ball_y) == 9


def test_actions_move_the_paddle_and_sticky_actions_repeat(stepper):
    step, params = stepper
    state = _state()
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, 1, params)  # l
    assert int(nxt.pos) == 3 and int(nxt.last_action) == 1
    v1, p1 = jaxenvs.make("Breakout-MinAtar-v1", autoreset=False, sticky_action_prob=0.0)
    _, nxt, _, _, _, _ = jax.jit(v1.step)(jax.random.key(0), state, 2, p1)  # minimal set: 2 is r
    assert int(nxt.pos) == 5 and int(nxt.last_action) == 3
    always = params.replace(sticky_action_prob=1.0)
    _, nxt, _, _, _, _ = step(jax.random.key(0), state.replace(last_action=jnp.int32(3)), 1, always)
    assert int(nxt.pos) == 5 and int(nxt.last_action) == 3  # the previous action (r) repeated


def test_reset_starts_on_either_side():
    env, params = jaxenvs.make("Breakout-MinAtar", autoreset=False)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(0), 200), params)
    starts = set(zip(np.asarray(states.ball_x).tolist(), np.asarray(states.ball_dir).tolist()))
    assert starts == {(0, 2), (9, 3)}


def test_render_uses_minatar_colours():
    env, params = jaxenvs.make("Breakout-MinAtar")
    state = _state(ball_x=5, ball_y=5, last_x=4, last_y=4)
    img = np.asarray(jax.jit(env.render)(state, params))
    assert img.shape == (160, 160, 3) and img.dtype == np.uint8
    colours = palette_uint8(4)  # black, then MinAtar's cubehelix colour of each channel
    cell = lambda y, x: img[y * 16 + 8, x * 16 + 8]  # noqa: E731
    assert np.array_equal(cell(9, 4), colours[1])  # paddle
    assert np.array_equal(cell(5, 5), colours[2])  # ball
    assert np.array_equal(cell(4, 4), colours[3])  # trail
    assert np.array_equal(cell(2, 5), colours[4])  # brick
    assert np.array_equal(cell(6, 6), colours[0])  # empty
