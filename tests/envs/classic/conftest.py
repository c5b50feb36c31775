"""Shared by the classic-control env tests: each test module names its env in `ENV_ID`."""

import jax
import jax.numpy as jnp
import pytest

import jaxenvs


@pytest.fixture(scope="module")
def raw(request):
    """`(env, params, jitted step)` of the test module's `ENV_ID`, raw (no autoreset)."""
    env, params = jaxenvs.make(request.module.ENV_ID, autoreset=False)
    return env, params, jax.jit(env.step)


def float_state(cls, time=0, dtype=jnp.float32, **fields):
    """A classic-control state: its step count and its physical quantities.

    Args:
        cls: The env's state class.
        time: The step count (int32).
        dtype: The dtype of every other field.
        **fields: The other fields' values.

    Returns:
        A `cls`.
    """
    return cls(time=jnp.int32(time), **{name: jnp.asarray(value, dtype) for name, value in fields.items()})


def box_action(a):
    """The one-element float32 action `[a]` of a one-dimensional Box action space.

    Args:
        a: The action's value.

    Returns:
        A float32 array of shape (1,).
    """
    return jnp.asarray([a], jnp.float32)


def batch_reset(env_id, n):
    """Reset `env_id`'s raw env from `n` keys split from key 0, jitted and vmapped.

    Args:
        env_id: A registered id.
        n: How many resets.

    Returns:
        `(obs, states)`, each batched over the `n` resets.
    """
    env, params = jaxenvs.make(env_id, autoreset=False)
    keys = jax.random.split(jax.random.key(0), n)
    return jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
