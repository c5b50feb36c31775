"""The misc ids (gymnax's misc set under gymnax's ids, and a tutorial GridWorld), one entry each
with every fact of the id: its env (imported only by `make`), reference, parity spec (beside
the env, imported only when a check runs) and benchmark peer (gymnax itself)."""

_M = "jaxenvs.envs.misc."


def _gymnax(env_id: str, env: str) -> dict:
    """An id of gymnax's misc set: env `folder:Class`, checked against and benchmarked with gymnax's `env_id`."""
    return dict(
        id=env_id,
        entry_point=_M + env,
        reference=f"gymnax {env_id} (gymnax.environments.misc)",
        parity=_M + env.split(":")[0] + ".parity:SPEC",
        peers={"gymnax": env_id},
        family="misc",
    )


REGISTRATIONS: list[dict] = [
    _gymnax("FourRooms-misc", "four_rooms:FourRooms"),
    _gymnax("MetaMaze-misc", "meta_maze:MetaMaze"),
    _gymnax("PointRobot-misc", "point_robot:PointRobot"),
    _gymnax("BernoulliBandit-misc", "bernoulli_bandit:BernoulliBandit"),
    _gymnax("GaussianBandit-misc", "gaussian_bandit:GaussianBandit"),
    _gymnax("Reacher-misc", "reacher:Reacher"),
    _gymnax("Swimmer-misc", "swimmer:Swimmer"),
    _gymnax("Pong-misc", "pong:Pong"),
    dict(
        id="GridWorld-misc",
        entry_point=_M + "grid_world:GridWorld",
        reference="none: the tutorial gridworld (Sutton & Barto, Example 4.1); rule tests",
        family="misc",
    ),
]
