import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import cartpole
from tests.envs.bsuite.bsuite_test_helpers import play


def _state(**kw):
    base = dict(time=jnp.int32(0), x=0.0, x_dot=0.0, theta=0.0, theta_dot=0.0, time_elapsed=0.0)
    base.update(kw)
    return cartpole.CartPoleState(
        **{k: jnp.asarray(v, jnp.int32 if k == "time" else jnp.float32) for k, v in base.items()}
    )


def test_three_actions_push_left_nothing_right():
    env, params = jaxenvs.make("CartPole-bsuite", autoreset=False)
    x_dot = [float(play(env, params, [a], state=_state())["state"][0].x_dot) for a in (0, 1, 2)]
    assert x_dot[0] < 0 and x_dot[1] == 0.0 and x_dot[2] > 0


def test_reward_while_upright_and_ends_when_it_falls_or_time_runs_out():
    env, params = jaxenvs.make("CartPole-bsuite", autoreset=False)
    ok = play(env, params, [1], state=_state(theta=0.1))
    assert ok["reward"] == [1.0] and ok["terminated"] == [False]
    fallen = play(env, params, [1], state=_state(theta=0.7))  # cos(0.7) < 0.8
    assert fallen["reward"] == [0.0] and fallen["terminated"] == [True]
    off_track = play(env, params, [1], state=_state(x=2.999, x_dot=1.0))
    assert off_track["terminated"] == [True]
    late = play(env, params, [1], state=_state(time_elapsed=9.995))
    assert late["reward"] == [1.0] and late["terminated"] == [True]
    assert play(env, params, [1], state=_state(time_elapsed=9.985))["terminated"] == [False]
    assert params.max_steps_in_episode > 1001  # bsuite ends the episode, not the time limit


def test_angle_wraps_and_observation_layout():
    env, params = jaxenvs.make("CartPole-bsuite", autoreset=False)
    out = play(env, params, [1], state=_state(theta=0.0, theta_dot=-0.5, x=1.5, time_elapsed=5.0))
    theta = float(out["state"][0].theta)
    assert 0.0 <= theta < 2 * np.pi and theta == pytest.approx(2 * np.pi - 0.005, abs=1e-5)
    obs = out["obs"][0]
    assert obs.shape == (1, 6) and obs.dtype == np.float32
    assert obs[0, 0] == pytest.approx(0.5) and obs[0, 5] == pytest.approx(0.501)
    assert obs[0, 3] == pytest.approx(np.cos(theta))
