"""Every built-in env renders: `uint8[H, W, 3]`, under `jit` and `vmap`, and the picture
changes when the state does (between two resets, or, where those look the same, along random
steps).

Ids: one per env class and construction arguments of the built-in families (an id that differs
from another only in its params, as MinAtar's `-v0` and `-v1`, draws with the same code), except
bsuite's sweep ids (`bsuite/<experiment>/<n>`: hundreds of settings of the same envs, the
`_noise` and `_scale` experiments behind wrappers that pass `render` through): of those only
`bsuite/catch_noise/0` and `bsuite/catch_scale/0` are drawn, for the two wrappers. An id whose
`make` fails for missing data (MNIST not downloaded) is skipped.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.registry import BUILT_IN_FAMILIES
from tests.conftest import compiled_per_id

FAMILIES = BUILT_IN_FAMILIES
STEPS = 12


def _ids():
    ids, builds = [], set()
    for family in FAMILIES:
        for env_id in jaxenvs.registered_envs(family):
            if "/" in env_id and env_id not in ("bsuite/catch_noise/0", "bsuite/catch_scale/0"):
                continue
            if not compiled_per_id(env_id):
                continue
            s = jaxenvs.spec(env_id)
            build = (str(s.entry_point), repr(sorted(s.env_kwargs.items())))  # params do not draw
            if build not in builds:
                builds.add(build)
                ids.append(env_id)
    return ids


def _without_time(state):
    """The state's leaves except the step counters, keys as their raw data."""
    leaves = []
    for path, leaf in jax.tree_util.tree_flatten_with_path(state)[0]:
        if getattr(path[-1], "name", None) == "time":
            continue
        if jnp.issubdtype(jnp.asarray(leaf).dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        leaves.append(np.asarray(leaf))
    return leaves


def _changes_shown(states, frames):
    """`(states that differ from the first, those of them whose picture differs too)`, indices."""
    leaves = _without_time(states)
    state_changed = [i for i in range(1, len(frames)) if any(not np.array_equal(leaf[i], leaf[0]) for leaf in leaves)]
    return state_changed, [i for i in state_changed if (frames[i] != frames[0]).any()]


@pytest.mark.parametrize("env_id", _ids())
def test_render(env_id):
    try:
        env, params = jaxenvs.make(env_id)
    except (ImportError, FileNotFoundError, OSError) as e:
        pytest.skip(f"{env_id}: {type(e).__name__}: {e}")
    action_space = env.action_space(params)

    @jax.jit
    def starts_and_frames(key):
        _, starts = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, STEPS + 2)[:2], params)
        return starts, jax.vmap(lambda s: env.render(s, params))(starts)

    @jax.jit
    def states_and_frames(key):
        keys = jax.random.split(key, STEPS + 2)
        _, starts = jax.vmap(env.reset, in_axes=(0, None))(keys[:2], params)  # one reset compiled
        state, other_start = (jax.tree_util.tree_map(lambda x, i=i: x[i], starts) for i in range(2))

        def body(state, key):
            k_act, k_step = jax.random.split(key)
            _, state, *_ = env.step(k_step, state, action_space.sample(k_act), params)
            return state, state

        _, visited = jax.lax.scan(body, state, keys[2:])
        states = jax.tree_util.tree_map(
            lambda a, b, c: jnp.concatenate([a[None], b[None], c]), state, other_start, visited
        )
        return states, jax.vmap(lambda s: env.render(s, params))(states)

    # two resets first: where they differ in state and picture, the steps' program (a second
    # compile of the env) is not needed
    states, frames = starts_and_frames(jax.random.key(0))
    if not _changes_shown(states, np.asarray(frames))[1]:
        states, frames = states_and_frames(jax.random.key(0))
    frames = np.asarray(frames)
    assert frames.dtype == np.uint8, f"{env_id}: render gives {frames.dtype}, not uint8"
    assert frames.ndim == 4 and frames.shape[-1] == 3, f"{env_id}: render gives {frames.shape[1:]}"
    height, width = frames.shape[1:3]
    assert height >= 8 and width >= 8, f"{env_id}: a {height}x{width} picture"

    first = jax.tree_util.tree_map(lambda x: x[0], states)
    single = np.asarray(jax.jit(lambda s: env.render(s, params))(first))
    assert single.shape == (height, width, 3) and single.dtype == np.uint8
    np.testing.assert_array_equal(single, frames[0])
    # params=None is the env's defaults (the params make built), raw or wrapped
    np.testing.assert_array_equal(np.asarray(jax.jit(env.render)(first)), single)
    np.testing.assert_array_equal(np.asarray(jax.jit(env.unwrapped.render)(first)), single)

    state_changed, picture_changed = _changes_shown(states, frames)
    if not state_changed:
        pytest.skip(f"{env_id}: no state change in {STEPS} random steps or two resets")
    assert picture_changed, (
        f"{env_id}: the state changed ({len(state_changed)} of {len(frames) - 1} states differ from "
        "the first) but every picture is identical"
    )
