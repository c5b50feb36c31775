"""The CliffWalking grid (gymnasium's 4 x 12 with the cliff along the bottom row), shared by
the dynamics and the drawing."""

import numpy as np

SHAPE = (4, 12)
START = 3 * 12 + 0
GOAL = 3 * 12 + 11


def cliff_mask() -> np.ndarray:
    """The cliff's cells.

    Returns:
        `bool[48]`, true on the bottom row between the start and the goal.
    """
    cliff = np.zeros(SHAPE, bool)
    cliff[3, 1:-1] = True
    return cliff.ravel()
