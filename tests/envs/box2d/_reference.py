"""The same world built in jaxenvs' physics and in pybox2d (Box2D 2.3.10), stepped side by side."""

from __future__ import annotations

import jax
import numpy as np

from jaxenvs.envs.box2d import physics

SCALE = 30.0
LANDER_POLY = [(x / SCALE, y / SCALE) for x, y in [(-14, 17), (-17, 0), (-17, -10), (17, -10), (17, 0), (14, 17)]]
# One edge far below, for worlds that should never touch the ground.
FAR_EDGE = [dict(v1=(-100.0, -100.0), v2=(100.0, -100.0))]
# Each body's row: centre of mass x, y, angle, linear velocity x, y, angular velocity, awake.
FIELDS = ("x", "y", "angle", "vx", "vy", "w", "awake")


def lander_with_legs(x, y, velocity=(0.0, 0.0), angular_velocity=0.0):
    """LunarLander's lander and legs (gymnasium's constants): bodies and joints.

    The legs' revolute joints have pybox2d's reference angle: `revoluteJointDef(bodyA=...,
    bodyB=...)` sets it to the bodies' angle difference (+-0.05), as gymnasium builds them.
    """
    bodies = [dict(vertices=LANDER_POLY, position=(x, y), density=5.0, friction=0.1, v=velocity, w=angular_velocity)]
    joints = []
    for i in (-1, 1):
        bodies.append(dict(box=(2 / SCALE, 8 / SCALE), position=(x - i * 20 / SCALE, y), angle=i * 0.05, density=1.0))
        joints.append(
            dict(
                bodies=(0, len(bodies) - 1),
                anchor_a=(0.0, 0.0),
                anchor_b=(i * 20 / SCALE, 18 / SCALE),
                reference_angle=i * 0.05,
                enable_motor=True,
                enable_limit=True,
                max_motor_torque=40.0,
                motor_speed=0.3 * i,
                lower=0.4 if i == -1 else -0.9,
                upper=0.9 if i == -1 else -0.4,
            )
        )
    return bodies, joints


def _pybox2d_world(bodies, edges, joints, gravity, continuous, polygons=()):
    import Box2D

    world = Box2D.b2World(gravity=gravity)
    world.continuousPhysics = continuous
    # Static polygons first, each on its own static body (as BipedalWalker's obstacles): their
    # broad-phase proxies are the lower, so each is its contacts' A.
    for poly in polygons:
        world.CreateStaticBody(
            fixtures=Box2D.b2FixtureDef(
                shape=Box2D.b2PolygonShape(vertices=poly["vertices"]),
                friction=poly.get("friction", 0.2),
                restitution=poly.get("restitution", 0.0),
            )
        )
    ground = world.CreateStaticBody()
    for e in edges:
        ground.CreateEdgeFixture(
            vertices=[e["v1"], e["v2"]], friction=e.get("friction", 0.2), restitution=e.get("restitution", 0.0)
        )
    made = []
    for b in bodies:
        shape = Box2D.b2PolygonShape(box=b["box"]) if "box" in b else Box2D.b2PolygonShape(vertices=b["vertices"])
        body = world.CreateDynamicBody(
            position=b["position"],
            angle=b.get("angle", 0.0),
            fixtures=Box2D.b2FixtureDef(
                shape=shape,
                density=b["density"],
                friction=b.get("friction", 0.2),
                restitution=b.get("restitution", 0.0),
            ),
        )
        # Set after the fixture: ResetMassData would otherwise move them to the centre of mass.
        body.linearVelocity = b.get("v", (0.0, 0.0))
        body.angularVelocity = b.get("w", 0.0)
        made.append(body)
    for j in joints:
        world.CreateJoint(
            Box2D.b2RevoluteJointDef(
                bodyA=made[j["bodies"][0]],
                bodyB=made[j["bodies"][1]],
                localAnchorA=j["anchor_a"],
                localAnchorB=j["anchor_b"],
                referenceAngle=j.get("reference_angle", 0.0),
                enableMotor=j.get("enable_motor", False),
                enableLimit=j.get("enable_limit", False),
                maxMotorTorque=j.get("max_motor_torque", 0.0),
                motorSpeed=j.get("motor_speed", 0.0),
                lowerAngle=j.get("lower", 0.0),
                upperAngle=j.get("upper", 0.0),
            )
        )
    return world, made


def run_both(
    bodies, edges, joints, steps, gravity=(0.0, -10.0), dt=1 / 50, iterations=(180, 60), continuous=False, polygons=()
):
    """Step the world `steps` times in pybox2d and in `physics.step`.

    Args:
        bodies: Dicts with `vertices` or `box`, `position`, `angle`, `density`, `friction`,
            `restitution`, `v`, `w`.
        edges: Dicts with `v1`, `v2`, `friction`, `restitution`.
        joints: `physics.make_world`'s joint dicts.
        steps: How many steps.
        gravity, dt: The world's gravity and time step.
        iterations: Velocity and position iterations (LunarLander's 180 and 60 by default).
        continuous: pybox2d's `continuousPhysics` (off: the algorithm `physics` implements).
        polygons: Static polygons, dicts with `vertices` (world frame), `friction`,
            `restitution` (`physics.make_world`'s).

    Returns:
        `(reference, ours)`: `[steps, B, 7]` arrays, each row `FIELDS` after each step.
    """
    ref_world, ref_bodies = _pybox2d_world(bodies, edges, joints, gravity, continuous, polygons)
    keys = ("vertices", "box", "density", "friction", "restitution")
    world = physics.make_world(
        [{k: v for k, v in b.items() if k in keys} for b in bodies],
        edges,
        joints,
        gravity=gravity,
        velocity_iterations=iterations[0],
        position_iterations=iterations[1],
        continuous=continuous,
        polygons=polygons,
    )
    state = physics.init_state(
        world,
        [b["position"] for b in bodies],
        [b.get("angle", 0.0) for b in bodies],
        [b.get("v", (0.0, 0.0)) for b in bodies],
        [b.get("w", 0.0) for b in bodies],
    )

    def rollout(state):
        def one(state, _):
            state = physics.step(world, state, dt)
            awake = jax.numpy.full((len(bodies),), state.awake, state.center.dtype)
            row = jax.numpy.concatenate(
                [state.center, state.angle[:, None], state.linear_velocity, state.angular_velocity[:, None]], axis=1
            )
            return state, jax.numpy.concatenate([row, awake[:, None]], axis=1)

        return jax.lax.scan(one, state, None, length=steps)[1]

    ours = np.asarray(jax.jit(rollout)(state), np.float64)
    reference = []
    for _ in range(steps):
        ref_world.Step(dt, *iterations)
        reference.append(
            [[*b.worldCenter, b.angle, *b.linearVelocity, b.angularVelocity, float(b.awake)] for b in ref_bodies]
        )
    return np.asarray(reference, np.float64), ours
