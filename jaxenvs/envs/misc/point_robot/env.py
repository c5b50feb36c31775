"""PointRobot: a point in the plane searching for a goal on a semicircle (Dorfman et al., 2021).

Reference: gymnax `PointRobot-misc` (`gymnax/environments/misc/point_robot.py`), the
meta-RL "semi-circle" task of https://openreview.net/pdf?id=IBdEfhLveS. At reset the goal is
drawn uniformly on the upper half of the circle of radius `circle_radius` and the agent uniformly
in angle and radius inside that half-disc (or at the origin with `center_init`). The action, a
2-D displacement clipped to `[-max_force, max_force]`, is added to the position. A step that
starts within `goal_radius` of the goal pays 1 (or, with `dense_reward`, every step pays minus
the distance to the goal) and teleports the agent to a freshly drawn start instead of moving it;
`goals_reached` counts these. It never terminates: episodes are 100 steps. Observation
`[x, y, last_reward, last_action_x, last_action_y, time]`, time as `2 t / 100 - 1` with
`normalize_time` (the default).

Like gymnax, the goal test and the dense reward use the position before the move, and the
observation reports the action as given (unclipped). Invalid action: a displacement outside
the box is clipped for the move and reported as given, eagerly and under jit, as gymnax does;
only inside jit, where nothing can raise, a NaN is 0 and the observation reports the action
capped at 1e6 in magnitude (so it stays finite). Dynamics run in float32, or float64 with
`jax_enable_x64`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params, float_dtype
from jaxenvs.envs.misc import _common
from jaxenvs.params import flag, positive, real

# the largest action magnitude the observation reports (an invalid action inside jit)
REPORTED_ACTION_LIMIT = 1e6


@struct.dataclass
class PointRobotState(EnvState):
    """The state of PointRobot (gymnax's field names); floats in `float_dtype()`.

    Attributes:
        last_action: The previous action as given (unclipped, capped at 1e6 in magnitude),
            `float[2]`; 0 at reset.
        last_reward: The previous reward (float scalar; 0 at reset).
        pos: The agent's position, `float[2]` (x, y).
        goal: The goal's position, `float[2]` (x, y), fixed for the episode.
        goals_reached: How many times the goal was reached this episode (int32 scalar).
    """

    last_action: jax.Array
    last_reward: jax.Array
    pos: jax.Array
    goal: jax.Array
    goals_reached: jax.Array


@struct.dataclass
class PointRobotParams(EnvParams):
    """PointRobot's params (gymnax's names and defaults).

    Attributes:
        max_force: The largest displacement per coordinate and step (the action space's bound).
        circle_radius: The radius of the goals' semicircle.
        dense_reward: Pay minus the distance to the goal every step, instead of 1 at the goal.
        goal_radius: The distance to the goal that counts as reaching it.
        center_init: Start at the origin instead of a random point of the half-disc.
        normalize_time: Encode the observation's time entry as `2 t / 100 - 1` instead of t.
        max_steps_in_episode: The episode's length (the env never terminates).
    """

    max_force: float = positive(0.1)
    circle_radius: float = positive(1.0)
    dense_reward: bool = flag(False)
    goal_radius: float = real(0.2, low=0.0)
    center_init: bool = flag(False)
    normalize_time: bool = flag(True)
    max_steps_in_episode: int = 100


def sample_position(u: jax.Array, circle_radius, center_init) -> jax.Array:
    """A start position from two uniforms: radius and angle uniform over the upper half-disc.

    Args:
        u: Two uniform numbers in [0, 1), `float[2]`: the radius's and the angle's.
        circle_radius: The half-disc's radius.
        center_init: Return the origin instead.

    Returns:
        The position, `float[2]` (x, y).
    """
    radius, angle = u[0] * circle_radius, u[1] * jnp.pi
    pos = jnp.stack([radius * jnp.cos(angle), radius * jnp.sin(angle)])
    return jnp.where(center_init, jnp.zeros_like(pos), pos)


def goal_distance(pos: jax.Array, goal: jax.Array) -> jax.Array:
    """The Euclidean distance from the agent to the goal.

    Args:
        pos: The agent's position, `float[2]`.
        goal: The goal's position, `float[2]`.

    Returns:
        A float scalar.
    """
    return jnp.sqrt(jnp.sum((goal - pos) ** 2))


class PointRobot(Environment[PointRobotState, PointRobotParams]):
    """gymnax's PointRobot (see the module docstring)."""

    def get_obs(self, state: PointRobotState, params: PointRobotParams) -> jax.Array:
        """The observation of `state`.

        Args:
            state: The state.
            params: The env's params.

        Returns:
            A `float32[6]` array: `[x, y, last_reward, last_action_x, last_action_y, time]`.
        """
        return jnp.concatenate(
            [
                state.pos.astype(jnp.float32),
                state.last_reward[None].astype(jnp.float32),
                state.last_action.astype(jnp.float32),
                _common.time_feature(state.time, params.normalize_time)[None],
            ]
        )

    def observe(self, state, params):
        """`float32[6]`: `[x, y, last_reward, last_action_x, last_action_y, time]` (`get_obs`)."""
        return self.get_obs(state, params)

    def is_terminal(self, state, params):
        """Whether `state` ended its episode by termination: never (only the time limit ends it)."""
        return jnp.zeros((), jnp.bool_)  # never terminates

    def reset_env(self, key, params):
        dtype = float_dtype()
        u = jax.random.uniform(key, (3,), dtype=dtype)
        angle = u[0] * jnp.pi
        goal = params.circle_radius * jnp.stack([jnp.cos(angle), jnp.sin(angle)])
        state = PointRobotState(
            time=jnp.zeros((), jnp.int32),
            last_action=jnp.zeros((2,), dtype),
            last_reward=jnp.zeros((), dtype),
            pos=sample_position(u[1:], params.circle_radius, params.center_init).astype(dtype),
            goal=goal.astype(dtype),
            goals_reached=jnp.zeros((), jnp.int32),
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        dtype = state.pos.dtype
        # a NaN is 0; the observation's copy of the action is capped, so it stays finite
        action = spaces.clip_action(jnp.asarray(action, dtype), -REPORTED_ACTION_LIMIT, REPORTED_ACTION_LIMIT)
        distance = goal_distance(state.pos, state.goal)
        reached = distance <= params.goal_radius
        reward = jnp.where(params.dense_reward, -distance, reached.astype(dtype)).astype(dtype)
        moved = state.pos + jnp.clip(action, -params.max_force, params.max_force)
        respawn = sample_position(jax.random.uniform(key, (2,), dtype=dtype), params.circle_radius, params.center_init)
        state = state.replace(
            last_action=action,
            last_reward=reward,
            pos=jnp.where(reached, respawn, moved).astype(dtype),
            goals_reached=state.goals_reached + reached.astype(jnp.int32),
            time=state.time + 1,
        )
        return self.observe(state, params), state, reward, jnp.asarray(False), {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(-np.inf, np.inf, (6,), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Box(-params.max_force, params.max_force, (2,), jnp.float32)

    @defaults_params
    def render(self, state, params=None, width: int = 300, height: int = 180):
        """A picture of `state` from above (see `point_robot.render.render`); jit-able.

        Args:
            state: The state to draw.
            params: The env's params; None means `default_params`.
            width: The image's width in pixels.
            height: The image's height in pixels.

        Returns:
            A `uint8[height, width, 3]` image.
        """
        from jaxenvs.envs.misc.point_robot.render import render

        return render(state, params, width, height)
