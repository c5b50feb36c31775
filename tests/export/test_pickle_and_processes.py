"""Every export pickles (pickle, cloudpickle, `copy.deepcopy`) by reconstruction, mid-episode,
and steps on exactly as the original; gymnasium's `AsyncVectorEnv` runs the exports in
spawned workers, and a forked worker gets a clear error instead of a hang."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import jaxenvs  # noqa: E402
from jaxenvs.export.gymnasium import JaxEnv, JaxVectorEnv  # noqa: E402

try:
    import cloudpickle
except ImportError:  # pragma: no cover - gymnasium depends on it
    cloudpickle = None

COPIES = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "cloudpickle": (lambda x: cloudpickle.loads(cloudpickle.dumps(x))) if cloudpickle else None,
    "deepcopy": copy.deepcopy,
}
COPY_IDS = [name for name, f in COPIES.items() if f is not None]


def _same_future(original, twin, act, steps: int = 4) -> None:
    """The two step alike (`act(i)` the i-th action), then reset alike from one seed."""
    for i in range(steps):
        assert data_equivalence(original.step(act(i)), twin.step(act(i)), exact=True), i


@pytest.mark.parametrize("how", COPY_IDS)
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "Breakout-MinAtar"])
def test_the_gymnasium_env_pickles_mid_episode(how, env_id):
    env = gymnasium.make(f"jaxenvs/{env_id}")  # TimeLimit, OrderEnforcing, PassiveEnvChecker around JaxEnv
    env.reset(seed=3)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(6)]
    env.step(actions[0])
    twin = COPIES[how](env)
    assert twin.unwrapped is not env.unwrapped and twin.spec == env.spec
    _same_future(env, twin, lambda i: actions[i + 1])
    assert data_equivalence(env.reset(seed=7), twin.reset(seed=7), exact=True)
    assert data_equivalence(env.step(actions[5]), twin.step(actions[5]), exact=True)


def test_a_fresh_gymnasium_env_pickles_and_a_raw_env_with_overrides_too():
    raw, params = jaxenvs.make("CartPole-v1", autoreset=False)
    for env in (JaxEnv("CartPole-v1"), JaxEnv(raw, params, max_steps_in_episode=7, render_mode="rgb_array")):
        twin = pickle.loads(pickle.dumps(env))  # before any reset: no state to carry
        assert twin.params == env.params and twin.render_mode == env.render_mode
        assert data_equivalence(env.reset(seed=1), twin.reset(seed=1), exact=True)
        _same_future(env, twin, lambda i: i % 2, steps=8)
        if env.render_mode:
            np.testing.assert_array_equal(env.render(), twin.render())


@pytest.mark.parametrize("how", COPY_IDS)
@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.value)
def test_the_gymnasium_vector_env_pickles_mid_episode(how, mode):
    envs = gymnasium.make_vec("jaxenvs/CartPole-v1", 3, autoreset_mode=mode)
    envs.reset(seed=[0, 1, 2])
    for _ in range(12):  # through some episode ends
        envs.step(np.array([1, 1, 1]))
    twin = COPIES[how](envs)
    assert isinstance(twin, JaxVectorEnv) and twin.spec == envs.spec
    _same_future(envs, twin, lambda i: np.array([i % 2, 1, 0]), steps=6)
    assert data_equivalence(envs.reset(seed=5), twin.reset(seed=5), exact=True)


@pytest.mark.parametrize("how", COPY_IDS)
def test_the_sb3_vec_env_pickles_mid_episode(how):
    pytest.importorskip("stable_baselines3")
    from jaxenvs.export.sb3 import JaxSB3VecEnv

    cases = [
        (JaxSB3VecEnv("CartPole-v1", 3, seed=4), lambda i: np.full(3, i % 2)),
        (JaxSB3VecEnv("Pendulum-v1", 2, max_steps_in_episode=5), lambda i: np.ones((2, 1))),
    ]
    for envs, act in cases:
        envs.seed(9)
        envs.reset()
        envs.step(act(0))
        twin = COPIES[how](envs)
        _same_future(envs, twin, act, steps=7)  # Pendulum's episodes of 5 steps end in there
        envs.seed(2)
        twin.seed(2)
        assert data_equivalence(envs.reset(), twin.reset(), exact=True)


@pytest.mark.parametrize("how", COPY_IDS)
def test_the_dm_env_pickles_mid_episode(how):
    pytest.importorskip("dm_env")
    from jaxenvs.export.dm_env import JaxDmEnv

    env = JaxDmEnv("CartPole-v1", seed=2, max_steps_in_episode=6)
    env.reset()
    env.step(1)
    twin = COPIES[how](env)
    for i in range(8):  # the episode ends, and a step after LAST starts the next
        assert data_equivalence(tuple(env.step(i % 2)), tuple(twin.step(i % 2)), exact=True), i
    assert data_equivalence(tuple(env.reset()), tuple(twin.reset()), exact=True)


@pytest.mark.parametrize("how", COPY_IDS)
@pytest.mark.parametrize(
    "env_id, step_api",
    [("CartPole-v1", "gymnax1"), ("Breakout-MinAtar", "gymnax0"), ("MountainCarContinuous-v0", "gymnax1")],
)
def test_the_gymnax_export_pickles_after_it_stepped(how, env_id, step_api):
    pytest.importorskip("gymnax")
    import jax

    from jaxenvs.export import gymnax as jaxenvs_gymnax

    env, params = jaxenvs_gymnax.make(env_id, step_api=step_api)
    if env.supports_transition_gradients:  # gymnax's copy.copy: its flag travels in the pickle
        env = env.with_transition_gradients()
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    actions = [env.action_space(params).sample(jax.random.key(i)) for i in range(4)]
    env.step(key, state, actions[0], params)  # builds (and caches) its compiled reset rule
    twin = COPIES[how](env)
    assert twin == env and hash(twin) == hash(env) and repr(twin) == repr(env)
    assert twin.transition_gradients_enabled == env.transition_gradients_enabled
    for i in range(1, 4):
        k = jax.random.fold_in(key, i)
        ours, theirs = env.step(k, state, actions[i], params), twin.step(k, state, actions[i], params)
        leaves = zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs))
        assert all(np.array_equal(a, b) for a, b in leaves), i
        state = ours[1]


# --- processes ------------------------------------------------------------------------------------

RUN = os.path.join(os.path.dirname(__file__), "async_run.py")


def _run(*args: str, timeout: float) -> str:
    """`async_run.py` in a fresh interpreter; its output (a timeout fails the test: a hang)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    try:
        out = subprocess.run(
            [sys.executable, RUN, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=root
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"async_run.py {' '.join(args)} hung for {timeout} s: {e.stdout!r} {e.stderr!r}")
    return out.stdout + out.stderr


# 20 runs start 40 interpreters (JAX imported, the env compiled in each): about five minutes on
# 2 cores, more than `make test` affords; JAXENVS_TEST_GYMNASIUM_ASYNC=1 runs them
TWENTY_RUNS = pytest.mark.skipif(
    os.environ.get("JAXENVS_TEST_GYMNASIUM_ASYNC") != "1",
    reason="20 runs of spawned workers: JAXENVS_TEST_GYMNASIUM_ASYNC=1 runs them",
)


@pytest.mark.parametrize(
    "runs", [pytest.param(2, id="2 runs"), pytest.param(20, id="20 runs", marks=[pytest.mark.slow, TWENTY_RUNS])]
)
def test_gymnasium_async_vector_env_with_spawned_workers_runs_and_never_hangs(runs):
    # each run: 2 spawned workers, reset, 5 steps equal to the one-process env's, close
    out = _run("spawn", str(runs), timeout=60 + 45 * runs)
    assert all(f"run {i} ok" in out for i in range(runs)), out[-3000:]


def test_gymnasium_async_vector_env_with_forked_workers_is_a_clear_error_not_a_hang():
    # gymnasium's default start method on Linux: the worker dies naming context="spawn" (its
    # traceback on stderr), and the parent's first call to it raises (the worker is gone)
    out = _run("fork", "3", timeout=120)
    assert "RuntimeError: CartPole-v1: a jaxenvs export is used in a process forked after JAX started" in out, out
    assert 'vector_kwargs={"context": "spawn"}' in out
    assert "parent error: " in out and "run 0 ok" not in out, out[-3000:]


def test_an_env_made_before_a_fork_refuses_to_step_in_the_child():
    out = _run("fork-step", "1", timeout=120)
    assert "child: RuntimeError: CartPole: a jaxenvs export is used in a process forked" in out, out
    assert "parent steps on" in out, out
