"""The Taxi map (gymnasium's `MAP`) and the tables read from it, shared by the dynamics and the drawing."""

import numpy as np

IN_TAXI = 4

MAP = (
    "+---------+",
    "|R: | : :G|",
    "| : | : : |",
    "| : : : : |",
    "| | : | : |",
    "|Y| : |B: |",
    "+---------+",
)
LOCS = np.array([(0, 0), (0, 4), (4, 0), (4, 3)], np.int32)  # R, G, Y, B
LOC_COLORS = ((255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255))

# EAST_OPEN[r, c]: no wall between (r, c) and (r, c + 1); the map's ':' between the cells.
EAST_OPEN = np.array([[MAP[1 + r][2 * c + 2] == ":" for c in range(5)] for r in range(5)])
WEST_OPEN = np.concatenate([np.zeros((5, 1), bool), EAST_OPEN[:, :-1]], axis=1)
# STAND_AT[r, c]: index of the stand at (r, c), or -1.
STAND_AT = np.full((5, 5), -1, np.int32)
STAND_AT[LOCS[:, 0], LOCS[:, 1]] = np.arange(4)
