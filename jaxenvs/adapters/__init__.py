"""Other libraries' tasks through the jaxenvs interface.

`jaxenvs.make("brax/ant")`, `make("jumanji/Snake-v1")`, `make("pgx/tic_tac_toe")`,
`make("gymnax/CartPole-v1")`, `make("craftax/Craftax-Classic-Symbolic-v1")`,
`make("playground/CartpoleBalance")`, `make("xminigrid/MiniGrid-Empty-5x5")`,
`make("navix/Navix-Empty-5x5-v0")`: each adapter module imports its library when one of its ids
is made, never at `import jaxenvs`; a missing library gives an `ImportError` naming the extra to
install. The ids are listed as data in `registration.py`. `from_gymnax(env, params)` adapts any
env written to gymnax's interface.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    # lazy: `import jaxenvs` loads this package (for the id lists) and must stay light
    if name == "from_gymnax":
        from jaxenvs.adapters.gymnax import from_gymnax

        return from_gymnax
    raise AttributeError(f"module 'jaxenvs.adapters' has no attribute {name!r}")


__all__ = ["from_gymnax"]
