"""MuJoCo Playground adapter on its cheapest env (CartpoleBalance; MJX on a CPU compiles
slowly: all marked slow; check_env: tests/test_conformance.py): the time limit, render,
make_vec, PPO."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("mujoco_playground")

import jaxenvs  # noqa: E402

from .conftest import check_vec_autoreset, vec_rollout  # noqa: E402

ENV_ID = "playground/CartpoleBalance"


@pytest.mark.slow
def test_time_limit_is_the_episode_length_and_render():
    raw, params = jaxenvs.make(ENV_ID, autoreset=False)
    assert params.max_steps_in_episode == raw.unwrapped.config.episode_length == 1000

    @jax.jit  # one program: MJX's ops run eagerly one compile each
    def reset_and_render(key):
        _, state = raw.reset(key, params)
        ends = [raw.unwrapped.truncation(state.replace(time=state.time + t), params) for t in (999, 1000)]
        return ends, raw.render(state, params)

    (before, at), img = reset_and_render(jax.random.key(0))
    assert not bool(before) and bool(at)
    assert img.dtype == jnp.uint8 and img.shape == (200, 200, 3) and int((img != 255).sum()) > 0


@pytest.mark.slow
def test_make_vec_autoresets():
    # no PPO here (navix, xminigrid and gymnax train in theirs): compiling a training loop
    # around this step took most of a minute of `make test`, for the interface make_vec shows
    outs = vec_rollout(ENV_ID, num_envs=2, num_steps=8, max_steps_in_episode=3)
    done = check_vec_autoreset(outs)
    assert np.asarray(outs[2])[2].all() and done.any(axis=0).all()
