"""MetaMaze: find a hidden goal in a small maze again and again (Miconi et al., 2019).

Reference: gymnax `MetaMaze-misc` (`gymnax/environments/misc/meta_maze.py`). A
`maze_size x maze_size` grid (9 by default) whose cells with both coordinates odd are walls,
inside a border `(rf_size - 1) / 2` thick. The goal is drawn uniformly over the open cells at
reset; the agent starts in the middle. Actions 0 up, 1 right, 2 down, 3 left. Reaching the goal
pays `reward` (10) and teleports the agent to a uniformly drawn open cell; bumping into a wall
adds `punishment` (0; set it negative to punish). As in gymnax the episode terminates only when
that teleport lands on the goal itself, so an episode is normally the full 200 steps of repeated
searches for the same goal (the meta-learning task). Observation: the `rf_size x rf_size` wall
window around the agent (1 for walls), the previous action one-hot, the previous reward, and the
step count (mapped by `2 t / 100 - 1` with `normalize_time`).

Differs: the start is the middle cell of the map, moved up one row when that is a wall
(`maze_size` of 3 mod 4); for `rf_size = 3` (the default) this is gymnax's start, while gymnax's
formula puts it off the middle, sometimes into a wall, for larger windows. The observation
space bounds the previous reward by the rewards that can occur and the time feature by its
real range over an episode. Invalid action: inside jit an action outside 0..3 is clipped into
that range.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.envs.misc import _common
from jaxenvs.params import flag, real


@struct.dataclass
class MetaMazeState(EnvState):
    """The state of MetaMaze (gymnax's field names).

    Attributes:
        last_action: The previous action (int32 scalar; 0 at reset).
        last_reward: The previous reward (float32 scalar; 0 at reset).
        pos: The agent's cell, `int32[2]` (row, col) in the bordered map.
        goal: The goal's cell, `int32[2]` (row, col), fixed for the episode.
    """

    last_action: jax.Array
    last_reward: jax.Array
    pos: jax.Array
    goal: jax.Array


@struct.dataclass
class MetaMazeParams(EnvParams):
    """MetaMaze's params (gymnax's names and defaults).

    Attributes:
        reward: Paid on reaching the goal.
        punishment: Added on bumping into a wall (set it negative to punish).
        normalize_time: Encode the observation's time entry as `2 t / 100 - 1` instead of t.
        max_steps_in_episode: The time limit.
    """

    reward: float = real(10.0)
    punishment: float = real(0.0)
    normalize_time: bool = flag(False)
    max_steps_in_episode: int = 200


def maze_layout(maze_size: int, rf_size: int) -> np.ndarray:
    """The maze's map: walls where both inner coordinates are odd, inside a wall border thick
    enough for the observation window never to leave the array.

    Args:
        maze_size: The inner grid's side (odd).
        rf_size: The observation window's side (odd); the border is `(rf_size - 1) / 2` thick.

    Returns:
        A `bool[H, W]` numpy array, `H = W = maze_size + rf_size - 1`, True where open.
    """
    border = (rf_size - 1) // 2
    inner = np.arange(maze_size)
    inner_walls = (inner[:, None] % 2 == 1) & (inner[None, :] % 2 == 1)
    open_map = np.zeros((maze_size + 2 * border,) * 2, dtype=bool)
    open_map[border : border + maze_size, border : border + maze_size] = ~inner_walls
    return open_map


def start_cell(open_map: np.ndarray) -> np.ndarray:
    """The agent's start: the middle cell of the map, moved up one row when that is a wall.

    Args:
        open_map: The map (`maze_layout`).

    Returns:
        An `int32[2]` numpy array, `(row, col)`.
    """
    middle = (open_map.shape[0] - 1) // 2
    row = middle if open_map[middle, middle] else middle - 1
    return np.array([row, middle], dtype=np.int32)


class MetaMaze(Environment[MetaMazeState, MetaMazeParams]):
    """gymnax's MetaMaze (see the module docstring).

    Args:
        maze_size: The inner grid's side (odd; gymnax's `maze_size`).
        rf_size: The observation window's side (odd, at least 3; gymnax's `rf_size`).

    Raises:
        ValueError: If `maze_size` is even, or `rf_size` is even or below 3.
    """

    def __init__(self, maze_size: int = 9, rf_size: int = 3):
        if maze_size % 2 != 1:
            raise ValueError(f"MetaMaze: maze_size must be odd, got {maze_size}")
        if rf_size % 2 != 1 or rf_size < 3:
            raise ValueError(f"MetaMaze: rf_size must be odd and at least 3, got {rf_size}")
        self.maze_size = maze_size
        self.rf_size = rf_size
        self.rf_off = (rf_size - 1) // 2
        self.open_map = maze_layout(maze_size, rf_size)
        self.coords = _common.open_cells(self.open_map)
        self.center_position = start_cell(self.open_map)

    def get_obs(self, state: MetaMazeState, params: MetaMazeParams) -> jax.Array:
        """The observation of `state`.

        Args:
            state: The state.
            params: The env's params.

        Returns:
            A `float32[rf_size**2 + 6]` array: the `rf_size x rf_size` window around the agent
            (1 for walls, row-major), the previous action one-hot (4), the previous reward, and
            the time.
        """
        walls = jnp.asarray(~self.open_map, jnp.float32)
        window = jax.lax.dynamic_slice(
            walls, (state.pos[0] - self.rf_off, state.pos[1] - self.rf_off), (self.rf_size, self.rf_size)
        )
        return jnp.concatenate(
            [
                window.reshape(-1),
                _common.one_hot(state.last_action, 4),
                state.last_reward[None].astype(jnp.float32),
                _common.time_feature(state.time, params.normalize_time)[None],
            ]
        )

    def observe(self, state, params):
        """`float32[rf_size**2 + 6]`: the window around the agent, last action, reward, time (`get_obs`)."""
        return self.get_obs(state, params)

    def reset_env(self, key, params):
        goal = jnp.asarray(self.coords)[jax.random.randint(key, (), 0, len(self.coords))]
        state = MetaMazeState(
            time=jnp.zeros((), jnp.int32),
            last_action=jnp.zeros((), jnp.int32),
            last_reward=jnp.zeros((), jnp.float32),
            pos=jnp.asarray(self.center_position),
            goal=goal,
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.clip(action, 0, 3).astype(jnp.int32)
        pos, moved = _common.grid_move(self.open_map, state.pos, action)
        reached = jnp.all(pos == state.goal)
        reward = (reached * params.reward + (~moved) * params.punishment).astype(jnp.float32)
        # reaching the goal teleports the agent to a uniformly drawn open cell (the goal too)
        teleport = jnp.asarray(self.coords)[jax.random.randint(key, (), 0, len(self.coords))]
        pos = jnp.where(reached, teleport, pos)
        state = state.replace(last_action=action, last_reward=reward, pos=pos, time=state.time + 1)
        terminated = jnp.all(pos == state.goal)
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        t_lo, t_hi = _common.time_bounds(bool(params.normalize_time), params.max_steps_in_episode)
        # a step pays 0, the goal reward or the wall punishment, never both
        rewards = (0.0, float(params.reward), float(params.punishment))
        r_lo, r_hi = min(rewards), max(rewards)
        n = self.rf_size**2
        low = np.array(n * [0.0] + 4 * [0.0] + [r_lo, t_lo], dtype=np.float32)
        high = np.array(n * [1.0] + 4 * [1.0] + [r_hi, t_hi], dtype=np.float32)
        return spaces.Box(low, high, (n + 6,), jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(4)

    @defaults_params
    def render(self, state, params=None):
        return _common.draw_grid(self.open_map, state.pos, state.goal)
