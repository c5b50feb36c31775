"""MetaMaze against gymnax's: transitions (the goal often next to the agent, the agent heading
for it half the time; the teleport after the goal left out of the exact comparison); the
teleport by distribution (with its chance of ending on the goal); the start and the goal at
reset."""

from __future__ import annotations

import numpy as np

from jaxenvs.envs.misc import _parity as m
from jaxenvs.parity import harness
from jaxenvs.parity import spec as p
from jaxenvs.parity.checks import Check, rows

GYMNAX = m.Gymnax(
    exact=("last_action", "pos", "goal", "time"),
    # only the goal pays `reward`; it teleports the agent
    random_step=lambda gparams: lambda s, s2, r: r == float(gparams.reward),
    random_step_fields=("pos", "observation", "terminated"),
)


def _teleport(ctx: p.Context, start: dict) -> list[Check]:
    """The teleport after reaching the goal: (cell, terminated) outcomes."""
    state = dict(start, pos=np.asarray([5, 5], start["pos"].dtype), goal=np.asarray([5, 6], start["goal"].dtype))
    return harness.check_step_distribution(
        ctx.env,
        ctx.params,
        ctx.reference,
        [(state, np.int32(1))],
        m.size(ctx),
        lambda t: rows(t.next_states["pos"], t.terminated),
        ctx.seed,
        label="teleport: (cell, terminated)",
        # terminated exactly when landing on the goal
        support=lambda s, a: {(*c, c == (5, 6)) for c in m.cells(ctx.reference.env)},
    )


def _resets(ctx: p.Context) -> list[Check]:
    env, params, ref, n, seed = ctx.env, ctx.params, ctx.reference, m.size(ctx), ctx.seed + 101
    checks = harness.check_resets(
        env, params, ref, n, seed, outcome=m.fields("pos"), discrete=True, label="reset start"
    )
    return checks + harness.check_resets(
        env,
        params,
        ref,
        n,
        seed,
        outcome=lambda s, o: rows(s["goal"]),
        discrete=True,
        support=m.cells(ref.env),
        label="reset goal",
    )


SPEC = m.suite(GYMNAX, resets=_resets, random=_teleport, rare=m.goal_next_to_agent, policy=m.toward_goal)
