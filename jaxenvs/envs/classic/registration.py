"""Ids of the classic-control family, as data: entry points are imported only by `make`."""

_REF = "gymnasium {} (classic_control)"

REGISTRATIONS: list[dict] = [
    dict(
        id="CartPole-v1",
        entry_point="jaxenvs.envs.classic.cartpole:CartPole",
        params={"max_steps_in_episode": 500},
        reference=_REF.format("CartPole-v1"),
        family="classic",
    ),
    dict(
        id="CartPole-v0",
        entry_point="jaxenvs.envs.classic.cartpole:CartPole",
        params={"max_steps_in_episode": 200},
        reference=_REF.format("CartPole-v0"),
        family="classic",
    ),
    dict(
        id="Acrobot-v1",
        entry_point="jaxenvs.envs.classic.acrobot:Acrobot",
        params={"max_steps_in_episode": 500},
        reference=_REF.format("Acrobot-v1"),
        family="classic",
    ),
    dict(
        id="MountainCar-v0",
        entry_point="jaxenvs.envs.classic.mountain_car:MountainCar",
        params={"max_steps_in_episode": 200},
        reference=_REF.format("MountainCar-v0"),
        family="classic",
    ),
    dict(
        id="MountainCarContinuous-v0",
        entry_point="jaxenvs.envs.classic.mountain_car_continuous:MountainCarContinuous",
        params={"max_steps_in_episode": 999},
        reference=_REF.format("MountainCarContinuous-v0"),
        family="classic",
    ),
    dict(
        id="Pendulum-v1",
        entry_point="jaxenvs.envs.classic.pendulum:Pendulum",
        params={"max_steps_in_episode": 200},
        reference=_REF.format("Pendulum-v1"),
        family="classic",
    ),
]

# Where each id's parity check lives, and the same env in other libraries (`jaxenvs bench --compare`).
_PEERS = {
    "CartPole-v1": {"gymnax": "CartPole-v1", "gymnasium": "CartPole-v1", "envpool": "CartPole-v1"},
    "Acrobot-v1": {"gymnax": "Acrobot-v1", "gymnasium": "Acrobot-v1", "envpool": "Acrobot-v1"},
    "MountainCar-v0": {"gymnax": "MountainCar-v0", "gymnasium": "MountainCar-v0", "envpool": "MountainCar-v0"},
    "MountainCarContinuous-v0": {
        "gymnax": "MountainCarContinuous-v0",
        "gymnasium": "MountainCarContinuous-v0",
        "envpool": "MountainCarContinuous-v0",
    },
    "Pendulum-v1": {"gymnax": "Pendulum-v1", "gymnasium": "Pendulum-v1", "envpool": "Pendulum-v1"},
}
for _entry in REGISTRATIONS:
    _entry["parity"] = "jaxenvs.parity.classic:run"
    _entry["peers"] = _PEERS.get(_entry["id"], {})
