"""Four Rooms: walk through doorways between four rooms to a goal cell (Sutton et al., 1999).

Reference: gymnax `FourRooms-misc` (`gymnax/environments/misc/rooms.py`). The 13x13 map of
four rooms joined by four doorways; the agent starts at (4, 1) and the goal is (8, 9)
(`pos_fixed`, `goal_fixed`; `resample_init_pos` / `resample_goal_pos` draw them uniformly over
the open cells instead, the start never on the goal). Actions 0 up, 1 right, 2 down, 3 left;
with probability `fail_prob * 4 / 3` the action is replaced by a uniformly random one (so a
different move than chosen happens with probability `fail_prob`, 1/3 by default); a move into a
wall leaves the agent in place. Reward 1 and termination on reaching the goal, 500 steps.
Observation `[row, col, goal_row, goal_col]`, or with `use_visual_obs` a `(13, 13, 2)` image
(channel 0 the walls, channel 1 the agent).

Differs: observations are float32, the dtype of gymnax's declared space (its arrays are int32);
the visual observation marks the agent at `[row, col]`, where gymnax writes it transposed at
`[col, row]`. The slip uses one uniform number per step for both the slip and the random move.
Invalid action: inside jit an action outside 0..3 is clipped into that range.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.envs.misc import _common
from jaxenvs.params import flag, probability

FOUR_ROOMS_MAP = """
xxxxxxxxxxxxx
x     x     x
x     x     x
x           x
x     x     x
x     x     x
xx xxxx     x
x     xxx xxx
x     x     x
x     x     x
x           x
x     x     x
xxxxxxxxxxxxx
"""


@struct.dataclass
class FourRoomsState(EnvState):
    """The state of FourRooms (gymnax's field names).

    Attributes:
        pos: The agent's cell, `int32[2]` (row, col).
        goal: The goal's cell, `int32[2]` (row, col).
    """

    pos: jax.Array
    goal: jax.Array


@struct.dataclass
class FourRoomsParams(EnvParams):
    """FourRooms' params (gymnax's names and defaults).

    Attributes:
        fail_prob: The probability that a different move than chosen happens.
        resample_init_pos: Start uniformly at random over the open cells (never on the goal)
            instead of at `pos_fixed`.
        resample_goal_pos: Put the goal uniformly at random over the open cells instead of at
            `goal_fixed`.
        max_steps_in_episode: The time limit.
    """

    fail_prob: float = probability(1.0 / 3, per_episode=True)
    resample_init_pos: bool = flag(False)
    resample_goal_pos: bool = flag(False)
    max_steps_in_episode: int = 500


def slip_action(u: jax.Array, action: jax.Array, fail_prob: jax.Array) -> jax.Array:
    """The executed move: with probability `fail_prob * 4 / 3` a uniform one, from one uniform `u`.

    Given `u < p`, `u / p` is again uniform on [0, 1), so it picks the random move too.

    Args:
        u: A uniform number in [0, 1).
        action: The chosen move, 0..3.
        fail_prob: The probability that a different move than chosen happens.

    Returns:
        The executed move (int32 scalar, 0..3).
    """
    p = jnp.clip(fail_prob * 4.0 / 3.0, 0.0, 1.0)
    random_action = jnp.minimum(jnp.floor(u / jnp.where(p > 0, p, 1.0) * 4.0), 3.0).astype(jnp.int32)
    return jnp.where(u < p, random_action, action)


def at_goal(pos: jax.Array, goal: jax.Array) -> jax.Array:
    """Whether the agent is on the goal.

    Args:
        pos: The agent's cell, `int32[2]`.
        goal: The goal's cell, `int32[2]`.

    Returns:
        A bool scalar.
    """
    return jnp.all(pos == goal)


class FourRooms(Environment[FourRoomsState, FourRoomsParams]):
    """gymnax's FourRooms (see the module docstring).

    Args:
        use_visual_obs: Observe a `(13, 13, 2)` image (walls, agent) instead of
            `[row, col, goal_row, goal_col]`.
        goal_fixed: The goal's `(row, col)` unless `params.resample_goal_pos`.
        pos_fixed: The start's `(row, col)` unless `params.resample_init_pos`.

    Raises:
        ValueError: If `goal_fixed` or `pos_fixed` is not an open cell of the map.
    """

    def __init__(
        self,
        use_visual_obs: bool = False,
        goal_fixed: Sequence[int] = (8, 9),
        pos_fixed: Sequence[int] = (4, 1),
    ):
        self.open_map = _common.parse_map(FOUR_ROOMS_MAP)
        self.coords = _common.open_cells(self.open_map)
        self.use_visual_obs = use_visual_obs
        self.goal_fixed = np.asarray(goal_fixed, np.int32)
        self.pos_fixed = np.asarray(pos_fixed, np.int32)
        for name, cell in (("goal_fixed", self.goal_fixed), ("pos_fixed", self.pos_fixed)):
            if cell.shape != (2,) or not np.any(np.all(self.coords == cell, axis=1)):
                raise ValueError(f"FourRooms: {name}={list(cell)} is not an open (row, col) cell of the map")
        # index of the fixed goal among the open cells
        self._goal_fixed_index = int(np.flatnonzero(np.all(self.coords == self.goal_fixed, axis=1))[0])

    def get_obs(self, state: FourRoomsState) -> jax.Array:
        """The observation of `state`.

        Args:
            state: The state.

        Returns:
            `float32[4]`, `[row, col, goal_row, goal_col]`; with `use_visual_obs`,
            `float32[13, 13, 2]`, channel 0 the walls and channel 1 the agent.
        """
        if not self.use_visual_obs:
            return jnp.concatenate([state.pos, state.goal]).astype(jnp.float32)
        h, w = self.open_map.shape
        walls = jnp.asarray(~self.open_map, jnp.float32)
        agent = (jnp.arange(h)[:, None] == state.pos[0]) & (jnp.arange(w)[None, :] == state.pos[1])
        return jnp.stack([walls, agent.astype(jnp.float32)], axis=-1)

    def observe(self, state, params):
        """The observation of `state` (`get_obs`)."""
        return self.get_obs(state)

    def reset_env(self, key, params):
        n = len(self.coords)
        coords = jnp.asarray(self.coords)
        # one draw: a goal index in [0, n) and a start index in [0, n - 1)
        drawn = jax.random.randint(key, (2,), 0, jnp.asarray([n, n - 1]))
        goal_index = jnp.where(params.resample_goal_pos, drawn[0], self._goal_fixed_index)
        goal = jnp.where(params.resample_goal_pos, coords[drawn[0]], self.goal_fixed)
        # uniform over the open cells other than the goal: skip the goal's index
        k = jnp.where(drawn[1] >= goal_index, drawn[1] + 1, drawn[1])
        pos = jnp.where(params.resample_init_pos, coords[k], self.pos_fixed)
        state = FourRoomsState(time=jnp.zeros((), jnp.int32), pos=pos, goal=goal)
        return self.get_obs(state), state

    def step_env(self, key, state, action, params):
        action = slip_action(jax.random.uniform(key), jnp.clip(action, 0, 3).astype(jnp.int32), params.fail_prob)
        pos, _ = _common.grid_move(self.open_map, state.pos, action)
        reached = at_goal(pos, state.goal)
        state = state.replace(pos=pos, time=state.time + 1)
        return self.get_obs(state), state, reached.astype(jnp.float32), reached, {}

    @defaults_params
    def observation_space(self, params=None):
        if self.use_visual_obs:
            return spaces.Box(0.0, 1.0, (*self.open_map.shape, 2), jnp.float32)
        return spaces.Box(float(self.coords.min()), float(self.coords.max()), (4,), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(4)

    @defaults_params
    def render(self, state, params=None):
        return _common.draw_grid(self.open_map, state.pos, state.goal)
