"""`JaxSB3VecEnv`'s fused step (one jitted call, one host copy) returns exactly what the unfused
way returned: `Batch.step_same_step`, its outputs copied leaf by leaf, the actions checked in
full, the infos built from the copies."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from jaxenvs.export._bridge import check_actions, host, index  # noqa: E402
from jaxenvs.export.sb3 import JaxSB3VecEnv  # noqa: E402
from jaxenvs.spaces.convert import cast as to_jax  # noqa: E402
from jaxenvs.spaces.convert import to_numpy  # noqa: E402
from tests.export.conftest import MixedEnv, assert_same  # noqa: E402


class Unfused(JaxSB3VecEnv):
    """The VecEnv as it stepped before it was fused (the reference here): the key and the state
    on the host side, `Batch`'s jitted reset and SAME_STEP step, every output copied apart."""

    def reset(self):
        seeds = None if self._seeds[0] is None else list(self._seeds)
        self._key, keys = self._batch.keys(self._key, seeds)
        obs, self._ref_state = self._batch.reset(keys)
        self._reset_seeds()
        self._reset_options()
        return to_numpy(obs, self._batched_obs_space, batched=True)

    def step_async(self, actions):
        check_actions(actions, self._jax_action_space, self.jax_env.name, self.num_envs)
        self._actions = to_jax(actions, self._jax_action_space)

    def step_wait(self):
        self._key, obs, self._ref_state, reward, terminated, truncated, final_obs, _ = self._batch.step_same_step(
            self._key, self._ref_state, self._actions
        )
        obs, reward, terminated, truncated, final_obs = host((obs, reward, terminated, truncated, final_obs))
        terminated, truncated = np.asarray(terminated), np.asarray(truncated)
        dones = terminated | truncated
        time_limit = truncated & ~terminated
        infos = [{"TimeLimit.truncated": bool(t)} for t in time_limit]
        if dones.any():
            final = to_numpy(final_obs, self._batched_obs_space, batched=True)
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = index(final, i)
        obs = to_numpy(obs, self._batched_obs_space, batched=True)
        return obs, np.array(reward, dtype=np.float32), dones, infos

    @property
    def state(self):
        return self._ref_state


def _compare(ours, ref, actions, seed, reseed_at=()):
    """Step both alike; returns how many envs finished (episode ends crossed)."""
    for venv in (ours, ref):
        venv.seed(seed)
    assert_same(ours.reset(), ref.reset())
    ends = 0
    for t, action in enumerate(actions):
        got, want = ours.step(action), ref.step(action)
        assert_same(got, want)
        ends += int(got[2].sum())
        if t in reseed_at:  # an unseeded reset continues the key stream in both; a seeded one restarts it
            if t % 2:
                for venv in (ours, ref):
                    venv.seed(seed + t)
            assert_same(ours.reset(), ref.reset())
    jax.tree_util.tree_map(lambda x, y: np.testing.assert_array_equal(_data(x), _data(y)), ours.state, ref.state)
    return ends


def _data(x):
    return jax.random.key_data(x) if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key) else x


def _actions(venv, steps, seed):
    venv.action_space.seed(seed)
    return [np.array([venv.action_space.sample() for _ in range(venv.num_envs)]) for _ in range(steps)]


@pytest.mark.parametrize(
    "env_id, num_envs, overrides",
    [
        ("CartPole-v1", 8, {"max_steps_in_episode": 12}),  # terminations and truncations, often together
        ("CartPole-v1", 1, {}),  # one env
        ("Pendulum-v1", 3, {"max_steps_in_episode": 7}),  # a Box action and its full check
        ("Breakout-MinAtar", 4, {"max_steps_in_episode": 30}),  # a bool grid, a large carry
        ("FrozenLake-v1", 5, {}),  # a Discrete observation: int64 batches
        ("Blackjack-v1", 6, {}),  # a Tuple of Discrete observations
    ],
)
def test_fused_step_returns_what_the_unfused_step_returned(env_id, num_envs, overrides):
    ours = JaxSB3VecEnv(env_id, num_envs, **overrides)
    ref = Unfused(env_id, num_envs, **overrides)
    actions = _actions(ours, 60 if env_id == "Breakout-MinAtar" else 150, seed=4)
    if env_id == "CartPole-v1":  # what SB3 passes (int64), and other integer dtypes
        actions = [a.astype(np.int64 if i % 3 else np.uint8) for i, a in enumerate(actions)]
    ends = _compare(ours, ref, actions, seed=11, reseed_at={40, 41, 57})
    assert ends >= 2, "the comparison must cross episode ends"


def test_a_large_carry_travels_apart_from_the_outputs(monkeypatch):
    """Above `JOINED_WORDS` the carry stays on the device and only the outputs are copied."""
    from jaxenvs.export import _packed

    raw = JaxSB3VecEnv("CartPole-v1", 2).jax_env  # a raw env: a `Batch` (and a `_Fused`) of its own
    monkeypatch.setattr(_packed, "JOINED_WORDS", 4)
    ours = JaxSB3VecEnv(raw, 3, max_steps_in_episode=9)
    assert not ours._fused.carry.joined
    assert _compare(ours, Unfused(raw, 3, max_steps_in_episode=9), _actions(ours, 40, 0), seed=2, reseed_at={5}) >= 2
    monkeypatch.undo()
    assert JaxSB3VecEnv(raw, 3)._fused.carry.joined


def test_close_then_reset_continues_the_key_stream():
    ours, ref = JaxSB3VecEnv("CartPole-v1", 2, seed=7), Unfused("CartPole-v1", 2, seed=7)
    assert_same(ours.reset(), ref.reset())
    for venv in (ours, ref):
        venv.step(np.array([0, 1]))
        venv.close()
    assert ours.state is None
    assert_same(ours.reset(), ref.reset())
    assert_same(ours.step(np.array([1, 1])), ref.step(np.array([1, 1])))


def test_quick_action_check_accepts_only_what_the_full_check_accepts():
    venv = JaxSB3VecEnv("CartPole-v1", 3, seed=0)
    venv.reset()
    bad = [
        np.array([0, 1, 2]),
        np.array([-1, 0, 0]),
        np.array([0, 1]),
        np.array([[0, 1, 0]]),
        np.array([0, 1, 2**40]),
        np.array([0.5, 0, 1]),
        np.array([0, 1, 7], np.uint8),
        [0, 1, 2],
    ]
    for actions in bad:
        with pytest.raises(ValueError, match="invalid action"):
            venv.step(actions)
    good = [np.array([0, 1, 0]), np.array([1, 1, 1], np.uint64), np.array([0, 1, 0], np.int8), [1, 0, 1]]
    good += [np.array([True, False, True]), np.array([0.0, 1.0, 1.0])]
    for actions in good:
        ours = venv.step(actions)
        assert ours[0].shape == (3, 4)
    # the quick path and the full check pass the same actions on to the step
    ref = Unfused("CartPole-v1", 3, seed=0)
    ours = JaxSB3VecEnv("CartPole-v1", 3, seed=0)
    assert_same(ours.reset(), ref.reset())
    for actions in good:
        assert_same(ours.step(actions), ref.step(actions))


def test_fused_step_of_mixed_dtypes_keys_in_the_state_and_a_float16_reward():
    env = MixedEnv(jnp.float16)
    ours, ref = JaxSB3VecEnv(env, 4), Unfused(env, 4)
    assert _compare(ours, ref, _actions(ours, 50, 1), seed=5, reseed_at={20}) >= 2
    assert jax.dtypes.issubdtype(ours.state["key"].dtype, jax.dtypes.prng_key)
