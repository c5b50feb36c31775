"""Craftax adapter (through from_gymnax; check_env: tests/test_conformance.py): its time limit
as a truncation, render, make_vec, PPO. Craftax's step compiles slowly on a CPU: all slow."""

import jax
import jax.numpy as jnp
import pytest

pytest.importorskip("craftax")

import jaxenvs  # noqa: E402

from .conftest import check_vec_autoreset, vec_rollout  # noqa: E402

ENV_ID = "craftax/Craftax-Classic-Symbolic-v1"


@pytest.mark.slow
def test_time_limit_and_render():
    raw, params = jaxenvs.make(ENV_ID, autoreset=False)
    assert raw.api == "0.x"
    params = params.replace(env_params=params.env_params.replace(max_timesteps=3))

    @jax.jit  # one program: reset, three noop steps, render
    def run(key):
        _, state = raw.reset(key, params)

        def body(state, k):
            _, state, _, terminated, truncated, info = raw.step(k, state, 0, params)  # 0: noop
            return state, (terminated, truncated, info)

        state, (terminated, truncated, info) = jax.lax.scan(body, state, jax.random.split(key, 3))
        return terminated, truncated, info, raw.render(state, params)

    terminated, truncated, info, img = run(jax.random.key(0))
    # Craftax's `done` at its time limit, told apart from dying
    flags = [(bool(a), bool(b)) for a, b in zip(terminated, truncated)]
    assert flags == [(False, False), (False, False), (False, True)]
    assert float(info["discount"][-1]) == 1.0 and "Achievements/collect_wood" in info
    assert img.dtype == jnp.uint8 and img.ndim == 3 and img.shape[-1] == 3 and int(img.max()) > 0


@pytest.mark.slow
def test_make_vec_autoresets():
    # no PPO here (navix, xminigrid and gymnax train in theirs): compiling a training loop
    # around this step took most of a minute of `make test`, for the interface make_vec shows
    done = check_vec_autoreset(vec_rollout(ENV_ID, num_envs=2, num_steps=6, max_steps_in_episode=3))
    assert done.any(axis=0).all()
