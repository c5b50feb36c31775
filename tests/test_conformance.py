"""`jaxenvs.testing.check_env` over every registered id (gymnasium's tests/envs/test_envs.py
does the same for every spec): the made env (auto-reset) and the raw env. (Rendering:
tests/test_render.py.)

- bsuite's 468 sweep ids are the ten base envs with other settings: one id per experiment,
  and of the `_noise`/`_scale` experiments (a reward wrapper on a base env) Catch's only;
- the gymnax, Craftax, Playground, XLand-MiniGrid and NAVIX families run one adapter over
  many ids of one library: the ids in `tests.conftest.CONFORMANCE_SAMPLE` (the registrations'
  representative ids) only; brax's, jumanji's and pgx's other ids (each its own task code) are traced, as the
  slow ids below;
- adapter ids run where their library is installed, auto-reset env only and short (compiling
  the library's step is what costs; the raw step runs inside the auto-reset one); what
  `jaxenvs.registry.availability` says cannot run here is skipped (a missing extra, a
  download), except that ids failing inside their library are expected to fail (strictly, so a
  fix upstream is noticed). Ids whose library step takes minutes to
  compile on a CPU (the registry's "slow on CPU" note: brax physics, chess, shogi, ...) are
  traced, not compiled, here: the raw env's reset and step under `jax.eval_shape`, their shapes and dtypes
  checked against the spaces; the full `check_env` of those (and of every
  sampled-out jumanji and pgx id) runs with JAXENVS_TEST_SLOW_ENVS=1 (on a 2-core CPU it
  would take most of CI's 20 minutes alone);
- MNISTBandit reads a small generated data set.
"""

from __future__ import annotations

import os

import pytest

import jaxenvs
from jaxenvs.registry import BROKEN_UPSTREAM, availability
from jaxenvs.testing import check_env
from tests.conftest import CONFORMANCE_SAMPLE

# sampled families whose other ids are traced rather than left out: every brax, jumanji and pgx
# task is its own code, while gymnax, Craftax, Playground, XLand-MiniGrid and NAVIX ids share theirs
TRACED_FAMILIES = ("brax", "jumanji", "pgx")


# of a traced family's sample, the first ones get the full check_env, the rest are traced
FULL_CHECKS_PER_TRACED_FAMILY = 3


# bsuite's `_noise` and `_scale` experiments are their base env behind one reward wrapper each:
# the wrappers are checked on Catch's (the base envs on their own ids)
_WRAPPED = ("_noise", "_scale")


def _ids() -> list:
    ids, experiments, builds = [], set(), set()
    for env_id in jaxenvs.registered_envs():
        s = jaxenvs.spec(env_id)
        if s.batch_native:
            continue  # a batch of emulators, make_vec only: tests/adapters/test_ale.py
        marks = []
        if env_id.startswith("bsuite/"):
            experiment = s.env_kwargs["experiment"]
            if experiment in experiments or (experiment.endswith(_WRAPPED) and not experiment.startswith("catch")):
                continue
            experiments.add(experiment)
        # an id registered exactly as another (MinAtar's `-v0` and its base id) is the same env
        build = (str(s.entry_point), repr(sorted(s.env_kwargs.items())), repr(sorted(s.params.items())))
        if build in builds:
            continue
        builds.add(build)
        sample = CONFORMANCE_SAMPLE.get(s.family)
        traced = "slow_on_cpu" in s.notes
        if sample is not None and env_id not in sample:
            if s.family not in TRACED_FAMILIES:
                continue
            traced = True
        if s.family in TRACED_FAMILIES and sample is not None and env_id in sample[FULL_CHECKS_PER_TRACED_FAMILY:]:
            traced = True
        available = availability(env_id)
        if available.kind == BROKEN_UPSTREAM:
            marks.append(pytest.mark.xfail(reason=available.reason, strict=True))
        elif not available.runnable:
            marks.append(
                pytest.mark.skip(reason=f"needs {available.install}" if available.install else available.reason)
            )
        if traced:
            marks.append(pytest.mark.slow)
            if not os.environ.get("JAXENVS_TEST_SLOW_ENVS"):
                ids.append(pytest.param(env_id, marks=marks, id=f"{env_id}-traced"))
                continue
        ids.append(pytest.param(env_id, marks=marks, id=env_id))
    return ids


@pytest.mark.parametrize("env_id", _ids())
def test_check_env(env_id, mnist_data_dir, request):
    if request.node.callspec.id.endswith("-traced"):
        return _traced(env_id)
    adapted = jaxenvs.spec(env_id).extra is not None
    size = dict(num_steps=10, num_envs=2) if adapted else dict(num_steps=50)
    env, params = jaxenvs.make(env_id)
    check_env(env, params, **size)  # render: tests/test_render.py, under jit and vmap
    if not adapted:
        # no vmap check of its own: the made env's vmaps the raw reset and step inside AutoReset
        raw, params = jaxenvs.make(env_id, autoreset=False)
        check_env(raw, params, num_envs=0, **size)


def _traced(env_id):
    """Reset and step of the raw env traced by `jax.eval_shape`: observation shapes and dtypes
    against the space, scalar float32 reward, boolean flags, `discount` in the info. (The
    auto-reset wrapper only selects between two observations of these shapes.)"""
    import jax
    import jax.numpy as jnp

    env, params = jaxenvs.make(env_id, autoreset=False)
    obs_space, action_space = env.observation_space(params), env.action_space(params)
    space_shapes = jax.eval_shape(obs_space.sample, jax.random.key(0))  # traced: eager sampling compiles per op

    def matches(obs, where):
        shapes = jax.tree_util.tree_map(lambda x: (x.shape, x.dtype), space_shapes)
        got = jax.tree_util.tree_map(lambda x: (x.shape, x.dtype), obs)
        assert got == shapes, f"{env_id}: {where} observation {got} differs from its space's {shapes}"

    obs, state = jax.eval_shape(env.reset, jax.random.key(0), params)
    matches(obs, "reset")
    action = jax.eval_shape(action_space.sample, jax.random.key(1))
    obs, _, reward, terminated, truncated, info = jax.eval_shape(env.step, jax.random.key(2), state, action, params)
    matches(obs, "step")
    assert (reward.shape, reward.dtype) == ((), jnp.float32)
    assert terminated.dtype == truncated.dtype == jnp.bool_
    assert "discount" in info
