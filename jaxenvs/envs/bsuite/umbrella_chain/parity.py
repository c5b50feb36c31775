"""UmbrellaChain against bsuite's: per step; from a step in the middle, the coin-flip reward and
the distractors by distribution; the need and the umbrella at reset; random-policy
statistics."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.parity import Check
from jaxenvs.parity.stats import rows

MIDDLE = [({"need_umbrella": 1, "has_umbrella": 0, "time": 3}, 0)]


def _distractors(t) -> np.ndarray:
    return np.asarray(t.obs).reshape(len(t), -1)[:, 3:]


def _distractor_checks(ctx: p.Context) -> list[Check]:
    """Fresh coins every step: their values, how many are ones (binomial(n_distractor, 1/2), its
    support 0..n from bsuite's definition), the first three jointly."""
    n = ctx.env.n_distractor
    if not n:
        return []
    return p.chain(
        p.step_distribution(
            MIDDLE,
            lambda t: rows(_distractors(t).min(axis=1), _distractors(t).max(axis=1)),
            label="distractor values (min, max)",
            support=lambda s, a: {(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)},
        ),
        p.step_distribution(
            MIDDLE,
            lambda t: _distractors(t).sum(axis=1),
            label="distractors (ones per step)",
            support=lambda s, a: {float(k) for k in range(n + 1)},
        ),
        p.step_distribution(
            MIDDLE, lambda t: rows(_distractors(t)[:, :3].astype(int)), label="distractors (first three jointly)"
        ),
    )(ctx)


SPEC = b.spec(
    b._ref_umbrella_chain,
    b.STEP,
    p.step_distribution(MIDDLE, lambda t: t.rewards, label="intermediate reward"),
    _distractor_checks,
    p.resets(
        outcome=lambda s, o: rows(s["need_umbrella"], s["has_umbrella"]), discrete=True, label="reset need and have"
    ),
    longest=lambda ctx: b.settings(ctx.env_id)["chain_length"],
)
