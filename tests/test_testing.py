"""`jaxenvs.testing.check_env` itself: it passes what it should and fails what it should."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState
from jaxenvs.testing import check_env


def _batched_offset(offset):
    """The identity, except that under `vmap` it adds `offset` (a batched kernel that rounds
    differently from the single one, as XLA's vectorised code can)."""

    @jax.custom_batching.custom_vmap
    def f(x):
        return x

    @f.def_vmap
    def rule(axis_size, in_batched, x):
        return x + jnp.asarray(offset, x.dtype), in_batched[0]

    return f


@struct.dataclass
class _WobbleState(EnvState):
    position: jax.Array  # float32[2]: where the point is
    count: jax.Array  # int32: an integer leaf


class _WobbleEnv(Environment):
    """A point that drifts; its vmapped reset is off from the single one by `float_offset` in
    the float leaf and by `int_offset` in the integer leaf."""

    def __init__(self, float_offset=0.0, int_offset=0):
        self._float = _batched_offset(float_offset)
        self._int = _batched_offset(int_offset)

    @property
    def default_params(self):
        return EnvParams(max_steps_in_episode=10)

    def reset_env(self, key, params):
        k_pos, k_count = jax.random.split(key)
        position = self._float(jax.random.uniform(k_pos, (2,), minval=0.25, maxval=0.5))
        count = self._int(jax.random.randint(k_count, (), 0, 5))
        state = _WobbleState(time=jnp.int32(0), position=position, count=count)
        return state.position, state

    def step_env(self, key, state, action, params):
        state = state.replace(position=state.position + 0.01 * action, time=state.time + 1)
        return state.position, state, jnp.sum(state.position), jnp.asarray(False), {}

    def observation_space(self, params=None):
        return spaces.Box(-np.inf, np.inf, (2,))

    def action_space(self, params=None):
        return spaces.Box(-1.0, 1.0, (2,))


def test_offset_helper_changes_only_batched_values():
    f = _batched_offset(1e-7)
    x = jnp.float32(0.3)
    assert float(jax.jit(f)(x)) == float(x)
    assert float(jax.jit(jax.vmap(f))(jnp.full(3, x))[1]) != float(x)
    g = _batched_offset(1)
    assert int(jax.jit(jax.vmap(g))(jnp.arange(3, dtype=jnp.int32))[1]) == 2


def test_check_env_passes_exact_env():
    check_env(_WobbleEnv(), num_steps=5)


def test_vmapped_reset_float_rounding_tolerated():
    # brax's ant and humanoids differ by ~3e-8 between a vmapped and a single reset
    check_env(_WobbleEnv(float_offset=1e-7), num_steps=5)


def test_vmapped_reset_float_difference_fails():
    with pytest.raises(AssertionError, match="vmapped reset"):
        check_env(_WobbleEnv(float_offset=1e-2), num_steps=5)


def test_vmapped_reset_integer_difference_fails():
    with pytest.raises(AssertionError, match="vmapped reset"):
        check_env(_WobbleEnv(int_offset=1), num_steps=5)


def test_num_envs_0_skips_the_vmap_check_and_1_is_refused():
    check_env(_WobbleEnv(int_offset=1), num_steps=5, num_envs=0)  # the difference is only batched
    for bad in (1, -2, 2.0):
        with pytest.raises(ValueError, match="num_envs must be 0 .no vmap check. or at least 2"):
            check_env(_WobbleEnv(), num_envs=bad)


def test_the_end_of_episode_rules_fail_what_they_should():
    """An `is_terminal` that disagrees with `terminated`, an `Absorbing` layer that does not
    absorb past the end of an episode (its guard left out), and a false `reset_ignores_key`
    each fail `check_env`."""
    from jaxenvs.envs.classic.cartpole import CartPole
    from jaxenvs.wrappers import Absorbing, Wrapper

    class Leaky(Absorbing):
        step = Wrapper.step

    class SaysItIgnoresTheKey(CartPole):
        reset_ignores_key = True

    class NeverTerminal(CartPole):
        def is_terminal(self, state, params):
            return jnp.zeros((), jnp.bool_)

    with pytest.raises(AssertionError, match="terminated=True but is_terminal"):
        check_env(NeverTerminal(), num_steps=40, num_envs=2)
    with pytest.raises(AssertionError, match="past the end of the episode"):
        check_env(Leaky(CartPole()), num_steps=40, num_envs=2)
    check_env(Absorbing(CartPole()), num_steps=40, num_envs=2)
    with pytest.raises(AssertionError, match="declares reset_ignores_key, but two keys reset it differently"):
        check_env(SaysItIgnoresTheKey(), num_steps=2, num_envs=0)
