"""FrozenLake against gymnasium's: without slipping, every (cell, action) exactly (next cell,
reward, terminated, `prob`), random-policy steps and the time limit; slippery moves by
distribution from every live cell, and one (cell, action) with three outcomes many times (a
success rate 10% off shows); the start cell; random-policy statistics. FrozenLake-v1 adds a
custom map with its own success rate and reward schedule, and a map with two start cells."""

import numpy as np

from jaxenvs.envs.toy_text import _parity as tt
from jaxenvs.envs.toy_text.frozen_lake.env import FrozenLakeState, generate_random_map
from jaxenvs.parity import spec as p
from jaxenvs.parity.checks import Check
from jaxenvs.parity.harness import check_resets, check_step_distribution, check_time_limit, check_transitions

# Samples of one slippery (cell, action): a success rate 10% off needs about 15,000 a side
SLIP_SAMPLES = 20_000
TWO_STARTS = ("SFFS", "FHFH", "FFFH", "HFFG")


def _reference(env_id: str, **kwargs):
    return tt.cell_reference(env_id, FrozenLakeState, timed=True, **kwargs)


def _live(desc) -> list[int]:
    """The cells a step can start from (start and ice)."""
    ncol = len(desc[0])
    return [s for s in range(len(desc) * ncol) if desc[s // ncol][s % ncol] in "SF"]


def _dry(ctx: p.Context) -> list[Check]:
    """Without slipping: every (cell, action), random-policy steps, the time limit (random walks
    seldom last to it: from states one and two steps before it)."""
    env, params = ctx.env, ctx.params.replace(is_slippery=False)
    ref = _reference(ctx.env_id, is_slippery=False)
    checks = tt.every_cell("non-slippery", env, params, ref, len(params.desc) * len(params.desc[0]))
    checks += check_transitions(env, params, ref, ctx.size(2000, 200), 0.0, ctx.seed, label="non-slippery step")
    return checks + check_time_limit(env, params, ref, ctx.limit, 60, ctx.seed)


def _slippery(ctx: p.Context) -> list[Check]:
    """Slippery moves from every live cell; then one (cell, action) with three distinct outcomes,
    enough times to tell a success rate 10% off (0.3 for 1/3)."""
    live = _live(ctx.params.desc)
    ref = ctx.reference
    checks = tt.cell_distribution("slippery step", ctx.env, ctx.params, ref, live, ctx.size(150, 60), ctx.seed + 1)
    support = tt.cell_outcomes(ref)
    case = next(
        ({"s": np.int32(c), "time": np.int32(0)}, a) for c in live for a in range(4) if len(support({"s": c}, a)) == 3
    )
    return checks + check_step_distribution(
        ctx.env,
        ctx.params,
        ref,
        [case],
        ctx.size(SLIP_SAMPLES, SLIP_SAMPLES),
        tt.obs_reward_terminated,
        ctx.seed + 3,
        label=f"slippery step (cell {int(case[0]['s'])}, action {case[1]})",
        support=support,
    )


def _custom_maps(ctx: p.Context) -> list[Check]:
    """A random 5x5 map, success rate and reward schedule, as gymnasium's kwargs; a map with
    two start cells (the start is drawn between them)."""
    custom = dict(
        desc=generate_random_map(5, p=0.75, seed=ctx.seed), success_rate=0.6, reward_schedule=(2.0, -1.0, -0.25)
    )
    dry = ctx.params.replace(is_slippery=False, **custom)
    checks = tt.every_cell("custom map", ctx.env, dry, _reference(ctx.env_id, is_slippery=False, **custom), 25)
    checks += tt.cell_distribution(
        "custom map slippery step",
        ctx.env,
        ctx.params.replace(**custom),
        _reference(ctx.env_id, **custom),
        _live(custom["desc"]),
        ctx.size(150, 60),
        ctx.seed + 2,
    )
    return checks + check_resets(
        ctx.env,
        ctx.params.replace(desc=TWO_STARTS),
        _reference(ctx.env_id, desc=list(TWO_STARTS)),
        ctx.size(1000, 200),
        ctx.seed,
        discrete=True,
        label="two-start reset",
    )


_RESETS = p.resets(at_one=1000, least=100, discrete=True)
_STATISTICS = p.statistics(at_one=1000, least=100)

# FrozenLake8x8-v1
SPEC_8X8 = p.ParitySpec(reference=_reference, checks=p.chain(_dry, _slippery, _RESETS, _STATISTICS))
# FrozenLake-v1: the custom maps too
SPEC = p.ParitySpec(reference=_reference, checks=p.chain(_dry, _slippery, _RESETS, _custom_maps, _STATISTICS))
