"""The wrapper contract: used through reset/step only, one delegation for every wrapper
(VecEnv included), a public way to find a layer, params defaulted in one place."""

import pickle

import jax
import jax.numpy as jnp
import pytest

import jaxenvs
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.wrappers import AutoReset, FlattenObservation, LogWrapper, VecEnv, Wrapper, find_wrapper


@pytest.mark.parametrize("method", ["reset_env", "step_env", "start_observation"])
def test_a_wrapper_cannot_be_bypassed(method):
    """A wrapper offers the runtime interface only: an author's hook of the env inside is not
    passed through, and the optional capabilities of a layer that changes observations are None."""
    raw, params = jaxenvs.make("Blackjack-v1", autoreset=False)
    env = FlattenObservation(raw)
    with pytest.raises(AttributeError, match=f"FlattenObservation is a wrapper: {method} is an env author's hook"):
        getattr(env, method)
    assert env.truncation is None and env.observe is None and env.is_terminal is None
    assert raw.truncation is not None and raw.observe is not None
    obs, state = env.reset(jax.random.key(0), params)
    assert obs.shape == (3,)  # the wrapper's observation, never the raw tuple
    obs, *_ = env.step(jax.random.key(1), state, 0, params)
    assert obs.shape == (3,)


def test_find_wrapper_walks_the_public_stack():
    env, params = jaxenvs.make("CartPole-v1")  # AutoReset over the raw env
    logged = LogWrapper(env)
    assert find_wrapper(logged, AutoReset) is env
    assert find_wrapper(logged, LogWrapper) is logged
    assert find_wrapper(logged, VecEnv) is None
    assert find_wrapper(env.unwrapped, AutoReset) is None
    venv, _ = jaxenvs.make_vec("CartPole-v1", 4)
    assert isinstance(venv, Wrapper) and find_wrapper(LogWrapper(venv), VecEnv) is venv
    assert venv.env.unwrapped is venv.unwrapped


def test_wrappers_pickle_without_recursing():
    env, _ = jaxenvs.make("CartPole-v1", max_steps_in_episode=7)
    again = pickle.loads(pickle.dumps(LogWrapper(env)))
    assert again.default_params.max_steps_in_episode == 7 and again.name == env.name


class _Counter(Environment):
    """Counts up; checks that every params-taking method sees params, never None."""

    @property
    def default_params(self):
        return EnvParams(max_steps_in_episode=3)

    def reset_env(self, key, params):
        assert params is not None
        return jnp.zeros(()), EnvState(time=jnp.zeros((), jnp.int32))

    def step_env(self, key, state, action, params):
        assert params is not None
        state = EnvState(time=state.time + 1)
        return state.time.astype(jnp.float32), state, jnp.float32(1.0), jnp.asarray(False), {}

    @defaults_params
    def observation_space(self, params=None):
        assert params is not None
        return jaxenvs.spaces.Box(0, 10, (), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        assert params is not None
        return jaxenvs.spaces.Discrete(2)


def test_params_default_in_one_place():
    env = _Counter()
    obs, state = env.reset(jax.random.key(0))
    assert env.observation_space().contains(obs) and env.action_space().n == 2
    for t in range(3):
        obs, state, _, terminated, truncated, _ = env.step(jax.random.key(0), state, 0)
        assert bool(truncated) == (t == 2) and not bool(terminated)
    # a wrapper with other defaults passes its own down, positionally or by keyword
    wrapped = jaxenvs.wrappers.RegisteredDefaults(env, EnvParams(max_steps_in_episode=1))
    _, state = wrapped.reset(jax.random.key(0))
    assert bool(wrapped.step(jax.random.key(0), state, 0)[4])
    assert bool(wrapped.step(jax.random.key(0), state, 0, params=None)[4])
    assert not bool(wrapped.step(jax.random.key(0), state, 0, EnvParams(max_steps_in_episode=5))[4])


def test_truncation_is_asked_of_the_env():
    class EndsAtTwo(_Counter):
        def truncation(self, state, params):
            return state.time >= 2

    env = EndsAtTwo()
    _, state = env.reset(jax.random.key(0))
    flags = []
    for _ in range(2):
        _, state, _, _, truncated, info = env.step(jax.random.key(0), state, 0)
        flags.append(bool(truncated))
        assert "_library_truncated" not in info
    assert flags == [False, True]
