import numpy as np
import pytest

dm_env = pytest.importorskip("dm_env")
from dm_env import specs  # noqa: E402

from jaxenvs import spaces  # noqa: E402
from jaxenvs.export.dm_env import JaxDmEnv, spec_from_space  # noqa: E402


def _run_episode(env, action=0):
    steps = [env.reset()]
    while not steps[-1].last():
        steps.append(env.step(action))
    return steps


def test_termination_has_discount_zero():
    env = JaxDmEnv("CartPole-v1", seed=0)
    steps = _run_episode(env, action=1)  # always pushing right: the pole falls well before 500
    first, mids, last = steps[0], steps[1:-1], steps[-1]
    assert first.first() and first.reward is None and first.discount is None
    assert all(t.mid() and t.discount == 1.0 and t.reward == 1.0 for t in mids)
    assert last.step_type == dm_env.StepType.LAST and last.discount == 0.0 and last.reward == 1.0
    assert len(steps) - 1 < 500


def test_truncation_has_discount_one():
    env = JaxDmEnv("CartPole-v1", seed=0, max_steps_in_episode=5)
    steps = _run_episode(env, action=0)
    assert len(steps) == 6
    last = steps[-1]
    assert last.last() and last.discount == 1.0
    assert isinstance(last.observation, np.ndarray) and last.observation.dtype == np.float32


def test_step_after_last_starts_a_new_episode_and_seed_is_deterministic():
    env = JaxDmEnv("CartPole-v1", seed=3, max_steps_in_episode=3)
    first = _run_episode(env)
    with pytest.raises(ValueError, match="action"):
        env.step(7)  # after LAST the action is ignored, but an invalid one is still refused
    again = env.step(0)
    assert again.first()
    for bad in (1.5, "12", True, -1):
        with pytest.raises((TypeError, ValueError), match="seed must be a non-negative integer"):
            JaxDmEnv("CartPole-v1", seed=bad)
    twin = JaxDmEnv("CartPole-v1", seed=3, max_steps_in_episode=3)
    np.testing.assert_array_equal(_run_episode(twin)[0].observation, first[0].observation)


def test_specs_match_the_values():
    env = JaxDmEnv("CartPole-v1", seed=0)
    obs_spec, action_spec = env.observation_spec(), env.action_spec()
    assert isinstance(action_spec, specs.DiscreteArray) and action_spec.num_values == 2
    timestep = env.reset()
    obs_spec.validate(timestep.observation)
    timestep = env.step(action_spec.generate_value())
    obs_spec.validate(timestep.observation)
    env.reward_spec().validate(np.asarray(timestep.reward))
    env.discount_spec().validate(np.asarray(timestep.discount))
    with pytest.raises(ValueError, match="action"):
        env.step(2)


def test_spec_from_space_covers_every_space():
    space = spaces.Dict(
        {
            "d": spaces.Discrete(3, start=1),
            "m": spaces.MultiDiscrete([2, 4]),
            "b": spaces.Box(0.0, 1.0, shape=(2,)),
            "t": spaces.Tuple([spaces.Discrete(2), spaces.Box(False, True, shape=(3,), dtype=bool)]),
        }
    )
    spec = spec_from_space(space, "obs")
    assert spec["d"].minimum == 1 and spec["d"].maximum == 3
    np.testing.assert_array_equal(spec["m"].maximum, [1, 3])
    assert spec["b"].shape == (2,) and spec["b"].dtype == np.float32
    assert isinstance(spec["t"][0], specs.DiscreteArray) and spec["t"][1].dtype == np.bool_


def _space_kind(space) -> tuple:
    """What the dm_env export's specs depend on: the space's class, dtype and rank, of each part."""
    parts = getattr(space, "spaces", None)
    if parts is not None:
        parts = parts.values() if isinstance(parts, dict) else parts
        return (type(space).__name__, *(_space_kind(p) for p in parts))
    return type(space).__name__, str(space.dtype), len(space.shape)


def _one_id_per_space_kind() -> list:
    """The first built-in id of each (observation space, action space) kind: the export reads an
    env only through its spaces and its step (MNISTBandit reads data; the bsuite sweep ids are
    their base envs)."""
    import jaxenvs
    from jaxenvs.registry import registered_envs, spec

    kinds, ids = set(), []
    for env_id in registered_envs():
        if spec(env_id).extra is not None or env_id.startswith("bsuite/") or "MNIST" in env_id:
            continue
        env, params = jaxenvs.make(env_id)
        kind = (_space_kind(env.observation_space(params)), _space_kind(env.action_space(params)))
        if kind not in kinds:
            kinds.add(kind)
            ids.append(env_id)
    return ids


@pytest.mark.parametrize("env_id", _one_id_per_space_kind())
def test_dm_env_own_environment_test_mixin_passes(env_id):
    import unittest

    from dm_env import test_utils

    class Case(test_utils.EnvironmentTestMixin, unittest.TestCase):
        def make_object_under_test(self):
            return JaxDmEnv(env_id, seed=0, max_steps_in_episode=20)

    result = unittest.TextTestRunner(stream=open(__import__("os").devnull, "w")).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(Case)
    )
    assert result.wasSuccessful(), [str(e) for _, e in result.failures + result.errors]
    assert result.testsRun >= 4


def test_terminal_discount_has_the_spec_dtype():
    env = JaxDmEnv("Catch-bsuite", seed=0)
    steps = _run_episode(env)
    assert steps[-1].discount.dtype == env.discount_spec().dtype == np.float32
