"""FourRooms against gymnax's: transitions without slips (the goal often next to the agent, the
agent heading for it half the time); slips by distribution from 8 injected states; the fixed
reset, the resampled start and goal (never the same cell)."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.misc import _parity as m
from jaxenvs.parity import Check, collect, harness
from jaxenvs.parity.stats import rows

SLIP_SAMPLES = 4000  # per injected state (8 of them)
GYMNAX = m.Gymnax(exact=("pos", "goal", "time"))


def _slips(ctx: p.Context, start: dict) -> list[Check]:
    """Slips: the next cell from 8 injected states (one action each), stratified by state."""
    cells = sorted(m.cells(ctx.reference.env))
    cases = [(dict(start, pos=np.asarray(cells[i * 11], start["pos"].dtype)), np.int32(i % 4)) for i in range(8)]
    # both sides vmapped: samples enough to tell a fail_prob 10% off (0.3 for 1/3)
    outcome = lambda t: rows(t.next_states["pos"])  # noqa: E731
    return m.distribution(ctx, cases, outcome, max(m.size(ctx), SLIP_SAMPLES), label="slip: next cell")


def _resets(ctx: p.Context) -> list[Check]:
    checks = m.deterministic_resets(("pos", "goal"), label="reset (fixed)")(ctx)
    resampled = p.variant(GYMNAX, resample_init_pos=True, resample_goal_pos=True)(ctx)
    ref, n, seed = resampled.reference, m.size(ctx), ctx.seed + 102
    args, cells = (ctx.env, resampled.params, ref, n, seed), m.cells(ref.env)
    for field, name in (("goal", "goal"), ("pos", "start")):
        outcome = lambda s, o, f=field: rows(s[f])  # noqa: E731
        checks += harness.check_resets(
            *args, outcome=outcome, discrete=True, support=cells, label=f"resampled reset: {name}"
        )
    mine, _ = collect.sample_jax_resets(*args)
    theirs, _ = ref.sample_resets(n, seed)
    same = int(np.sum(np.all(mine["pos"] == mine["goal"], axis=1)))
    same_ref = int(np.sum(np.all(theirs["pos"] == theirs["goal"], axis=1)))
    ok, detail = same == same_ref == 0, f"reference {same_ref}"
    return checks + [Check("resampled reset: start on goal", n, float(same), 0.0, ok, kind="mismatches", detail=detail)]


SPEC = m.suite(
    GYMNAX,
    resets=_resets,
    random=_slips,
    deterministic={"fail_prob": 0.0},
    rare=m.goal_next_to_agent,
    policy=m.toward_goal,
)
