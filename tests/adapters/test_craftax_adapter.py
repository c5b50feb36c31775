"""Craftax adapter (through from_gymnax; check_env: tests/test_conformance.py): render, and
make_vec at Craftax's own time limit (a truncation). Craftax's step compiles slowly on a CPU:
all slow, and as few programs as can be."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("craftax")

import jaxenvs  # noqa: E402

from .conftest import check_vec_autoreset, vec_rollout  # noqa: E402

ENV_ID = "craftax/Craftax-Classic-Symbolic-v1"


@pytest.mark.slow
def test_render(monkeypatch):
    # the pixel renderer (Craftax's textures: minutes the first time in an install) is built at
    # the first render, not by make
    from craftax.craftax_classic import renderer

    built = []
    make_renderer = renderer.make_craftax_pixel_renderer
    monkeypatch.setattr(renderer, "make_craftax_pixel_renderer", lambda *a: built.append(a) or make_renderer(*a))
    raw, params = jaxenvs.make(ENV_ID, autoreset=False)
    assert built == []
    assert raw.api == "0.x"
    img = jax.jit(lambda key: raw.render(raw.reset(key, params)[1], params))(jax.random.key(0))
    assert img.dtype == jnp.uint8 and img.ndim == 3 and img.shape[-1] == 3 and int(img.max()) > 0
    assert len(built) == 1


@pytest.mark.slow
def test_make_vec_autoresets_at_craftaxs_own_time_limit():
    # no PPO here (navix, xminigrid and gymnax train in theirs): compiling a training loop
    # around this step took most of a minute of `make test`, for the interface make_vec shows
    def limit_3(params):  # Craftax's own limit (its `done`), not jaxenvs' max_steps_in_episode
        return params.replace(env_params=params.env_params.replace(max_timesteps=3))

    outs = vec_rollout(ENV_ID, num_envs=2, num_steps=7, edit_params=limit_3)
    done = check_vec_autoreset(outs)
    _, terminated, truncated, info, _ = outs
    # Craftax's `done` at its time limit, told apart from dying
    assert np.asarray(truncated)[[2, 5]].all() and not np.asarray(terminated).any()
    assert done.sum() == 4 and (np.asarray(info["discount"]) == 1.0).all()
    assert "Achievements/collect_wood" in info
