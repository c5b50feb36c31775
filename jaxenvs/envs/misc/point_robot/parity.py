"""PointRobot against gymnax's: transitions (often starting within the goal radius; the respawn
left out of the exact comparison); the respawn by distribution (KS, on the half disc); the
start and goal at reset (the goal on the half circle)."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.misc import _parity as m
from jaxenvs.parity import Check


def _within_goal(gparams):
    """A step that starts within the goal radius: a respawn."""
    return lambda s, s2, r: np.linalg.norm(np.asarray(s["goal"]) - np.asarray(s["pos"])) <= float(gparams.goal_radius)


GYMNAX = m.Gymnax(exact=("goals_reached", "time"), random_step=_within_goal, random_step_fields=("pos", "observation"))


def _near_goal(state: dict, genv, rng: np.random.Generator) -> None:
    state["pos"] = (state["goal"] + np.asarray([0.07, -0.07])).astype(state["pos"].dtype)


def _respawn(ctx: p.Context, start: dict) -> list[Check]:
    """The respawn after a step that starts within the goal radius."""
    state = dict(start, pos=(start["goal"] + np.asarray([0.05, -0.05])).astype(start["pos"].dtype))
    case = (state, np.zeros(2, np.float32))
    outcome = lambda t: t.next_states["pos"]  # noqa: E731
    return m.distribution(ctx, [case], outcome, label="respawn position", continuous=m.half_disc(1.0))


def _reset_support(x):
    return m.half_disc(1.0)(x[:, :2]) & m.half_disc(1.0, on_circle=True)(x[:, 2:])


SPEC = m.suite(GYMNAX, resets=m.continuous_resets(("pos", "goal"), _reset_support), random=_respawn, rare=_near_goal)
