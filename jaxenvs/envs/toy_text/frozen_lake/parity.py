"""FrozenLake against gymnasium's: without slipping, every (cell, action) exactly (next cell,
reward, terminated, `prob`), random-policy steps and the time limit; slippery moves by
distribution from every live cell, and one (cell, action) with three outcomes many times (a
success rate 10% off shows); the start cell; random-policy statistics. FrozenLake-v1 adds a
custom map with its own success rate and reward schedule, and a map with two start cells."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.toy_text import _parity as tt
from jaxenvs.envs.toy_text.frozen_lake.env import FrozenLakeState, generate_random_map
from jaxenvs.parity import Check

# Samples of one slippery (cell, action): a success rate 10% off needs about 15,000 a side
SLIP_SAMPLES = 20_000
TWO_STARTS = ("SFFS", "FHFH", "FFFH", "HFFG")


def _reference(env_id: str, **kwargs):
    return tt.cell_reference(env_id, FrozenLakeState, timed=True, **kwargs)


def _live(desc) -> list[int]:
    """The cells a step can start from (start and ice)."""
    return [s for s, letter in enumerate("".join(desc)) if letter in "SF"]


def _dry(ctx: p.Context) -> list[Check]:
    """Without slipping: every (cell, action), random-policy steps, the time limit (random walks
    seldom last to it: from states one and two steps before it)."""
    dry = p.variant(_reference, is_slippery=False)(ctx)
    checks = tt.every_cell("non-slippery", dry)
    return checks + p.chain(p.transitions("atol", 0.0, 2000, 200, label="non-slippery step"), p.time_limit(60, 60))(dry)


def _slippery(ctx: p.Context) -> list[Check]:
    """Slippery moves from every live cell; then one (cell, action) with three distinct outcomes,
    enough times to tell a success rate 10% off (0.3 for 1/3)."""
    env, params, ref, live = ctx.env, ctx.params, ctx.reference, _live(ctx.params.desc)
    checks = tt.cell_distribution("slippery step", env, params, ref, live, ctx.size(150, 60), ctx.seed + 1)
    support = tt.cell_outcomes(ref)
    cell, action = next((c, a) for c in live for a in range(4) if len(support({"s": c}, a)) == 3)
    case = [({"s": np.int32(cell), "time": np.int32(0)}, action)]
    label = f"slippery step (cell {cell}, action {action})"
    many = p.step_distribution(
        case, tt.obs_reward_terminated, SLIP_SAMPLES, SLIP_SAMPLES, 3, label=label, support=support
    )
    return checks + many(ctx)


def _custom_maps(ctx: p.Context) -> list[Check]:
    """A random 5x5 map, success rate and reward schedule, as gymnasium's kwargs; a map with
    two start cells (the start is drawn between them)."""
    desc = generate_random_map(5, p=0.75, seed=ctx.seed)
    custom = dict(desc=desc, success_rate=0.6, reward_schedule=(2.0, -1.0, -0.25))
    dry = p.variant(_reference, is_slippery=False, **custom)(ctx)
    checks = tt.every_cell("custom map", dry)
    wet = p.variant(_reference, **custom)(ctx)
    label, n = "custom map slippery step", ctx.size(150, 60)
    checks += tt.cell_distribution(label, wet.env, wet.params, wet.reference, _live(desc), n, ctx.seed + 2)
    two = p.variant(_reference, desc=TWO_STARTS)(ctx)
    return checks + p.resets(1000, 200, discrete=True, label="two-start reset")(two)


_RESETS = p.resets(at_one=1000, least=100, discrete=True)
_STATISTICS = p.statistics(at_one=1000, least=100)

# FrozenLake8x8-v1
SPEC_8X8 = p.ParitySpec(reference=_reference, checks=p.chain(_dry, _slippery, _RESETS, _STATISTICS))
# FrozenLake-v1: the custom maps too
SPEC = p.ParitySpec(reference=_reference, checks=p.chain(_dry, _slippery, _RESETS, _custom_maps, _STATISTICS))
