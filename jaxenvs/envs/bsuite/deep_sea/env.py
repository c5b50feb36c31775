"""DeepSea: an N x N grid where only always going right, against a small cost, pays off.

Reference: bsuite `environments/deep_sea.py` (experiments `deep_sea` and
`deep_sea_stochastic`, 10,000 episodes each). The agent starts at the top-left cell and
descends one row per step; each step it moves one column left or right (clipped at the
walls), so an episode lasts exactly `size` steps. Moving right costs `unscaled_move_cost /
size`; moving right from the rightmost column pays +1. The observation is the float32
`(size, size)` grid with a 1 at the agent, and all zeros once the episode has ended.

Action mapping: which of the actions 0 and 1 means "right" is drawn per cell, when the env is
built, as bsuite does: `mapping_seed` seeds numpy's `RandomState` exactly like bsuite, so
`DeepSea(size=10, mapping_seed=42)` has bsuite's mapping for `deep_sea/0`; `mapping_seed=None`
draws fresh entropy like bsuite; `randomize_actions=False` makes 1 mean right everywhere
(bsuite's debug mode). The mapping lives in `params.action_mapping` (int32[size, size]), so
it can be read, replaced, or vmapped over (`sample_action_mapping(key, size)` draws one
inside JAX, for meta-RL).

Stochastic version (`deterministic=False`): "right" succeeds with probability 1 - 1/size
(else the agent stays in its column, still paying the move cost), and the reward in the
bottom row's two end cells gets N(0, 1) noise, as in bsuite.

Differs: bsuite's logging (`total_bad_episodes`, `denoised_return`) is not kept, but the
per-episode `bad_episode` flag is in the state. Invalid action under jit: clipped to 0..1.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams
from jaxenvs.params import array, flag, real

NUM_EPISODES = 10_000  # bsuite experiments/deep_sea/sweep.py (and deep_sea_stochastic)

# the open interval (-1, 1) for erf_inv, as jax.random.normal draws it
_LOW = float(np.nextafter(np.float32(-1.0), np.float32(0.0)))


@struct.dataclass
class DeepSeaState(EnvState):
    """The state of DeepSea (bsuite's `_row`, `_column`, `_bad_episode`).

    Attributes:
        row: The depth (int32 scalar), 0 at the top; `size` once the episode has ended.
        column: The column (int32 scalar), 0 at the left.
        bad_episode: Whether the agent has left the diagonal of the optimal path (by moving
            left from it) this episode (bool scalar).
    """

    row: jax.Array
    column: jax.Array
    bad_episode: jax.Array


@struct.dataclass
class DeepSeaParams(BsuiteParams):
    """DeepSea's params.

    Attributes:
        action_mapping: The action (0 or 1) that means "right" in each cell, `int32[size,
            size]` indexed `[row, column]` (bsuite's `_action_mapping`).
        unscaled_move_cost: The cost of moving right, times `size` (each right move costs
            `unscaled_move_cost / size`).
        deterministic: False for bsuite's stochastic version (static).
    """

    action_mapping: jax.Array | None = array(shape=("size", "size"), dtype="integer", low=0, high=1)
    unscaled_move_cost: float = real(0.01, low=0.0)
    deterministic: bool = flag(True, static=True)


def action_mapping(size: int, mapping_seed: int | None, randomize_actions: bool = True) -> np.ndarray:
    """bsuite's action mapping: `RandomState(mapping_seed).binomial(1, 0.5, [size, size])`.

    Args:
        size: The grid's side.
        mapping_seed: The seed of numpy's `RandomState`, as bsuite's; None draws fresh entropy.
        randomize_actions: False makes 1 mean right everywhere (bsuite's debug mode).

    Returns:
        An `int32[size, size]` numpy array, the action meaning "right" per cell.
    """
    if not randomize_actions:
        return np.ones((size, size), np.int32)
    return np.random.RandomState(mapping_seed).binomial(1, 0.5, [size, size]).astype(np.int32)


def sample_action_mapping(key: jax.Array, size: int) -> jax.Array:
    """A random per-cell action mapping drawn inside JAX (for meta-RL over mappings).

    Args:
        key: A JAX PRNG key.
        size: The grid's side (static).

    Returns:
        An `int32[size, size]` array of 0s and 1s, for `params.action_mapping`.
    """
    return jax.random.bernoulli(key, 0.5, (size, size)).astype(jnp.int32)


def observation(row: jax.Array, column: jax.Array, size: int) -> jax.Array:
    """bsuite's observation of DeepSea: the grid with a 1 at the agent.

    Args:
        row: The agent's row (int32 scalar); `size` once the episode has ended.
        column: The agent's column (int32 scalar).
        size: The grid's side.

    Returns:
        A `float32[size, size]` array; all zeros once the episode has ended.
    """
    rows = jnp.arange(size)[:, None]
    cols = jnp.arange(size)[None, :]
    return ((rows == row) & (cols == column)).astype(jnp.float32)  # no row matches size: zeros


def is_right(state: DeepSeaState, action: jax.Array, params: DeepSeaParams, size: int) -> jax.Array:
    """Whether `action` means "right" in the agent's cell.

    Args:
        state: The state.
        action: 0 or 1; others are clipped to 0..1.
        params: The env's params (its `action_mapping`).
        size: The grid's side.

    Returns:
        A bool scalar.
    """
    row = jnp.minimum(state.row, size - 1)  # a finished episode is undefined; stay in bounds
    return jnp.clip(action, 0, 1) == params.action_mapping[row, state.column]


class DeepSea(Environment[DeepSeaState, DeepSeaParams]):
    """bsuite's DeepSea (see the module docstring).

    Args:
        size: The grid's side, also the episode's length (bsuite's `size`; 10 to 100 in its
            sweep).
        deterministic: False for the stochastic version (`deep_sea_stochastic`).
        unscaled_move_cost: The cost of moving right, times `size`.
        randomize_actions: False makes 1 mean right everywhere (bsuite's debug mode).
        mapping_seed: The seed of the action mapping (bsuite's `mapping_seed`); None draws fresh
            entropy.
    """

    reset_ignores_key = True  # every episode starts alike

    def __init__(
        self,
        size: int = 10,
        deterministic: bool = True,
        unscaled_move_cost: float = 0.01,
        randomize_actions: bool = True,
        mapping_seed: int | None = None,
    ):
        self.size = int(size)
        self._mapping = action_mapping(self.size, mapping_seed, randomize_actions)
        self._deterministic = bool(deterministic)
        self._unscaled_move_cost = float(unscaled_move_cost)

    @property
    def default_params(self) -> DeepSeaParams:
        return DeepSeaParams(
            action_mapping=jnp.asarray(self._mapping),
            unscaled_move_cost=self._unscaled_move_cost,
            deterministic=self._deterministic,
            bsuite_num_episodes=NUM_EPISODES,
        )

    def observe(self, state, params):
        """The grid, `float32[size, size]`, 1 at the agent; all zeros once the episode has ended."""
        return observation(state.row, state.column, self.size)

    def is_terminal(self, state, params):
        """Whether the diver has passed the last row (the `terminated` of the step into `state`)."""
        return state.row == self.size

    def reset_env(self, key, params):
        zero = jnp.zeros((), jnp.int32)
        state = DeepSeaState(time=zero, row=zero, column=zero, bad_episode=jnp.asarray(False))
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        size = self.size
        right = is_right(state, action, params, size)
        reward = jnp.where((state.column == size - 1) & right, 1.0, 0.0)
        if params.deterministic:
            moved = right
        else:
            u = jax.random.uniform(key, (2,), minval=_LOW, maxval=1.0)
            at_end = (state.row == size - 1) & ((state.column == 0) | (state.column == size - 1))
            reward = reward + jnp.where(at_end, jnp.sqrt(2.0) * jax.lax.erf_inv(u[1]), 0.0)
            moved = right & ((u[0] + 1.0) / 2.0 > 1.0 / size)
        reward = reward - jnp.where(right, params.unscaled_move_cost / size, 0.0)
        column = jnp.where(
            right,
            jnp.where(moved, jnp.minimum(state.column + 1, size - 1), state.column),
            jnp.maximum(state.column - 1, 0),
        )
        state = state.replace(
            row=state.row + 1,
            column=column.astype(jnp.int32),
            bad_episode=state.bad_episode | (~right & (state.row == state.column)),
            time=state.time + 1,
        )
        terminated = state.row == size
        return self.observe(state, params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(0.0, 1.0, shape=(self.size, self.size), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(2)

    @defaults_params
    def render(self, state, params=None):
        return _draw.board(observation(state.row, state.column, self.size), cell_size=12)
