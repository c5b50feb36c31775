"""SimpleBandit against bsuite's: the arm rewards of every mapping_seed bsuite's sweeps use,
per step, the reward-noise and reward-scale wrappers (each against bsuite's wrapper), and
random-policy statistics."""

import numpy as np

from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.envs.bsuite.bandit import SimpleBandit, arm_rewards
from jaxenvs.parity import spec as p
from jaxenvs.parity.checks import ATOL_F32_OBS, ATOL_F32_STEP, Check, error_check
from jaxenvs.parity.harness import check_step_distribution, check_transitions


def _arm_rewards(ctx: p.Context) -> list[Check]:
    bandit, seeds = b._bsuite_env("bandit", "SimpleBandit"), range(20)  # every mapping_seed of the sweeps
    mine, theirs = [arm_rewards(11, s) for s in seeds], [bandit(mapping_seed=s)._rewards for s in seeds]
    return [error_check("arm rewards (mapping_seed 0..19)", np.stack(mine), np.stack(theirs), 1e-7)]


def _wrapped(ctx: p.Context, wrapper: str, **options: float) -> tuple:
    """Our SimpleBandit in our wrapper `wrapper`, and bsuite's in bsuite's, as its reference."""
    from bsuite.utils import wrappers as theirs

    from jaxenvs.envs.bsuite import wrappers as ours

    kwargs, ref, bandit = b.settings(ctx.env_id), ctx.reference, b._bsuite_env("bandit", "SimpleBandit")
    reference = b._reference(
        f"bsuite {wrapper}(SimpleBandit)",
        lambda seed: getattr(theirs, wrapper)(bandit(**kwargs), seed=seed, **options),
        (lambda env: ref.read_state(env._env), lambda env, s: ref.write_state(env._env, s)),
    )
    env = getattr(ours, wrapper)(SimpleBandit(**kwargs), **options)
    return env, env.default_params, reference


def _wrappers(ctx: p.Context) -> list[Check]:
    """Reward noise (noise_scale 1) on the best arm, and reward scale (30) on every arm."""
    best = int(np.argmax(arm_rewards(11, b.settings(ctx.env_id)["mapping_seed"])))
    noisy = _wrapped(ctx, "RewardNoise", noise_scale=1.0)
    n, outcome = ctx.size(2000, 200), lambda t: t.rewards
    label = "reward noise (noise_scale 1, best arm)"
    checks = check_step_distribution(
        *noisy, [({"time": 0}, best)], n, outcome, ctx.seed, label=label, continuous="unbounded"
    )
    env, params, ref = _wrapped(ctx, "RewardScale", reward_scale=30.0)
    data = ref.step_cases([({"time": 0}, a) for a in range(11)])
    return checks + check_transitions(
        env, params, ref, data=data, reward_atol=1e-5, label="reward scale (30, every arm)"
    )


SPEC = b.spec(
    b._ref_bandit, _arm_rewards, p.transitions("atol", ATOL_F32_STEP, reward_atol=ATOL_F32_OBS), _wrappers, longest=1
)
