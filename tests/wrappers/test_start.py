"""`reset_to_level` through every wrapper that changes `reset`: the same meaning as its `reset`,
`state=` continuing a run, and `Checked` guarding the levels it is given."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify

import jaxenvs
from jaxenvs.levels import Level, apply_level
from jaxenvs.wrappers import (
    AutoReset,
    Checked,
    ClipAction,
    FlattenObservation,
    FrameStackObservation,
    LegacyStep,
    LogWrapper,
    NormalizeObservation,
    NormalizeReward,
    PixelObservation,
    TransformObservation,
    TransformReward,
    Wrapper,
    checked_jit,
)
from jaxenvs.wrappers.normalize import RunningMeanStd

N = 4


def same(a, b) -> bool:
    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b) and all(
        np.array_equal(x, y) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b))
    )


def close(a, b) -> bool:
    """Equal trees up to float32 rounding (a jitted program against the same one run eagerly)."""
    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b) and all(
        np.allclose(x, y, rtol=1e-6, atol=1e-6)
        for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b))
    )


def _double(obs):
    return 2.0 * obs


# each wrapper of jaxenvs.wrappers over an env of the kind it goes on: (name, id, batched, wrap)
STACKS = [
    ("LogWrapper", "CartPole-v1", True, LogWrapper),
    ("LogWrapper", "CartPole-v1", False, LogWrapper),
    ("NormalizeObservation", "CartPole-v1", True, NormalizeObservation),
    ("NormalizeObservation", "CartPole-v1", False, NormalizeObservation),
    ("NormalizeReward", "CartPole-v1", True, NormalizeReward),
    ("FrameStackObservation", "CartPole-v1", True, lambda env: FrameStackObservation(env, 3)),
    ("FrameStackObservation", "CartPole-v1", False, lambda env: FrameStackObservation(env, 3, padding_type="zero")),
    ("TransformObservation", "CartPole-v1", True, lambda env: TransformObservation(env, _double)),
    ("FlattenObservation", "Blackjack-v1", False, FlattenObservation),
    ("TransformReward", "CartPole-v1", True, lambda env: TransformReward(env, _double)),
    ("ClipAction", "Pendulum-v1", True, ClipAction),
    ("LegacyStep", "CartPole-v1", True, LegacyStep),
    ("Checked", "CartPole-v1", True, Checked),
    ("the PLR stack", "CartPole-v1", True, lambda env: LogWrapper(NormalizeObservation(env))),
]


@pytest.mark.parametrize(
    "name, env_id, batched, wrap", STACKS, ids=[f"{s[0]}-{'vec' if s[2] else 'one'}" for s in STACKS]
)
def test_reset_to_level_means_what_reset_means(name, env_id, batched, wrap):
    """From the states `reset(key)` gives below the wrapper, `reset_to_level` is exactly `reset(key)`."""
    env, params = jaxenvs.make_vec(env_id, N) if batched else jaxenvs.make(env_id)
    key = jax.random.key(5)
    _, below = env.reset(key, params)
    wrapped = wrap(env)
    assert same(wrapped.reset_to_level(key, Level(state=below), params), wrapped.reset(key, params)), name


def test_pixel_observation_of_a_level_is_its_first_state_under_its_settings():
    raw, params = jaxenvs.make("CartPole-v1", autoreset=False)
    env = AutoReset(PixelObservation(raw, shape=(40, 60)))
    key = jax.random.key(1)
    _, below = raw.reset(key, params)
    assert same(env.reset_to_level(key, Level(state=below), params), env.reset(key, params))
    level = Level(settings={"length": jnp.float32(2.0)}, state=below)
    obs, state = jax.jit(env.reset_to_level)(key, level, params)
    assert np.array_equal(obs, PixelObservation(raw, shape=(40, 60)).pixels(below, apply_level(params, level)))
    assert not np.array_equal(obs, env.reset(key, params)[0])  # a pole four times longer


def test_frame_stack_fills_its_stack_from_the_levels_first_observation():
    venv, params = jaxenvs.make_vec("CartPole-v1", N, replay_levels=True)
    levels = Level(settings={"length": jnp.array([0.3, 0.6, 0.9, 1.2], jnp.float32)})
    key = jax.random.key(2)
    first, _ = venv.reset_to_level(key, levels, params)
    stack, state = FrameStackObservation(venv, 3).reset_to_level(key, levels, params)
    assert stack.shape == (N, 3, 4) and all(np.array_equal(stack[:, i], first) for i in range(3))
    assert same(state.env_state.level, levels)


def test_reset_to_level_with_state_continues_what_each_layer_keeps():
    """A PLR loop's next rollout: the running statistics and the step counter go on, the
    running episodes' counters start at zero; without `state=` everything starts afresh."""
    venv, params = jaxenvs.make_vec("CartPole-v1", N, replay_levels=True, max_steps_in_episode=5)
    env = LogWrapper(NormalizeReward(NormalizeObservation(venv)))
    levels = Level(settings={"length": jnp.array([0.3, 0.6, 0.9, 1.2], jnp.float32)})
    _, state = env.reset_to_level(jax.random.key(0), levels, params)
    step = jax.jit(env.step)
    for t in range(9):
        _, state, *_ = step(jax.random.key(10 + t), state, jnp.ones(N, jnp.int32), params)
    assert int(state.timestep[0]) == 9 and bool((state.returned_episode_lengths == 5).all())
    new_levels = Level(settings={"length": jnp.array([1.5, 1.0, 0.5, 0.25], jnp.float32)})
    key = jax.random.key(1)
    obs, kept = jax.jit(env.reset_to_level)(key, new_levels, params, state=state)
    first, _ = venv.reset_to_level(key, new_levels, params)
    rms = state.env_state.env_state.obs_rms.update(first)
    assert close(kept.env_state.env_state.obs_rms, rms)
    np.testing.assert_allclose(obs, (first - rms.mean) / np.sqrt(rms.var + 1e-8), rtol=1e-6)
    assert same(kept.env_state.return_rms, state.env_state.return_rms)
    assert not kept.env_state.discounted_reward.any()
    assert same(kept.timestep, state.timestep) and same(kept.returned_episode_returns, state.returned_episode_returns)
    assert not kept.episode_returns.any() and not kept.episode_lengths.any()
    assert same(kept.env_state.env_state.env_state.level, new_levels)
    _, fresh = env.reset_to_level(key, new_levels, params)
    assert float(fresh.env_state.env_state.obs_rms.count) == pytest.approx(N + 1e-4)
    assert not fresh.timestep.any() and same(fresh.env_state.return_rms, RunningMeanStd.create())


