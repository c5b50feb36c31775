"""GaussianBandit against gymnax's: transitions (arm 1's random pay left out of the exact
comparison); arm 1's pay by distribution (KS); the arm mean at reset (KS)."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.misc import _parity as m
from jaxenvs.parity import Check

GYMNAX = m.Gymnax(
    exact=("last_action", "time"),
    # arm 0 pays a fixed reward, arm 1 a random one
    random_step=lambda gparams: lambda s, s2, r: int(s2["last_action"]) != 0,
    random_step_fields=("last_reward", "observation", "reward"),
)


def _pay(ctx: p.Context, start: dict) -> list[Check]:
    state = dict(start, mu=np.asarray(-1.3, np.float32))
    return m.distribution(ctx, [(state, np.int32(1))], lambda t: t.rewards, label="arm 1 pay", continuous=m.finite)


SPEC = m.suite(GYMNAX, resets=m.continuous_resets(("mu",), m.finite), random=_pay)
