"""The classic-control ids, one entry each with every fact of the id: its env (imported only
by `make`), params, reference, parity spec (beside the env, imported only when a check runs)
and peers in other libraries (`jaxenvs bench --compare`)."""

_E = "jaxenvs.envs.classic."


def _peers(gym_id: str) -> dict:
    return {"gymnax": gym_id, "gymnasium": gym_id, "envpool": gym_id}


REGISTRATIONS: list[dict] = [
    dict(
        id="CartPole-v1",
        entry_point=_E + "cartpole:CartPole",
        params={"max_steps_in_episode": 500},
        reference="gymnasium CartPole-v1 (classic_control)",
        parity=_E + "cartpole.parity:SPEC",
        peers=_peers("CartPole-v1"),
    ),
    dict(
        id="CartPole-v0",
        entry_point=_E + "cartpole:CartPole",
        params={"max_steps_in_episode": 200},
        reference="gymnasium CartPole-v0 (classic_control)",
        parity=_E + "cartpole.parity:SPEC",
    ),
    dict(
        id="Acrobot-v1",
        entry_point=_E + "acrobot:Acrobot",
        params={"max_steps_in_episode": 500},
        reference="gymnasium Acrobot-v1 (classic_control)",
        parity=_E + "acrobot.parity:SPEC",
        peers=_peers("Acrobot-v1"),
    ),
    dict(
        id="MountainCar-v0",
        entry_point=_E + "mountain_car:MountainCar",
        params={"max_steps_in_episode": 200},
        reference="gymnasium MountainCar-v0 (classic_control)",
        parity=_E + "mountain_car.parity:SPEC",
        peers=_peers("MountainCar-v0"),
    ),
    dict(
        id="MountainCarContinuous-v0",
        entry_point=_E + "mountain_car_continuous:MountainCarContinuous",
        params={"max_steps_in_episode": 999},
        reference="gymnasium MountainCarContinuous-v0 (classic_control)",
        parity=_E + "mountain_car_continuous.parity:SPEC",
        peers=_peers("MountainCarContinuous-v0"),
    ),
    dict(
        id="Pendulum-v1",
        entry_point=_E + "pendulum:Pendulum",
        params={"max_steps_in_episode": 200},
        reference="gymnasium Pendulum-v1 (classic_control)",
        parity=_E + "pendulum.parity:SPEC",
        peers=_peers("Pendulum-v1"),
    ),
]
for _entry in REGISTRATIONS:
    _entry["family"] = "classic"
