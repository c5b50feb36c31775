import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.toy_text import taxi
from jaxenvs.envs.toy_text.taxi import DROPOFF, EAST, NORTH, PICKUP, SOUTH, WEST, TaxiState
from tests.envs.toy_text.conftest import keyed_steps


def _state(row, col, pass_loc, dest, fickle=False, time=0):
    """A TaxiState, or a batch of them where the arguments are arrays (broadcast together)."""
    ints = jnp.broadcast_arrays(*(jnp.asarray(x, jnp.int32) for x in (row, col, pass_loc, dest, time)))
    row, col, pass_loc, dest, time = ints
    return TaxiState(
        time=time,
        taxi_row=row,
        taxi_col=col,
        pass_loc=pass_loc,
        dest_idx=dest,
        fickle_step=jnp.full(row.shape, fickle),
    )


def test_id_spaces_and_time_limit():
    env, params = jaxenvs.make("Taxi-v4")
    assert params.max_steps_in_episode == 200 and not params.is_rainy and not params.fickle_passenger
    assert env.observation_space(params) == jaxenvs.spaces.Discrete(500)
    assert env.action_space(params) == jaxenvs.spaces.Discrete(6)


def test_encode_decode_round_trip():
    s = jnp.arange(500)
    assert np.array_equal(np.asarray(taxi.encode(*taxi.decode(s))), np.arange(500))
    assert int(taxi.encode(jnp.int32(3), jnp.int32(1), jnp.int32(2), jnp.int32(0))) == ((3 * 5 + 1) * 5 + 2) * 4


@pytest.fixture(scope="module")
def dry():
    env, params = jaxenvs.make("Taxi-v4", autoreset=False)
    step = jax.jit(env.step)
    return lambda state, a, key=0: step(jax.random.key(key), state, a, params)


def test_illegal_pickup_and_dropoff_cost_ten(dry):
    # the passenger waits at G (0, 4); the taxi is at R (0, 0)
    obs, state, reward, terminated, _, info = dry(_state(0, 0, 1, 2), PICKUP)
    assert float(reward) == -10.0 and not bool(terminated) and int(state.pass_loc) == 1
    obs, state, reward, terminated, _, _ = dry(_state(2, 2, 1, 2), DROPOFF)  # nobody aboard
    assert float(reward) == -10.0 and int(state.pass_loc) == 1
    obs, state, reward, _, _, _ = dry(_state(2, 2, 4, 2), DROPOFF)  # aboard, but not at a stand
    assert float(reward) == -10.0 and int(state.pass_loc) == 4
    obs, state, reward, _, _, _ = dry(_state(0, 4, 4, 2), PICKUP)  # already aboard
    assert float(reward) == -10.0 and int(state.pass_loc) == 4


def test_pickup_and_delivery(dry):
    _, state, reward, terminated, _, _ = dry(_state(0, 4, 1, 2), PICKUP)
    assert int(state.pass_loc) == 4 and float(reward) == -1.0 and not bool(terminated)
    obs, state, reward, terminated, _, _ = dry(_state(4, 0, 4, 2), DROPOFF)  # Y is the destination
    assert float(reward) == 20.0 and bool(terminated) and int(state.pass_loc) == 2
    assert int(obs) == int(taxi.encode(jnp.int32(4), jnp.int32(0), jnp.int32(2), jnp.int32(2)))
    # dropped at another stand: the passenger waits there, -1
    _, state, reward, terminated, _, _ = dry(_state(4, 3, 4, 2), DROPOFF)
    assert float(reward) == -1.0 and not bool(terminated) and int(state.pass_loc) == 3


def test_walls_and_edges_block(dry):
    for (row, col), a in [
        ((0, 1), EAST),
        ((0, 2), WEST),
        ((3, 0), EAST),
        ((4, 2), EAST),
        ((0, 3), NORTH),
        ((4, 3), SOUTH),
        ((2, 4), EAST),
        ((2, 0), WEST),
    ]:
        _, state, reward, _, _, _ = dry(_state(row, col, 0, 1), a)
        assert (int(state.taxi_row), int(state.taxi_col)) == (row, col) and float(reward) == -1.0, (row, col, a)
    _, state, _, _, _, _ = dry(_state(2, 1, 0, 1), EAST)
    assert (int(state.taxi_row), int(state.taxi_col)) == (2, 2)


def test_action_mask_says_which_actions_change_the_state():
    env, params = jaxenvs.make("Taxi-v4", autoreset=False)
    states = _state(*taxi.decode(jnp.arange(500)))
    masks = np.asarray(jax.vmap(taxi.action_mask)(states))
    assert masks.dtype == bool and masks.shape == (500, 6)

    def one(state, a):
        obs, nxt, _, _, _, info = env.step(jax.random.key(0), state, a, params)
        return obs, info["action_mask"]

    for a in range(6):
        obs, next_masks = jax.jit(jax.vmap(one, in_axes=(0, None)))(states, a)
        changed = np.asarray(obs) != np.arange(500)
        assert np.array_equal(changed, masks[:, a]), f"action {a}"
        # info["action_mask"] is the mask of the state stepped into
        assert np.array_equal(
            np.asarray(next_masks),
            np.asarray(jax.vmap(taxi.action_mask)(_state(*taxi.decode(obs)))),
        )
    # the corners: R with the passenger waiting there and nobody aboard
    assert masks[int(taxi.encode(jnp.int32(0), jnp.int32(0), jnp.int32(0), jnp.int32(1)))].tolist() == [
        True,
        False,
        True,
        False,
        True,
        False,
    ]


