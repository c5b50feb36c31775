"""Shared by the bsuite env tests."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

# parity size for tests: the harness's minimums (50 transitions, 200 samples, 20 episodes)
PARITY_SCALE = 0.01


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
