"""The classic-control ids, one row each with every fact of the id: its env (imported only by
`make`), its time limit, its parity spec (beside the env, imported only when a check runs) and
whether gymnax, gymnasium and envpool have it under the same id (`jaxenvs bench --compare`)."""

_E = "jaxenvs.envs.classic."

# id, env folder:class, time limit, peers
_ROWS = (
    ("CartPole-v1", "cartpole:CartPole", 500, True),
    ("CartPole-v0", "cartpole:CartPole", 200, False),
    ("Acrobot-v1", "acrobot:Acrobot", 500, True),
    ("MountainCar-v0", "mountain_car:MountainCar", 200, True),
    ("MountainCarContinuous-v0", "mountain_car_continuous:MountainCarContinuous", 999, True),
    ("Pendulum-v1", "pendulum:Pendulum", 200, True),
)

REGISTRATIONS: list[dict] = [
    dict(
        id=env_id,
        entry_point=_E + env,
        params={"max_steps_in_episode": limit},
        reference=f"gymnasium {env_id} (classic_control)",
        family="classic",
        parity=_E + env.split(":")[0] + ".parity:SPEC",
        peers={"gymnax": env_id, "gymnasium": env_id, "envpool": env_id} if peers else {},
    )
    for env_id, env, limit, peers in _ROWS
]
