"""Pong against gymnax's (deterministic): transitions (integer state exactly) and whole first
episodes; the deterministic reset."""

from jaxenvs.envs.misc import _parity as m

_BALL_AND_PADDLES = ("paddle_centers", "ball_position", "last_ball_position", "ball_velocity")

SPEC = m.suite(
    m.Gymnax(exact=(*_BALL_AND_PADDLES, "time")),
    resets=m.deterministic_resets(_BALL_AND_PADDLES),
    whole_episodes=True,
)
