"""MetaMaze against gymnax's: transitions (the goal often next to the agent, the agent heading
for it half the time; the teleport after the goal left out of the exact comparison); the
teleport by distribution (with its chance of ending on the goal); the start and the goal at
reset."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.misc import _parity as m
from jaxenvs.parity import Check
from jaxenvs.parity.stats import rows

GYMNAX = m.Gymnax(
    exact=("last_action", "pos", "goal", "time"),
    # only the goal pays `reward`; it teleports the agent
    random_step=lambda gparams: lambda s, s2, r: r == float(gparams.reward),
    random_step_fields=("pos", "observation", "terminated"),
)


def _teleport(ctx: p.Context, start: dict) -> list[Check]:
    """The teleport after reaching the goal: (cell, terminated) outcomes."""
    state = dict(start, pos=np.asarray([5, 5], start["pos"].dtype), goal=np.asarray([5, 6], start["goal"].dtype))
    outcome = lambda t: rows(t.next_states["pos"], t.terminated)  # noqa: E731
    # terminated exactly when landing on the goal
    support = lambda s, a: {(*c, c == (5, 6)) for c in m.cells(ctx.reference.env)}  # noqa: E731
    return m.distribution(ctx, [(state, np.int32(1))], outcome, label="teleport: (cell, terminated)", support=support)


def _resets(ctx: p.Context) -> list[Check]:
    cells = m.cells(ctx.reference.env)
    return p.chain(
        m.resets(outcome=m.fields("pos"), discrete=True, label="reset start"),
        m.resets(outcome=lambda s, o: rows(s["goal"]), discrete=True, support=cells, label="reset goal"),
    )(ctx)


SPEC = m.suite(GYMNAX, resets=_resets, random=_teleport, rare=m.goal_next_to_agent, policy=m.toward_goal)
