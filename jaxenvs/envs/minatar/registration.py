"""Ids of the MinAtar family, as data: `"module:Class"` strings, imported only by `make`.

`<Game>-MinAtar` and `<Game>-MinAtar-v0` use MinAtar's six actions (as `minatar.Environment`
and minatar's gymnasium `MinAtar/<Game>-v0`); `<Game>-MinAtar-v1` uses the game's minimal
action set (`MinAtar/<Game>-v1`). Sticky actions (0.1) and difficulty ramping are on, as in
MinAtar; `make(id, sticky_action_prob=0.0)` etc. change them.
"""

_GAMES = (
    # (id prefix, module, class, minatar game name)
    ("Asterix", "asterix", "Asterix", "asterix"),
    ("Breakout", "breakout", "Breakout", "breakout"),
    ("Freeway", "freeway", "Freeway", "freeway"),
    ("Seaquest", "seaquest", "Seaquest", "seaquest"),
    ("SpaceInvaders", "space_invaders", "SpaceInvaders", "space_invaders"),
)

REGISTRATIONS: list[dict] = []
for _prefix, _module, _cls, _game in _GAMES:
    for _suffix, _minimal in (("", False), ("-v0", False), ("-v1", True)):
        REGISTRATIONS.append(
            dict(
                id=f"{_prefix}-MinAtar{_suffix}",
                entry_point=f"jaxenvs.envs.minatar.{_module}:{_cls}",
                params={"use_minimal_action_set": True} if _minimal else {},
                reference=f"minatar {_game}" + (" (minimal action set)" if _minimal else ""),
                family="minatar",
                # the base id carries the parity suite (it checks the minimal action set too)
                parity="jaxenvs.parity.minatar:run" if not _suffix else None,
                peers={"gymnax": f"{_prefix}-MinAtar", "loop": ("minatar", _game)} if not _suffix else {},
            )
        )
