"""Ids of the misc family (gymnax's misc set under gymnax's ids, and a tutorial GridWorld), as
data: `"module:Class"` strings, imported only by `make`."""

_REF = "gymnax {} (gymnax.environments.misc)"
_M = "jaxenvs.envs.misc."

REGISTRATIONS: list[dict] = [
    dict(
        id="FourRooms-misc",
        entry_point=_M + "four_rooms:FourRooms",
        reference=_REF.format("FourRooms-misc"),
        family="misc",
    ),
    dict(
        id="MetaMaze-misc", entry_point=_M + "meta_maze:MetaMaze", reference=_REF.format("MetaMaze-misc"), family="misc"
    ),
    dict(
        id="PointRobot-misc",
        entry_point=_M + "point_robot:PointRobot",
        reference=_REF.format("PointRobot-misc"),
        family="misc",
    ),
    dict(
        id="BernoulliBandit-misc",
        entry_point=_M + "bernoulli_bandit:BernoulliBandit",
        reference=_REF.format("BernoulliBandit-misc"),
        family="misc",
    ),
    dict(
        id="GaussianBandit-misc",
        entry_point=_M + "gaussian_bandit:GaussianBandit",
        reference=_REF.format("GaussianBandit-misc"),
        family="misc",
    ),
    dict(id="Reacher-misc", entry_point=_M + "reacher:Reacher", reference=_REF.format("Reacher-misc"), family="misc"),
    dict(id="Swimmer-misc", entry_point=_M + "swimmer:Swimmer", reference=_REF.format("Swimmer-misc"), family="misc"),
    dict(id="Pong-misc", entry_point=_M + "pong:Pong", reference=_REF.format("Pong-misc"), family="misc"),
    dict(
        id="GridWorld-misc",
        entry_point=_M + "grid_world:GridWorld",
        reference="none: the tutorial gridworld (Sutton & Barto, Example 4.1); rule tests",
        family="misc",
    ),
]

# Where each id's parity check lives (every gymnax id), and its benchmark peer (gymnax itself).
for _entry in REGISTRATIONS:
    if _entry["id"] != "GridWorld-misc":
        _entry["parity"] = "jaxenvs.parity.misc:run"
        _entry["peers"] = {"gymnax": _entry["id"]}
