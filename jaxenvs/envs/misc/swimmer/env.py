"""Swimmer: steer a point swimmer to a goal while keeping clear of sea urchins.

Reference: gymnax `Swimmer-misc` (`gymnax/environments/misc/swimmer.py`, after ivy_gym's
`swimmer.py`). The action accelerates the swimmer: `xy_vel += dt * action`, then
`xy += dt * xy_vel` (`dt = 0.05`). Every step pays `exp(-|xy - goal|^2 / 2)` times, per urchin,
`1 - exp(-30 |xy - urchin|^2)`, so touching an urchin pays nothing. It never terminates:
episodes are 500 steps. At reset the `num_urchins` urchins (5), the swimmer and the goal are
uniform in [-1, 1]^2, the velocity 0. Observation `[urchin_xys (flattened), xy, xy_vel, goal_xy]`.

Invalid action: an acceleration outside [-1, 1] is applied as given, eagerly and under jit, as
gymnax does (so parity covers it); only inside jit, where nothing can raise, a NaN is 0 and a
magnitude is capped at 1e6 (`APPLIED_ACTION_LIMIT`: gymnax would carry an inf into the state).
Dynamics run in float32, or float64 with `jax_enable_x64`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params, float_dtype
from jaxenvs.envs.misc import _common
from jaxenvs.params import positive


@struct.dataclass
class SwimmerState(EnvState):
    """The state of Swimmer (gymnax's field names); floats in `float_dtype()`.

    Attributes:
        urchin_xys: The urchins' positions, `float[num_urchins, 2]`.
        xy: The swimmer's position, `float[2]`.
        xy_vel: Its velocity, `float[2]`.
        goal_xy: The goal point, `float[2]`.
    """

    urchin_xys: jax.Array
    xy: jax.Array
    xy_vel: jax.Array
    goal_xy: jax.Array


@struct.dataclass
class SwimmerParams(EnvParams):
    """Swimmer's params (gymnax's names and defaults).

    Attributes:
        dt: The integration step.
        max_steps_in_episode: The episode's length (the env never terminates).
    """

    dt: float = positive(0.05)
    max_steps_in_episode: int = 500


def integrate(xy, xy_vel, action, params: SwimmerParams):
    """One semi-implicit Euler step: velocity first, then position with the new velocity.

    Args:
        xy: The swimmer's position, `float[2]`.
        xy_vel: Its velocity, `float[2]`.
        action: The acceleration, `float[2]`.
        params: The env's params (`dt`).

    Returns:
        `(xy, xy_vel)`, the new ones.
    """
    xy_vel = xy_vel + params.dt * action
    return xy + params.dt * xy_vel, xy_vel


def swim_reward(xy: jax.Array, goal_xy: jax.Array, urchin_xys: jax.Array) -> jax.Array:
    """Closeness to the goal, scaled down to 0 near any urchin.

    Args:
        xy: The swimmer's position, `float[2]`.
        goal_xy: The goal point, `float[2]`.
        urchin_xys: The urchins' positions, `float[num_urchins, 2]`.

    Returns:
        A float scalar in [0, 1]: `exp(-|xy - goal|^2 / 2)` times, per urchin,
        `1 - exp(-30 |xy - urchin|^2)`.
    """
    goal_term = jnp.exp(-0.5 * jnp.sum((xy - goal_xy) ** 2))
    urchin_terms = 1 - jnp.exp(-30 * jnp.sum((xy - urchin_xys) ** 2, axis=-1))
    return goal_term * jnp.prod(urchin_terms)


class Swimmer(Environment[SwimmerState, SwimmerParams]):
    """gymnax's Swimmer (see the module docstring).

    Args:
        num_urchins: The number of sea urchins; it fixes the state's and observation's shapes.
    """

    def __init__(self, num_urchins: int = 5):
        self.num_urchins = num_urchins

    def get_obs(self, state: SwimmerState) -> jax.Array:
        """The observation of `state`.

        Args:
            state: The state.

        Returns:
            A `float32[2 * num_urchins + 6]` array: `[urchin_xys (flattened), xy, xy_vel,
            goal_xy]`.
        """
        return jnp.concatenate([state.urchin_xys.reshape(-1), state.xy, state.xy_vel, state.goal_xy]).astype(
            jnp.float32
        )

    def observe(self, state, params):
        """`float32[2 * num_urchins + 6]`: `[urchin_xys, xy, xy_vel, goal_xy]` (`get_obs`)."""
        return self.get_obs(state)

    def is_terminal(self, state, params):
        """Whether `state` ended its episode by termination: never (only the time limit ends it)."""
        return jnp.zeros((), jnp.bool_)  # never terminates

    def reset_env(self, key, params):
        dtype = float_dtype()
        u = jax.random.uniform(key, (self.num_urchins + 2, 2), dtype=dtype, minval=-1.0, maxval=1.0)
        state = SwimmerState(
            time=jnp.zeros((), jnp.int32),
            urchin_xys=u[: self.num_urchins],
            xy=u[self.num_urchins],
            xy_vel=jnp.zeros((2,), dtype),
            goal_xy=u[self.num_urchins + 1],
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        dtype = state.xy.dtype
        limit = _common.APPLIED_ACTION_LIMIT
        action = spaces.clip_action(jnp.asarray(action, dtype), -limit, limit)
        xy, xy_vel = integrate(state.xy, state.xy_vel, action, params)
        state = state.replace(xy=xy.astype(dtype), xy_vel=xy_vel.astype(dtype), time=state.time + 1)
        reward = swim_reward(state.xy, state.goal_xy, state.urchin_xys)
        return self.observe(state, params), state, reward, jnp.asarray(False), {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(-np.inf, np.inf, (2 * self.num_urchins + 6,), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Box(-1.0, 1.0, (2,), jnp.float32)

    @defaults_params
    def render(self, state, params=None, size: int = 300):
        """A picture of `state` from above (see `swimmer.render.render`); jit-able.

        Args:
            state: The state to draw.
            params: The env's params; None means `default_params` (unused).
            size: The image's side in pixels.

        Returns:
            A `uint8[size, size, 3]` image.
        """
        from jaxenvs.envs.misc.swimmer.render import render

        return render(state, size)