def test_action_mask_in_info_at_every_step():
    env, params = jaxenvs.make("Taxi-v4")
    obs, state = env.reset(jax.random.key(0), params)

    def body(state, key):
        ka, ks = jax.random.split(key)
        obs, state, _, _, _, info = env.step(ks, state, jax.random.randint(ka, (), 0, 6), params)
        return state, info["action_mask"]

    _, masks = jax.jit(lambda s, ks: jax.lax.scan(body, s, ks))(state, jax.random.split(jax.random.key(1), 50))
    assert masks.shape == (50, 6) and masks.dtype == jnp.bool_


def test_reset_is_uniform_over_300_starts():
    env, params = jaxenvs.make("Taxi-v4", autoreset=False)
    obs, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), 30000), params)
    _, _, pass_loc, dest = (np.asarray(x) for x in taxi.decode(obs))
    assert np.all(pass_loc < 4) and np.all(pass_loc != dest)
    counts = np.bincount(np.asarray(obs), minlength=500)
    assert np.count_nonzero(counts) == 300
    assert counts.max() < 2 * counts[counts > 0].mean()
    assert not np.asarray(states.fickle_step).any()


def test_rain_pushes_sideways_but_never_through_walls():
    env, params = jaxenvs.make("Taxi-v4", autoreset=False, is_rainy=True)
    n = 4000
    step = keyed_steps(env, params, n, seed=2)

    def cells(state, a):
        _, nxt, reward, _, _, info = step(state, a)
        assert np.all(np.asarray(reward) == -1.0)
        cells = list(zip(np.asarray(nxt.taxi_row).tolist(), np.asarray(nxt.taxi_col).tolist()))
        return cells, np.asarray(info["prob"])

    # south from (2, 2): forward (3, 2) 0.8, left = east (2, 3), right = west (2, 1), 0.1 each
    out, prob = cells(_state(2, 2, 0, 1), SOUTH)
    freq = {c: out.count(c) / n for c in set(out)}
    assert set(freq) == {(3, 2), (2, 3), (2, 1)}
    assert abs(freq[(3, 2)] - 0.8) < 0.03 and abs(freq[(2, 3)] - 0.1) < 0.02
    # south from (0, 1): the east side is walled off, so that tenth stays put
    out, _ = cells(_state(0, 1, 0, 1), SOUTH)
    assert set(out) == {(1, 1), (0, 1), (0, 0)}
    # a blocked move stays put whatever the rain
    out, _ = cells(_state(0, 1, 0, 1), EAST)
    assert set(out) == {(0, 1)}


def test_fickle_passenger_changes_destination_once():
    env, params = jaxenvs.make("Taxi-v4", autoreset=False, fickle_passenger=True)
    n = 3000
    keys = jax.random.split(jax.random.key(4), n)
    step = keyed_steps(env, params, n, seed=4)
    # aboard, fickle, the taxi moves: a new destination, uniform over the other three
    _, nxt, _, _, _, _ = step(_state(2, 2, 4, 1, fickle=True), SOUTH)
    dest = np.asarray(nxt.dest_idx)
    assert set(np.unique(dest)) == {0, 2, 3} and not np.asarray(nxt.fickle_step).any()
    assert all(abs(np.mean(dest == d) - 1 / 3) < 0.04 for d in (0, 2, 3))
    # the taxi does not move (a wall), or the passenger is not aboard: nothing changes
    for state, a in [(_state(0, 1, 4, 1, fickle=True), EAST), (_state(2, 2, 0, 1, fickle=True), SOUTH)]:
        _, nxt, _, _, _, _ = step(state, a)
        assert np.all(np.asarray(nxt.dest_idx) == 1) and np.asarray(nxt.fickle_step).all()
    # not fickle (any more): nothing changes
    _, nxt, _, _, _, _ = step(_state(2, 2, 4, 1, fickle=False), SOUTH)
    assert np.all(np.asarray(nxt.dest_idx) == 1)
    # reset: fickle with probability fickle_probability
    _, states = jax.vmap(env.reset, in_axes=(0, None))(keys, params.replace(fickle_probability=0.5))
    assert abs(np.mean(np.asarray(states.fickle_step)) - 0.5) < 0.04


def test_render_follows_the_taxi():
    env, params = jaxenvs.make("Taxi-v4", autoreset=False)
    render = jax.jit(env.render)
    a = np.asarray(render(_state(2, 2, 0, 1), params))
    b = np.asarray(render(_state(2, 3, 4, 1), params))
    assert a.shape == (240, 240, 3) and a.dtype == np.uint8 and not np.array_equal(a, b)
    assert tuple(a[2 * 48 + 15, 2 * 48 + 15]) == taxi.TAXI and tuple(b[2 * 48 + 15, 2 * 48 + 15]) != taxi.TAXI
