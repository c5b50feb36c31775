"""Shared by the bsuite env tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.testing import check_env as _check_env

# parity size for tests: the harness's minimums (50 transitions, 200 samples, 20 episodes)
PARITY_SCALE = 0.01


def check_env(env, params, **kwargs) -> None:
    """`jaxenvs.testing.check_env` with chex's trace counters cleared first: check_env's
    post-loop `jit(traced)` call leaves a count of 1 behind, which fails the next check_env
    of the same env class called from the same place (its footprint is the call stack)."""
    chex.clear_trace_counter()
    _check_env(env, params, **kwargs)


def conformance(env_id: str) -> None:
    """check_env on the made env (with render) and on the raw env."""
    env, params = jaxenvs.make(env_id)
    check_env(env, params, check_render=True)
    raw, params = jaxenvs.make(env_id, autoreset=False)
    check_env(raw, params, num_steps=50)


def parity(env_id: str, **worst) -> None:
    """The env's parity suite passes at test size; `worst={prefix: bound}` bounds the state
    errors of the checks whose name starts with `prefix` ("f64", "episode")."""
    pytest.importorskip("bsuite")
    from jaxenvs.parity import run_parity

    result = run_parity(env_id, scale=PARITY_SCALE)
    assert result.passed, result.summary()
    for prefix, bound in worst.items():  # bounds the state fields (rewards are float32 by contract)
        errors = [
            c.value
            for c in result.checks
            if c.kind == "error" and c.name.startswith(prefix) and not c.name.endswith(("reward", "observation"))
        ]
        assert errors and max(errors) <= bound, result.summary()


def play(env, params, actions, state=None, key=0):
    """Step the raw env through `actions` under jit from `state` (or a reset); returns the
    observations, rewards, terminated flags and states after each step."""
    step = jax.jit(env.step)
    if state is None:
        _, state = env.reset(jax.random.key(key), params)
    out = {"obs": [], "reward": [], "terminated": [], "state": []}
    keys = jax.random.split(jax.random.key(key + 1), len(actions))
    for k, a in zip(keys, actions):
        obs, state, reward, terminated, truncated, _ = step(k, state, jnp.int32(a), params)
        assert not bool(truncated)
        out["obs"].append(np.asarray(obs))
        out["reward"].append(float(reward))
        out["terminated"].append(bool(terminated))
        out["state"].append(state)
    return out
