import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.minatar import freeway

ENV_ID = "Freeway-MinAtar"


def test_spaces_and_action_sets():
    env, params = jaxenvs.make("Freeway-MinAtar-v1")
    assert env.observation_space(params).shape == (10, 10, 7)
    assert env.action_space(params).n == 3 and env.unwrapped.action_set(params) == (0, 2, 4)


def _state(cars_x=None, speeds=None, **kw):
    speeds = jnp.asarray([1] * 8 if speeds is None else speeds, jnp.int32)
    s = freeway.initial_state(freeway.CarDraws(speeds=jnp.abs(speeds), directions=jnp.sign(speeds)))
    if cars_x is not None:
        s = s.replace(cars=s.cars.at[:, freeway.X].set(jnp.asarray(cars_x, jnp.int32)))
    return s.replace(**{k: jnp.asarray(v, jnp.int32) for k, v in kw.items()})


def test_reaching_the_top_scores_resets_the_chicken_and_redraws_speeds(stepper):
    step, params = stepper
    state = _state(cars_x=[0] * 8, pos=1, move_timer=0)
    obs, nxt, reward, terminated, _, _ = step(jax.random.key(3), state, 2, params)  # u
    assert float(reward) == 1.0 and not bool(terminated)
    assert int(nxt.pos) == 9 and bool(obs[9, 4, 0])
    speeds = np.asarray(nxt.cars[:, freeway.SPEED])
    assert set(np.abs(speeds).tolist()) <= {1, 2, 3, 4, 5} and not np.all(speeds == 1)
    # redrawn timers equal |speed|, minus this step's countdown (cars with timer 0 moved)
    assert np.all(np.asarray(nxt.cars[:, freeway.TIMER]) == np.abs(speeds) - 1)


def test_chicken_moves_once_every_three_steps(stepper):
    step, params = stepper
    state = _state(cars_x=[0] * 8, move_timer=0)
    rows = []
    for i in range(7):
        _, state, _, _, _, _ = step(jax.random.key(i), state, 2, params)
        rows.append(int(state.pos))
    assert rows == [8, 8, 8, 7, 7, 7, 6]


def test_a_car_sends_the_chicken_back(stepper):
    step, params = stepper
    # car of row 5 (index 4) sits on the chicken's column
    x = [0] * 8
    x[4] = 4
    _, nxt, reward, _, _, _ = step(jax.random.key(0), _state(cars_x=x, pos=5, move_timer=1), 0, params)
    assert int(nxt.pos) == 9 and float(reward) == 0.0
    # a car arriving on the chicken's cell after its move hits it too
    x[4] = 3
    state = _state(cars_x=x, speeds=[1] * 8, pos=5, move_timer=1).replace(
        cars=_state(cars_x=x).cars.at[:, freeway.TIMER].set(0)
    )
    _, nxt, _, _, _, _ = step(jax.random.key(0), state, 0, params)
    assert int(nxt.pos) == 9 and int(nxt.cars[4, freeway.X]) == 4


def test_cars_move_every_speed_steps_and_wrap(stepper):
    step, params = stepper
    state = _state(cars_x=[9] * 8, speeds=[1, -1, 2, -2, 3, -3, 5, -5]).replace(
        cars=_state(cars_x=[9] * 8, speeds=[1, -1, 2, -2, 3, -3, 5, -5]).cars.at[:, freeway.TIMER].set(0)
    )
    xs = []
    for i in range(6):
        _, state, _, _, _, _ = step(jax.random.key(i), state, 0, params)
        xs.append(np.asarray(state.cars[:, freeway.X]).tolist())
    # MinAtar's countdown: a car moves when its timer is 0, then waits |speed| steps
    assert [x[0] for x in xs] == [0, 0, 1, 1, 2, 2]  # speed 1: every 2nd step, wrapping 9 -> 0
    assert [x[3] for x in xs] == [8, 8, 8, 7, 7, 7]  # speed -2: every 3rd step, leftward
    assert [x[6] for x in xs] == [0, 0, 0, 0, 0, 0]  # speed 5: every 6th step
    obs = freeway.get_obs(state)
    assert bool(obs[1, 2, 1]) and bool(obs[1, 1, 2]) and bool(obs[4, 8, 3])  # cars, speed1 and speed2 trails


def test_episode_lasts_2501_steps_and_ends_terminated():
    env, params = jaxenvs.make("Freeway-MinAtar", autoreset=False)
    _, state = env.reset(jax.random.key(0), params)

    def body(carry, k):
        state, ended_at = carry
        _, state, _, te, tr, _ = env.step(k, state, 0, params)
        return (state, jnp.where((ended_at < 0) & te, state.time, ended_at)), tr

    (state, ended_at), truncated = jax.jit(
        lambda s: jax.lax.scan(body, (s, jnp.int32(-1)), jax.random.split(jax.random.key(1), 2600))
    )(state)
    assert int(ended_at) == 2501 and not bool(truncated.any())
