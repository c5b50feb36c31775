"""CliffWalking against gymnasium's: every (cell, action) exactly and random-policy steps (the
slippery variant: every (cell, action) by distribution), the start, and random-policy
statistics over the first 1,000 steps (gymnasium registers no time limit, and its random walks
last ~7,000 steps: both sides stop at the same cap)."""

from jaxenvs import parity as p
from jaxenvs.envs.toy_text import _parity as tt
from jaxenvs.envs.toy_text.cliff_walking.env import CliffWalkingState
from jaxenvs.parity import Check


def _reference(env_id: str):
    return tt.cell_reference(env_id, CliffWalkingState, timed=False)


def _steps(ctx: p.Context) -> list[Check]:
    if ctx.params.is_slippery:
        return tt.cell_distribution(
            "slippery step", ctx.env, ctx.params, ctx.reference, range(48), ctx.size(120, 40), ctx.seed
        )
    return tt.every_cell("step", ctx) + p.transitions("atol", 0.0, 2000, 200, label="random-policy step")(ctx)


SPEC = p.ParitySpec(
    reference=_reference,
    checks=p.chain(
        _steps,
        p.resets(at_one=200, least=50, discrete=True),
        p.statistics(at_one=400, least=30, max_steps=1000, label="random-policy (first 1000 steps)"),
    ),
)
