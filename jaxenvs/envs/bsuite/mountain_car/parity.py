"""MountainCar against bsuite's: per step in float32 and float64, the steps that end an episode,
whole episodes in float64, resets, random-policy statistics (`_parity.continuous`)."""

from jaxenvs import parity as p
from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.parity import Check
from jaxenvs.parity.harness import near_time_limit


def _episode_ends(ctx: p.Context) -> list[Check]:
    """bsuite's MountainCar ends itself at `max_steps`: the steps that end it, from states one
    and two steps before (a random walk seldom gets there)."""
    ctx.reference.reset(ctx.seed)
    scramble = near_time_limit(int(ctx.reference.env._max_steps))
    return p.transitions("f32", at_one=100, least=50, label="time limit", scramble=scramble)(ctx)


SPEC = b.continuous(b._ref_mountain_car, 1000, _episode_ends)
