"""Shared by the tests of the fused steps of the exports (`test_*_fused_step.py`)."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams


def assert_same(a, b):
    """Assert equal values of equal types, nested dicts, lists and tuples included.

    Arrays must match in dtype, shape and bits, and be writeable; NaNs equal NaNs.

    Args:
        a: One value.
        b: The other.
    """
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.flags.writeable
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b or (a != a and b != b), (a, b)


class MixedEnv(Environment):
    """A Dict observation of several dtypes, a state with a typed key and a bool, a nested info.

    Args:
        reward_dtype: The dtype of the reward, `action / 3`.
    """

    def __init__(self, reward_dtype=jnp.float32):
        self.reward_dtype = reward_dtype

    @property
    def default_params(self):
        return EnvParams(max_steps_in_episode=6)

    def reset_env(self, key, params):
        state = {"time": jnp.int32(0), "key": key, "flag": jnp.asarray(False), "x": jnp.zeros(3, jnp.float16)}
        return self._obs(state), state

    def _obs(self, state):
        bits = jax.random.bits(state["key"], (2,), jnp.uint8)
        return {"count": jnp.full(3, -state["time"], jnp.int32), "bits": bits, "flag": state["flag"], "x": state["x"]}

    def step_env(self, key, state, action, params):
        k, _ = jax.random.split(state["key"])
        state = {"time": state["time"] + 1, "key": k, "flag": ~state["flag"], "x": state["x"] + jnp.float16(action)}
        terminated = jax.random.uniform(key) < 0.2
        reward = jnp.asarray(action, self.reward_dtype) / 3
        return self._obs(state), state, reward, terminated, {"inner": {"t": state["time"]}}

    def truncation(self, state, params):
        return state["time"] >= params.max_steps_in_episode

    def observation_space(self, params=None):
        return spaces.Dict(
            {
                "count": spaces.Box(-100, 0, (3,), jnp.int32),
                "bits": spaces.Box(0, 255, (2,), jnp.uint8),
                "flag": spaces.Box(False, True, (), jnp.bool_),
                "x": spaces.Box(-np.inf, np.inf, (3,), jnp.float16),
            }
        )

    def action_space(self, params=None):
        return spaces.Discrete(3)
