import jax
import jax.numpy as jnp

import jaxenvs
from jaxenvs.envs.bsuite import catch
from tests.envs.bsuite.bsuite_test_helpers import play


def _state(ball_x, ball_y=0, paddle_x=2):
    return catch.CatchState(
        time=jnp.int32(ball_y),
        ball_x=jnp.int32(ball_x),
        ball_y=jnp.int32(ball_y),
        paddle_x=jnp.int32(paddle_x),
        paddle_y=jnp.int32(9),
    )


def test_board_is_bsuites_rows_by_columns():
    env, params = jaxenvs.make("Catch-bsuite", autoreset=False)
    obs, state = env.reset(jax.random.key(3), params)
    assert obs.shape == (10, 5) and obs.dtype == jnp.float32
    assert float(obs.sum()) == 2.0 and float(obs[0, state.ball_x]) == 1.0 and float(obs[9, 2]) == 1.0
    assert catch.Catch(rows=6, columns=3).reset(jax.random.key(0))[0].shape == (6, 3)


def test_paddle_moves_and_stops_at_walls():
    assert [int(catch.move_paddle(jnp.int32(2), jnp.int32(a), 5)) for a in (0, 1, 2)] == [1, 2, 3]
    assert int(catch.move_paddle(jnp.int32(0), jnp.int32(0), 5)) == 0
    assert int(catch.move_paddle(jnp.int32(4), jnp.int32(2), 5)) == 4


def test_catching_pays_one_missing_pays_minus_one():
    env, params = jaxenvs.make("Catch-bsuite", autoreset=False)
    caught = play(env, params, [2, 2] + [1] * 7, state=_state(ball_x=4))
    assert caught["terminated"] == [False] * 8 + [True]
    assert caught["reward"] == [0.0] * 8 + [1.0]
    missed = play(env, params, [1] * 9, state=_state(ball_x=0))
    assert missed["reward"][-1] == -1.0 and missed["terminated"][-1]
