import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs import spaces
from jaxenvs.spaces import to_gymnasium
from jaxenvs.testing import check_env
from jaxenvs.wrappers import FrameStackObservation
from tests.wrappers.replay import ReplayEnv, rollout, split_episodes


@pytest.mark.parametrize(
    "env_id, autoreset, padding_type",
    [("CartPole-v1", True, "reset"), ("CartPole-v1", False, "zero"), ("FrozenLake-v1", True, "zero")],
)
def test_check_env(env_id, autoreset, padding_type):
    env, params = jaxenvs.make(env_id, autoreset=autoreset)
    check_env(FrameStackObservation(env, 3, padding_type=padding_type), params, num_steps=40)


def test_check_env_image_observations():
    env, params = jaxenvs.make("Breakout-MinAtar")
    wrapped = FrameStackObservation(env, 2)
    assert wrapped.observation_space(params).shape == (2, *env.observation_space(params).shape)
    check_env(wrapped, params, num_steps=20)


def gymnasium_frames(episodes, space, stack_size, padding_type, num_steps):
    """gymnasium's FrameStackObservation over a replay of the episodes, reset by hand after each
    end: per step, the observation its terminal `step` returns and the one the caller holds next."""
    env = gymnasium.wrappers.FrameStackObservation(ReplayEnv(episodes, space), stack_size, padding_type=padding_type)
    first, _ = env.reset()
    stepped, held = [], []
    for _ in range(num_steps):
        obs, _, te, tr, _ = env.step(0)
        stepped.append(obs)
        held.append(env.reset()[0] if te or tr else obs)
    return first, np.stack(stepped), np.stack(held)


@pytest.mark.parametrize("padding_type", ["reset", "zero"])
def test_matches_gymnasium_under_autoreset(padding_type):
    """A finished episode's stack ends in its terminal observation (`final_observation`); the next
    episode's starts fresh, as gymnasium's wrapper does across a manual reset."""
    env, params = jaxenvs.make("CartPole-v1", max_steps_in_episode=15)
    num_steps, stack_size = 60, 4
    reset_obs, (obs, reward, terminated, truncated, info) = rollout(env, params, num_steps)
    assert terminated.any() and truncated.any()

    wrapped = FrameStackObservation(env, stack_size, padding_type=padding_type)
    w_reset, (w_obs, _, _, _, w_info) = rollout(wrapped, params, num_steps)

    episodes = split_episodes(reset_obs, obs, reward, terminated, truncated, info["final_observation"])
    space = to_gymnasium(env.observation_space(params))
    first, stepped, held = gymnasium_frames(episodes, space, stack_size, padding_type, num_steps)
    np.testing.assert_array_equal(w_reset, first)
    np.testing.assert_array_equal(w_info["final_observation"], stepped)
    np.testing.assert_array_equal(w_obs, held)


def test_batched_stacks_are_per_env():
    """Over make_vec every env keeps its own stack: each equals gymnasium's over that env's episodes."""
    num_envs, num_steps, stack_size = 4, 40, 3
    venv, params = jaxenvs.make_vec("CartPole-v1", num_envs, max_steps_in_episode=12)
    reset_obs, (obs, reward, terminated, truncated, info) = rollout(venv, params, num_steps, num_envs=num_envs)
    wrapped = FrameStackObservation(venv, stack_size)
    w_reset, (w_obs, _, _, _, w_info) = rollout(wrapped, params, num_steps, num_envs=num_envs)
    assert w_obs.shape == (num_steps, num_envs, stack_size, 4)
    space = to_gymnasium(venv.observation_space(params))
    for i in range(num_envs):
        col = (obs[:, i], reward[:, i], terminated[:, i], truncated[:, i], info["final_observation"][:, i])
        episodes = split_episodes(reset_obs[i], *col)
        first, stepped, held = gymnasium_frames(episodes, space, stack_size, "reset", num_steps)
        np.testing.assert_array_equal(w_reset[i], first)
        np.testing.assert_array_equal(w_info["final_observation"][:, i], stepped)
        np.testing.assert_array_equal(w_obs[:, i], held)


def test_spaces_and_custom_padding():
    env, params = jaxenvs.make("FrozenLake-v1")
    wrapped = FrameStackObservation(env, 4, padding_type=jnp.int32(0))
    assert wrapped.observation_space(params) == spaces.MultiDiscrete([16] * 4)
    obs, _ = wrapped.reset(jax.random.key(0), params)
    np.testing.assert_array_equal(obs, [0, 0, 0, 0])


def test_bad_input():
    env, _ = jaxenvs.make("CartPole-v1")
    with pytest.raises(ValueError, match="stack_size must be >= 1"):
        FrameStackObservation(env, 0)
    with pytest.raises(TypeError, match="stack_size must be an int"):
        FrameStackObservation(env, 2.0)
    with pytest.raises(ValueError, match=r"padding_type must be one of \('reset', 'zero'\)"):
        FrameStackObservation(env, 2, padding_type="same")
    with pytest.raises(ValueError, match="nor an observation in"):
        FrameStackObservation(env, 2, padding_type=jnp.zeros(3))
