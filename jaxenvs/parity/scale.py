"""The one scale rule: a size of `at_one` at scale 1 is `max(least, int(at_one * scale))` (`scaled`).

`Sizes.at(scale)` (the standard set of a `Reference`) and `Context.size` (a `ParitySpec`'s
checks) both use it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np


def scaled(at_one: float, scale: float, least: int = 1) -> int:
    """The one scale rule: how many samples a check of `at_one` samples at scale 1 draws at `scale`.

    Args:
        at_one: the count at scale 1.
        scale: the fraction of the full suite.
        least: the count below which the check says nothing useful.

    Returns:
        `max(least, int(at_one * scale))`.
    """
    return max(least, int(at_one * scale))


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much a run compares; `Sizes.at(scale)` is the default suite at a fraction of its size.

    Args:
        steps: transitions compared step by step.
        samples: draws compared as distributions (steps from one state, resets).
        episodes: whole episodes compared.

    Raises:
        ValueError: a size is not a positive int.
    """

    steps: int = 2000
    samples: int = 2000
    episodes: int = 200

    def __post_init__(self) -> None:
        for name in ("steps", "samples", "episodes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"Sizes.{name} must be a positive int, got {value!r}")

    @classmethod
    def at(cls, scale: float, steps: int = 2000, samples: int = 2000, episodes: int = 200) -> Sizes:
        """The sizes scaled by `scale`, each kept at a floor (50 steps, 200 samples, 20 episodes).

        Args:
            scale: the fraction of the full sizes (1.0 = the full suite).
            steps: the full number of steps.
            samples: the full number of samples.
            episodes: the full number of episodes.

        Returns:
            The scaled `Sizes`.

        Raises:
            TypeError: `scale` is not a number.
            ValueError: `scale` is not positive and finite.
        """
        check_scale(scale)
        return cls(scaled(steps, scale, 50), scaled(samples, scale, 200), scaled(episodes, scale, 20))


def check_scale(scale: Any) -> float:
    """Validate a parity scale: a positive, finite number.

    Args:
        scale: the fraction of the full suite (1.0 = the full suite).

    Returns:
        `scale` as a float.

    Raises:
        TypeError: `scale` is not a number (a bool is not one).
        ValueError: `scale` is not positive and finite.
    """
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise TypeError(f"scale must be a positive number (1.0 = the full suite), got {scale!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive, finite number (1.0 = the full suite), got {scale!r}")
    return float(scale)
