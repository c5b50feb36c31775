"""Parity of the five MinAtar games against the `minatar` package.

Each game's checks live in `jaxenvs/parity/minatar_<game>.py` (`run(env_id, scale, seed)`);
the shared machinery (state injection with recorded random draws, sticky actions, episode
statistics) in `jaxenvs/parity/_minatar.py`.
"""

from __future__ import annotations

import importlib

from jaxenvs.parity.harness import ParityResult

GAME_OF_ID = {
    "Asterix-MinAtar": "asterix",
    "Breakout-MinAtar": "breakout",
    "Freeway-MinAtar": "freeway",
    "Seaquest-MinAtar": "seaquest",
    "SpaceInvaders-MinAtar": "space_invaders",
}

IDS = tuple(GAME_OF_ID)


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    module = importlib.import_module(f"jaxenvs.parity.minatar_{GAME_OF_ID[env_id]}")
    return module.run(env_id, scale=scale, seed=seed)
