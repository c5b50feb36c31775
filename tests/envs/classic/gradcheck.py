"""Gradients of a short episode against central finite differences (float64, `jax.enable_x64`)."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np


def episode(env, params, state, observe_last: bool = False) -> Callable:
    """`(actions, fields) -> float64`: the return of stepping the raw `env` from `state` with
    `actions[t]` under `params` with `fields` (a dict of params fields) replaced; or, with
    `observe_last`, the sum of the last observation (a function of the whole trajectory)."""

    def run(actions, fields):
        p = params.replace(**fields)

        def body(s, a):
            obs, s, reward, *_ = env.step(jax.random.key(0), s, a, p)
            return s, (obs, reward.astype(jnp.float64))

        _, (obs, rewards) = jax.lax.scan(body, state, actions)
        return obs[-1].astype(jnp.float64).sum() if observe_last else rewards.sum()

    return run


def finite_differences(f: Callable, actions, fields: dict, relative_step: float = 1e-3):
    """Central differences of `f(actions, fields)` in every action and every field, each
    perturbed by `relative_step` times its size (at least `relative_step`): one jitted,
    vmapped call for the actions, one per field."""
    f = jax.jit(f)
    flat = actions.reshape(-1)
    h = relative_step * jnp.maximum(jnp.abs(flat), 1.0)
    bumps = jnp.diag(h).reshape((flat.size,) + actions.shape)
    up = jax.vmap(lambda d: f(actions + d, fields))(bumps)
    down = jax.vmap(lambda d: f(actions - d, fields))(bumps)
    d_actions = ((up - down) / (2 * h)).reshape(actions.shape)
    d_fields = {}
    for name, value in fields.items():
        step = relative_step * abs(float(value))
        d_fields[name] = (f(actions, {**fields, name: value + step}) - f(actions, {**fields, name: value - step})) / (
            2 * step
        )
    return d_actions, d_fields


def assert_gradients_match(f: Callable, actions, fields: dict, rtol: float, atol: float) -> tuple:
    """`jax.grad` of `f` in the actions and the fields agrees with finite differences;
    returns the gradients."""
    g_actions, g_fields = jax.jit(jax.grad(f, argnums=(0, 1)))(actions, fields)
    fd_actions, fd_fields = finite_differences(f, actions, fields)
    np.testing.assert_allclose(np.asarray(g_actions), np.asarray(fd_actions), rtol=rtol, atol=atol)
    for name in fields:
        np.testing.assert_allclose(float(g_fields[name]), float(fd_fields[name]), rtol=rtol, atol=atol, err_msg=name)
    return g_actions, g_fields
