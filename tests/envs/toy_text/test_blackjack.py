import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.toy_text import blackjack
from jaxenvs.envs.toy_text.blackjack import HIT, STICK, BlackjackState


def _state(player, dealer):
    return BlackjackState(
        time=jnp.int32(0),
        player_sum=jnp.int32(sum(player)),
        player_has_ace=jnp.bool_(1 in player),
        player_num_cards=jnp.int32(len(player)),
        dealer_card=jnp.int32(dealer[0]),
        dealer_sum=jnp.int32(sum(dealer)),
        dealer_has_ace=jnp.bool_(1 in dealer),
        dealer_num_cards=jnp.int32(len(dealer)),
    )


def test_id_defaults_and_tuple_spaces():
    env, params = jaxenvs.make("Blackjack-v1")
    assert params.sab and not params.natural and params.max_steps_in_episode == 2**31 - 1
    space = env.observation_space(params)
    assert space == jaxenvs.spaces.Tuple(
        (jaxenvs.spaces.Discrete(32), jaxenvs.spaces.Discrete(11), jaxenvs.spaces.Discrete(2))
    )
    assert env.action_space(params) == jaxenvs.spaces.Discrete(2)
    obs, _ = env.reset(jax.random.key(0), params)
    assert isinstance(obs, tuple) and all(o.dtype == jnp.int32 and o.shape == () for o in obs)
    assert bool(space.contains(obs))


@pytest.fixture(scope="module")
def stick():
    env, params = jaxenvs.make("Blackjack-v1", autoreset=False)
    step = jax.jit(env.step)

    def run(player, dealer, **rules):
        return step(jax.random.key(0), _state(player, dealer), STICK, params.replace(**rules))

    return run


def test_natural_pays_one_and_a_half_when_natural(stick):
    # the dealer holds 17 and draws nothing
    _, _, reward, terminated, _, _ = stick((1, 10), (10, 7), sab=False, natural=True)
    assert float(reward) == 1.5 and bool(terminated)
    _, _, reward, _, _, _ = stick((1, 10), (10, 7), sab=False, natural=False)
    assert float(reward) == 1.0
    # sab overrides natural: a natural wins +1
    _, _, reward, _, _, _ = stick((1, 10), (10, 7), sab=True, natural=True)
    assert float(reward) == 1.0
    # a three-card 21 is no natural
    _, _, reward, _, _, _ = stick((5, 6, 10), (10, 7), sab=False, natural=True)
    assert float(reward) == 1.0


def test_natural_against_the_dealer(stick):
    # both natural: a draw, under every rule
    for rules in (dict(sab=True), dict(sab=False, natural=True)):
        _, _, reward, _, _, _ = stick((1, 10), (1, 10), **rules)
        assert float(reward) == 0.0
    # sab: a natural beats a dealer's three-card 21; otherwise a draw
    _, _, reward, _, _, _ = stick((1, 10), (5, 6, 10), sab=True)
    assert float(reward) == 1.0
    _, _, reward, _, _, _ = stick((1, 10), (5, 6, 10), sab=False, natural=True)
    assert float(reward) == 0.0


def test_stick_compares_hands(stick):
    assert float(stick((10, 8), (10, 7))[2]) == 1.0
    assert float(stick((10, 7), (10, 8))[2]) == -1.0
    assert float(stick((10, 8), (10, 8))[2]) == 0.0
    assert float(stick((10, 8), (10, 2, 10))[2]) == 1.0  # dealer bust
    obs, _, _, _, _, _ = stick((1, 6), (10, 9))  # a soft 17 is observed as 17 with a usable ace
    assert tuple(int(o) for o in obs) == (17, 10, 1)


