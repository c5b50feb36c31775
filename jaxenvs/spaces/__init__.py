"""Spaces: `Discrete`, `MultiDiscrete`, `Box`, `Dict` and `Tuple`.

The classes and their rules (membership, exact checks of actions, flattening) are in
`jaxenvs.spaces.core`; every conversion to and from other libraries (gymnasium, dm_env,
gymnax, jumanji, navix) is one singledispatch function in `jaxenvs.spaces.convert`; the two
gymnasium ones are here too (`spaces.to_gymnasium(space)`, `spaces.from_gymnasium(space)`).

    >>> from jaxenvs import spaces
    >>> bool(spaces.Discrete(3).contains(2))
    True
"""

from jaxenvs.spaces import convert
from jaxenvs.spaces.convert import from_gymnasium, to_gymnasium
from jaxenvs.spaces.core import (
    Box,
    Dict,
    Discrete,
    MultiDiscrete,
    Space,
    Tuple,
    check_action,
    check_action_shape,
    clip_action,
    flatten,
    flatten_space,
    why_not,
)

__all__ = [
    "Space",
    "Discrete",
    "MultiDiscrete",
    "Box",
    "Dict",
    "Tuple",
    "check_action",
    "check_action_shape",
    "clip_action",
    "convert",
    "flatten",
    "flatten_space",
    "from_gymnasium",
    "to_gymnasium",
    "why_not",
]
