"""Other libraries' tasks through the jaxenvs interface (`jaxenvs.make("brax/ant")`, ...).

Each adapter imports its library when one of its ids is made, never at `import jaxenvs`; the
ids are listed in `registration.py`. `from_gymnax(env, params)` adapts any env written to
gymnax's interface. See docs/adapters.md.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    # lazy: `import jaxenvs` loads this package (for the id lists) and must stay light
    if name == "from_gymnax":
        from jaxenvs.adapters.gymnax import from_gymnax

        return from_gymnax
    raise AttributeError(f"module 'jaxenvs.adapters' has no attribute {name!r}")


__all__ = ["from_gymnax"]
