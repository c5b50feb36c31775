"""The MinAtar ids, one entry each with every fact of the id: its env, params, reference, parity
spec and peers."""

_E = "jaxenvs.envs.minatar."
_MINIMAL = {"use_minimal_action_set": True}

# Each entry's env is imported only by `make`, its parity spec (beside the env) only when a check
# runs; its peers are what `jaxenvs bench --compare` runs it against: gymnax's id, and `loop`,
# MinAtar's own game in a Python loop.
#
# `<Game>-MinAtar` and `<Game>-MinAtar-v0` use MinAtar's six actions (as `minatar.Environment`
# and minatar's gymnasium `MinAtar/<Game>-v0`); `<Game>-MinAtar-v1` uses the game's minimal
# action set (`MinAtar/<Game>-v1`). Sticky actions (0.1) and difficulty ramping are on, as in
# MinAtar; `make(id, sticky_action_prob=0.0)` etc. change them. The base id carries the parity
# spec, which checks the minimal action set too: the -v0 and -v1 ids declare none.
REGISTRATIONS: list[dict] = [
    dict(
        id="Asterix-MinAtar",
        entry_point=_E + "asterix:Asterix",
        params={},
        reference="minatar asterix",
        family="minatar",
        parity=_E + "asterix.parity:SPEC",
        peers={"gymnax": "Asterix-MinAtar", "loop": ("minatar", "asterix")},
    ),
    dict(
        id="Asterix-MinAtar-v0",
        entry_point=_E + "asterix:Asterix",
        params={},
        reference="minatar asterix",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="Asterix-MinAtar-v1",
        entry_point=_E + "asterix:Asterix",
        params=_MINIMAL,
        reference="minatar asterix (minimal action set)",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="Breakout-MinAtar",
        entry_point=_E + "breakout:Breakout",
        params={},
        reference="minatar breakout",
        family="minatar",
        parity=_E + "breakout.parity:SPEC",
        peers={"gymnax": "Breakout-MinAtar", "loop": ("minatar", "breakout")},
    ),
    dict(
        id="Breakout-MinAtar-v0",
        entry_point=_E + "breakout:Breakout",
        params={},
        reference="minatar breakout",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="Breakout-MinAtar-v1",
        entry_point=_E + "breakout:Breakout",
        params=_MINIMAL,
        reference="minatar breakout (minimal action set)",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="Freeway-MinAtar",
        entry_point=_E + "freeway:Freeway",
        params={},
        reference="minatar freeway",
        family="minatar",
        parity=_E + "freeway.parity:SPEC",
        peers={"gymnax": "Freeway-MinAtar", "loop": ("minatar", "freeway")},
    ),
    dict(
        id="Freeway-MinAtar-v0",
        entry_point=_E + "freeway:Freeway",
        params={},
        reference="minatar freeway",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="Freeway-MinAtar-v1",
        entry_point=_E + "freeway:Freeway",
        params=_MINIMAL,
        reference="minatar freeway (minimal action set)",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="Seaquest-MinAtar",
        entry_point=_E + "seaquest:Seaquest",
        params={},
        reference="minatar seaquest",
        family="minatar",
        parity=_E + "seaquest.parity:SPEC",
        peers={"gymnax": "Seaquest-MinAtar", "loop": ("minatar", "seaquest")},
    ),
    dict(
        id="Seaquest-MinAtar-v0",
        entry_point=_E + "seaquest:Seaquest",
        params={},
        reference="minatar seaquest",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="Seaquest-MinAtar-v1",
        entry_point=_E + "seaquest:Seaquest",
        params=_MINIMAL,
        reference="minatar seaquest (minimal action set)",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="SpaceInvaders-MinAtar",
        entry_point=_E + "space_invaders:SpaceInvaders",
        params={},
        reference="minatar space_invaders",
        family="minatar",
        parity=_E + "space_invaders.parity:SPEC",
        peers={"gymnax": "SpaceInvaders-MinAtar", "loop": ("minatar", "space_invaders")},
    ),
    dict(
        id="SpaceInvaders-MinAtar-v0",
        entry_point=_E + "space_invaders:SpaceInvaders",
        params={},
        reference="minatar space_invaders",
        family="minatar",
        parity=None,
        peers={},
    ),
    dict(
        id="SpaceInvaders-MinAtar-v1",
        entry_point=_E + "space_invaders:SpaceInvaders",
        params=_MINIMAL,
        reference="minatar space_invaders (minimal action set)",
        family="minatar",
        parity=None,
        peers={},
    ),
]
