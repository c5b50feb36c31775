from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct
from jax.experimental import checkify

import jaxenvs
from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState
from jaxenvs.testing import check_env
from jaxenvs.wrappers import Checked, ClipAction, FlattenObservation, LegacyStep, checked_jit


def test_legacy_step_five_tuple():
    env, params = jaxenvs.make("CartPole-v1", max_steps_in_episode=2)
    env = LegacyStep(env)
    _, state = env.reset(jax.random.key(0), params)
    out = jax.jit(env.step)(jax.random.key(1), state, 0, params)
    assert len(out) == 5
    out = jax.jit(env.step)(jax.random.key(2), out[1], 0, params)
    obs, state, reward, done, info = out
    assert bool(done) and bool(info["truncated"]) and not bool(info["terminated"])
    assert float(info["discount"]) == 1.0  # a truncation is not a termination


@struct.dataclass
class _DictState(EnvState):
    pos: jax.Array


class _DictObsEnv(Environment):
    """A tiny env with a dict observation and a Box action, for the wrappers."""

    @property
    def default_params(self):
        return EnvParams(max_steps_in_episode=10)

    def reset_env(self, key, params):
        state = _DictState(time=jnp.int32(0), pos=jnp.zeros(2))
        return self._obs(state), state

    def _obs(self, state):
        return {"pos": state.pos.astype(jnp.float32), "t": state.time}

    def step_env(self, key, state, action, params):
        state = state.replace(pos=state.pos + action, time=state.time + 1)
        reward = -jnp.sum(action**2)
        return self._obs(state), state, reward, jnp.any(jnp.abs(state.pos) > 5), {}

    def observation_space(self, params=None):
        return spaces.Dict({"pos": spaces.Box(-np.inf, np.inf, (2,)), "t": spaces.Discrete(11)})

    def action_space(self, params=None):
        return spaces.Box(-1.0, 1.0, (2,))


def test_flatten_observation():
    env = FlattenObservation(_DictObsEnv())
    check_env(env)
    space = env.observation_space()
    assert space.shape == (3,) and space.dtype == jnp.float32
    obs, state = env.reset(jax.random.key(0))
    obs, *_ = env.step(jax.random.key(0), state, jnp.ones(2) * 0.5)
    np.testing.assert_allclose(obs, [0.5, 0.5, 1.0])


class _UnsortedDictObsEnv(_DictObsEnv):
    """A Dict observation whose insertion order ("b", then "a") is not jax's sorted order;
    `dict_type` builds the observation (a plain dict, or an OrderedDict jax keeps in order)."""

    def __init__(self, dict_type=dict):
        self._dict_type = dict_type

    def _obs(self, state):
        b = jnp.full(3, 10.0) + state.time.astype(jnp.float32)  # in [10, 20]
        a = jnp.full(2, -2.0) + 0.1 * state.time.astype(jnp.float32)  # in [-2, -1]
        return self._dict_type([("b", b), ("a", a)])

    def observation_space(self, params=None):
        return spaces.Dict({"b": spaces.Box(10.0, 20.0, (3,)), "a": spaces.Box(-2.0, -1.0, (2,))})


@pytest.mark.parametrize("dict_type", [dict, OrderedDict], ids=["dict", "OrderedDict"])
def test_flatten_observation_dict_bounds_follow_the_values(dict_type):
    env = FlattenObservation(_UnsortedDictObsEnv(dict_type))
    space = env.observation_space()
    # jax's order: "a" (2 entries in [-2, -1]) before "b" (3 entries in [10, 20])
    np.testing.assert_array_equal(space.low, [-2, -2, 10, 10, 10])
    np.testing.assert_array_equal(space.high, [-1, -1, 20, 20, 20])
    obs, state = jax.jit(env.reset)(jax.random.key(0))
    np.testing.assert_allclose(obs, [-2, -2, 10, 10, 10])
    assert bool(space.contains(obs))
    step = jax.jit(env.step)
    for _ in range(3):
        obs, state, *_ = step(jax.random.key(0), state, jnp.zeros(2))
        assert bool(space.contains(obs)), obs
    np.testing.assert_allclose(obs, [-1.7, -1.7, 13, 13, 13], rtol=1e-6)
    check_env(env, num_steps=5)


def test_clip_action_clips_to_bounds():
    env = ClipAction(_DictObsEnv())
    _, state = env.reset(jax.random.key(0))
    obs, state, reward, *_ = jax.jit(env.step)(jax.random.key(0), state, jnp.array([3.0, -0.5]))
    np.testing.assert_allclose(obs["pos"], [1.0, -0.5])
    assert float(reward) == pytest.approx(-1.25)
    with pytest.raises(TypeError):
        ClipAction(jaxenvs.make("CartPole-v1")[0])


def test_checked_invalid_action_under_jit():
    env, params = jaxenvs.make("CartPole-v1")
    env = Checked(env)
    _, state = env.reset(jax.random.key(0), params)
    env.step(jax.random.key(0), state, 1, params)  # valid: no error

    def rollout(state, actions):
        def body(s, a):
            _, s, r, *_ = env.step(jax.random.key(0), s, a, params)
            return s, r

        return jax.lax.scan(body, state, actions)[1]

    run = checked_jit(rollout)
    assert run(state, jnp.array([0, 1, 0])).shape == (3,)
    with pytest.raises(
        checkify.JaxRuntimeError, match=r"CartPole: invalid action 5; valid actions are an integer in \[0, 1\]"
    ):
        run(state, jnp.array([0, 5, 0]))
    with pytest.raises(checkify.JaxRuntimeError, match="invalid action 7"):
        env.step(jax.random.key(0), state, jnp.int32(7), params)


class _NaNEnv(_DictObsEnv):
    def step_env(self, key, state, action, params):
        obs, state, reward, terminated, info = super().step_env(key, state, action, params)
        return obs, state, jnp.sqrt(action[0]), terminated, info  # NaN for a negative action


def test_checked_nan():
    env = Checked(_NaNEnv())
    _, state = env.reset(jax.random.key(0))
    env.step(jax.random.key(0), state, jnp.array([0.5, 0.0]))
    with pytest.raises(checkify.JaxRuntimeError, match="(?i)nan"):
        env.step(jax.random.key(0), state, jnp.array([-0.5, 0.0]))
    with pytest.raises(checkify.JaxRuntimeError, match="invalid action"):
        env.step(jax.random.key(0), state, jnp.array([jnp.nan, 0.0]))


def test_check_env_catches_a_broken_env():
    class Broken(_DictObsEnv):
        def step_env(self, key, state, action, params):
            obs, state, reward, terminated, info = super().step_env(key, state, action, params)
            return obs, state, reward.astype(jnp.float16), terminated, {"changes": state.time} if False else {}

        def reset_env(self, key, params):
            obs, state = super().reset_env(key, params)
            return obs, state.replace(pos=jax.random.normal(key, (2,)) * 0 + jax.random.uniform(jax.random.key(0)))

        def observation_space(self, params=None):
            return spaces.Dict({"pos": spaces.Box(-0.5, 0.5, (2,)), "t": spaces.Discrete(11)})

    with pytest.raises(AssertionError, match="not in"):
        check_env(Broken())
