"""What the Box2D envs' parity specs share: reading and placing pybox2d's bodies, building the
gymnasium reference, and which steps are near the terrain.

Each spec injects a state by building the reference's world afresh (its own `write_state`) and
places the bodies here (`place_bodies`); our side starts each compared step cold
(`cold_world_state`). The body fields are named alike on both sides (`BODY_FIELDS`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxenvs.envs.box2d import physics

# The bodies' fields, `[B, ...]` in creation order, as both sides name them.
BODY_FIELDS = ("center", "angle", "linear_velocity", "angular_velocity")
# A step is near the terrain when a body is this near it (Box2D's distance, radii counted)
# before or after the step: Box2D's broad phase pairs shapes from 0.1 m (its fat bounding
# boxes' margin).
CONTACT_MARGIN = 0.1


def read_bodies(bodies: Sequence[Any]) -> dict[str, np.ndarray]:
    """pybox2d bodies' centres of mass, angles and velocities.

    Args:
        bodies: the bodies, in creation order.

    Returns:
        `{field: float64 array}` for `BODY_FIELDS`.
    """
    return {
        "center": np.array([tuple(b.worldCenter) for b in bodies], np.float64),
        "angle": np.array([b.angle for b in bodies], np.float64),
        "linear_velocity": np.array([tuple(b.linearVelocity) for b in bodies], np.float64),
        "angular_velocity": np.array([b.angularVelocity for b in bodies], np.float64),
    }


def place_bodies(bodies: Sequence[Any], state: dict[str, Any]) -> None:
    """Put pybox2d bodies where `state` has them, moving as it says, awake or not.

    Args:
        bodies: the bodies, in creation order (their fixtures made, so their centres of mass known).
        state: `BODY_FIELDS` and `awake`, as `read_bodies` reads them.
    """
    for b, body in enumerate(bodies):
        angle = float(state["angle"][b])
        c, s = np.cos(angle), np.sin(angle)
        local = body.localCenter
        center = state["center"][b]
        body.angle = angle
        body.position = (
            float(center[0] - (c * local[0] - s * local[1])),
            float(center[1] - (s * local[0] + c * local[1])),
        )
        body.linearVelocity = tuple(float(v) for v in state["linear_velocity"][b])
        body.angularVelocity = float(state["angular_velocity"][b])
        body.awake = bool(state["awake"])


def cold_world_state(world: physics.World, center, angle, linear_velocity, angular_velocity, awake):
    """Our side of an injected state: the bodies placed, no contacts, impulses or timers.

    Args:
        world: the env's physics world.
        center: `[B, 2]` centres of mass.
        angle: `[B]` angles.
        linear_velocity: `[B, 2]`.
        angular_velocity: `[B]`.
        awake: bool.

    Returns:
        The `physics.WorldState`, in the world's float dtype.
    """
    dtype = world.inv_mass.dtype
    angle = jnp.asarray(angle).astype(dtype)
    origin = jnp.asarray(center).astype(dtype) - physics.rotate(angle, world.local_center)
    return physics.init_state(world, origin, angle, linear_velocity, angular_velocity).replace(awake=awake)


def body_fields(state: physics.WorldState) -> dict[str, Any]:
    """Our bodies' fields and awake flag, named as `read_bodies` names the reference's.

    Args:
        state: a (batched) `physics.WorldState`.

    Returns:
        `{field: array}` for `BODY_FIELDS` and `awake`.
    """
    return {k: getattr(state, k) for k in BODY_FIELDS} | {"awake": state.awake}


def gymnasium_maker(env_id: str, settings: dict[str, Any]) -> Callable[[], Any]:
    """`() -> gymnasium env`: `gymnasium.make(env_id, **settings)` without the env checker,
    which warns on injected states.

    Args:
        env_id: gymnasium's id.
        settings: its constructor arguments.

    Returns:
        The maker.
    """

    def make() -> Any:
        import gymnasium

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return gymnasium.make(env_id, disable_env_checker=True, **settings)

    return make


def box2d_version() -> str:
    """pybox2d's version, for the reference's name.

    Returns:
        Its version string, "?" where it is not installed.
    """
    try:
        import Box2D

        return Box2D.__version__
    except (ImportError, AttributeError):
        return "?"


def reinject(ref: Any, rng: np.random.Generator) -> None:
    """`Reference.transitions`' scramble: the reference's own state, built afresh (cold).

    Args:
        ref: the reference.
        rng: unused.
    """
    ref.load(ref.state())


def near_terrain(ref: Any, data: Any, distance: Callable[[Any, dict[str, Any]], float]) -> np.ndarray:
    """The steps with a body within `CONTACT_MARGIN` of the terrain before or after them (the
    reference's states): a `FieldPolicy.in_distribution`, given the env's distance.

    Args:
        ref: the reference, whose world measures the distances.
        data: the transitions.
        distance: `(ref, state) -> ` the least distance of a body to the terrain at `state`.

    Returns:
        `bool[n]`, True where the step is near the terrain.
    """
    return np.array(
        [
            min(distance(ref, data.state_at(i)), distance(ref, data.state_at(i, True))) < CONTACT_MARGIN
            for i in range(len(data))
        ]
    )
