import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.classic import acrobot
from jaxenvs.spaces import to_gymnasium
from tests.envs.classic.conftest import batch_reset, float_state

ENV_ID = "Acrobot-v1"


def _state(theta1, theta2, dtheta1=0.0, dtheta2=0.0, time=0, dtype=jnp.float32):
    fields = {"theta1": theta1, "theta2": theta2, "dtheta1": dtheta1, "dtheta2": dtheta2}
    return float_state(acrobot.AcrobotState, time, dtype, **fields)


def test_registration_and_spaces():
    env, params = jaxenvs.make(ENV_ID, autoreset=False)
    assert params.max_steps_in_episode == 500
    gym_space = to_gymnasium(env.observation_space(params))
    high = np.array([1, 1, 1, 1, 4 * np.pi, 9 * np.pi], np.float32)
    assert gym_space.dtype == np.float32 and np.array_equal(gym_space.high, high)
    assert np.array_equal(gym_space.low, -high)
    assert env.action_space(params).n == 3


def test_terminates_above_the_line_with_reward_zero():
    env, params = jaxenvs.make(ENV_ID, autoreset=False)
    step = jax.jit(env.step)
    key = jax.random.key(0)
    # both links pointing up: the tip is 2 m above the pivot, 1 m above the line
    _, state, reward, terminated, truncated, info = step(key, _state(np.pi - 0.05, 0.0), 1, params)
    assert bool(terminated) and not bool(truncated)
    assert float(reward) == 0.0 and float(info["discount"]) == 0.0
    assert bool(acrobot.is_terminal(state))
    # hanging down: -1 and on
    _, _, reward, terminated, _, _ = step(key, _state(0.0, 0.0), 2, params)
    assert not bool(terminated) and float(reward) == -1.0
    # the line itself is not above it: -cos(pi/2) - cos(pi) = 1 is not > 1
    assert not bool(acrobot.is_terminal(_state(np.pi / 2, np.pi / 2, dtype=jnp.float64)))


def test_wrap_matches_the_reference_loop():
    from gymnasium.envs.classic_control.acrobot import wrap as reference_wrap

    with jax.enable_x64(True):
        xs = np.random.default_rng(0).uniform(-11 * np.pi, 11 * np.pi, 2000)
        xs = np.concatenate([xs, [np.pi, -np.pi, 3 * np.pi, -3 * np.pi, 0.0]])
        mine = np.asarray(jax.jit(lambda x: acrobot.wrap(x, -np.pi, np.pi))(jnp.asarray(xs)))
        expected = np.array([reference_wrap(x, -np.pi, np.pi) for x in xs])
        assert np.array_equal(mine, expected)


def test_fast_spin_stays_wrapped_and_bounded():
    with jax.enable_x64(True):
        env, params = jaxenvs.make(ENV_ID, autoreset=False)
        state = _state(3.0, -3.0, 4 * np.pi, -9 * np.pi, dtype=jnp.float64)
        _, state, *_ = jax.jit(env.step)(jax.random.key(0), state, 2, params)
        for name in ("theta1", "theta2"):
            assert -np.pi <= float(getattr(state, name)) <= np.pi
        assert abs(float(state.dtheta1)) <= 4 * np.pi and abs(float(state.dtheta2)) <= 9 * np.pi


def test_torque_noise():
    env, params = jaxenvs.make(ENV_ID, autoreset=False)
    state = _state(0.1, 0.2, 0.3, 0.4)
    quiet = [env.step(jax.random.key(k), state, 1, params)[1].dtheta2 for k in (0, 1)]
    assert float(quiet[0]) == float(quiet[1])  # no noise: the key does not matter
    noisy = params.replace(torque_noise_max=0.5)
    outs = [env.step(jax.random.key(k), state, 1, noisy)[1].dtheta2 for k in (0, 1)]
    assert float(outs[0]) != float(outs[1])
    assert abs(float(outs[0]) - float(quiet[0])) < 0.5  # a perturbation, not a new action


def test_reset_is_float32_rounded_and_small():
    with jax.enable_x64(True):
        obs, states = batch_reset(ENV_ID, 256)
        assert states.theta1.dtype == jnp.float64 and obs.dtype == jnp.float32
        for name in ("theta1", "theta2", "dtheta1", "dtheta2"):
            x = np.asarray(getattr(states, name))
            assert np.array_equal(x, x.astype(np.float32).astype(np.float64))
            assert np.all(np.abs(x) <= 0.1)
        assert np.all(np.asarray(states.time) == 0)
