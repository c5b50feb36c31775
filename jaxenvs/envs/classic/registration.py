"""Ids of the classic-control family, as data: entry points are imported only by `make`."""

_REF = "gymnasium {} (classic_control)"

REGISTRATIONS: list[dict] = [
    dict(id="CartPole-v1", entry_point="jaxenvs.envs.classic.cartpole:CartPole",
         params={"max_steps_in_episode": 500}, reference=_REF.format("CartPole-v1"), family="classic"),
    dict(id="CartPole-v0", entry_point="jaxenvs.envs.classic.cartpole:CartPole",
         params={"max_steps_in_episode": 200}, reference=_REF.format("CartPole-v0"), family="classic"),
]
