"""`Checked`: invalid actions and NaNs raise a clear error, even from jitted code (JAX checkify).

Inside `jit` nothing can raise, so an env alone does what its docstring says with an invalid
action (usually clips it). For debugging runs wrap it in `Checked`:

- called from Python, `Checked(env).step(...)` runs a jitted, checkified step and raises
  `checkify.JaxRuntimeError` naming the env, the action and the valid range, or the NaN;
- inside your own jitted function (a `lax.scan` rollout), its checks are `checkify.check`s:
  run that function through `checked_jit(fn)` (jit + checkify + throw), or `checkify.checkify`
  it yourself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import checkify

from jaxenvs.wrappers.base import Wrapper

_ERRORS = checkify.user_checks | checkify.nan_checks


def checked_jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`jax.jit(fn)` whose `checkify.check`s (and NaN-producing ops) raise when it returns."""
    compiled = jax.jit(checkify.checkify(fn, errors=_ERRORS))

    def run(*args, **kwargs):
        err, out = compiled(*args, **kwargs)
        err.throw()
        return out

    return run


def _is_tracing(tree: Any) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(tree))


def _all_finite(tree: Any) -> jax.Array:
    ok = jnp.asarray(True)
    for leaf in jax.tree_util.tree_leaves(tree):
        leaf = jnp.asarray(leaf)
        if jnp.issubdtype(leaf.dtype, jnp.inexact):
            ok = ok & jnp.all(jnp.isfinite(leaf))
    return ok


class Checked(Wrapper):
    def __init__(self, env):
        super().__init__(env)
        self._jit_step = checked_jit(self._checked_step)
        self._jit_reset = checked_jit(self._checked_reset)

    def _checked_reset(self, key, params):
        obs, state = self.env.reset(key, params)
        checkify.check(_all_finite(obs), f"{self.name}: reset produced a NaN or inf observation")
        return obs, state

    def _checked_step(self, key, state, action, params):
        space = self.env.action_space(params)
        checkify.check(
            jnp.all(space.contains(action)),
            f"{self.name}: invalid action {{action}}; valid actions are {space.describe()}",
            action=jnp.asarray(jax.tree_util.tree_leaves(action)[0]),
        )
        out = self.env.step(key, state, action, params)
        obs, _, reward = out[0], out[1], out[2]
        checkify.check(_all_finite(obs), f"{self.name}: the step produced a NaN or inf observation")
        checkify.check(_all_finite(reward), f"{self.name}: the step produced a NaN or inf reward")
        return out

    def reset(self, key, params=None):
        if _is_tracing((key, params)):
            return self._checked_reset(key, params)
        return self._jit_reset(key, params)

    def step(self, key, state, action, params=None):
        if _is_tracing((key, state, action, params)):
            return self._checked_step(key, state, action, params)
        return self._jit_step(key, state, action, params)
