"""gymnax's misc envs (bandits, grid mazes, PointRobot, Pong, Reacher, Swimmer) under gymnax's ids,
checked against gymnax itself, and a tutorial GridWorld."""
