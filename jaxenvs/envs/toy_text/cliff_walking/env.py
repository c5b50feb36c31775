"""CliffWalking: walk along a cliff edge from start to goal (Sutton & Barto, Example 6.6).

Reference: gymnasium 1.3 `CliffWalking-v1` and `CliffWalkingSlippery-v1`
(`gymnasium/envs/toy_text/cliffwalking.py`). A 4 x 12 grid; the player starts at (3, 0)
(observation 36) and the goal is (3, 11) (47); the cells (3, 1..10) are the cliff. Actions 0
up, 1 right, 2 down, 3 left; moves off the grid stay on its edge. Every step costs -1;
stepping onto the cliff costs -100 and puts the player back on the start *without* ending
the episode; reaching the goal ends it. `is_slippery` (the `...Slippery` id): the move goes
in the chosen direction or either perpendicular one with probability 1/3 each. Every cell,
the cliff and the goal included, has its transitions defined the same way, as in gymnasium's
table (so a raw env stepped past the goal walks on). `info["prob"]` as gymnasium's.

Time limit: gymnasium registers both ids without one; so does jaxenvs
(`max_steps_in_episode = 2**31 - 1`). Random-policy episodes last about 7,000 steps on
average; pass `max_steps_in_episode=...` to `make` for a limit.

Differs: `render` draws flat colours (grass, cliff, start, goal, the player as a disc), not
gymnasium's sprites. Invalid action under jit: clipped into [0, 3].
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.envs.toy_text import _common
from jaxenvs.envs.toy_text.cliff_walking.layout import GOAL, SHAPE, START, cliff_mask
from jaxenvs.params import flag

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
CLIFF_REWARD = -100.0
STEP_REWARD = -1.0

# (row, col) change of UP, RIGHT, DOWN, LEFT
_DELTAS = np.array([(-1, 0), (0, 1), (1, 0), (0, -1)])


@functools.lru_cache(maxsize=1)
def cliff_tables() -> dict[str, np.ndarray]:
    """The static tables of every (cell, direction), as gymnasium's `P` holds them.

    Returns:
        `{"next_cell": int32[48, 4], "reward": float32[48, 4], "terminated": bool[48, 4]}`:
        the cell reached (the start after a fall off the cliff), the reward (-1, or -100 for
        the cliff) and whether the goal was reached.
    """
    nrow, ncol = SHAPE
    rows, cols = np.divmod(np.arange(nrow * ncol), ncol)
    landed = np.clip(rows[:, None] + _DELTAS[None, :, 0], 0, nrow - 1) * ncol + np.clip(
        cols[:, None] + _DELTAS[None, :, 1], 0, ncol - 1
    )
    fell = cliff_mask()[landed]
    return dict(
        next_cell=np.where(fell, START, landed).astype(np.int32),
        reward=np.where(fell, CLIFF_REWARD, STEP_REWARD).astype(np.float32),
        terminated=(~fell) & (landed == GOAL),
    )


@struct.dataclass
class CliffWalkingState(EnvState):
    """The player's place.

    Attributes:
        s: int32 scalar: the player's cell, `row * 12 + col` (gymnasium's `s`), in [0, 47].
    """

    s: jax.Array


@struct.dataclass
class CliffWalkingParams(EnvParams):
    """CliffWalking's options.

    Attributes:
        is_slippery: Static. The move goes in the chosen direction or either perpendicular
            one, 1/3 each (`CliffWalkingSlippery-v1`; gymnasium's `is_slippery`).
        max_steps_in_episode: The time limit: `2**31 - 1` (gymnasium registers none).
    """

    is_slippery: bool = flag(False, static=True)
    max_steps_in_episode: int = _common.NO_TIME_LIMIT


def slip(u: jax.Array, action: jax.Array, params: CliffWalkingParams) -> tuple[jax.Array, jax.Array]:
    """The direction actually moved and its probability.

    Args:
        u: One uniform draw in [0, 1) (None when not slippery).
        action: The chosen direction, in [0, 3].
        params: Whether the ice is slippery (`is_slippery`).

    Returns:
        `(direction, prob)`: the direction moved (int32) and the probability of that outcome
        (float32, gymnasium's `info["prob"]`).
    """
    if not params.is_slippery:
        return action, jnp.ones((), jnp.float32)
    # gymnasium's categorical over ((a - 1) % 4, a, (a + 1) % 4), 1/3 each
    offset = jnp.minimum(jnp.floor(u * 3.0).astype(jnp.int32), 2) - 1
    return (action + offset) % 4, jnp.full((), 1.0 / 3.0, jnp.float32)


def move(s: jax.Array, direction: jax.Array):
    """One move on the grid, read from `cliff_tables`.

    Args:
        s: The cell moved from.
        direction: The direction moved: 0 up, 1 right, 2 down, 3 left.

    Returns:
        `(next cell, reward, terminated)`: int32, float32 and bool scalars.
    """
    t = cliff_tables()
    return (
        jnp.asarray(t["next_cell"])[s, direction],
        jnp.asarray(t["reward"])[s, direction],
        jnp.asarray(t["terminated"])[s, direction],
    )


class CliffWalking(Environment[CliffWalkingState, CliffWalkingParams]):
    """gymnasium's `CliffWalking-v1` and `CliffWalkingSlippery-v1` (see the module docstring for
    what differs).

    Observation the player's cell, an int32 in `Discrete(48)`; actions `Discrete(4)`: 0 up,
    1 right, 2 down, 3 left. `info["prob"]` is the probability of the outcome taken.
    """

    reset_ignores_key = True  # every episode starts alike

    def observe(self, state, params):
        """The player's cell `s`, an int32 scalar."""
        return state.s

    def reset_env(self, key, params):
        state = CliffWalkingState(time=jnp.zeros((), jnp.int32), s=jnp.asarray(START, jnp.int32))
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.clip(jnp.asarray(action, jnp.int32), 0, 3)
        u = jax.random.uniform(key) if params.is_slippery else None
        direction, prob = slip(u, action, params)
        s, reward, terminated = move(state.s, direction)
        state = CliffWalkingState(time=state.time + 1, s=s)
        return self.observe(state, params), state, reward, terminated, {"prob": prob}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Discrete(SHAPE[0] * SHAPE[1])

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(4)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.toy_text.cliff_walking.render import render

        return render(state, params)
