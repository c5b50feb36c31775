"""Helpers shared by the adapter tests: a vmapped, logged, auto-resetting rollout."""

import jax
import numpy as np
import pytest

from jaxenvs.wrappers import LogWrapper


def logged_rollout(env, params, num_envs=4, num_steps=64, seed=0, policy=None):
    """Run `LogWrapper(env)` (env auto-resets) under `jax.vmap` in a jitted `lax.scan`.

    `policy(key, obs, state) -> action` for one env; default: samples the action space.
    Returns the stacked `(obs, reward, terminated, truncated, info)`, leading axes
    `[num_steps, num_envs]`.
    """
    logged = LogWrapper(env)
    space = env.action_space(params)
    if policy is None:

        def policy(key, obs, state):
            return space.sample(key)

    def one_step(key, state, obs):
        k_act, k_step = jax.random.split(key)
        action = policy(k_act, obs, state)
        obs, state, reward, terminated, truncated, info = logged.step(k_step, state, action, params)
        return state, obs, (obs, reward, terminated, truncated, info)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        obs, state = jax.vmap(logged.reset, in_axes=(0, None))(jax.random.split(k_reset, num_envs), params)

        def body(carry, k):
            state, obs = carry
            state, obs, out = jax.vmap(one_step)(jax.random.split(k, num_envs), state, obs)
            return (state, obs), out

        _, outs = jax.lax.scan(body, (state, obs), jax.random.split(k_run, num_steps))
        return outs

    return jax.jit(run)(jax.random.key(seed))


def check_logged_rollout(outs):
    """What auto-reset and the log wrapper promise, checked on a rollout's outputs."""
    obs, reward, terminated, truncated, info = outs
    done = np.asarray(terminated | truncated)
    assert np.array_equal(np.asarray(info["returned_episode"]), done), "LogWrapper missed an episode end"
    assert np.array_equal(np.asarray(info["final_terminated"]), np.asarray(terminated))
    # the observation the episode ended on is kept; where nothing ended it is the returned one
    for o, f in zip(jax.tree_util.tree_leaves(obs), jax.tree_util.tree_leaves(info["final_observation"])):
        o, f = np.asarray(o), np.asarray(f)
        assert o.shape == f.shape
        same = (o == f).reshape(o.shape[0], o.shape[1], -1).all(-1)
        assert same[~done].all(), "final_observation differs from obs on a step that did not end"
    assert np.asarray(reward).dtype == np.float32
    return done


@pytest.fixture
def rollout():
    return logged_rollout


@pytest.fixture
def check_rollout():
    return check_logged_rollout


def vec_rollout(env_id, num_envs=3, num_steps=12, seed=0, edit_params=None, **overrides):
    """`make_vec(env_id, num_envs, **overrides)` under random actions in a jitted `lax.scan`,
    its params passed through `edit_params` if given.

    Returns `(obs, terminated, truncated, info, time)`, leading axes `[num_steps, num_envs]`;
    `time` is each env's `state.time` after the step.
    """
    import jaxenvs

    venv, params = jaxenvs.make_vec(env_id, num_envs, **overrides)
    params = params if edit_params is None else edit_params(params)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        obs, state = venv.reset(k_reset, params)

        def body(state, k):
            k_act, k_step = jax.random.split(k)
            obs, state, _, terminated, truncated, info = venv.step(k_step, state, venv.sample_actions(k_act), params)
            return state, (obs, terminated, truncated, info, state.time)

        return jax.lax.scan(body, state, jax.random.split(k_run, num_steps))[1]

    return jax.jit(run)(jax.random.key(seed))


def check_vec_autoreset(outs):
    """What make_vec's auto-reset promises, on `vec_rollout`'s outputs; returns `done`."""
    obs, terminated, truncated, info, time = outs
    done = np.asarray(terminated | truncated)
    assert np.array_equal(np.asarray(info["final_terminated"]), np.asarray(terminated))
    assert np.array_equal(np.asarray(info["final_truncated"]), np.asarray(truncated))
    assert (np.asarray(time)[done] == 0).all(), "an env that finished was not reset"
    assert (np.asarray(time)[~done] > 0).all()
    for o, f in zip(jax.tree_util.tree_leaves(obs), jax.tree_util.tree_leaves(info["final_observation"])):
        o, f = np.asarray(o), np.asarray(f)
        same = (o == f).reshape(o.shape[0], o.shape[1], -1).all(-1)
        assert same[~done].all(), "final_observation differs from obs on a step that did not end"
    return done


def step_flags(env, params, action, num_steps):
    """`num_steps` jitted steps of `env` from `reset(key(0))`, each under `action` with key(i).

    Returns `(flags, last)`: each step's `(terminated, truncated)` as bools, and the last step's
    `(obs, state, reward, terminated, truncated, info)`.
    """
    step = jax.jit(env.step)
    _, state = env.reset(jax.random.key(0), params)
    flags = []
    for i in range(num_steps):
        last = step(jax.random.key(i), state, action, params)
        state = last[1]
        flags.append((bool(last[3]), bool(last[4])))
    return flags, last


def ppo_few_updates(env_id, num_updates=2, num_envs=4, num_steps=16):
    """examples/ppo.py on `env_id` at a tiny size; returns its per-update metrics (one seed)."""
    import importlib.util
    import sys
    from pathlib import Path

    pytest.importorskip("optax")
    path = Path(__file__).resolve().parents[2] / "examples" / "ppo.py"
    spec = importlib.util.spec_from_file_location("example_ppo_adapters", path)
    ppo = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = ppo
    spec.loader.exec_module(ppo)
    argv = ["--env", env_id, "--num-envs", str(num_envs), "--num-steps", str(num_steps)]
    argv += ["--total-timesteps", str(num_updates * num_envs * num_steps), "--num-minibatches", "2"]
    argv += ["--update-epochs", "1", "--quiet"]
    metrics = ppo.main(argv)
    loss = np.asarray(metrics["loss"])
    assert loss.shape == (1, num_updates), loss.shape
    assert np.isfinite(loss).all(), loss
    return metrics
