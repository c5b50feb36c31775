"""FrozenLake: walk from the start to the goal across ice without falling into a hole.

Reference: gymnasium 1.3 `FrozenLake-v1` (4x4 map, 100 steps) and `FrozenLake8x8-v1` (8x8
map, 200 steps), `gymnasium/envs/toy_text/frozen_lake.py`. Actions 0 left, 1 down, 2 right,
3 up; the observation is the player's cell `row * ncol + col` (int32). Slippery by default:
the player moves in the chosen direction with probability `success_rate` (1/3) and in each
perpendicular one with `(1 - success_rate) / 2`, the outcomes ordered `(a - 1) % 4, a,
(a + 1) % 4` as in gymnasium. Stepping onto the goal gives `reward_schedule[0]` (1), onto a
hole `reward_schedule[1]` (0), onto ice or the start `reward_schedule[2]` (0); goal and hole
end the episode. From a goal or hole cell (past the end, only reachable by stepping a raw env
on) every action stays put with reward 0 and `terminated` true, as gymnasium's table says.
`info["prob"]` is the probability of the outcome taken, like gymnasium's.

Custom maps: `params.desc` is a static tuple of equal-length strings over "SFHG" (a list is
turned into a tuple), e.g. `jaxenvs.make("FrozenLake-v1", desc=generate_random_map(6))`. The
env kwarg `map_name` ("4x4" or "8x8") picks the default map, as gymnasium's does. The start is
drawn uniformly among the "S" cells. Changing `desc` changes the observation space and
recompiles, as a static field should.

Differs: gymnasium's `desc=None, map_name=None` (a random 8x8 map drawn at construction) has
no equivalent; call `generate_random_map` and pass its map. `render` draws flat colours (ice,
holes, goal, start, the player as a disc), not gymnasium's sprites. Invalid action under jit:
clipped into [0, 3].
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.params import custom, flag, probability

LEFT, DOWN, RIGHT, UP = 0, 1, 2, 3

MAPS: dict[str, tuple[str, ...]] = {
    "4x4": ("SFFF", "FHFH", "FFFH", "HFFG"),
    "8x8": (
        "SFFFFFFF",
        "FFFFFFFF",
        "FFFHFFFF",
        "FFFFFHFF",
        "FFFHFFFF",
        "FHHFFFHF",
        "FHFFHFHF",
        "FFFHFFFG",
    ),
}

# (row, col) change of LEFT, DOWN, RIGHT, UP
_DELTAS = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)])

# Index into `reward_schedule` of the tile stepped onto: goal, hole, anything else.
_REWARD_INDEX = {"G": 0, "H": 1, "F": 2, "S": 2}


def as_desc(desc) -> tuple[str, ...]:
    """A map as a tuple of strings, checked.

    Args:
        desc: The map, row by row: a sequence of strings, of bytes (gymnasium's `desc` is a
            2-d array of them) or of sequences of characters.

    Returns:
        The rows as a tuple of `str`.

    Raises:
        ValueError: If `desc` is no sequence of rows, its rows are empty or of different
            lengths, it holds a letter other than S, F, H, G, or it has no start "S".
    """
    if isinstance(desc, (str, bytes)) or not hasattr(desc, "__iter__"):
        raise ValueError(f"FrozenLake: desc must be a sequence of rows (strings), got {desc!r}")
    rows = []
    for row in desc:
        if isinstance(row, (bytes, np.bytes_)):
            row = row.decode()
        elif not isinstance(row, str):
            row = "".join(c.decode() if isinstance(c, (bytes, np.bytes_)) else str(c) for c in row)
        rows.append(row)
    desc = tuple(rows)
    if not desc or len({len(r) for r in desc}) != 1 or not desc[0]:
        raise ValueError(f"FrozenLake: desc must be non-empty rows of equal length, got {desc!r}")
    letters = set("".join(desc))
    if not letters <= set("SFHG"):
        raise ValueError(f"FrozenLake: desc may hold only S, F, H, G; got {sorted(letters - set('SFHG'))}")
    if "S" not in letters:
        raise ValueError("FrozenLake: desc needs at least one start cell 'S'")
    return desc


MAP_TEXT = "a map: non-empty rows of equal length over 'S', 'F', 'H', 'G', with a start 'S'"
REWARD_SCHEDULE_TEXT = "three finite reals (goal, hole, ice)"


def map_problem(desc) -> str | None:
    """What is wrong with a map, for the params check of `desc`.

    Args:
        desc: The value given for `desc`.

    Returns:
        None for a valid map (`as_desc` accepts it), else why not.
    """
    try:
        as_desc(desc)
    except (ValueError, TypeError) as e:
        return str(e)
    return None


def reward_schedule_problem(schedule) -> str | None:
    """What is wrong with a reward schedule, for the params check of `reward_schedule`.

    Args:
        schedule: The value given for `reward_schedule`.

    Returns:
        None for three finite reals (traced values pass), else why not: "not three values",
        "not a real" or "not finite".
    """
    if not isinstance(schedule, (tuple, list)) or len(schedule) != 3:
        return "not three values"
    for r in schedule:
        if isinstance(r, jax.core.Tracer):
            continue
        if isinstance(r, (bool, np.bool_, str, bytes)) or r is None or np.ndim(r) != 0:
            return "not a real"
        try:
            if not np.isfinite(float(r)):
                return "not finite"
        except (TypeError, ValueError):
            return "not a real"
    return None


@struct.dataclass
class FrozenLakeState(EnvState):
    """The player's place.

    Attributes:
        s: int32 scalar: the player's cell, `row * ncol + col` (gymnasium's `s`).
    """

    s: jax.Array


@struct.dataclass
class FrozenLakeParams(EnvParams):
    """FrozenLake's map and options, gymnasium's kwargs of the same names.

    Attributes:
        desc: Static. The map, row by row: equal-length strings over "S" (start), "F"
            (frozen), "H" (hole), "G" (goal), with at least one "S"; a list or gymnasium's
            array of bytes is turned into a tuple of strings. It fixes the observation space.
        is_slippery: Static. The player slips (default True, as gymnasium's).
        success_rate: The probability of moving as chosen when slippery (1/3); each
            perpendicular direction gets half the rest.
        reward_schedule: The rewards of stepping onto a goal, a hole, and anything else
            (`(1, 0, 0)`), three finite reals.
        max_steps_in_episode: The time limit: 100 for the 4x4 map (`FrozenLake-v1`), 200 for
            the 8x8 one (`FrozenLake8x8-v1`).
    """

    desc: tuple[str, ...] = custom(MAPS["4x4"], map_problem, MAP_TEXT, static=True)
    is_slippery: bool = flag(True, static=True)
    success_rate: float = probability(1.0 / 3.0, per_episode=True)
    reward_schedule: tuple[float, float, float] = custom((1.0, 0.0, 0.0), reward_schedule_problem, REWARD_SCHEDULE_TEXT)
    max_steps_in_episode: int = 100

    def __post_init__(self):
        if isinstance(self.desc, tuple) and all(isinstance(r, str) for r in self.desc):
            _checked_desc(self.desc)  # raises on a bad map; cached, as pytree rebuilds call this often
        else:
            object.__setattr__(self, "desc", as_desc(self.desc))


@functools.lru_cache(maxsize=64)
def _checked_desc(desc: tuple[str, ...]) -> tuple[str, ...]:
    return as_desc(desc)


@functools.lru_cache(maxsize=64)
def lake_tables(desc: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The static numpy tables of a map (cached per map).

    Args:
        desc: The map (`FrozenLakeParams.desc`).

    Returns:
        A dict of `nS = rows * cols` entries a table: `next_cell`, `int32[nS, 4]`, the cell
        reached from each cell in each direction (the edges clamp); `terminal`, `bool[nS]`,
        goal or hole; `reward_index`, `int32[nS]`, the index into `reward_schedule` of
        stepping onto the cell; `start_cells`, int32, the "S" cells (the reset draws one
        uniformly); `letters`, the map's letter of each cell.
    """
    desc = as_desc(desc)
    nrow, ncol = len(desc), len(desc[0])
    letters = np.array([list(r) for r in desc]).ravel()
    rows, cols = np.divmod(np.arange(nrow * ncol), ncol)
    new_rows = np.clip(rows[:, None] + _DELTAS[None, :, 0], 0, nrow - 1)
    new_cols = np.clip(cols[:, None] + _DELTAS[None, :, 1], 0, ncol - 1)
    is_start = (letters == "S").astype(np.float64)
    return dict(
        next_cell=(new_rows * ncol + new_cols).astype(np.int32),
        terminal=np.isin(letters, ["G", "H"]),
        reward_index=np.array([_REWARD_INDEX[c] for c in letters], np.int32),
        start_cells=np.flatnonzero(is_start).astype(np.int32),
        letters=letters,
    )


def slip(u: jax.Array, action: jax.Array, params: FrozenLakeParams) -> tuple[jax.Array, jax.Array]:
    """The direction actually moved and its probability.

    Args:
        u: One uniform draw in [0, 1) (None when not slippery).
        action: The chosen direction, in [0, 3].
        params: Whether the ice is slippery (`is_slippery`) and `success_rate`.

    Returns:
        `(direction, prob)`: the direction moved (int32) and the probability of that outcome
        (float32, gymnasium's `info["prob"]`).
    """
    if not params.is_slippery:
        return action, jnp.ones((), jnp.float32)
    fail = (1.0 - params.success_rate) / 2.0
    # gymnasium's categorical over ((a - 1) % 4, a, (a + 1) % 4) with (fail, success, fail)
    offset = jnp.where(u < fail, -1, jnp.where(u < fail + params.success_rate, 0, 1))
    prob = jnp.where(offset == 0, params.success_rate, fail)
    return (action + offset) % 4, jnp.asarray(prob, jnp.float32)


def move(s: jax.Array, direction: jax.Array, params: FrozenLakeParams):
    """One move on the map, read from `lake_tables`; goal and hole cells absorb (stay, reward
    0, terminated).

    Args:
        s: The cell moved from.
        direction: The direction moved: 0 left, 1 down, 2 right, 3 up.
        params: The map and the `reward_schedule`.

    Returns:
        `(next cell, reward, terminated)`: int32, float32 and bool scalars.
    """
    t = lake_tables(params.desc)
    absorbed = jnp.asarray(t["terminal"])[s]
    nxt = jnp.where(absorbed, s, jnp.asarray(t["next_cell"])[s, direction])
    schedule = jnp.asarray(params.reward_schedule, jnp.float32)
    reward = jnp.where(absorbed, 0.0, schedule[jnp.asarray(t["reward_index"])[nxt]])
    terminated = jnp.asarray(t["terminal"])[nxt]
    return nxt.astype(jnp.int32), reward, terminated


class FrozenLake(Environment[FrozenLakeState, FrozenLakeParams]):
    """gymnasium's `FrozenLake-v1` and `FrozenLake8x8-v1` (see the module docstring for what
    differs).

    Observation the player's cell, an int32 in `Discrete(rows * cols)`; actions
    `Discrete(4)`: 0 left, 1 down, 2 right, 3 up. `info["prob"]` is the probability of the
    outcome taken.

    Args:
        map_name: The default map (`MAPS`): "4x4" (time limit 100) or "8x8" (200), as
            gymnasium's `map_name`; `params.desc` overrides the map.

    Raises:
        ValueError: If `map_name` is not one of `MAPS`.
    """

    reset_ignores_key = True  # every episode starts alike

    def __init__(self, map_name: str = "4x4"):
        if map_name not in MAPS:
            raise ValueError(f"FrozenLake: map_name must be one of {sorted(MAPS)}, got {map_name!r}")
        self.map_name = map_name

    @property
    def default_params(self) -> FrozenLakeParams:
        steps = 100 if self.map_name == "4x4" else 200
        return FrozenLakeParams(desc=MAPS[self.map_name], max_steps_in_episode=steps)

    def observe(self, state, params):
        """The player's cell `s`, an int32 scalar."""
        return state.s

    def reset_env(self, key, params):
        starts = lake_tables(params.desc)["start_cells"]
        if len(starts) == 1:
            s = jnp.asarray(starts[0], jnp.int32)
        else:
            s = jnp.asarray(starts)[jax.random.randint(key, (), 0, len(starts))]
        state = FrozenLakeState(time=jnp.zeros((), jnp.int32), s=s)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        action = jnp.clip(jnp.asarray(action, jnp.int32), 0, 3)
        u = jax.random.uniform(key) if params.is_slippery else None
        direction, prob = slip(u, action, params)
        prob = jnp.where(jnp.asarray(lake_tables(params.desc)["terminal"])[state.s], 1.0, prob)
        s, reward, terminated = move(state.s, direction, params)
        state = FrozenLakeState(time=state.time + 1, s=s)
        return self.observe(state, params), state, reward, terminated, {"prob": prob.astype(jnp.float32)}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Discrete(len(params.desc) * len(params.desc[0]))

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(4)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.toy_text.frozen_lake.render import render

        return render(state, params)


def generate_random_map(size: int = 8, p: float = 0.8, seed: int | None = None) -> tuple[str, ...]:
    """A random square map whose goal is reachable from its start.

    Each cell is ice with probability `p` (else a hole), the start at the top-left, the goal
    at the bottom-right; the map is redrawn until a path joins them. Draws the same numbers as
    gymnasium's `generate_random_map`, so a seed gives the same map.

    Args:
        size: The side of the map in cells.
        p: The probability that a cell is ice (values above 1 count as 1).
        seed: The seed of numpy's `default_rng`; None draws a fresh one.

    Returns:
        The map as a tuple of `size` strings, ready for `desc=`.
    """
    rng = np.random.default_rng(seed)
    p = min(1.0, p)
    while True:
        board = rng.choice(["F", "H"], (size, size), p=[p, 1 - p])
        board[0][0] = "S"
        board[-1][-1] = "G"
        if _goal_reachable(board):
            return tuple("".join(row) for row in board)


def _goal_reachable(board: np.ndarray) -> bool:
    """Flood fill from the top-left through non-hole cells."""
    size = board.shape[0]
    seen = np.zeros(board.shape, bool)
    stack = [(0, 0)]
    seen[0, 0] = True
    while stack:
        r, c = stack.pop()
        if board[r, c] == "G":
            return True
        for dr, dc in _DELTAS:
            nr, nc = r + dr, c + dc
            if 0 <= nr < size and 0 <= nc < size and not seen[nr, nc] and board[nr, nc] != "H":
                seen[nr, nc] = True
                stack.append((nr, nc))
    return False
