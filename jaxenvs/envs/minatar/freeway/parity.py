"""Parity of `Freeway-MinAtar` against `minatar.Environment("freeway")`: the game's
translation, its policy and scrambled states, and its parity spec (`SPEC`)."""

from __future__ import annotations

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.minatar import _parity as m
from jaxenvs.envs.minatar.freeway.env import SPEED, CarDraws

INT_FIELDS = ("pos", "move_timer", "terminate_timer")


def read_state(env: object) -> dict[str, np.ndarray]:
    """The game's state named like `FreewayState`'s fields.

    Args:
        env: A `minatar.Environment("freeway")` (its game object is `env.env`).

    Returns:
        `{field: numpy value}`, `cars` as `int32[8, 4]`.
    """
    cars = np.asarray(env.env.cars, np.int32).reshape(8, 4)
    return dict(m.read_attrs(env, INT_FIELDS, ("terminal",)), cars=cars)


def write_state(env: object, state: dict[str, object]) -> None:
    """Write a state read by `read_state` into the game (its inverse).

    Args:
        env: A `minatar.Environment("freeway")`.
        state: `{field: value}` as `read_state` returns it.
    """
    m.write_attrs(env, state, INT_FIELDS, ("terminal",))
    env.env.cars = [[int(v) for v in car] for car in np.asarray(state["cars"])]


def draws_from_calls(calls: list, state: object):
    """The JAX draws of the reference's random calls in one step.

    MinAtar's `_randomize_cars` calls `randint(1, 6, 8)` then `rand(8)`, on a crossing only;
    nothing is drawn on most steps.

    Args:
        calls: The step's recorded calls (`RecordingRandom.take`).
        state: The state before the step (unused).

    Returns:
        The `CarDraws` (speeds 1 to the right when the step drew nothing: unused then).
    """
    if not calls:
        return CarDraws(speeds=np.ones(8, np.int32), directions=np.ones(8, np.int32))
    (name1, args1, _, speeds), (name2, args2, _, u) = calls
    assert (name1, tuple(args1), name2, tuple(args2)) == ("randint", (1, 6, 8), "rand", (8,)), calls
    return CarDraws(speeds=np.asarray(speeds, np.int32), directions=np.sign(np.asarray(u) - 0.5).astype(np.int32))


def head_up(env: object, rng: np.random.Generator) -> int:
    """A `Policy`: `u` with probability 0.7, else a uniformly random action (crossings, at least
    one whole episode of them).

    Args:
        env: A `minatar.Environment("freeway")` (its game object is `env.env`).
        rng: The generator it draws from.

    Returns:
        The MinAtar action.
    """
    return 2 if rng.random() < 0.7 else int(rng.integers(6))


def scramble(env: object, rng: np.random.Generator) -> None:
    """Write a random mid-game state into the game: cars anywhere with any speed and timer, the
    chicken on any row below the top, any move timer, and now and then the time limit about to
    end.

    Args:
        env: A `minatar.Environment("freeway")`.
        rng: The generator to draw the state from.
    """
    speeds = rng.integers(1, 6, 8) * rng.choice([-1, 1], 8)
    timers = np.array([rng.integers(0, abs(s) + 1) for s in speeds])
    cars = np.stack([rng.integers(0, 10, 8), np.arange(1, 9), timers, speeds], axis=1)
    near_end = rng.random() < 0.2
    write_state(
        env,
        dict(
            cars=cars,
            pos=int(rng.integers(1, 10)),
            move_timer=int(rng.integers(0, 4)),
            terminate_timer=int(rng.integers(0, 2)) if near_end else int(rng.integers(2, 2501)),
            terminal=False,
        ),
    )


def _rare_events(s: dict, a: int, s2: dict, r: float, t: bool, calls: list) -> dict[str, bool]:
    """The rare branches of the reference's step one transition took (`_parity.count_events`)."""
    row = int(s["pos"])
    if s["move_timer"] == 0 and a in (2, 4):
        row = max(0, row - 1) if a == 2 else min(9, row + 1)
    hit = r == 0 and 1 <= row <= 8 and s2["pos"] == 9  # knocked back to the bottom
    before = hit and s["cars"][row - 1][0] == 4
    return dict(
        crossing=r > 0, hit_before_move=before, hit_after_move=hit and not before, time_limit=t and not s["terminal"]
    )


def _speeds(cars: np.ndarray) -> np.ndarray:
    """The signed speed of every car, pooled."""
    return np.asarray(cars)[..., SPEED].reshape(-1)


def _crossing(ctx: p.Context) -> list[tuple]:
    """The chicken one row below the top, moving up: it crosses."""
    return [(dict(m.start_state(ctx), pos=np.int32(1), move_timer=np.int32(0)), 2)]


# signed car speeds by distribution at reset and at a crossing (which redraws them), pooled over the 8 cars
SPEED_DRAWS = p.on(
    m.no_sticky,
    p.resets(2000, 200, outcome=lambda s, o: _speeds(s["cars"]), discrete=True, label="reset speeds"),
    p.step_distribution(
        _crossing, lambda t: t.rewards, 2000, 200, 1, label="crossing reward", support=lambda s, a: {1.0}
    ),
    p.step_distribution(_crossing, lambda t: _speeds(t.next_states["cars"]), 2000, 200, 1, label="crossing car speeds"),
)

GAME = m.Game("freeway", read_state, write_state, scramble, _rare_events, draws_from_calls)

# What SPEC checks:
# - every transition exact (all state fields, observation, reward, terminal) by injecting the
#   reference's state, with the reference's recorded car-speed draws fed to the JAX transition:
#   a uniform random policy and an up-heading policy from resets (whole 2,501-step episodes,
#   so the time limit is reached), and scrambled states (cars, timers and the chicken anywhere,
#   the time limit about to run out) that reach every branch; the run fails if a rare event
#   (crossing, collision before and after a car's move, the time limit) never happened;
# - car speeds by distribution (chi-square over the 10 signed speeds, every car) at reset and
#   at a crossing, the JAX speeds always in the reference's support;
# - random play, with the minimal action set too (`_parity.random_play`).
SPEC = m.spec(
    GAME,
    # the game's own policy: crossings, at least one whole episode (2,501 steps) of them
    m.replayed(GAME, {"up-heading policy": (lambda n: max(3 * n, 2600), head_up)}),
    m.time_limit(GAME),
    SPEED_DRAWS,
    # random play (an episode is 2,501 steps: 1,000 episodes at scale 1 are 2.5M reference steps),
    # and with the minimal action set (ids -v1), as minatar's gym wrapper maps it
    m.random_play(GAME, 1000, 30, 2600),
    m.random_play(GAME, 200, 10, 2600, seed_offset=1, use_minimal_action_set=True),
)
