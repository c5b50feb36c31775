import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.minatar import _common


def test_all_five_games_are_registered_with_v0_and_v1():
    ids = set(jaxenvs.registered_envs("minatar"))
    for game in ("Asterix", "Breakout", "Freeway", "Seaquest", "SpaceInvaders"):
        assert {f"{game}-MinAtar", f"{game}-MinAtar-v0", f"{game}-MinAtar-v1"} <= ids
        assert jaxenvs.registry.spec(f"{game}-MinAtar-v1").params == {"use_minimal_action_set": True}
    from jaxenvs.parity import parity_ids

    checked = {i for i in parity_ids() if jaxenvs.spec(i).family == "minatar"}
    assert checked == {f"{g}-MinAtar" for g in ("Asterix", "Breakout", "Freeway", "Seaquest", "SpaceInvaders")}


@pytest.mark.parametrize(
    "game, env_id",
    [("breakout", "Breakout-MinAtar-v1"), ("freeway", "Freeway-MinAtar-v1"), ("asterix", "Asterix-MinAtar-v1")],
)
def test_minimal_action_sets_match_minatar(game, env_id):
    minatar = pytest.importorskip("minatar")
    env, params = jaxenvs.make(env_id)
    assert env.unwrapped.action_set(params) == tuple(minatar.Environment(game).minimal_action_set())
    assert env.action_space(params).n == len(minatar.Environment(game).minimal_action_set())


def test_action_mapping_and_clipping():
    full = _common.MinAtarParams()
    minimal = full.replace(use_minimal_action_set=True)
    assert int(_common.to_minatar_action(4, full, (0, 1, 3))) == 4
    assert int(_common.to_minatar_action(2, minimal, (0, 1, 3))) == 3
    assert int(_common.to_minatar_action(7, minimal, (0, 1, 3))) == 3  # clipped into the set
    assert int(_common.to_minatar_action(-1, full, (0, 1, 3))) == 0


def test_sticky_action_repeats_with_its_probability():
    u = jax.random.uniform(jax.random.key(0), (100_000,))
    executed = _common.apply_sticky(jnp.full(u.shape, 2), jnp.full(u.shape, 5), u, 0.1)
    assert abs(float(jnp.mean(executed == 5)) - 0.1) < 0.005
    assert set(np.unique(np.asarray(executed)).tolist()) == {2, 5}


def test_random_words_give_uniform_integers():
    bits = jax.random.bits(jax.random.key(0), (60_000,), jnp.uint32)
    for n in (1, 3, 5, 8):
        counts = np.bincount(np.asarray(_common.randint_from_bits(bits, n)), minlength=n)
        assert len(counts) == n and np.all(np.abs(counts / len(bits) - 1 / n) < 0.01)
    u = np.asarray(_common.uniform_from_bits(bits))
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.01


def test_palette_is_seaborn_cubehelix():
    sns = pytest.importorskip("seaborn")
    for n in (4, 6, 7, 10):
        ref = np.asarray(sns.color_palette("cubehelix", n))
        assert np.allclose(_common.palette(n)[1:], ref, atol=1e-12)
        assert np.array_equal(_common.palette(n)[0], [0.0, 0.0, 0.0])


def test_render_colours_each_cell_by_its_highest_channel():
    obs = jnp.zeros((10, 10, 3), bool).at[2, 3, 0].set(True).at[2, 3, 2].set(True).at[5, 5, 1].set(True)
    img = np.asarray(jax.jit(_common.render_observation)(obs))
    colours = _common.palette_uint8(3)
    assert np.array_equal(img[2 * 16, 3 * 16], colours[3]) and np.array_equal(img[5 * 16 + 15, 5 * 16], colours[2])
    assert np.array_equal(img[0, 0], colours[0])


def test_minatar_rgb_array_agrees_with_render():
    pytest.importorskip("minatar")
    from minatar.gym import BaseEnv

    from jaxenvs.envs.minatar import asterix
    from jaxenvs.envs.minatar.asterix.parity import GAME
    from jaxenvs.parity.collect import default_to_jax

    ref = BaseEnv("asterix", render_mode="rgb_array")
    ref.reset(seed=0)
    for _ in range(30):
        ref.step(3)
    env = asterix.Asterix()
    state = default_to_jax(env, env.default_params)(dict(GAME.read_state(ref.game), time=0, last_action=0), None)
    mine = np.asarray(env.render(state))[::16, ::16]
    assert np.array_equal(mine, np.round(np.asarray(ref.render()) * 255).astype(np.uint8))
