"""BipedalWalker's parts (gymnasium's `BipedalWalker-v3` and `BipedalWalkerHardcore-v3`): so far
its terrain, `terrain.generate_terrain`. No env is registered here yet."""
