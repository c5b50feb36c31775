"""The toy-text ids, one entry each with every fact of the id: its env (imported only by
`make`), options and time limit, reference and parity spec (beside the env, imported only when
a check runs).

Ids, options and time limits as gymnasium 1.3 registers them (`gymnasium/envs/__init__.py`):
CliffWalking and Blackjack have no time limit there (2**31 - 1 steps here).
"""

_E = "jaxenvs.envs.toy_text."
_NO_TIME_LIMIT = 2**31 - 1


def _gymnasium(env_id: str, env: str, max_steps: int, *, spec: str = "SPEC", env_kwargs=None, **options) -> dict:
    """gymnasium's `env_id`: env `folder:Class`, its time limit and options; parity spec `spec` beside the env."""
    return dict(
        id=env_id,
        entry_point=_E + env,
        env_kwargs=env_kwargs or {},
        params={**options, "max_steps_in_episode": max_steps},
        reference=f"gymnasium {env_id} (toy_text)",
        parity=_E + env.split(":")[0] + ".parity:" + spec,
        family="toy_text",
    )


REGISTRATIONS: list[dict] = [
    _gymnasium("FrozenLake-v1", "frozen_lake:FrozenLake", 100, env_kwargs={"map_name": "4x4"}),
    _gymnasium("FrozenLake8x8-v1", "frozen_lake:FrozenLake", 200, spec="SPEC_8X8", env_kwargs={"map_name": "8x8"}),
    _gymnasium("Taxi-v4", "taxi:Taxi", 200),
    _gymnasium("CliffWalking-v1", "cliff_walking:CliffWalking", _NO_TIME_LIMIT, is_slippery=False),
    _gymnasium("CliffWalkingSlippery-v1", "cliff_walking:CliffWalking", _NO_TIME_LIMIT, is_slippery=True),
    _gymnasium("Blackjack-v1", "blackjack:Blackjack", _NO_TIME_LIMIT, sab=True, natural=False),
]
