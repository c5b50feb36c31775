"""SimpleBandit against bsuite's: the arm rewards of every mapping_seed bsuite's sweeps use,
per step, the reward-noise and reward-scale wrappers (each against bsuite's wrapper), and
random-policy statistics."""

import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.envs.bsuite.bandit import SimpleBandit, arm_rewards
from jaxenvs.parity import Check, check_transitions
from jaxenvs.parity.stats import ATOL_F32_OBS, ATOL_F32_STEP


def _wrapped(ctx: p.Context, wrapper: str, **options: float) -> p.Context:
    """The run on our SimpleBandit in our wrapper `wrapper`, against bsuite's in bsuite's."""
    from bsuite.utils import wrappers as theirs

    from jaxenvs.envs.bsuite import wrappers as ours

    kwargs, ref, bandit = b.settings(ctx.env_id), ctx.reference, b._bsuite_env("bandit", "SimpleBandit")
    reference = b._reference(
        f"bsuite {wrapper}(SimpleBandit)",
        lambda seed: getattr(theirs, wrapper)(bandit(**kwargs), seed=seed, **options),
        (lambda env: ref.read_state(env._env), lambda env, s: ref.write_state(env._env, s)),
    )
    env = getattr(ours, wrapper)(SimpleBandit(**kwargs), **options)
    return ctx.with_env(env, env.default_params, reference)


def _wrappers(ctx: p.Context) -> list[Check]:
    """Reward noise (noise_scale 1) on the best arm, and reward scale (30) on every arm."""
    best = int(np.argmax(arm_rewards(11, b.settings(ctx.env_id)["mapping_seed"])))
    label = "reward noise (noise_scale 1, best arm)"
    noise = p.step_distribution([({"time": 0}, best)], lambda t: t.rewards, label=label, continuous="unbounded")
    checks = noise(_wrapped(ctx, "RewardNoise", noise_scale=1.0))
    scaled = _wrapped(ctx, "RewardScale", reward_scale=30.0)
    data = scaled.reference.step_cases([({"time": 0}, a) for a in range(11)])
    label = "reward scale (30, every arm)"
    fields, collect = p.FieldPolicy(reward_atol=1e-5), p.Collection(data=data)
    return checks + check_transitions(
        scaled.env, scaled.params, scaled.reference, label=label, fields=fields, collect=collect
    )


SPEC = b.spec(
    b._ref_bandit,
    b.rewards_by_mapping_seed("arm rewards", "bandit", "SimpleBandit", lambda seed: arm_rewards(11, seed)),
    p.transitions("atol", ATOL_F32_STEP, reward_atol=ATOL_F32_OBS),
    _wrappers,
    longest=1,
)
