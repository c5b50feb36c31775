"""DeepSea and DeepSeaStochastic against bsuite's: the action mapping of every sweep size and of
this env, per step; the stochastic variant's moves and reward noise by distribution;
random-policy statistics."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.envs.bsuite.deep_sea import action_mapping
from jaxenvs.parity import Check
from jaxenvs.parity.stats import exact_check


def _action_mappings(ctx: p.Context) -> list[Check]:
    deep_sea, sizes = b._bsuite_env("deep_sea", "DeepSea"), range(10, 51, 2)  # every sweep size, mapping_seed 42
    return [
        exact_check(
            "action mapping (sizes 10..50, mapping_seed 42)",
            np.concatenate([action_mapping(n, 42).ravel() for n in sizes]),
            np.concatenate([deep_sea(size=n, mapping_seed=42)._action_mapping.ravel() for n in sizes]),
        ),
        exact_check(
            "action mapping (this env)",
            np.asarray(ctx.params.action_mapping),
            deep_sea(**b.settings(ctx.env_id))._action_mapping,
        ),
    ]


def _stochastic(ctx: p.Context) -> list[Check]:
    """The stochastic variant's random parts: a move right from the middle (it succeeds with
    probability 1 - 1/size); moves outward from the bottom corners, whose reward has noise
    N(0, 1) (right from the right corner also pays 1 - cost)."""
    if ctx.params.deterministic:
        return []
    size, mapping = b.settings(ctx.env_id)["size"], np.asarray(ctx.params.action_mapping)
    middle = [({"row": 3, "column": 2, "bad_episode": False, "time": 3}, int(mapping[3, 2]))]
    checks = p.step_distribution(middle, lambda t: t.next_states["column"], label="stochastic move right")(ctx)
    corners = ((size - 1, mapping[-1, -1], "right corner, right"), (0, 1 - mapping[-1, 0], "left corner, left"))
    for column, action, side in corners:
        corner = [({"row": size - 1, "column": column, "bad_episode": True, "time": size - 1}, int(action))]
        noise = dict(seed_offset=1, label=f"stochastic reward ({side})", continuous="unbounded")
        checks += p.step_distribution(corner, lambda t: t.rewards, **noise)(ctx)
    return checks


SPEC = b.spec(
    b._ref_deep_sea, _action_mappings, b.STEP, _stochastic, longest=lambda ctx: b.settings(ctx.env_id)["size"]
)
