"""BernoulliBandit against gymnax's: transitions (the pay left out of the exact comparison);
each arm's pay under both arm orders by distribution; the arm probabilities at reset."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.misc import _parity as m
from jaxenvs.parity import Check

GYMNAX = m.Gymnax(exact=("last_action", "last_reward", "time"), random_fields=("last_reward", "observation", "reward"))


def _pay(ctx: p.Context, start: dict) -> list[Check]:
    """Pay of each arm under both arm orders, stratified by case."""
    q = float(ctx.reference.params.reward_prob)
    cases = [
        (dict(start, reward_probs=np.asarray(probs, np.float32)), np.int32(a))
        for probs, a in (([q, 1 - q], 0), ([q, 1 - q], 1), ([1 - q, q], 0), ([1 - q, q], 1))
    ]
    return m.distribution(ctx, cases, lambda t: t.rewards.astype(np.float32), label="arm pay")


def _probabilities(states: dict, obs: object) -> np.ndarray:
    """The arm probabilities as float32 rounds them: compared rounded to 6 decimals."""
    return np.round(np.asarray(states["reward_probs"], np.float64), 6)


SPEC = m.suite(
    GYMNAX, resets=m.resets(outcome=_probabilities, discrete=True, label="reset arm probabilities"), random=_pay
)
