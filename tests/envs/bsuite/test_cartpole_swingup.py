import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import cartpole
from tests.envs.bsuite.bsuite_test_helpers import play


def _state(**kw):
    base = dict(time=jnp.int32(0), x=0.0, x_dot=0.0, theta=np.pi, theta_dot=0.0, time_elapsed=0.0)
    base.update(kw)
    return cartpole.CartPoleState(
        **{k: jnp.asarray(v, jnp.int32 if k == "time" else jnp.float32) for k, v in base.items()}
    )


def test_starts_hanging_down():
    env, params = jaxenvs.make("CartPoleSwingup-bsuite", autoreset=False)
    _, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), 64), params)
    assert np.all(np.abs(np.asarray(states.theta) - np.pi) <= 0.05 + 1e-6)


def test_move_cost_and_upright_reward():
    env, params = jaxenvs.make("CartPoleSwingup-bsuite", autoreset=False)
    down = play(env, params, [0, 1, 2], state=_state())
    assert down["reward"] == pytest.approx([-0.1, 0.0, -0.1])
    up = play(env, params, [1, 2], state=_state(theta=0.0))
    assert up["reward"] == pytest.approx([1.0, 0.9])
    fast = play(env, params, [1], state=_state(theta=0.0, theta_dot=2.0))  # |theta_dot| >= 1: no reward
    assert fast["reward"] == [0.0]
    assert np.asarray(fast["obs"][0])[0, 6:].tolist() == [1.0, -1.0]


def test_ends_off_the_track_or_out_of_time():
    env, params = jaxenvs.make("CartPoleSwingup-bsuite", autoreset=False)
    assert play(env, params, [1], state=_state(x=2.9995, x_dot=1.0))["terminated"] == [True]
    assert play(env, params, [1], state=_state(time_elapsed=9.995))["terminated"] == [True]
    assert play(env, params, [1], state=_state())["terminated"] == [False]


def test_sweep_thresholds():
    _, params = jaxenvs.make("bsuite/cartpole_swingup/5", autoreset=False)
    assert params.height_threshold == 0.25 and params.x_reward_threshold == 0.75
    assert params.bsuite_num_episodes == 1_000
