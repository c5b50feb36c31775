"""Ids of the toy-text family, as data: entry points are imported only by `make`.

Ids, options and time limits as gymnasium 1.3 registers them (`gymnasium/envs/__init__.py`):
CliffWalking and Blackjack have no time limit there (2**31 - 1 steps here).
"""

_REF = "gymnasium {} (toy_text)"
_NO_TIME_LIMIT = 2**31 - 1

REGISTRATIONS: list[dict] = [
    dict(
        id="FrozenLake-v1",
        entry_point="jaxenvs.envs.toy_text.frozen_lake:FrozenLake",
        env_kwargs={"map_name": "4x4"},
        params={"max_steps_in_episode": 100},
        reference=_REF.format("FrozenLake-v1"),
        family="toy_text",
    ),
    dict(
        id="FrozenLake8x8-v1",
        entry_point="jaxenvs.envs.toy_text.frozen_lake:FrozenLake",
        env_kwargs={"map_name": "8x8"},
        params={"max_steps_in_episode": 200},
        reference=_REF.format("FrozenLake8x8-v1"),
        family="toy_text",
    ),
    dict(
        id="Taxi-v4",
        entry_point="jaxenvs.envs.toy_text.taxi:Taxi",
        params={"max_steps_in_episode": 200},
        reference=_REF.format("Taxi-v4"),
        family="toy_text",
    ),
    dict(
        id="CliffWalking-v1",
        entry_point="jaxenvs.envs.toy_text.cliff_walking:CliffWalking",
        params={"is_slippery": False, "max_steps_in_episode": _NO_TIME_LIMIT},
        reference=_REF.format("CliffWalking-v1"),
        family="toy_text",
    ),
    dict(
        id="CliffWalkingSlippery-v1",
        entry_point="jaxenvs.envs.toy_text.cliff_walking:CliffWalking",
        params={"is_slippery": True, "max_steps_in_episode": _NO_TIME_LIMIT},
        reference=_REF.format("CliffWalkingSlippery-v1"),
        family="toy_text",
    ),
    dict(
        id="Blackjack-v1",
        entry_point="jaxenvs.envs.toy_text.blackjack:Blackjack",
        params={"sab": True, "natural": False, "max_steps_in_episode": _NO_TIME_LIMIT},
        reference=_REF.format("Blackjack-v1"),
        family="toy_text",
    ),
]

# Where each id's parity check lives.
for _entry in REGISTRATIONS:
    _entry["parity"] = "jaxenvs.parity.toy_text:run"
