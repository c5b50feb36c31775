"""The toy-text ids, one entry each with every fact of the id: its env (imported only by
`make`), options and time limit, reference and parity spec (beside the env, imported only when
a check runs).

Ids, options and time limits as gymnasium 1.3 registers them (`gymnasium/envs/__init__.py`):
CliffWalking and Blackjack have no time limit there (2**31 - 1 steps here).
"""

_E = "jaxenvs.envs.toy_text."
_NO_TIME_LIMIT = 2**31 - 1

REGISTRATIONS: list[dict] = [
    dict(
        id="FrozenLake-v1",
        entry_point=_E + "frozen_lake:FrozenLake",
        env_kwargs={"map_name": "4x4"},
        params={"max_steps_in_episode": 100},
        reference="gymnasium FrozenLake-v1 (toy_text)",
        parity=_E + "frozen_lake.parity:SPEC",
        family="toy_text",
    ),
    dict(
        id="FrozenLake8x8-v1",
        entry_point=_E + "frozen_lake:FrozenLake",
        env_kwargs={"map_name": "8x8"},
        params={"max_steps_in_episode": 200},
        reference="gymnasium FrozenLake8x8-v1 (toy_text)",
        parity=_E + "frozen_lake.parity:SPEC_8X8",
        family="toy_text",
    ),
    dict(
        id="Taxi-v4",
        entry_point=_E + "taxi:Taxi",
        params={"max_steps_in_episode": 200},
        reference="gymnasium Taxi-v4 (toy_text)",
        parity=_E + "taxi.parity:SPEC",
        family="toy_text",
    ),
    dict(
        id="CliffWalking-v1",
        entry_point=_E + "cliff_walking:CliffWalking",
        params={"is_slippery": False, "max_steps_in_episode": _NO_TIME_LIMIT},
        reference="gymnasium CliffWalking-v1 (toy_text)",
        parity=_E + "cliff_walking.parity:SPEC",
        family="toy_text",
    ),
    dict(
        id="CliffWalkingSlippery-v1",
        entry_point=_E + "cliff_walking:CliffWalking",
        params={"is_slippery": True, "max_steps_in_episode": _NO_TIME_LIMIT},
        reference="gymnasium CliffWalkingSlippery-v1 (toy_text)",
        parity=_E + "cliff_walking.parity:SPEC",
        family="toy_text",
    ),
    dict(
        id="Blackjack-v1",
        entry_point=_E + "blackjack:Blackjack",
        params={"sab": True, "natural": False, "max_steps_in_episode": _NO_TIME_LIMIT},
        reference="gymnasium Blackjack-v1 (toy_text)",
        parity=_E + "blackjack.parity:SPEC",
        family="toy_text",
    ),
]
