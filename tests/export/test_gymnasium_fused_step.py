"""`JaxEnv`'s fused step (one jitted call, one host copy) returns exactly what the unfused way
returned: the raw env's jitted reset and step, the outputs copied leaf by leaf, the time-limit
correction in Python."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from jaxenvs.export._bridge import (  # noqa: E402
    Single,
    env_and_params,
    host,
    info_to_numpy,
    key_from_seed,
)
from jaxenvs.export.gymnasium import JaxEnv  # noqa: E402
from jaxenvs.spaces.convert import cast as to_jax  # noqa: E402
from jaxenvs.spaces.convert import to_gymnasium, to_numpy  # noqa: E402
from tests.export.conftest import MixedEnv, assert_same  # noqa: E402


class _Unfused:
    """The step as `JaxEnv` took it before it was fused (the reference here)."""

    def __init__(self, env_id, drop_time_limit, **overrides):
        env, params = env_and_params(env_id, None, overrides)
        self.fns, self.params, self.drop = Single(env, params), params, drop_time_limit
        self.obs_space = to_gymnasium(env.observation_space(params))
        self.action_space = env.action_space(params)

    def reset(self, seed=None):
        if seed is not None:
            self.key = key_from_seed(seed)
        self.key, obs, self.state = self.fns.reset(self.key)
        return to_numpy(obs, self.obs_space, batched=False)

    def step(self, action):
        self.key, obs, self.state, reward, terminated, truncated, info = self.fns.step(
            self.key, self.state, to_jax(action, self.action_space)
        )
        obs, reward, terminated, truncated, info = host((obs, reward, terminated, truncated, info))
        if self.drop and truncated:
            truncated = bool(truncated) and not bool(self.state.time >= self.params.max_steps_in_episode)
        obs, info = to_numpy(obs, self.obs_space, batched=False), info_to_numpy(info)
        return obs, float(reward), bool(terminated), bool(truncated), info


def _compare(ours, ref, actions, seed):
    assert_same(ours.reset(seed=seed)[0], ref.reset(seed))
    ends = 0
    for action in actions:
        got, want = ours.step(action), ref.step(action)
        for x, y in zip(got, want):
            assert_same(x, y)
        if got[2] or got[3]:
            ends += 1
            # an unseeded reset continues the key stream in both
            assert_same(ours.reset()[0], ref.reset())
    return ends


@pytest.mark.parametrize(
    "env_id, truncate_at_time_limit, overrides",
    [
        ("CartPole-v1", True, {"max_steps_in_episode": 12}),  # the env's own limit truncates
        ("CartPole-v1", False, {}),  # gymnasium's TimeLimit truncates (as registered)
        ("Pendulum-v1", True, {"max_steps_in_episode": 100}),  # a Box action and its full check
        ("Breakout-MinAtar", True, {"max_steps_in_episode": 40}),  # a bool grid, sticky actions
        ("FrozenLake-v1", True, {}),  # a Discrete observation: a Python int
        ("Blackjack-v1", True, {}),  # a Tuple of Discrete observations
    ],
)
def test_fused_step_returns_what_the_unfused_step_returned(env_id, truncate_at_time_limit, overrides):
    if truncate_at_time_limit:
        ours = JaxEnv(env_id, **overrides)
    else:  # what a registration with a declared limit builds
        raw, params = env_and_params(env_id, None, overrides)
        ours = JaxEnv(raw, params, truncate_at_time_limit=False)
    ref = _Unfused(env_id, not truncate_at_time_limit, **overrides)
    ours.action_space.seed(3)
    actions = [ours.action_space.sample() for _ in range(250 if env_id != "Breakout-MinAtar" else 90)]
    if env_id == "CartPole-v1":
        actions = [int(a) for a in actions[:100]] + [np.int64(a) for a in actions[100:]]
    ends = _compare(ours, ref, actions, seed=11)
    assert ends >= 2, "the comparison must cross episode ends"
    jax.tree_util.tree_map(np.testing.assert_array_equal, ours.state, ref.state)


def test_a_large_carry_travels_apart_from_the_outputs(monkeypatch):
    """Above `JOINED_WORDS` the carry stays on the device and only the outputs are copied."""
    from jaxenvs.export import _packed

    monkeypatch.setattr(_packed, "JOINED_WORDS", 4)
    raw, params = env_and_params("CartPole-v1", None, {})
    ours = JaxEnv(raw, params, truncate_at_time_limit=False)
    assert not ours._fused.joined
    ours.action_space.seed(0)
    actions = [ours.action_space.sample() for _ in range(120)]
    assert _compare(ours, _Unfused("CartPole-v1", True), actions, seed=2) >= 2
    assert JaxEnv(raw, params)._fused.joined is False
    monkeypatch.undo()
    assert JaxEnv(raw, params)._fused.joined


def test_time_limit_is_dropped_only_where_gymnasium_applies_it():
    """At the env's own limit: truncated with the env's limit, not with gymnasium's."""
    for truncate, want in ((True, True), (False, False)):
        raw, params = env_and_params("Pendulum-v1", None, {"max_steps_in_episode": 3})
        env = JaxEnv(raw, params, truncate_at_time_limit=truncate)
        env.reset(seed=0)
        assert [env.step(np.zeros(1, np.float32))[3] for _ in range(3)] == [False, False, want]


def test_fused_step_of_mixed_dtypes_keys_in_the_state_and_nested_info():
    env = MixedEnv()
    ours = JaxEnv(env)

    class _Ref(_Unfused):
        def __init__(self):
            self.fns, self.params, self.drop = Single(env, env.default_params), env.default_params, False
            self.obs_space = to_gymnasium(env.observation_space())
            self.action_space = env.action_space()

    ref = _Ref()
    rng = np.random.default_rng(0)
    ends = _compare(ours, ref, [int(a) for a in rng.integers(0, 3, 60)], seed=5)
    assert ends >= 2
    assert jax.dtypes.issubdtype(ours.state["key"].dtype, jax.dtypes.prng_key)
    np.testing.assert_array_equal(jax.random.key_data(ours.state["key"]), jax.random.key_data(ref.state["key"]))


def test_quick_action_check_accepts_only_what_the_full_check_accepts():
    env = JaxEnv("CartPole-v1")
    env.reset(seed=0)
    for bad in (2, -1, np.int64(2), np.uint8(7), 2**40, 1.5, "1", None):
        with pytest.raises((ValueError, TypeError)):
            env.step(bad)
    for good in (0, 1, np.int8(1), np.uint64(0), True, np.int64(1), np.array(1)):
        env.step(good)
        env.reset()


@pytest.mark.parametrize("impl", ["threefry2x32", "rbg"])
def test_the_written_out_split_is_jax_random_split(impl):
    """Bit for bit, over many keys (the default key by the written-out hash, others by JAX)."""
    from jaxenvs.export._packed import split_words

    keys = jax.random.split(jax.random.key(123, impl=impl), 500)
    data = jax.random.key_data(keys)
    ours = jax.jit(jax.vmap(lambda w: jnp.stack(split_words(w, jax.random.key_impl(keys)))))(data)
    want = jax.random.key_data(jax.vmap(jax.random.split)(keys))
    np.testing.assert_array_equal(ours, want)
