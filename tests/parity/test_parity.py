"""Every built-in id with a parity spec passes it at the tests' size: one test for all families.

The sizes are test policy (here, not in the specs): the smallest a check can run at for most
ids, larger where a family's checks need it; the MinAtar games and the bsuite physics are the
slow ones. `jaxenvs parity` and docs/parity.md run the full sizes.
"""

import pytest

import jaxenvs
from jaxenvs.parity import parity_ids, run_parity
from jaxenvs.registry import BUILT_IN_FAMILIES

_FAMILIES = BUILT_IN_FAMILIES
IDS = [i for i in parity_ids() if jaxenvs.spec(i).family in _FAMILIES]

# scale per family, and per id where it differs
SCALES = {
    "classic": 0.25,
    "toy_text": 0.05,
    "minatar": 0.05,
    "bsuite": 0.01,
    "misc": 0.02,
    "box2d": 0.1,  # LunarLander's resets and steps: their least sizes (the demo runs 0.25)
    "BipedalWalker-v3": 0.01,  # its least sizes
    "BipedalWalkerHardcore-v3": 0.01,
    "CartPole-v0": 0.02,
}
SLOW = {
    "LunarLander-v3",
    "LunarLanderContinuous-v3",
    "BipedalWalker-v3",
    "BipedalWalkerHardcore-v3",
    "Asterix-MinAtar",
    "Breakout-MinAtar",
    "Freeway-MinAtar",
    "Seaquest-MinAtar",
    "SpaceInvaders-MinAtar",
    "CartPole-bsuite",
    "CartPoleSwingup-bsuite",
    "MountainCar-bsuite",
}


# checks an id must have run (a spec that silently lost one fails here), and least transitions
MINATAR = {"names": {"rare events reached"}, "transitions": 1500}
MUST_HAVE = {
    "Taxi-v4": {"names": {"step action_mask", "rainy step frequencies", "fickle step frequencies"}},
    **{f"{game}-MinAtar": MINATAR for game in ("Asterix", "Breakout", "Freeway", "Seaquest", "SpaceInvaders")},
    **{
        i: {"names": {"wind in free flight observation", "step in contact step direction"}, "transitions": 150}
        for i in ("LunarLander-v3", "LunarLanderContinuous-v3")
    },
    **{
        i: {"names": {"reset distribution", "step in contact step direction"}, "transitions": 100}
        for i in ("BipedalWalker-v3", "BipedalWalkerHardcore-v3")
    },
}


def scale_of(env_id: str) -> float:
    return SCALES.get(env_id, SCALES[jaxenvs.spec(env_id).family])


def _of(env_id, reference):
    """`reference` bound to `env_id`: a user's spec runs under the env's name, not its id."""
    return lambda _, **settings: reference(env_id, **settings)


def _steps_only_walker(env_id):
    """BipedalWalker's spec (either course) without its whole-episode checks: its episodes run up to 1,600 steps
    of Box2D for 64 envs at a time, over 15 minutes under the tests' cheapest compile (their
    code unoptimized); `jaxenvs parity` and the demo run them (docs/box2d.md)."""
    from jaxenvs import parity as p
    from jaxenvs.envs.box2d.bipedal_walker import parity as walker

    checks = p.chain(p.resets(at_one=1000, least=100), walker.cold_steps(1000, 100))
    return p.ParitySpec(
        checks=checks, reference=_of(env_id, walker.reference), library="gymnasium", description=f"gymnasium {env_id}"
    )


def _steps_only_lander(env_id):
    """LunarLander's spec (either id) without its whole episodes, most of its 100 s on this CPU:
    the resets, the cold-started steps and those with wind. The episodes (random and heuristic)
    run in the demo and `jaxenvs parity`; tests/envs/box2d/test_lunar_lander.py replays random
    episodes against gymnasium step by step."""
    from jaxenvs import parity as p
    from jaxenvs.envs.box2d.lunar_lander import parity as lander

    reference = _of(env_id, lander.reference)
    checks = p.chain(
        p.resets(at_one=2000, least=200),
        lander.cold_steps(1000, 100),
        p.on(p.variant(reference, enable_wind=True), lander.cold_steps(500, 50, "wind")),
    )
    return p.ParitySpec(checks=checks, reference=reference, library="gymnasium", description=f"gymnasium {env_id}")


# ids whose full spec the tests cannot afford: the part they run (the rest runs in the demo)
TEST_SPECS = {
    "BipedalWalker-v3": _steps_only_walker,
    "BipedalWalkerHardcore-v3": _steps_only_walker,
    "LunarLander-v3": _steps_only_lander,
    "LunarLanderContinuous-v3": _steps_only_lander,
}


@pytest.mark.parametrize("env_id", [pytest.param(i, marks=pytest.mark.slow) if i in SLOW else i for i in IDS])
def test_parity(env_id):
    if env_id in TEST_SPECS:
        env, params = jaxenvs.make(env_id)
        result = run_parity(TEST_SPECS[env_id](env_id), scale=scale_of(env_id), env=env.unwrapped, params=params)
    else:
        result = run_parity(env_id, scale=scale_of(env_id))
    if result.skipped is not None:
        pytest.skip(result.skipped)  # the reference library is not installed
    assert result.passed, result.summary()
    assert result.transitions > 0 or result.num_tests > 0
    must = MUST_HAVE.get(env_id, {})
    assert must.get("names", set()) <= {c.name for c in result.checks}, result.summary()
    assert result.transitions >= must.get("transitions", 0)


def test_every_built_in_family_is_checked():
    assert {jaxenvs.spec(i).family for i in IDS} == set(_FAMILIES)
    assert len(IDS) >= 36
