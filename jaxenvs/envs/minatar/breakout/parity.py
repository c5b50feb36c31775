"""Parity of `Breakout-MinAtar` against `minatar.Environment("breakout")`: the game's
translation, its policy and scrambled states, and its parity spec (`SPEC`)."""

from __future__ import annotations

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.minatar import _parity as m
from jaxenvs.parity.stats import rows

INT_FIELDS = ("ball_x", "ball_y", "ball_dir", "pos", "last_x", "last_y")
BOOL_FIELDS = ("strike", "terminal")


def read_state(env: object) -> dict[str, np.ndarray]:
    """The game's state named like `BreakoutState`'s fields.

    Args:
        env: A `minatar.Environment("breakout")` (its game object is `env.env`).

    Returns:
        `{field: numpy value}`, `brick_map` as `bool[10, 10]`.
    """
    return dict(m.read_attrs(env, INT_FIELDS, BOOL_FIELDS), brick_map=np.asarray(env.env.brick_map, bool))


def write_state(env: object, state: dict[str, object]) -> None:
    """Write a state read by `read_state` into the game (its inverse).

    Args:
        env: A `minatar.Environment("breakout")`.
        state: `{field: value}` as `read_state` returns it.
    """
    m.write_attrs(env, state, INT_FIELDS, BOOL_FIELDS)
    env.env.brick_map = np.asarray(state["brick_map"], np.float64).copy()


def follow_ball(env: object, rng: np.random.Generator) -> int:
    """A `Policy`: move the paddle toward the ball's column (long rallies, so walls are cleared
    and rebuilt).

    Args:
        env: A `minatar.Environment("breakout")` (its game object is `env.env`).
        rng: Unused.

    Returns:
        The MinAtar action.
    """
    g = env.env
    return 1 if g.pos > g.ball_x else 3 if g.pos < g.ball_x else 0


def scramble(env: object, rng: np.random.Generator) -> None:
    """Write a random mid-game state into the game: few or many bricks in rows 1-3, the ball
    anywhere above the bottom row with a consistent trail, the paddle anywhere, either `strike`.

    Args:
        env: A `minatar.Environment("breakout")`.
        rng: The generator to draw the state from.
    """
    kind = rng.integers(4)
    bricks = np.zeros((10, 10), bool)
    density = (0.0, 0.05, 0.5, 0.95)[kind]
    bricks[1:4] = rng.random((3, 10)) < density
    ball_dir = int(rng.integers(4))
    ball_x, ball_y = int(rng.integers(10)), int(rng.integers(9))
    dx, dy = (-1, 1, 1, -1)[ball_dir], (-1, -1, 1, 1)[ball_dir]
    write_state(
        env,
        dict(
            ball_x=ball_x,
            ball_y=ball_y,
            ball_dir=ball_dir,
            pos=int(rng.integers(10)),
            last_x=int(np.clip(ball_x - dx, 0, 9)),
            last_y=int(np.clip(ball_y - dy, 0, 9)),
            strike=bool(rng.random() < 0.3),
            terminal=False,
            brick_map=bricks,
        ),
    )


def _rare_events(s: dict, a: int, s2: dict, r: float, t: bool, calls: list) -> dict[str, bool]:
    """The rare branches of the reference's step one transition took (`_parity.count_events`)."""
    bounce = s["ball_y"] == 8 and s["ball_dir"] >= 2 and s2["ball_y"] == 8 and not t  # off the paddle
    return dict(
        refill=s2["brick_map"].sum() > s["brick_map"].sum(),
        strike_pass=s["strike"] and s2["strike"] and r == 0,
        straight_back=bounce and s["ball_x"] == s2["pos"],
        diagonal_back=bounce and s["ball_x"] != s2["pos"],
        ceiling=s["ball_y"] == 0 and s["ball_dir"] <= 1,
        terminal=t,
    )


def _ball_start(states: dict, obs: object) -> list[tuple]:
    return rows(states["ball_x"], states["ball_dir"])


# the ball's start (column, direction) by distribution (chi-square) from resets
BALL_START = p.on(m.no_sticky, p.resets(4000, 400, outcome=_ball_start, discrete=True, label="reset ball start"))

GAME = m.Game("breakout", read_state, write_state, scramble, _rare_events)

# What SPEC checks:
# - every transition exact (all state fields, observation, reward, terminal) by injecting the
#   reference's state: a uniform random policy from resets, a paddle that follows the ball
#   (long rallies, so walls are cleared and rebuilt), and scrambled states (random brick walls
#   down to none, ball anywhere, either `strike`) that reach every branch; the run fails if a
#   rare event (wall rebuilt, brick passed through on `strike`, both paddle bounces, ceiling,
#   a missed ball) never happened;
# - the ball's start by distribution (chi-square) from resets;
# - random play, with the minimal action set too (`_parity.random_play`).
SPEC = m.spec(
    GAME,
    # the game's own policy: long rallies, so that walls are cleared and rebuilt
    m.replayed(GAME, {"ball-following paddle": (lambda n: 3 * n, m.with_noise(follow_ball, 0.1))}),
    m.time_limit(GAME),
    BALL_START,
    # random play: the defaults, and the minimal action set (ids -v1), as minatar's gym wrapper maps it
    m.random_play(GAME, 2000, 300, 1000),
    m.random_play(GAME, 500, 100, 1000, seed_offset=1, use_minimal_action_set=True),
)
