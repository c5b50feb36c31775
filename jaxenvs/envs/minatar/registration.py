"""The MinAtar ids, one entry each with every fact of the id: its env, params, reference, parity
spec and peers."""

_E = "jaxenvs.envs.minatar."
_MINIMAL = {"use_minimal_action_set": True}


def _minatar(env_id: str, game: str, cls: str, *, base: bool = False, minimal: bool = False) -> dict:
    """An id of MinAtar's `game` (env `game:cls`); only a `base` id has a parity spec and peers."""
    return dict(
        id=env_id,
        entry_point=f"{_E}{game}:{cls}",
        params=_MINIMAL if minimal else {},
        reference=f"minatar {game}" + (" (minimal action set)" if minimal else ""),
        family="minatar",
        parity=f"{_E}{game}.parity:SPEC" if base else None,
        peers={"gymnax": env_id, "loop": ("minatar", game)} if base else {},
    )


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
    entry
    for game, cls in (
        ("asterix", "Asterix"),
        ("breakout", "Breakout"),
        ("freeway", "Freeway"),
        ("seaquest", "Seaquest"),
        ("space_invaders", "SpaceInvaders"),
    )
    for entry in (
        _minatar(f"{cls}-MinAtar", game, cls, base=True),
        _minatar(f"{cls}-MinAtar-v0", game, cls),
        _minatar(f"{cls}-MinAtar-v1", game, cls, minimal=True),
    )
]
