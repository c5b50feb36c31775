"""Reacher: swing a chain of unit links so that its tip reaches a goal point.

Reference: gymnax `Reacher-misc` (`gymnax/environments/misc/reacher.py`, after ivy_gym's
`reacher.py`). `num_joints` links of length 1 (2 by default), link `i` at absolute angle
`angles[i]`, so the tip is at `(sum cos(angles), sum sin(angles))`. The action is one torque per
joint: `angle_vels += dt * torque_scale * action`, then `angles += dt * angle_vels` (semi-implicit
Euler, `dt = 0.05`). Every step pays `exp(-|tip - goal|^2)`. It never terminates: episodes are
100 steps. At reset angles are uniform in [-pi, pi], velocities in [-1, 1] and the goal in
`[-num_joints, num_joints]^2`. Observation `[cos(angles), sin(angles), angle_vels, goal]`.

Invalid action: a torque outside [-1, 1] is applied as given, eagerly and under jit, as gymnax
does (so parity covers it); only inside jit, where nothing can raise, a NaN is 0 and a
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
from jaxenvs.params import positive, real


@struct.dataclass
class ReacherState(EnvState):
    """The state of Reacher (gymnax's field names); floats in `float_dtype()`.

    Attributes:
        angles: Each link's absolute angle in radians, `float[num_joints]`.
        angle_vels: Their angular velocities in radians per unit time, `float[num_joints]`.
        goal_xy: The goal point, `float[2]` (x, y), in `[-num_joints, num_joints]^2`.
    """

    angles: jax.Array
    angle_vels: jax.Array
    goal_xy: jax.Array


@struct.dataclass
class ReacherParams(EnvParams):
    """Reacher's params (gymnax's names and defaults).

    Attributes:
        torque_scale: The factor from an action to an angular acceleration.
        dt: The integration step.
        max_steps_in_episode: The episode's length (the env never terminates).
    """

    torque_scale: float = real(1.0, low=0.0)
    dt: float = positive(0.05)
    max_steps_in_episode: int = 100


def integrate(angles, angle_vels, action, params: ReacherParams):
    """One semi-implicit Euler step: velocities first, then angles with the new velocities.

    Args:
        angles: The links' angles, `float[num_joints]`.
        angle_vels: Their angular velocities, `float[num_joints]`.
        action: The torques, `float[num_joints]`.
        params: The env's params (`dt`, `torque_scale`).

    Returns:
        `(angles, angle_vels)`, the new ones.
    """
    angle_vels = angle_vels + params.dt * (params.torque_scale * action)
    return angles + params.dt * angle_vels, angle_vels


def tip_position(angles: jax.Array) -> jax.Array:
    """Where the chain of unit links ends.

    Args:
        angles: The links' absolute angles, `float[num_joints]`.

    Returns:
        `float[2]`: `(sum cos(angles), sum sin(angles))`.
    """
    return jnp.stack([jnp.sum(jnp.cos(angles)), jnp.sum(jnp.sin(angles))])


def reach_reward(angles: jax.Array, goal_xy: jax.Array) -> jax.Array:
    """The reward, `exp(-|tip - goal|^2)`.

    Args:
        angles: The links' absolute angles, `float[num_joints]`.
        goal_xy: The goal point, `float[2]`.

    Returns:
        A float scalar in (0, 1].
    """
    return jnp.exp(-jnp.sum((tip_position(angles) - goal_xy) ** 2))


class Reacher(Environment[ReacherState, ReacherParams]):
    """gymnax's Reacher (see the module docstring).

    Args:
        num_joints: The number of links (and joints); it fixes the spaces' shapes.
    """

    def __init__(self, num_joints: int = 2):
        self.num_joints = num_joints

    def get_obs(self, state: ReacherState) -> jax.Array:
        """The observation of `state`.

        Args:
            state: The state.

        Returns:
            A `float32[3 * num_joints + 2]` array: `[cos(angles), sin(angles), angle_vels,
            goal_xy]`.
        """
        return jnp.concatenate([jnp.cos(state.angles), jnp.sin(state.angles), state.angle_vels, state.goal_xy]).astype(
            jnp.float32
        )

    def observe(self, state, params):
        """`float32[3 * num_joints + 2]`: `[cos(angles), sin(angles), angle_vels, goal_xy]` (`get_obs`)."""
        return self.get_obs(state)

    def is_terminal(self, state, params):
        """Whether `state` ended its episode by termination: never (only the time limit ends it)."""
        return jnp.zeros((), jnp.bool_)  # never terminates

    def reset_env(self, key, params):
        n = self.num_joints
        u = jax.random.uniform(key, (2 * n + 2,), dtype=float_dtype(), minval=-1.0, maxval=1.0)
        state = ReacherState(
            time=jnp.zeros((), jnp.int32),
            angles=u[:n] * jnp.pi,
            angle_vels=u[n : 2 * n],
            goal_xy=u[2 * n :] * n,
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        dtype = state.angles.dtype
        limit = _common.APPLIED_ACTION_LIMIT
        action = spaces.clip_action(jnp.asarray(action, dtype), -limit, limit)
        angles, angle_vels = integrate(state.angles, state.angle_vels, action, params)
        state = state.replace(angles=angles.astype(dtype), angle_vels=angle_vels.astype(dtype), time=state.time + 1)
        reward = reach_reward(state.angles, state.goal_xy)
        return self.observe(state, params), state, reward, jnp.asarray(False), {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(-np.inf, np.inf, (3 * self.num_joints + 2,), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Box(-1.0, 1.0, (self.num_joints,), jnp.float32)

    @defaults_params
    def render(self, state, params=None, size: int = 300):
        """A picture of `state` from above (see `reacher.render.render`); jit-able.

        Args:
            state: The state to draw.
            params: The env's params; None means `default_params` (unused).
            size: The image's side in pixels.

        Returns:
            A `uint8[size, size, 3]` image.
        """
        from jaxenvs.envs.misc.reacher.render import render

        return render(self.num_joints, state, size)
