"""The misc ids (gymnax's misc set under gymnax's ids, and a tutorial GridWorld), one entry each
with every fact of the id: its env (imported only by `make`), reference, parity spec (beside
the env, imported only when a check runs) and benchmark peer (gymnax itself)."""

_M = "jaxenvs.envs.misc."

REGISTRATIONS: list[dict] = [
    dict(
        id="FourRooms-misc",
        entry_point=_M + "four_rooms:FourRooms",
        reference="gymnax FourRooms-misc (gymnax.environments.misc)",
        parity=_M + "four_rooms.parity:SPEC",
        peers={"gymnax": "FourRooms-misc"},
        family="misc",
    ),
    dict(
        id="MetaMaze-misc",
        entry_point=_M + "meta_maze:MetaMaze",
        reference="gymnax MetaMaze-misc (gymnax.environments.misc)",
        parity=_M + "meta_maze.parity:SPEC",
        peers={"gymnax": "MetaMaze-misc"},
        family="misc",
    ),
    dict(
        id="PointRobot-misc",
        entry_point=_M + "point_robot:PointRobot",
        reference="gymnax PointRobot-misc (gymnax.environments.misc)",
        parity=_M + "point_robot.parity:SPEC",
        peers={"gymnax": "PointRobot-misc"},
        family="misc",
    ),
    dict(
        id="BernoulliBandit-misc",
        entry_point=_M + "bernoulli_bandit:BernoulliBandit",
        reference="gymnax BernoulliBandit-misc (gymnax.environments.misc)",
        parity=_M + "bernoulli_bandit.parity:SPEC",
        peers={"gymnax": "BernoulliBandit-misc"},
        family="misc",
    ),
    dict(
        id="GaussianBandit-misc",
        entry_point=_M + "gaussian_bandit:GaussianBandit",
        reference="gymnax GaussianBandit-misc (gymnax.environments.misc)",
        parity=_M + "gaussian_bandit.parity:SPEC",
        peers={"gymnax": "GaussianBandit-misc"},
        family="misc",
    ),
    dict(
        id="Reacher-misc",
        entry_point=_M + "reacher:Reacher",
        reference="gymnax Reacher-misc (gymnax.environments.misc)",
        parity=_M + "reacher.parity:SPEC",
        peers={"gymnax": "Reacher-misc"},
        family="misc",
    ),
    dict(
        id="Swimmer-misc",
        entry_point=_M + "swimmer:Swimmer",
        reference="gymnax Swimmer-misc (gymnax.environments.misc)",
        parity=_M + "swimmer.parity:SPEC",
        peers={"gymnax": "Swimmer-misc"},
        family="misc",
    ),
    dict(
        id="Pong-misc",
        entry_point=_M + "pong:Pong",
        reference="gymnax Pong-misc (gymnax.environments.misc)",
        parity=_M + "pong.parity:SPEC",
        peers={"gymnax": "Pong-misc"},
        family="misc",
    ),
    dict(
        id="GridWorld-misc",
        entry_point=_M + "grid_world:GridWorld",
        reference="none: the tutorial gridworld (Sutton & Barto, Example 4.1); rule tests",
        family="misc",
    ),
]
