"""The Box2D ids, one entry each with every fact of the id: its env (imported only by `make`),
its reference, its parity spec (beside the env, imported only when a check runs), and its peer
under the same id (gymnasium's, for `jaxenvs bench --compare`)."""

_E = "jaxenvs.envs.box2d."

REGISTRATIONS: list[dict] = [
    dict(
        id=env_id,
        entry_point=_E + "lunar_lander:LunarLander",
        env_kwargs={"continuous": continuous},
        params={"max_steps_in_episode": 1000},
        reference=f"gymnasium {env_id} (box2d)",
        family="box2d",
        parity=_E + "lunar_lander.parity:SPEC",
        peers={"gymnasium": env_id},
        notes={"slow_on_cpu": "a step runs Box2D's 180 + 60 solver iterations: long to compile on a CPU"},
    )
    for env_id, continuous in (("LunarLander-v3", False), ("LunarLanderContinuous-v3", True))
] + [
    dict(
        id=env_id,
        entry_point=_E + "bipedal_walker:BipedalWalker",
        env_kwargs={"hardcore": hardcore},
        params={"max_steps_in_episode": max_steps},
        reference=f"gymnasium {env_id} (box2d)",
        family="box2d",
        parity=_E + "bipedal_walker.parity:SPEC",
        peers={"gymnasium": env_id},
        notes={"slow_on_cpu": "a step runs Box2D's 180 + 60 solver iterations: long to compile on a CPU"},
    )
    for env_id, hardcore, max_steps in (("BipedalWalker-v3", False, 1600), ("BipedalWalkerHardcore-v3", True, 2000))
]