def test_hit_busts_with_minus_one():
    env, params = jaxenvs.make("Blackjack-v1", autoreset=False)
    keys = jax.random.split(jax.random.key(5), 2000)
    obs, state, reward, terminated, _, _ = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))(
        keys, _state((10, 10), (10, 5)), HIT, params
    )
    total = np.asarray(obs[0])
    bust = total > 21
    assert np.array_equal(np.asarray(terminated), bust)
    assert np.all(np.asarray(reward)[bust] == -1.0) and np.all(np.asarray(reward)[~bust] == 0.0)
    assert set(np.unique(total[~bust])) == {21}  # only an ace saves 20
    assert abs(bust.mean() - 12 / 13) < 0.03
    assert np.all(np.asarray(state.player_num_cards) == 3)


def test_aces_count_eleven_while_they_fit():
    assert [int(x) for x in blackjack.hand_value(jnp.int32(7), jnp.bool_(True))] == [17, 1]
    assert [int(x) for x in blackjack.hand_value(jnp.int32(12), jnp.bool_(True))] == [12, 0]
    assert [int(x) for x in blackjack.hand_value(jnp.int32(11), jnp.bool_(True))] == [21, 1]
    assert bool(blackjack.is_natural(jnp.int32(11), jnp.bool_(True), jnp.int32(2)))
    assert not bool(blackjack.is_natural(jnp.int32(11), jnp.bool_(True), jnp.int32(3)))


def test_dealer_draws_to_seventeen():
    cards = jnp.asarray([2, 1, 10, 10, 10, 10, 10, 10, 10, 10], jnp.int32)
    # 14 draws a 2 (16), then an ace (17, the ace counting 1): two draws
    total, ace, n = blackjack.dealer_play(jnp.int32(14), jnp.bool_(False), jnp.int32(2), cards)
    assert (int(total), bool(ace), int(n)) == (17, True, 4)
    # a soft 17 stands
    total, ace, n = blackjack.dealer_play(jnp.int32(7), jnp.bool_(True), jnp.int32(2), cards)
    assert (int(total), int(n)) == (7, 2)
    # 2 + 2: four 2s reach 12, then aces one by one to 17: nine draws
    cards = jnp.asarray([2, 2, 2, 2, 1, 1, 1, 1, 1, 10], jnp.int32)
    total, ace, n = blackjack.dealer_play(jnp.int32(4), jnp.bool_(False), jnp.int32(2), cards)
    assert (int(total), int(n)) == (17, 11)


def test_ten_dealer_draws_always_suffice():
    """The longest dealer draw, over every starting hand and card sequence, is MAX_DEALER_DRAWS."""

    def longest(total, ace):
        value = total + 10 if ace and total + 10 <= 21 else total
        if value >= 17:
            return 0
        return 1 + max(longest(total + c, ace or c == 1) for c in range(1, 11))

    deals = [(a, b) for a in range(1, 11) for b in range(1, 11)]
    assert max(longest(a + b, 1 in (a, b)) for a, b in deals) == blackjack.MAX_DEALER_DRAWS


def test_deal_matches_an_infinite_deck():
    env, params = jaxenvs.make("Blackjack-v1", autoreset=False)
    _, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(jax.random.key(0), 26000), params)
    card = np.asarray(states.dealer_card)
    counts = np.bincount(card, minlength=11)[1:]
    np.testing.assert_allclose(counts[:9] / len(card), 1 / 13, atol=0.006)
    np.testing.assert_allclose(counts[9] / len(card), 4 / 13, atol=0.01)
    assert np.all(np.asarray(states.player_num_cards) == 2)


def test_render_shows_the_sums():
    env, params = jaxenvs.make("Blackjack-v1", autoreset=False)
    render = jax.jit(env.render)
    a = np.asarray(render(_state((10, 9), (1, 5)), params))
    b = np.asarray(render(_state((10, 2), (1, 5)), params))
    c = np.asarray(render(_state((10, 9), (7, 5)), params))
    assert a.shape == (160, 240, 3) and a.dtype == np.uint8
    assert not np.array_equal(a, b) and not np.array_equal(a, c)
