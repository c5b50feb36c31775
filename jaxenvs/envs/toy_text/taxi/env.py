"""Taxi: drive to the passenger, pick them up, drive to their destination and drop them off.

Reference: gymnasium 1.3 `Taxi-v4` (`gymnasium/envs/toy_text/taxi.py`; the installed
gymnasium registers `Taxi-v4` only, 200 steps), after Dietterich's MAXQ paper. A 5 x 5 grid
with walls; four stands R (0, 0), G (0, 4), Y (4, 0), B (4, 3). Actions: 0 south, 1 north,
2 east, 3 west, 4 pickup, 5 drop off. The observation is gymnasium's encoding
`((taxi_row * 5 + taxi_col) * 5 + pass_loc) * 4 + dest_idx` (int32, 500 values; `pass_loc`
4 means in the taxi). Rewards: -1 per step, +20 for dropping the passenger at their
destination (which ends the episode), -10 for a pickup where the passenger is not, or a drop
off with no passenger aboard or away from every stand. Dropping the passenger at another
stand leaves them there (-1). The reset is uniform over the 300 states with the passenger at
a stand that is not their destination.

Options, as gymnasium 1.3 defines them (params):
- `is_rainy`: a move that is possible goes in the chosen direction with probability
  `rainy_probability` (0.8) and to either side with `(1 - rainy_probability) / 2` (left and
  right of the heading: south -> east / west, north -> west / east, east -> north / south,
  west -> south / north), a sideways move blocked by a wall staying put. A move blocked by a
  wall or the edge stays put whatever is drawn.
- `fickle_passenger`: at reset, with probability `fickle_probability` (0.3), the passenger is
  fickle (`fickle_step`); a fickle passenger changes destination, uniformly to one of the
  three others, on the first step that moves the taxi while they are aboard, and only once.

`info` holds gymnasium's keys at every step: `prob` (the probability of the outcome taken)
and `action_mask` (bool[6]: whether each action changes the state: a move not blocked, a
pickup where the passenger waits, a drop off at a stand with the passenger aboard).

Differs: `info["action_mask"]` is bool, gymnasium's int8. The reset's `info` is not returned
(the jaxenvs reset gives `(obs, state)`); `action_mask(state)` gives it. `render` draws flat
shapes (walls, coloured stands, the destination as a ring, the passenger as a disc, the taxi
as a yellow square), not gymnasium's sprites. Invalid action under jit: clipped into [0, 5].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from jax import lax

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.envs.toy_text.taxi.layout import EAST_OPEN, IN_TAXI, STAND_AT, WEST_OPEN
from jaxenvs.params import flag, probability

SOUTH, NORTH, EAST, WEST, PICKUP, DROPOFF = range(6)
# Sideways directions of each heading under rain (gymnasium's left / right).
LEFT_OF = np.array([EAST, WEST, NORTH, SOUTH], np.int32)
RIGHT_OF = np.array([WEST, EAST, SOUTH, NORTH], np.int32)


@struct.dataclass
class TaxiState(EnvState):
    """The taxi, the passenger and their destination (gymnasium's decoded `s`, and its
    `fickle_step`).

    Attributes:
        taxi_row: int32 scalar: the taxi's row, in [0, 4].
        taxi_col: int32 scalar: the taxi's column, in [0, 4].
        pass_loc: int32 scalar: the passenger's stand 0..3 (R, G, Y, B), or 4 (`IN_TAXI`)
            aboard.
        dest_idx: int32 scalar: the destination stand, 0..3.
        fickle_step: bool scalar: a fickle passenger who has not changed their mind yet.
    """

    taxi_row: jax.Array
    taxi_col: jax.Array
    pass_loc: jax.Array
    dest_idx: jax.Array
    fickle_step: jax.Array


@struct.dataclass
class TaxiParams(EnvParams):
    """Taxi's options, gymnasium 1.3's kwargs of the same names (see the module docstring).

    Attributes:
        is_rainy: Static. A possible move may slip to either side.
        fickle_passenger: Static. The passenger may change destination once, after the first
            move with them aboard.
        rainy_probability: The probability of moving as chosen when rainy (0.8).
        fickle_probability: The probability that the passenger is fickle, drawn at reset (0.3).
        max_steps_in_episode: The time limit (200 for `Taxi-v4`).
    """

    is_rainy: bool = flag(False, static=True)
    fickle_passenger: bool = flag(False, static=True)
    rainy_probability: float = probability(0.8, per_episode=True)
    fickle_probability: float = probability(0.3, per_episode=True)
    max_steps_in_episode: int = 200


def encode(taxi_row, taxi_col, pass_loc, dest_idx) -> jax.Array:
    """gymnasium's observation of a state, `((taxi_row * 5 + taxi_col) * 5 + pass_loc) * 4 + dest_idx`.

    Args:
        taxi_row: The taxi's row, in [0, 4].
        taxi_col: The taxi's column, in [0, 4].
        pass_loc: The passenger's stand 0..3, or 4 aboard.
        dest_idx: The destination stand, 0..3.

    Returns:
        An int32 in [0, 500).
    """
    return (((taxi_row * 5 + taxi_col) * 5 + pass_loc) * 4 + dest_idx).astype(jnp.int32)


def decode(obs) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """The state of an observation, `encode` undone.

    Args:
        obs: An observation, in [0, 500).

    Returns:
        `(taxi_row, taxi_col, pass_loc, dest_idx)`, int32.
    """
    obs = jnp.asarray(obs, jnp.int32)
    return obs // 100, (obs // 20) % 5, (obs // 4) % 5, obs % 4


def can_move(taxi_row, taxi_col, direction) -> jax.Array:
    """Whether a move changes the taxi's cell (no wall in the way, not the edge).

    Args:
        taxi_row: The taxi's row, in [0, 4].
        taxi_col: The taxi's column, in [0, 4].
        direction: 0 south, 1 north, 2 east, 3 west.

    Returns:
        A bool scalar.
    """
    return jnp.stack(
        [
            taxi_row < 4,
            taxi_row > 0,
            jnp.asarray(EAST_OPEN)[taxi_row, taxi_col],
            jnp.asarray(WEST_OPEN)[taxi_row, taxi_col],
        ]
    )[direction]


def move(taxi_row, taxi_col, direction) -> tuple[jax.Array, jax.Array]:
    """The cell reached by a move; walls and edges stop the taxi.

    Args:
        taxi_row: The taxi's row, in [0, 4].
        taxi_col: The taxi's column, in [0, 4].
        direction: 0 south, 1 north, 2 east, 3 west.

    Returns:
        `(taxi_row, taxi_col)` after the move.
    """
    ok = can_move(taxi_row, taxi_col, direction)
    d_row = jnp.asarray([1, -1, 0, 0])[direction]
    d_col = jnp.asarray([0, 0, 1, -1])[direction]
    return taxi_row + ok * d_row, taxi_col + ok * d_col


def pickup(taxi_row, taxi_col, pass_loc) -> tuple[jax.Array, jax.Array]:
    """A pickup: the passenger boards where they wait (-1), else nothing changes (-10).

    Args:
        taxi_row: The taxi's row, in [0, 4].
        taxi_col: The taxi's column, in [0, 4].
        pass_loc: The passenger's stand 0..3, or 4 aboard.

    Returns:
        `(pass_loc, reward)` after the pickup.
    """
    here = (pass_loc < 4) & (jnp.asarray(STAND_AT)[taxi_row, taxi_col] == pass_loc)
    return jnp.where(here, IN_TAXI, pass_loc), jnp.where(here, -1.0, -10.0)


def dropoff(taxi_row, taxi_col, pass_loc, dest_idx) -> tuple[jax.Array, jax.Array, jax.Array]:
    """A drop off: +20 and the end at the destination; at another stand the passenger waits
    there (-1); otherwise -10 and nothing changes.

    Args:
        taxi_row: The taxi's row, in [0, 4].
        taxi_col: The taxi's column, in [0, 4].
        pass_loc: The passenger's stand 0..3, or 4 aboard.
        dest_idx: The destination stand, 0..3.

    Returns:
        `(pass_loc, reward, terminated)` after the drop off.
    """
    stand = jnp.asarray(STAND_AT)[taxi_row, taxi_col]
    aboard = pass_loc == IN_TAXI
    delivered = aboard & (stand == dest_idx)
    left_at_stand = aboard & (stand >= 0)
    new_pass = jnp.where(left_at_stand, stand, pass_loc)
    reward = jnp.where(delivered, 20.0, jnp.where(left_at_stand, -1.0, -10.0))
    return new_pass, reward, delivered


def action_mask(state: TaxiState) -> jax.Array:
    """Which actions change the state (gymnasium's `action_mask`).

    Args:
        state: The state.

    Returns:
        `bool[6]`: a move not blocked (south, north, east, west), a pickup where the
        passenger waits, a drop off at a stand with the passenger aboard.
    """
    stand = jnp.asarray(STAND_AT)[state.taxi_row, state.taxi_col]
    return jnp.stack(
        [
            state.taxi_row < 4,
            state.taxi_row > 0,
            jnp.asarray(EAST_OPEN)[state.taxi_row, state.taxi_col],
            jnp.asarray(WEST_OPEN)[state.taxi_row, state.taxi_col],
            (state.pass_loc < 4) & (stand == state.pass_loc),
            (state.pass_loc == IN_TAXI) & (stand >= 0),
        ]
    )


def rain(u, action, params: TaxiParams) -> tuple[jax.Array, jax.Array]:
    """The heading actually driven in the rain, and its probability.

    Args:
        u: One uniform draw in [0, 1).
        action: The chosen heading, 0..3.
        params: The `rainy_probability`.

    Returns:
        `(direction, prob)`: the heading driven (the chosen one, or `LEFT_OF` / `RIGHT_OF`
        it) and the probability of that outcome (float32, gymnasium's `info["prob"]`).
    """
    p = params.rainy_probability
    side = (1.0 - p) / 2.0
    # gymnasium's categorical over (forward, left, right) with (p, side, side)
    direction = jnp.where(
        u < p, action, jnp.where(u < p + side, jnp.asarray(LEFT_OF)[action], jnp.asarray(RIGHT_OF)[action])
    )
    return direction, jnp.asarray(jnp.where(u < p, p, side), jnp.float32)


class Taxi(Environment[TaxiState, TaxiParams]):
    """gymnasium's `Taxi-v4` (see the module docstring for its options and what differs).

    Observation gymnasium's encoded state (`encode`), an int32 in `Discrete(500)`; actions
    `Discrete(6)`: 0 south, 1 north, 2 east, 3 west, 4 pickup, 5 drop off. `info` holds
    `prob` and `action_mask` at every step.
    """

    def reset_env(self, key, params):
        words = jax.random.bits(key, (2,), jnp.uint32)
        # one of the 300 starts (the modulo favours some by 1 part in 14 million)
        index = lax.rem(words[0], jnp.uint32(300)).astype(jnp.int32)
        # index = (taxi * 4 + pass_loc) * 3 + other; all non-negative, so truncating division
        # (int32 divisors: lax.div does not promote a Python int, which is int64 under x64)
        twelve, three, five = jnp.int32(12), jnp.int32(3), jnp.int32(5)
        taxi, rest = lax.div(index, twelve), lax.rem(index, twelve)
        pass_loc, other = lax.div(rest, three), lax.rem(rest, three)
        u = (words[1] >> 8).astype(jnp.float32) * (1.0 / (1 << 24))
        state = TaxiState(
            time=jnp.zeros((), jnp.int32),
            taxi_row=lax.div(taxi, five),
            taxi_col=lax.rem(taxi, five),
            pass_loc=pass_loc,
            dest_idx=other + (other >= pass_loc),  # any stand but the passenger's
            fickle_step=jnp.asarray(params.fickle_passenger) & (u < params.fickle_probability),
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.clip(jnp.asarray(action, jnp.int32), 0, 5)
        heading = jnp.minimum(action, 3)
        u = jax.random.uniform(key, (2,)) if params.is_rainy or params.fickle_passenger else None
        if params.is_rainy:
            direction, prob = rain(u[0], heading, params)
        else:
            direction, prob = heading, jnp.ones((), jnp.float32)
        row, col = move(state.taxi_row, state.taxi_col, direction)
        # rain never pushes a taxi whose chosen move is blocked
        moves = (action < 4) & can_move(state.taxi_row, state.taxi_col, heading)
        row = jnp.where(moves, row, state.taxi_row)
        col = jnp.where(moves, col, state.taxi_col)
        prob = jnp.where(action < 4, prob, 1.0)

        picked, pick_reward = pickup(state.taxi_row, state.taxi_col, state.pass_loc)
        dropped, drop_reward, delivered = dropoff(state.taxi_row, state.taxi_col, state.pass_loc, state.dest_idx)
        pass_loc = jnp.where(action == PICKUP, picked, jnp.where(action == DROPOFF, dropped, state.pass_loc))
        reward = jnp.where(action == PICKUP, pick_reward, jnp.where(action == DROPOFF, drop_reward, -1.0))
        terminated = (action == DROPOFF) & delivered

        dest_idx, fickle_step = state.dest_idx, state.fickle_step
        if params.fickle_passenger:
            moved = (row != state.taxi_row) | (col != state.taxi_col)
            changes = fickle_step & (state.pass_loc == IN_TAXI) & moved
            other = jnp.minimum(jnp.floor(u[1] * 3).astype(jnp.int32), 2)
            dest_idx = jnp.where(changes, other + (other >= state.dest_idx), dest_idx)
            fickle_step = fickle_step & ~changes

        state = TaxiState(
            time=state.time + 1,
            taxi_row=row.astype(jnp.int32),  # the move table's ints are int64 under x64
            taxi_col=col.astype(jnp.int32),
            pass_loc=pass_loc,
            dest_idx=dest_idx,
            fickle_step=fickle_step,
        )
        info = {"prob": prob.astype(jnp.float32), "action_mask": action_mask(state)}
        return self.observe(state, params), state, reward, terminated, info

    def observe(self, state: TaxiState, params: TaxiParams) -> jax.Array:
        """gymnasium's encoded state, an int32 in [0, 500) (`get_obs`)."""
        return self.get_obs(state)

    @staticmethod
    def get_obs(state: TaxiState) -> jax.Array:
        """gymnasium's encoded state (`encode`).

        Args:
            state: The state.

        Returns:
            An int32 in [0, 500).
        """
        return encode(state.taxi_row, state.taxi_col, state.pass_loc, state.dest_idx)

    @defaults_params
    def action_mask(self, state: TaxiState, params: TaxiParams | None = None) -> jax.Array:
        """Which actions change the state: gymnasium's reset `info["action_mask"]`, which the
        jaxenvs reset does not return (the step's `info` holds it too).

        Args:
            state: The state.
            params: The env's params; None means `default_params` (not read).

        Returns:
            `bool[6]` (the module's `action_mask`).
        """
        return action_mask(state)

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Discrete(500)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(6)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.toy_text.taxi.render import render

        return render(state, params)
