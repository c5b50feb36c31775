"""Every built-in env under `jax_enable_x64`: reset and step trace, and the state keeps its
dtypes across a step (a `lax.scan` over the step needs that). Traced with `jax.eval_shape`:
nothing is compiled. Taxi-v4 used to crash here (an int32 / int64 division)."""

import jax
import pytest

import jaxenvs
from jaxenvs.registry import registered_envs, spec

BUILT_IN = ("classic", "toy_text", "minatar", "bsuite", "misc")


def _distinct_builtin_ids():
    seen, ids = set(), []
    for env_id in registered_envs():
        s = spec(env_id)
        # bsuite's sweep ids are settings (params) of the base ids checked here
        if s.family not in BUILT_IN or "needs_download" in s.notes or env_id.startswith("bsuite/"):
            continue
        key = (str(s.entry_point), repr(sorted(s.env_kwargs.items())))
        if key not in seen:
            seen.add(key)
            ids.append(env_id)
    return ids


@pytest.mark.parametrize("env_id", _distinct_builtin_ids())
def test_reset_and_step_keep_their_dtypes_under_x64(env_id, mnist_data_dir):
    with jax.enable_x64(True):
        env, params = jaxenvs.make(env_id, autoreset=False)
        obs, state = jax.eval_shape(env.reset, jax.random.key(0), params)
        action = jax.eval_shape(env.action_space(params).sample, jax.random.key(1))
        out = jax.eval_shape(env.step, jax.random.key(2), state, action, params)
    before = [(path, leaf.dtype) for path, leaf in jax.tree_util.tree_leaves_with_path((obs, state))]
    after = [(path, leaf.dtype) for path, leaf in jax.tree_util.tree_leaves_with_path(out[:2])]
    changed = [(jax.tree_util.keystr(p), a, b) for (p, a), (_, b) in zip(before, after) if a != b]
    assert not changed, f"{env_id} under x64: dtypes change across a step: {changed}"