def test_state_that_cannot_reach_a_layer_that_keeps_statistics_is_an_error():
    venv, params = jaxenvs.make_vec("CartPole-v1", N, replay_levels=True)
    env = LogWrapper(Wrapper(NormalizeObservation(venv)))  # a layer of one's own that passes no state
    levels = Level(settings={"length": jnp.full(N, 0.7, jnp.float32)})
    _, state = env.reset_to_level(jax.random.key(0), levels, params)
    with pytest.raises(TypeError, match="Wrapper does not pass reset_to_level's state= on to the NormalizeObservation"):
        env.reset_to_level(jax.random.key(1), levels, params, state=state)


def _bad_length(key):
    return Level(settings={"length": -jax.random.uniform(key, (N,))})


def test_checked_make_vec_reset_to_level_guards_its_levels_on_every_path():
    venv, params = jaxenvs.make_vec("CartPole-v1", N, replay_levels=True)
    checked = Checked(LogWrapper(NormalizeObservation(venv)))
    good = Level(settings={"length": jnp.array([0.3, 0.6, 0.9, 1.2], jnp.float32)})
    key = jax.random.key(0)
    obs, state = checked.reset_to_level(key, good, params)
    assert close((obs, state), LogWrapper(NormalizeObservation(venv)).reset_to_level(key, good, params))
    obs, state, *_ = checked.step(jax.random.key(1), state, jnp.zeros(N, jnp.int32), params)
    bad = Level(settings={"length": jnp.array([0.5, 0.5, 0.5, jnp.nan], jnp.float32)})
    with pytest.raises(ValueError, match=r"length.*valid.*a finite real > 0.0"):  # concrete: called from Python
        checked.reset_to_level(key, bad, params)

    def traced(key):  # a level from a sampler or a buffer, inside the user's jitted code
        return checked.reset_to_level(key, _bad_length(key), params)[0]

    with pytest.raises(checkify.JaxRuntimeError, match=r"outside their declared ranges.*length: a finite real > 0.0"):
        checked_jit(traced)(key)
    with pytest.raises(checkify.JaxRuntimeError, match="outside their declared ranges"):
        Checked(venv).reset_to_level(key, bad, params)
    assert checked_jit(lambda k: checked.reset_to_level(k, good, params)[0])(key).shape == (N, 4)
