"""Box2D's family, on one rigid-body module that follows Box2D's algorithm (`physics.py`):
LunarLander (`lunar_lander/`)."""
