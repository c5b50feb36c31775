"""`Checked`: invalid actions, NaNs and steps past the end of an episode raise a clear error,
even from jitted code (JAX checkify). For debugging runs; see docs/wrappers.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import checkify

from jaxenvs import spaces
from jaxenvs.environment import defaults_params
from jaxenvs.levels import Level, level_in_range
from jaxenvs.params import declared
from jaxenvs.wrappers.base import Wrapper
from jaxenvs.wrappers.levels import LevelState
from jaxenvs.wrappers.normalize import batch_shape
from jaxenvs.wrappers.start import continue_to_level

# what `Checked` and `checked_jit` check: their own `checkify.check`s (the action, and NaN or
# inf in observations and rewards). Not checkify's `nan_checks` on every operation: those
# cannot checkify a vmapped while loop (jumanji's Game2048 reset fails) and make a brax step
# slow to compile.
ERRORS = checkify.user_checks


def checked_jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`jax.jit(fn)` whose `checkify.check`s raise when it returns.

    Args:
        fn: A JAX function (a rollout that steps a `Checked` env, say).

    Returns:
        The jitted function; it raises `checkify.JaxRuntimeError` when a check failed.
    """
    compiled = jax.jit(checkify.checkify(fn, errors=ERRORS))

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
    """`env` with every action checked and every output checked for NaN / inf.

    Every action outside the action space is an error here, an out-of-range Box action too
    (which the env itself clips or applies as its reference does: a debugging run flags it).

    Called from Python, an action is first checked exactly, numpy-side (no int32 wrap-around of
    `np.int64(2**32 + 1)` on the way into `jit`), raising `checkify.JaxRuntimeError` (a
    `ValueError`) as the checkified step would; inside `jit` the check is a `checkify.check`
    against the space built from the (possibly traced) params, and a wrong shape raises at trace
    time. A step from a state whose episode has ended is an error too. Picklable: the compiled
    functions are rebuilt after unpickling. JAX cannot checkify a vmapped while loop, so an env
    whose reset or step has one (jumanji's Game2048-v1) cannot be `Checked`.

    Args:
        env: The env to check.
    """

    def __init__(self, env):
        super().__init__(env)
        self._compile()

    @property
    def _batch(self) -> tuple[int, ...]:
        """`(num_envs,)` over `make_vec`, else `()`."""
        return batch_shape(self.env)

    def _compile(self) -> None:
        self._jit_step = checked_jit(self._checked_step)
        self._jit_reset = checked_jit(self._checked_reset)
        self._jit_reset_to_level = checked_jit(self._checked_reset_to_level)

    def __getstate__(self) -> dict[str, Any]:
        return {"env": self.env}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.env = state["env"]
        self._compile()

    def _check_level(self, state, params):
        """A level outside its fields' declared ranges (a sampler's bug) is an error here.

        The levels are those of every `LevelState` in `state`, under any wrappers' states.
        """
        is_level_state = lambda x: isinstance(x, LevelState)  # noqa: E731
        for node in jax.tree_util.tree_leaves(state, is_leaf=is_level_state):
            if is_level_state(node):
                self._check_level_in_range(node.level, params)

    def _check_level_in_range(self, level, params):
        """A `checkify.check` that every setting of `level` (batched or not) is in its declared range."""
        valid = ", ".join(
            f"{n}: {declared(type(params), n).describe(params)}" for n in level.settings if declared(type(params), n)
        )
        checkify.check(
            level_in_range(level, params),
            f"{self.name}: a level's settings are outside their declared ranges ({{settings}}); valid: {valid}",
            settings=level.settings,
        )

    def _checked_reset(self, key, params):
        obs, state = self.env.reset(key, params)
        checkify.check(_all_finite(obs), f"{self.name}: reset produced a NaN or inf observation")
        self._check_level(state, params)
        return obs, state

    def _checked_reset_to_level(self, key, level, params, state=None):
        if isinstance(level, Level):  # else the env's own check names what a level is
            self._check_level_in_range(level, params)
        obs, state = continue_to_level(self.env, key, level, params, state)
        checkify.check(_all_finite(obs), f"{self.name}: reset_to_level produced a NaN or inf observation")
        self._check_level(state, params)
        return obs, state

    def _checked_step(self, key, state, action, params):
        space = self.env.action_space(params)
        per_env = (lambda f: jax.vmap(f)) if self._batch else (lambda f: f)  # over make_vec: one action per env
        per_env(lambda a: spaces.check_action_shape(space, a, self.name))(action)
        checkify.check(
            jnp.all(per_env(space.contains)(action)),
            f"{self.name}: invalid action {{action}}; valid actions are {space.describe()}",
            action=jnp.asarray(jax.tree_util.tree_leaves(action)[0]),
        )
        env = self.env
        if env.is_terminal is not None and env.truncation is not None:
            checkify.check(
                ~(jnp.asarray(env.is_terminal(state, params)) | jnp.asarray(env.truncation(state, params))),
                f"{self.name}: step from a state whose episode has ended (terminated or truncated at "
                f"time {{time}}); reset it first, or make the env with auto-reset (`jaxenvs.make(id)`)",
                time=jnp.asarray(state.time),
            )
        out = self.env.step(key, state, action, params)
        obs, _, reward = out[0], out[1], out[2]
        checkify.check(_all_finite(obs), f"{self.name}: the step produced a NaN or inf observation")
        checkify.check(_all_finite(reward), f"{self.name}: the step produced a NaN or inf reward")
        self._check_level(out[1], params)
        return out

    @defaults_params
    def reset(self, key, params=None):
        """Start an episode, checking the observation for NaN / inf.

        Raises:
            checkify.JaxRuntimeError: If the observation has a NaN or inf (called from Python).
        """
        if _is_tracing((key, params)):
            return self._checked_reset(key, params)
        return self._jit_reset(key, params)

    @defaults_params
    def reset_to_level(self, key, level, params=None, *, state=None):
        """Start an episode from a level, checking the level's settings and the observation.

        A setting outside its field's declared range, traced or not (a level a sampler or a
        PLR buffer gave, a batch of them over `make_vec`), is an error, as is a NaN or inf
        observation. Concrete levels are also checked by the env's own `reset_to_level`.

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level` (batched over `make_vec`: one per env).
            params: The env's params.
            state: The run to continue, as the wrapped env's `reset_to_level` takes it (optional).

        Returns:
            `(obs, state)`.

        Raises:
            checkify.JaxRuntimeError: If a setting is outside its range, or the observation has
                a NaN or inf (called from Python).
        """
        if _is_tracing((key, level, params, state)):
            return self._checked_reset_to_level(key, level, params, state)
        return self._jit_reset_to_level(key, level, params, state)

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition with the action, the state and the outputs checked.

        Raises:
            checkify.JaxRuntimeError: Called from Python, for an action outside the action space, a
                state whose episode has ended, or a NaN or inf observation or reward.
            ValueError: For an action of the wrong shape (at trace time).
        """
        if _is_tracing((key, state, action, params)):
            return self._checked_step(key, state, action, params)
        if not _is_tracing(params):
            try:
                # strict: an out-of-range Box action, which the env clips as its reference does, is flagged too
                spaces.check_action(self.env.action_space(params), action, self.name, batch=self._batch, strict=True)
            except ValueError as e:  # the error a checkified step raises (a ValueError too)
                raise checkify.JaxRuntimeError(str(e)) from None
        return self._jit_step(key, state, action, params)
