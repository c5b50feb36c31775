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
