"""Catch against bsuite's: per step, the ball's column at reset by distribution and the board
it makes, random-policy statistics."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.parity import Check
from jaxenvs.parity.collect import sample_jax_resets
from jaxenvs.parity.stats import error_check


def _reset_board(ctx: p.Context) -> list[Check]:
    """The board is a function of the ball's column: equal for every column both drew."""
    n = ctx.size(2000, 200)
    ref_states, ref_obs = ctx.reference.sample_resets(n, ctx.seed)
    states, obs = sample_jax_resets(ctx.env, ctx.params, ctx.reference, n, ctx.seed)
    ref_board = {int(x): o for x, o in zip(ref_states["ball_x"], np.asarray(ref_obs))}
    seen = [i for i, x in enumerate(states["ball_x"]) if int(x) in ref_board]
    want = np.stack([ref_board[int(states["ball_x"][i])] for i in seen])
    return [error_check("reset board", np.asarray(obs)[seen], want, 0.0)]


SPEC = b.spec(
    b._ref_catch,
    b.STEP,
    p.resets(outcome=lambda s, o: s["ball_x"], discrete=True, label="reset ball column"),
    _reset_board,
    longest=lambda ctx: ctx.env.rows,
)
