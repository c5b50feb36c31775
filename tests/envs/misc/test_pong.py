import jax
import jax.numpy as jnp

import jaxenvs
from jaxenvs.envs.misc import pong

ID = "Pong-misc"


def _state(ball, velocity, paddles=(15.0, 15.0), last=None):
    ball = jnp.asarray(ball, jnp.float32)
    return pong.PongState(
        time=jnp.int32(0),
        paddle_centers=jnp.asarray(paddles, jnp.float32),
        ball_position=ball,
        last_ball_position=ball if last is None else jnp.asarray(last, jnp.float32),
        ball_velocity=jnp.asarray(velocity, jnp.int32),
    )


def test_reset_and_observation():
    env, params = jaxenvs.make(ID)
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
    assert obs.shape == (30, 40, 3)
    assert float(obs[15, 20, 1]) == 1.0 and float(obs[:, :, 1].sum()) == 1.0  # the ball
    assert float(obs[:, 0, 0].sum()) == 5.0 and float(obs[13:18, 39, 0].sum()) == 5.0  # the paddles
    assert state.ball_velocity.tolist() == [0, 1]


def test_scoring_ball_out_ends_the_episode_without_reward():
    env, params = jaxenvs.make(ID, autoreset=False)
    step = jax.jit(env.step)
    # the ball passes the player's paddle, which is far away
    passing = _state((3.0, 0.0), (0, -1), (25.0, 3.0))
    _, nxt, reward, terminated, truncated, info = step(jax.random.key(0), passing, 0, params)
    assert bool(terminated) and float(reward) == 0.0 and float(info["discount"]) == 0.0
    # and past the opponent's (which mirrors the player here)
    _, nxt, reward, terminated, *_ = step(
        jax.random.key(0), _state((3.0, 39.0), (0, 1), (25.0, 25.0)), 0, params.replace(use_ai_policy=False)
    )
    assert bool(terminated) and float(reward) == 0.0
    # a step in play pays 1
    _, _, reward, terminated, *_ = step(jax.random.key(0), _state((10.0, 20.0), (1, 1)), 0, params)
    assert not bool(terminated) and float(reward) == 1.0


def test_paddle_hit_reflects_and_spins():
    env, params = jaxenvs.make(ID, autoreset=False)
    # ball moving left onto the player's paddle, hitting 2 rows below its centre
    incoming = _state((17.0, 2.0), (0, -1), (15.0, 15.0))
    _, nxt, reward, terminated, *_ = jax.jit(env.step)(jax.random.key(0), incoming, 0, params)
    assert nxt.ball_position.tolist() == [17.0, 1.0]  # column 1 mirrored at the paddle: 2 - 1
    assert nxt.ball_velocity.tolist() == [1, 1]  # 0 + 2 / paddle_half_height, now moving right
    assert not bool(terminated) and float(reward) == 1.0


def test_paddles_move_and_stay_on_the_board():
    env, params = jaxenvs.make(ID, autoreset=False)
    state = _state((15.0, 20.0), (0, 1), (2.0, 10.0))
    step = jax.jit(env.step)
    _, up, *_ = step(jax.random.key(0), state, 1, params)
    _, down, *_ = step(jax.random.key(0), state, 2, params)
    _, stay, *_ = step(jax.random.key(0), state, 0, params)
    player = [float(s.paddle_centers[0]) for s in (up, down, stay)]
    assert player == [2.0, 3.0, 2.0]  # up is clipped at paddle_half_height
    assert float(up.paddle_centers[1]) == 11.0  # the opponent chases the ball's row (15)


def test_bounce_off_the_bottom_edge():
    state = pong.bounce_off_bottom(pong.move_ball(_state((28.0, 20.0), (2, 1))), 30)
    assert state.ball_position.tolist() == [28.0, 21.0] and state.ball_velocity.tolist() == [-2, 1]
