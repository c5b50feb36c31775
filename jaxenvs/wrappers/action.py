"""`ClipAction`: continuous actions clipped to the action space's bounds before the step."""

from __future__ import annotations

import jax.numpy as jnp

from jaxenvs import spaces
from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.start import StartWrapper


class ClipAction(StartWrapper):
    """Continuous actions clipped to the action space's bounds before the step.

    Args:
        env: An env with a `Box` action space.

    Raises:
        TypeError: If `env`'s action space is not a `Box`.

    Examples:
        >>> import jax, jax.numpy as jnp, jaxenvs
        >>> from jaxenvs.wrappers import ClipAction
        >>> raw, params = jaxenvs.make("Pendulum-v1")  # torque in [-2, 2]
        >>> env = ClipAction(raw)
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> clipped = env.step(jax.random.key(1), state, jnp.array([10.0]), params)[0]
        >>> at_bound = raw.step(jax.random.key(1), state, jnp.array([2.0]), params)[0]
        >>> bool((clipped == at_bound).all())
        True
    """

    def __init__(self, env):
        super().__init__(env)
        if not isinstance(env.action_space(env.default_params), spaces.Box):
            raise TypeError(
                f"ClipAction needs a Box action space; {env.name} has {env.action_space(env.default_params)!r}"
            )

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition with `action` clipped to `[low, high]` and cast to the space's dtype."""
        space = self.env.action_space(params)
        action = jnp.clip(action, jnp.asarray(space.low, space.dtype), jnp.asarray(space.high, space.dtype))
        return self.env.step(key, state, action.astype(space.dtype), params)
