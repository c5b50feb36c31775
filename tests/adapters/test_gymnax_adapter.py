"""gymnax adapter: `from_gymnax` matches stepping gymnax directly, step for step; 0.x and 1.x
detected; spaces translated; `gymnax/<id>` under make_vec and PPO (check_env:
tests/test_conformance.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnax = pytest.importorskip("gymnax")

import jaxenvs  # noqa: E402
from jaxenvs import spaces  # noqa: E402
from jaxenvs.adapters import from_gymnax  # noqa: E402
from jaxenvs.adapters.gymnax import translate_space  # noqa: E402

from .conftest import check_vec_autoreset, ppo_few_updates, step_flags, vec_rollout  # noqa: E402


@pytest.mark.parametrize("env_id, max_steps", [("CartPole-v1", 15), ("Breakout-MinAtar", 8)])
def test_matches_gymnax_step_for_step(env_id, max_steps):
    """gymnax's own `step` (auto-reset, six-tuple) against the adapter's raw step; where gymnax
    resets, its new state is copied into the adapter's, so every step compares."""
    g_env, g_params = gymnax.make(env_id)
    g_params = g_params.replace(max_steps_in_episode=max_steps)
    env = from_gymnax(g_env, g_params)
    assert env.api == "1.x"
    params = env.default_params
    g_step, step = jax.jit(g_env.step), jax.jit(env.step)
    key = jax.random.PRNGKey(0)
    g_obs, g_state = g_env.reset(key, g_params)
    obs, state = env.reset(key, params)
    np.testing.assert_array_equal(np.asarray(obs), np.asarray(g_obs, np.float32))
    ends = {"terminated": 0, "truncated": 0}
    for i in range(3 * max_steps):
        key, k_act, k_step = jax.random.split(key, 3)
        action = g_env.action_space(g_params).sample(k_act)
        g_obs, g_state, g_reward, g_term, g_trunc, g_info = g_step(k_step, g_state, action, g_params)
        # gymnax hands the first half of its key to `step_env`
        obs, state, reward, term, trunc, info = step(jax.random.split(k_step)[0], state, action, params)
        np.testing.assert_array_equal(np.asarray(obs), np.asarray(g_info["final_observation"], np.float32))
        assert float(reward) == float(g_reward)
        assert (bool(term), bool(trunc)) == (bool(g_term), bool(g_trunc)), f"step {i}"
        ends["terminated"] += bool(term)
        ends["truncated"] += bool(trunc)
        if bool(g_term) or bool(g_trunc):
            state = state.replace(time=jnp.zeros((), jnp.int32), env_state=g_state)
        else:
            np.testing.assert_array_equal(np.asarray(obs), np.asarray(g_obs, np.float32))
    assert ends["truncated"] > 0, "the run never reached gymnax's time limit"


class LegacyCartPole(gymnax.environments.classic_control.CartPole):
    """gymnax 0.x's interface: a five-tuple `step` without auto-reset, `done` including the
    time limit."""

    def step_env(self, key, state, action, params):
        obs, state, reward, terminated, info = super().step_env(key, state, action, params)
        return obs, state, reward, terminated | (state.time >= params.max_steps_in_episode), info

    def step(self, key, state, action, params=None):
        return self.step_env(key, state, action, self.default_params if params is None else params)


def test_five_tuple_api_is_detected_and_its_time_limit_is_a_truncation():
    legacy = LegacyCartPole()
    env = from_gymnax(legacy, legacy.default_params.replace(max_steps_in_episode=3))
    assert env.api == "0.x"
    params = env.default_params
    flags, (_, state, *_) = step_flags(env, params, 1, 3)
    assert flags == [(False, False), (False, False), (False, True)]
    assert bool(env.truncation(state, params))
    # the pole past its threshold: done before the time limit is a termination
    _, state = env.reset(jax.random.key(0), params)
    state = state.replace(env_state=state.env_state.replace(theta=jnp.float32(0.5)))
    _, _, _, terminated, truncated, info = env.step(jax.random.key(0), state, 1, params)
    assert bool(terminated) and not bool(truncated) and float(info["discount"]) == 0.0


def test_spaces_translated():
    gs = gymnax.environments.spaces
    space = translate_space(
        gs.Dict({"pos": gs.Box(-1.0, 2.0, (3,), jnp.float32), "tag": gs.Discrete(4), "on": gs.Box(0, 1, (2,), bool)})
    )
    assert isinstance(space, spaces.Dict) and set(space.spaces) == {"pos", "tag", "on"}
    assert isinstance(space["tag"], spaces.Discrete) and space["tag"].n == 4
    assert space["pos"].shape == (3,) and (space["pos"].low == -1).all() and (space["pos"].high == 2).all()
    assert space["on"].dtype == jnp.bool_
    pair = translate_space(gs.Tuple([gs.Discrete(2), gs.Box(0.0, 1.0, (), jnp.float32)]))
    assert isinstance(pair, spaces.Tuple) and pair.spaces[1].shape == ()
    with pytest.raises(TypeError, match="no converter for builtins.object"):
        translate_space(object())


def test_bad_input():
    with pytest.raises(TypeError, match="has no reset_env"):
        from_gymnax(object())
    with pytest.raises(ValueError, match="api must be one of"):
        from_gymnax(LegacyCartPole(), api="2.x")
    env, params = jaxenvs.make("gymnax/CartPole-v1", autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    with pytest.raises(NotImplementedError, match="no jit-able render"):
        env.render(state, params)
    with pytest.raises(ValueError, match="gymnax has no env"):
        jaxenvs.adapters.gymnax.make_gymnax_env("CartPole-v0")


def test_make_vec_auto_resets_at_the_library_limit_and_ours():
    # gymnax's own limit (its params) and jaxenvs' (max_steps_in_episode), whichever comes first
    outs = vec_rollout("gymnax/CartPole-v1", num_envs=3, num_steps=12, max_steps_in_episode=5)
    done = check_vec_autoreset(outs)
    assert np.asarray(outs[2])[4].all() and done.sum() >= 6


@pytest.mark.slow
def test_ppo_trains():
    ppo_few_updates("gymnax/CartPole-v1")
