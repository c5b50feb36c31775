"""A rigid-body step that follows Box2D 2.3's algorithm, for what the Box2D envs use.

Written from Box2D's algorithm (Erin Catto's sequential impulses, as Box2D 2.3.x, the version
pybox2d 2.3.10 wraps, runs them in `b2World::Step`); it is not a general engine. What it holds:

- dynamic bodies, each one convex polygon (Box2D's `b2PolygonShape`: vertices in its hull order,
  a skin of `POLYGON_RADIUS`), against static shapes on static bodies at the origin: edges
  (`b2EdgeShape`, no ghost vertices) and convex polygons;
- revolute joints between dynamic bodies, with Box2D's limit and motor;
- one world step, `step(world, state, dt)`, in `b2World::Step`'s order: the narrow phase at the
  start-of-step positions (`b2CollideEdgeAndPolygon` against edges, `b2CollidePolygons` against
  polygons, Box2D 2.3.0's, as pybox2d builds it), with the old manifold's impulses carried
  to new points of the same feature id (warm starting; Box2D's `b2Contact::Update`); then the
  island solve (`b2Island::Solve`): semi-implicit Euler on velocities, warm starting, the
  velocity iterations (joints, then contacts: friction, then the normal impulse, two-point
  manifolds by Box2D's block solver), positions integrated with Box2D's translation and rotation
  caps, the position iterations (contacts, then joints) stopping early once both are within slop,
  and the sleep timers (an island that rested `TIME_TO_SLEEP` seconds, positions solved, sleeps);
  then continuous collision (`b2World::SolveTOI`): a body whose core would come within
  `TOI_TARGET` of a static shape during the step is moved back to that time of impact, its contacts
  updated there, pushed out and its velocity solved against them alone (no joints, as in Box2D's
  TOI island), then moved on for the rest of the step, earliest event first; finally forces are
  cleared. Contact begin and end events (Box2D's listener calls) are kept in order;
- ray casts against edges and polygons (`ray_cast_edge`, `ray_cast_polygon`), with the closest hit
  among shapes a category mask lets through (`ray_cast_closest`, as a lidar's callback keeps).

Everything is a fixed-size array, so `step` jits and vmaps. The contact and joint impulses, the
joints' limit states, the sleep timers and the time-step ratio Box2D keeps between steps
(`m_inv_dt0`) are held in `WorldState`, so a step is a pure function of the state. The solver's
iterations, which are most of a step's work, run on scalars (one array per body velocity
component and per impulse, `Vec2`), so that XLA compiles each iteration to a few kernels
(`_keep` says how the work is kept from being repeated in each of them).

Where it differs from Box2D, and why:

- the time of impact is Box2D's (`b2TimeOfImpact`: conservative advancement along the
  separating axis of a GJK distance, `gjk_distance`, each root by its bisection and secant
  steps), but a pair is searched only when a bound on its distance along the sweep can reach
  the target (Box2D: when the pair's fat AABBs overlap); the pairs skipped have no impact, so
  the events are those a search of every pair finds (`toi_candidates`). As in Box2D, a pair's
  time of impact is kept through a step's events until one moves its body;
- the broad phase is a box test, not Box2D's tree: with `World.max_near` set, a body's narrow
  phase and time-of-impact search run on the static shapes whose boxes overlap its own (grown
  by `AABB_EXTENSION`, and by its sweep), at most that many of each kind, and on every one where
  more overlap (the same contacts and events; values to float32 rounding, the gathered narrow
  phase compiling to other fused multiply-adds); without it, on every pair. A contact exists
  in Box2D only while the pair's fat AABBs overlap, which they always do while the shapes touch,
  so the manifolds are the same; the order of two contacts of one body in its contact list (newest
  first in Box2D, which depends on the broad phase's history) is taken as static index
  descending (edges, then polygons), the order pairs found in one broad-phase update get; a
  static polygon is the contact's A (Box2D's A is the lower broad-phase proxy: the static one on
  a world built static shapes first, not always on a world whose proxies were freed and
  reused), so its face is the reference on a tie;
- a body keeps at most `World.max_contacts` touching contacts (in that order); more would be
  dropped from the solver (their manifolds and events are still computed);
- all dynamic bodies form one island (connected by joints, as a lander and its legs are): they
  sleep and wake together; the island's joint order follows Box2D's depth-first search from the
  newest body (`joint_order`);
- no damping, no gravity scale, no bullets, no sensors: the Box2D envs use none;
- arithmetic is JAX's float32 (float64 under `jax_enable_x64`), in Box2D's order of operations
  but not bit for bit (fused multiply-adds, `sin`/`cos`): tests/envs/box2d states the measured
  distance to pybox2d.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

# Box2D's b2Settings.h.
LINEAR_SLOP = 0.005
ANGULAR_SLOP = 2.0 / 180.0 * math.pi
POLYGON_RADIUS = 2.0 * LINEAR_SLOP
MAX_LINEAR_CORRECTION = 0.2
MAX_ANGULAR_CORRECTION = 8.0 / 180.0 * math.pi
MAX_TRANSLATION = 2.0
MAX_ROTATION = 0.5 * math.pi
BAUMGARTE = 0.2
TOI_BAUMGARTE = 0.75
MAX_SUB_STEPS = 8
VELOCITY_THRESHOLD = 1.0
TIME_TO_SLEEP = 0.5
LINEAR_SLEEP_TOLERANCE = 0.01
ANGULAR_SLEEP_TOLERANCE = 2.0 / 180.0 * math.pi
AABB_EXTENSION = 0.1

# b2ContactFeature::Type, and Box2D's limit states (b2LimitState).
_VERTEX, _FACE = 0, 1
INACTIVE_LIMIT, AT_LOWER_LIMIT, AT_UPPER_LIMIT, EQUAL_LIMITS = 0, 1, 2, 3
# b2Manifold::Type for a static shape (A) against a body's polygon (B).
FACE_A, FACE_B = 0, 1


# ---------------------------------------------------------------------------------------------
# Shapes and mass, computed once in numpy (float32, as Box2D computes them)
# ---------------------------------------------------------------------------------------------


def polygon(vertices) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A convex polygon as `b2PolygonShape::Set` stores it.

    Args:
        vertices: `(n, 2)` points, 3 <= n <= 16, in any order.

    Returns:
        `(vertices, normals, centroid)`: the hull's vertices counter-clockwise from the
        rightmost (lowest on a tie), Box2D's gift wrapping; each edge's outward unit normal;
        the area centroid. float32.
    """
    ps = np.asarray(vertices, np.float32)
    n = len(ps)
    i0 = 0
    for i in range(1, n):
        if ps[i, 0] > ps[i0, 0] or (ps[i, 0] == ps[i0, 0] and ps[i, 1] < ps[i0, 1]):
            i0 = i
    hull, ih = [], i0
    while True:
        hull.append(ih)
        ie = 0
        for j in range(1, n):
            if ie == ih:
                ie = j
                continue
            r, v = ps[ie] - ps[ih], ps[j] - ps[ih]
            c = r[0] * v[1] - r[1] * v[0]
            if c < 0 or (c == 0 and v @ v > r @ r):
                ie = j
        ih = ie
        if ie == i0:
            break
    vs = ps[hull]
    edges = np.roll(vs, -1, axis=0) - vs
    normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
    normals = (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32)
    # ComputeCentroid, with its reference point at the origin.
    p2, p3 = vs, np.roll(vs, -1, axis=0)
    area_i = 0.5 * (p2[:, 0] * p3[:, 1] - p2[:, 1] * p3[:, 0])
    centroid = (area_i[:, None] * (p2 + p3) / 3.0).sum(0) / area_i.sum()
    return vs, normals, centroid.astype(np.float32)


def box(hx: float, hy: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`b2PolygonShape::SetAsBox(hx, hy)`: `(vertices, normals, centroid)` in its order.

    SetAsBox skips the hull search, so its vertices start at the lower left, not where
    `polygon` of the same points would start.

    Args:
        hx: Half the box's width (x), metres.
        hy: Half the box's height (y), metres.

    Returns:
        `(vertices, normals, centroid)`: `(4, 2)` corners counter-clockwise from `(-hx, -hy)`,
        `(4, 2)` each edge's outward unit normal, and `(2,)` zeros. float32.
    """
    vertices = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)], np.float32)
    normals = np.array([(0, -1), (1, 0), (0, 1), (-1, 0)], np.float32)
    return vertices, normals, np.zeros(2, np.float32)


def polygon_mass(vertices: np.ndarray, density: float) -> tuple[float, np.ndarray, float]:
    """`b2PolygonShape::ComputeMass`, then `b2Body::ResetMassData` for a one-fixture body.

    Args:
        vertices: The polygon's vertices in hull order (`polygon(...)[0]`).
        density: kg per square metre.

    Returns:
        `(mass, local_center, inertia)`: the mass, the centre of mass in the body's frame and
        the rotational inertia about that centre.
    """
    vs = np.asarray(vertices, np.float64)
    s = vs.mean(0)
    e1, e2 = vs - s, np.roll(vs, -1, axis=0) - s
    d = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    area = 0.5 * d.sum()
    center = ((0.5 * d / 3.0)[:, None] * (e1 + e2)).sum(0) / area
    intx2 = e1[:, 0] ** 2 + e2[:, 0] * e1[:, 0] + e2[:, 0] ** 2
    inty2 = e1[:, 1] ** 2 + e2[:, 1] * e1[:, 1] + e2[:, 1] ** 2
    inertia = density * ((0.25 / 3.0 * d) * (intx2 + inty2)).sum()
    mass = density * area
    # ComputeMass's inertia is about the body origin; ResetMassData moves it to the centre.
    local_center = center + s
    inertia_origin = inertia + mass * (local_center @ local_center - center @ center)
    return float(mass), local_center.astype(np.float32), float(inertia_origin - mass * (local_center @ local_center))


def joint_order(num_bodies: int, joints: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """The order `b2World::Solve`'s island search visits joints in.

    Box2D keeps bodies and each body's joints newest first and builds an island depth first
    from the newest awake body; the island's joints are solved in the order they are reached.

    Args:
        num_bodies: Dynamic bodies, numbered in creation order.
        joints: `(body_a, body_b)` of each joint, in creation order.

    Returns:
        The joints' indices in solving order.
    """
    seen_body, seen_joint, order = set(), set(), []
    for seed in reversed(range(num_bodies)):
        if seed in seen_body:
            continue
        stack = [seed]
        seen_body.add(seed)
        while stack:
            b = stack.pop()
            for j in reversed(range(len(joints))):
                if b not in joints[j] or j in seen_joint:
                    continue
                seen_joint.add(j)
                order.append(j)
                other = joints[j][1] if joints[j][0] == b else joints[j][0]
                if other not in seen_body:
                    seen_body.add(other)
                    stack.append(other)
    return tuple(order)


# ---------------------------------------------------------------------------------------------
# The world's definition and its state
# ---------------------------------------------------------------------------------------------


@struct.dataclass
class World:
    """What does not change during a step: shapes, masses, edges, joints, solver settings.

    B dynamic bodies (one polygon each, padded to V vertices), E static edges and P static
    polygons (the statics, S = E + P of them, edges first), J revolute joints.

    Attributes:
        vertices: `[B, V, 2]` each polygon's vertices in its body frame, hull order; padding
            repeats the last vertex.
        normals: `[B, V, 2]` the outward normal of the edge from vertex i to i + 1.
        vertex_count: `[B]` int32, each polygon's number of vertices.
        centroid: `[B, 2]` each polygon's area centroid (body frame).
        local_center: `[B, 2]` each body's centre of mass (body frame).
        inv_mass: `[B]` 1 / mass.
        inv_inertia: `[B]` 1 / rotational inertia about the centre of mass.
        friction: `[B]` each body's fixture friction.
        restitution: `[B]` each body's fixture restitution.
        edge_v1: `[E, 2]` each edge's first end point (world frame).
        edge_v2: `[E, 2]` each edge's second end point (world frame).
        edge_friction: `[E]` each edge's fixture friction.
        edge_restitution: `[E]` each edge's fixture restitution.
        poly_vertices: `[P, W, 2]` each static polygon's vertices (world frame: a static body
            at the origin), hull order; padding repeats the last vertex.
        poly_normals: `[P, W, 2]` their outward edge normals.
        poly_count: `[P]` int32, each static polygon's number of vertices.
        poly_centroid: `[P, 2]` each static polygon's area centroid.
        poly_friction: `[P]` each static polygon's fixture friction.
        poly_restitution: `[P]` each static polygon's fixture restitution.
        collides: `[B, S]` bool, Box2D's filter (category and mask bits) for each pair.
        gravity: `[2]` m/s^2.
        joint_anchor_a: `[J, 2]` each joint's anchor in body A's frame.
        joint_anchor_b: `[J, 2]` each joint's anchor in body B's frame.
        joint_reference_angle: `[J]` radians, B's angle minus A's in the joint's zero pose.
        joint_lower: `[J]` radians, the lower limit of the joint angle.
        joint_upper: `[J]` radians, the upper limit of the joint angle.
        joint_motor_speed: `[J]` rad/s.
        joint_max_motor_torque: `[J]` N m.
        joint_bodies: Static. `(body_a, body_b)` of each joint, in creation order.
        joint_enable_limit: Static. One bool per joint, whether its limit is on.
        joint_enable_motor: Static. One bool per joint, whether its motor is on.
        velocity_iterations: Static. `world.Step`'s velocity iteration count.
        position_iterations: Static. `world.Step`'s position iteration count.
        max_contacts: Static. Touching contacts solved per body.
        continuous: Static. Continuous collision (Box2D's `continuousPhysics`, on by default).
        max_toi_events: Static. Time-of-impact events handled per step at most.
        max_near: Static. The narrow phase and the time-of-impact search run on at most this
            many static shapes of each kind (edges, polygons) per body: those whose bounding
            boxes overlap the body's (grown by `AABB_EXTENSION`, and by its sweep's reach),
            Box2D's broad phase. 0: every static shape, every step. Where more overlap, that
            body's step runs on every one, so no contact is missed.
    """

    vertices: jax.Array
    normals: jax.Array
    vertex_count: jax.Array
    centroid: jax.Array
    local_center: jax.Array
    inv_mass: jax.Array
    inv_inertia: jax.Array
    friction: jax.Array
    restitution: jax.Array
    edge_v1: jax.Array
    edge_v2: jax.Array
    edge_friction: jax.Array
    edge_restitution: jax.Array
    poly_vertices: jax.Array
    poly_normals: jax.Array
    poly_count: jax.Array
    poly_centroid: jax.Array
    poly_friction: jax.Array
    poly_restitution: jax.Array
    collides: jax.Array
    gravity: jax.Array
    joint_anchor_a: jax.Array
    joint_anchor_b: jax.Array
    joint_reference_angle: jax.Array
    joint_lower: jax.Array
    joint_upper: jax.Array
    joint_motor_speed: jax.Array
    joint_max_motor_torque: jax.Array
    joint_bodies: tuple = struct.field(pytree_node=False, default=())
    joint_enable_limit: tuple = struct.field(pytree_node=False, default=())
    joint_enable_motor: tuple = struct.field(pytree_node=False, default=())
    velocity_iterations: int = struct.field(pytree_node=False, default=8)
    position_iterations: int = struct.field(pytree_node=False, default=3)
    max_contacts: int = struct.field(pytree_node=False, default=2)
    continuous: bool = struct.field(pytree_node=False, default=True)
    max_toi_events: int = struct.field(pytree_node=False, default=8)
    max_near: int = struct.field(pytree_node=False, default=0)

    @property
    def num_bodies(self) -> int:
        """B."""
        return self.vertices.shape[0]

    @property
    def num_edges(self) -> int:
        """E."""
        return self.edge_v1.shape[0]

    @property
    def num_polygons(self) -> int:
        """P."""
        return self.poly_vertices.shape[0]

    @property
    def num_statics(self) -> int:
        """S = E + P: the static shapes a body may touch, edges first."""
        return self.num_edges + self.num_polygons


@struct.dataclass
class WorldState:
    """What a step changes, Box2D's per-body, per-contact and per-joint state.

    Attributes:
        center: `[B, 2]` each body's centre of mass in the world (Box2D's `m_sweep.c`).
        angle: `[B]` radians (`m_sweep.a`).
        linear_velocity: `[B, 2]` m/s of the centre of mass.
        angular_velocity: `[B]` rad/s.
        force: `[B, 2]` force accumulated for the next step (N), cleared by `step`.
        torque: `[B]` torque accumulated for the next step (N m), cleared by `step`.
        sleep_time: `[B]` seconds each body has been under the sleep tolerances.
        awake: bool scalar, whether the island is awake.
        manifold_count: `[B, S]` int32, points in each pair's manifold from the last narrow
            phase of the last step (> 0: touching).
        manifold_key: `[B, S, 2]` int32, each point's contact feature id (`b2ContactID::key`).
        normal_impulse: `[B, S, 2]` each point's accumulated normal impulse, kept to warm
            start the next step.
        tangent_impulse: `[B, S, 2]` each point's accumulated friction impulse, likewise.
        joint_impulse: `[J, 3]` each joint's point (x, y) and limit (z) impulse.
        joint_motor_impulse: `[J]`.
        joint_limit_state: `[J]` int32, `INACTIVE_LIMIT`, `AT_LOWER_LIMIT`, ...
        began: `[B, S]` bool, the pairs whose touching began during the last step (Box2D's
            `BeginContact` calls, at its start or at a time of impact).
        ended: `[B, S]` bool, the pairs whose touching ended during the last step (Box2D's
            `EndContact` calls, likewise).
        event_rank: `[B, S]` int32, when each pair's last event of the last step came (-1:
            none): 0 a begin at the start, 1 an end at the start (Box2D's contact list order
            is taken as begins before ends), 2 + i at the step's i-th time of impact.
        last_began: `[B, S]` bool, whether that last event was a begin.
        inv_dt0: scalar, 1 / the previous step's dt (0 before the first: Box2D's `m_inv_dt0`).
    """

    center: jax.Array
    angle: jax.Array
    linear_velocity: jax.Array
    angular_velocity: jax.Array
    force: jax.Array
    torque: jax.Array
    sleep_time: jax.Array
    awake: jax.Array
    manifold_count: jax.Array
    manifold_key: jax.Array
    normal_impulse: jax.Array
    tangent_impulse: jax.Array
    joint_impulse: jax.Array
    joint_motor_impulse: jax.Array
    joint_limit_state: jax.Array
    began: jax.Array
    ended: jax.Array
    event_rank: jax.Array
    last_began: jax.Array
    inv_dt0: jax.Array

    @property
    def touching(self) -> jax.Array:
        """`[B, S]` bool: the pairs whose last narrow phase found contact points."""
        return self.manifold_count > 0


def make_world(
    bodies,
    edges,
    joints=(),
    gravity=(0.0, -10.0),
    collides=None,
    polygons=(),
    velocity_iterations: int = 8,
    position_iterations: int = 3,
    max_contacts: int = 2,
    continuous: bool = True,
    max_near: int = 0,
) -> World:
    """A `World` from Box2D-style definitions, with Box2D's defaults.

    Args:
        bodies: One dict per dynamic body, in creation order: `vertices` (the polygon, body
            frame) or `box` (`(hx, hy)`, `SetAsBox`'s half-widths), `density` (> 0),
            `friction` (default 0.2), `restitution` (default 0).
        edges: One dict per edge of the static ground, in creation order: `v1`, `v2`,
            `friction` (default 0.2), `restitution` (default 0).
        joints: One dict per revolute joint, in creation order: `bodies` (`(a, b)` indices),
            `anchor_a`, `anchor_b` (each body's frame), `reference_angle`, `lower`, `upper`,
            `enable_limit`, `enable_motor`, `motor_speed`, `max_motor_torque` (Box2D's
            `b2RevoluteJointDef` defaults for those left out).
        gravity: m/s^2.
        collides: `[B, S]` bools, or None (every pair collides).
        polygons: One dict per polygon of the static ground, in creation order: `vertices`
            (world frame, convex), `friction` (default 0.2), `restitution` (default 0). Their
            pairs come after the edges'.
        velocity_iterations: `world.Step`'s velocity iteration count.
        position_iterations: `world.Step`'s position iteration count.
        max_contacts: Touching contacts solved per body.
        continuous: Continuous collision (Box2D's `continuousPhysics`).
        max_near: The broad phase's width (`World.max_near`; 0: none).

    Returns:
        The world, its arrays numpy's (constants under `jit`, safe to build once and keep) in
        the default float dtype (float64 under `jax_enable_x64`).
    """
    dtype = np.dtype(jnp.result_type(float))
    shapes = [box(*b["box"]) if "box" in b else polygon(b["vertices"]) for b in bodies]
    v = max(len(vs) for vs, _, _ in shapes)

    def pad(x):
        return np.concatenate([x, np.repeat(x[-1:], v - len(x), axis=0)])

    masses = [polygon_mass(vs, b["density"]) for (vs, _, _), b in zip(shapes, bodies, strict=True)]
    statics = [polygon(p["vertices"]) for p in polygons]
    w = max([len(vs) for vs, _, _ in statics], default=4)

    def pad_static(x):
        return np.concatenate([x, np.repeat(x[-1:], w - len(x), axis=0)])

    joint_defaults = dict(
        anchor_a=(0.0, 0.0),
        anchor_b=(0.0, 0.0),
        reference_angle=0.0,
        lower=0.0,
        upper=0.0,
        enable_limit=False,
        enable_motor=False,
        motor_speed=0.0,
        max_motor_torque=0.0,
    )
    joints = [dict(joint_defaults, **j) for j in joints]

    def arr(x, shape=None):
        x = np.asarray(x, np.float64).astype(dtype)
        return x.reshape(shape) if shape is not None else x

    return World(
        vertices=arr([pad(vs) for vs, _, _ in shapes]),
        normals=arr([pad(ns) for _, ns, _ in shapes]),
        vertex_count=np.asarray([len(vs) for vs, _, _ in shapes], np.int32),
        centroid=arr([c for _, _, c in shapes]),
        local_center=arr([c for _, c, _ in masses]),
        inv_mass=arr([1.0 / m for m, _, _ in masses]),
        inv_inertia=arr([1.0 / i for _, _, i in masses]),
        friction=arr([b.get("friction", 0.2) for b in bodies]),
        restitution=arr([b.get("restitution", 0.0) for b in bodies]),
        edge_v1=arr([e["v1"] for e in edges], (len(edges), 2)),
        edge_v2=arr([e["v2"] for e in edges], (len(edges), 2)),
        edge_friction=arr([e.get("friction", 0.2) for e in edges]),
        edge_restitution=arr([e.get("restitution", 0.0) for e in edges]),
        poly_vertices=arr([pad_static(vs) for vs, _, _ in statics], (len(statics), w, 2)),
        poly_normals=arr([pad_static(ns) for _, ns, _ in statics], (len(statics), w, 2)),
        poly_count=np.asarray([len(vs) for vs, _, _ in statics], np.int32),
        poly_centroid=arr([c for _, _, c in statics], (len(statics), 2)),
        poly_friction=arr([p.get("friction", 0.2) for p in polygons]),
        poly_restitution=arr([p.get("restitution", 0.0) for p in polygons]),
        collides=(
            np.ones((len(bodies), len(edges) + len(statics)), bool) if collides is None else np.asarray(collides, bool)
        ),
        gravity=arr(gravity),
        joint_anchor_a=arr([j["anchor_a"] for j in joints], (len(joints), 2)),
        joint_anchor_b=arr([j["anchor_b"] for j in joints], (len(joints), 2)),
        joint_reference_angle=arr([j["reference_angle"] for j in joints]),
        joint_lower=arr([j["lower"] for j in joints]),
        joint_upper=arr([j["upper"] for j in joints]),
        joint_motor_speed=arr([j["motor_speed"] for j in joints]),
        joint_max_motor_torque=arr([j["max_motor_torque"] for j in joints]),
        joint_bodies=tuple(tuple(int(i) for i in j["bodies"]) for j in joints),
        joint_enable_limit=tuple(bool(j["enable_limit"]) for j in joints),
        joint_enable_motor=tuple(bool(j["enable_motor"]) for j in joints),
        velocity_iterations=velocity_iterations,
        position_iterations=position_iterations,
        max_contacts=max_contacts,
        continuous=continuous,
        max_near=max_near,
    )


def init_state(world: World, position, angle, linear_velocity=None, angular_velocity=None) -> WorldState:
    """A world state with bodies at rest where `CreateBody` would put them.

    Args:
        world: The world.
        position: `[B, 2]` each body's origin (Box2D's `bodyDef.position`).
        angle: `[B]` radians.
        linear_velocity: `[B, 2]` or None (zero).
        angular_velocity: `[B]` or None (zero).

    Returns:
        The state: awake, no contacts, no impulses, no forces.
    """
    dtype = world.inv_mass.dtype
    b, e, j = world.num_bodies, world.num_statics, len(world.joint_bodies)
    angle = jnp.asarray(angle, dtype)
    center = jnp.asarray(position, dtype) + rotate(angle, world.local_center)
    zeros2 = jnp.zeros((b, 2), dtype)
    return WorldState(
        center=center,
        angle=angle,
        linear_velocity=zeros2 if linear_velocity is None else jnp.asarray(linear_velocity, dtype),
        angular_velocity=jnp.zeros((b,), dtype) if angular_velocity is None else jnp.asarray(angular_velocity, dtype),
        force=zeros2,
        torque=jnp.zeros((b,), dtype),
        sleep_time=jnp.zeros((b,), dtype),
        awake=jnp.ones((), bool),
        manifold_count=jnp.zeros((b, e), jnp.int32),
        manifold_key=jnp.zeros((b, e, 2), jnp.int32),
        normal_impulse=jnp.zeros((b, e, 2), dtype),
        tangent_impulse=jnp.zeros((b, e, 2), dtype),
        joint_impulse=jnp.zeros((j, 3), dtype),
        joint_motor_impulse=jnp.zeros((j,), dtype),
        joint_limit_state=jnp.zeros((j,), jnp.int32),
        began=jnp.zeros((b, e), bool),
        ended=jnp.zeros((b, e), bool),
        event_rank=jnp.full((b, e), -1, jnp.int32),
        last_began=jnp.zeros((b, e), bool),
        inv_dt0=jnp.zeros((), dtype),
    )


# ---------------------------------------------------------------------------------------------
# Small vector helpers (Box2D's b2Math)
# ---------------------------------------------------------------------------------------------


def rotate(angle, v):
    """`b2Mul(b2Rot(angle), v)`, broadcast over leading axes.

    Args:
        angle: `[...]` radians.
        v: `[..., 2]` vectors.

    Returns:
        `[..., 2]` each `v` rotated counter-clockwise by its `angle`.
    """
    c, s = jnp.cos(angle)[..., None], jnp.sin(angle)[..., None]
    return jnp.concatenate([c * v[..., :1] - s * v[..., 1:], s * v[..., :1] + c * v[..., 1:]], axis=-1)


def _rotate_t(c, s, v):
    """`b2MulT(b2Rot, v)`: the inverse rotation, given its cosine and sine."""
    return jnp.stack([c * v[..., 0] + s * v[..., 1], -s * v[..., 0] + c * v[..., 1]], axis=-1)


def _cross(a, b):
    """`b2Cross(vec, vec)`: the scalar z of a x b."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _cross_sv(w, r):
    """`b2Cross(float, vec)`: w x r."""
    return jnp.stack([-w * r[..., 1], w * r[..., 0]], axis=-1)


def _dot(a, b):
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def body_position(world: World, state: WorldState) -> jax.Array:
    """Each body's origin (`b2Body::GetPosition`), from its centre of mass.

    Args:
        world: The world (each body's centre of mass in its frame).
        state: The state (each body's centre of mass and angle in the world).

    Returns:
        `[B, 2]` each body's origin, world frame.
    """
    return state.center - rotate(state.angle, world.local_center)


# ---------------------------------------------------------------------------------------------
# Forces and impulses applied between steps (b2Body::Apply*; each wakes the island)
# ---------------------------------------------------------------------------------------------


def apply_force_to_center(state: WorldState, body: int, force) -> WorldState:
    """`b2Body::ApplyForceToCenter(force, wake=True)`: accumulated until the next step.

    Args:
        state: The state.
        body: The body's index.
        force: `[2]` N, world frame.

    Returns:
        The state with `force` added to the body's accumulated force and the island awake.
    """
    return wake(state).replace(force=state.force.at[body].add(jnp.asarray(force, state.force.dtype)))


def apply_torque(state: WorldState, body: int, torque) -> WorldState:
    """`b2Body::ApplyTorque(torque, wake=True)`: accumulated until the next step.

    Args:
        state: The state.
        body: The body's index.
        torque: N m, counter-clockwise.

    Returns:
        The state with `torque` added to the body's accumulated torque and the island awake.
    """
    return wake(state).replace(torque=state.torque.at[body].add(torque))


def apply_linear_impulse(world: World, state: WorldState, body: int, impulse, point) -> WorldState:
    """`b2Body::ApplyLinearImpulse(impulse, point, wake=True)`: changes the velocities at once.

    Args:
        world: The world (the body's inverse mass and inertia).
        state: The state.
        body: The body's index.
        impulse: `[2]` N s.
        point: `[2]` where it acts, world frame.

    Returns:
        The state with the body's velocities changed and the island awake.
    """
    dtype = state.linear_velocity.dtype
    impulse = jnp.asarray(impulse, dtype)
    state = wake(state)
    v = state.linear_velocity[body] + world.inv_mass[body] * impulse
    w = state.angular_velocity[body] + world.inv_inertia[body] * _cross(
        jnp.asarray(point, dtype) - state.center[body], impulse
    )
    return state.replace(
        linear_velocity=state.linear_velocity.at[body].set(v),
        angular_velocity=state.angular_velocity.at[body].set(w),
    )


def last_event_began(state: WorldState, bodies, previous) -> jax.Array:
    """A contact listener's flag per body: set by the body's `BeginContact`, cleared by its
    `EndContact`, so after a step it is the body's last event's (kept where it had none), not
    whether the body still touches something.

    Args:
        state: The state after a step (its `event_rank` and `last_began`).
        bodies: The bodies' indices (a static sequence).
        previous: `[len(bodies)]` bool, the flags before the step.

    Returns:
        `[len(bodies)]` bool, the flags after it.
    """
    rows = jnp.array(bodies)
    rank = state.event_rank[rows]
    last = jnp.argmax(rank, axis=1)
    began = jnp.take_along_axis(state.last_began[rows], last[:, None], axis=1)[:, 0]
    return jnp.where(jnp.any(rank >= 0, axis=1), began, previous)


def wake(state: WorldState) -> WorldState:
    """`b2Body::SetAwake(true)` on the island; a sleeping island's timers are already 0.

    Args:
        state: The world state.

    Returns:
        The state, awake.
    """
    return state.replace(awake=jnp.ones((), bool))


# ---------------------------------------------------------------------------------------------
# Narrow phase: b2CollideEdgeAndPolygon (Box2D's b2EPCollider, edges without ghost vertices)
# ---------------------------------------------------------------------------------------------


def _key(index_a, index_b, type_a, type_b):
    """`b2ContactID::key`: the four feature bytes in one int."""
    return index_a + 256 * index_b + 65536 * type_a + 16777216 * type_b


def _clip(v, ids, normal, offset, vertex_index_a):
    """`b2ClipSegmentToLine`: keep the part of segment `v` behind the line.

    Args:
        v: `[2, 2]` the segment's points.
        ids: `[2, 4]` their feature ids (indexA, indexB, typeA, typeB).
        normal, offset: The line `dot(normal, x) = offset`.
        vertex_index_a: Feature index given to a point made by the cut.

    Returns:
        `(points [2, 2], ids [2, 4], count)`; count < 2 means no manifold.
    """
    d0 = _dot(normal, v[0]) - offset
    d1 = _dot(normal, v[1]) - offset
    keep0, keep1, crosses = d0 <= 0, d1 <= 0, d0 * d1 < 0
    # Box2D cuts only a segment that crosses the line (d0 != d1: no 0 / 0 on a parallel one).
    interp = d0 / jnp.where(crosses, d0 - d1, 1.0)
    cut = v[0] + interp * (v[1] - v[0])
    cut_id = jnp.stack([vertex_index_a, ids[0, 1], jnp.int32(_VERTEX), jnp.int32(_FACE)])
    # Box2D writes the kept points first, then the cut; only counts of 2 are used.
    first = jnp.where(keep0, v[0], v[1])
    first_id = jnp.where(keep0, ids[0], ids[1])
    second = jnp.where(keep0 & keep1, v[1], cut)
    second_id = jnp.where(keep0 & keep1, ids[1], cut_id)
    count = keep0.astype(jnp.int32) + keep1.astype(jnp.int32) + crosses.astype(jnp.int32)
    return jnp.stack([first, second]), jnp.stack([first_id, second_id]), count


def collide_edge_polygon(v1, v2, vertices, normals, count, centroid, position, angle):
    """`b2CollideEdgeAndPolygon` for an edge of the static ground (A) and a body's polygon (B).

    Args:
        v1: `[2]` the edge's first end point (world frame, the ground at the origin).
        v2: `[2]` the edge's second end point.
        vertices: `[V, 2]` the polygon's vertices in its body frame (padded past `count`).
        normals: `[V, 2]` the polygon's outward edge normals in its body frame.
        count: int, its vertices.
        centroid: `[2]` its area centroid (body frame).
        position: `[2]` the body's origin.
        angle: the body's angle.

    Returns:
        A dict, Box2D's `b2Manifold`: `type` (`FACE_A`: the edge's face is the reference,
        `FACE_B`: a polygon face), `local_normal` and `local_point` (the reference face, in its
        own body's frame), `points` `[2, 2]` (the clip points, in the other body's frame),
        `keys` `[2]` (feature ids) and `count` (0, 1 or 2).
    """
    dtype = vertices.dtype
    c, s = jnp.cos(angle), jnp.sin(angle)
    valid = jnp.arange(vertices.shape[0]) < count
    # The polygon in the edge's frame: the ground's transform is the identity.
    verts = position + rotate(angle, vertices)
    norms = rotate(angle, normals)
    centroid_b = position + rotate(angle, centroid)
    radius = 2.0 * POLYGON_RADIUS

    edge1 = v2 - v1
    edge1 = edge1 / jnp.sqrt(_dot(edge1, edge1))
    normal1 = jnp.stack([edge1[1], -edge1[0]])
    front = _dot(normal1, centroid_b - v1) >= 0.0
    normal = jnp.where(front, normal1, -normal1)
    # Without ghost vertices both normal limits are -normal.
    limit = -normal

    # ComputeEdgeSeparation.
    edge_separation = jnp.min(jnp.where(valid, _dot(normal, verts - v1), jnp.inf))
    # ComputePolygonSeparation: any face beyond the radius separates; else the deepest face
    # whose normal lies within the limits (first on ties).
    n = -norms
    poly_s = jnp.minimum(_dot(n, verts - v1), _dot(n, verts - v2))
    separated_by_polygon = jnp.any(valid & (poly_s > radius))
    # Box2D's adjacency test picks the upper or the lower limit by side; both are -normal here.
    in_limits = _dot(n - limit, normal) >= -ANGULAR_SLOP
    eligible = valid & in_limits
    poly_index = jnp.argmax(jnp.where(eligible, poly_s, -jnp.inf))
    poly_known = jnp.any(eligible)
    poly_separation = poly_s[poly_index]

    no_contact = (edge_separation > radius) | separated_by_polygon
    use_polygon = poly_known & (poly_separation > 0.98 * edge_separation + 0.001)

    # Reference face and incident edge, for each choice of axis.
    best = jnp.argmin(jnp.where(valid, _dot(normal, norms), jnp.inf))
    i2 = jnp.where(best + 1 < count, best + 1, 0)
    ie_edge = jnp.stack([verts[best], verts[i2]])
    ids_edge = jnp.stack(
        [
            jnp.stack([0, best, _FACE, _VERTEX]).astype(jnp.int32),
            jnp.stack([0, i2, _FACE, _VERTEX]).astype(jnp.int32),
        ]
    )
    rf_edge_i1 = jnp.where(front, 0, 1)
    rf_edge_v1 = jnp.where(front, v1, v2)
    rf_edge_v2 = jnp.where(front, v2, v1)
    rf_edge_normal = jnp.where(front, normal1, -normal1)

    p1 = poly_index
    p2 = jnp.where(p1 + 1 < count, p1 + 1, 0)
    ie_poly = jnp.stack([v1, v2])
    ids_poly = jnp.stack(
        [
            jnp.stack([0, p1, _VERTEX, _FACE]).astype(jnp.int32),
            jnp.stack([0, p1, _VERTEX, _FACE]).astype(jnp.int32),
        ]
    )

    ie = jnp.where(use_polygon, ie_poly, ie_edge)
    ids = jnp.where(use_polygon, ids_poly, ids_edge)
    rf_i1 = jnp.where(use_polygon, p1, rf_edge_i1).astype(jnp.int32)
    rf_i2 = jnp.where(use_polygon, p2, 1 - rf_edge_i1).astype(jnp.int32)
    rf_v1 = jnp.where(use_polygon, verts[p1], rf_edge_v1)
    rf_v2 = jnp.where(use_polygon, verts[p2], rf_edge_v2)
    rf_normal = jnp.where(use_polygon, norms[p1], rf_edge_normal)

    side_normal1 = jnp.stack([rf_normal[1], -rf_normal[0]])
    side_normal2 = -side_normal1
    clip1, ids1, np1 = _clip(ie, ids, side_normal1, _dot(side_normal1, rf_v1), rf_i1)
    clip2, ids2, np2 = _clip(clip1, ids1, side_normal2, _dot(side_normal2, rf_v2), rf_i2)
    no_contact = no_contact | (np1 < 2) | (np2 < 2)

    separation = _dot(rf_normal, clip2 - rf_v1)
    keep = (separation <= radius) & ~no_contact
    # FACE_A: points go to B's frame, ids as clipped; FACE_B: points stay in A's (the world),
    # ids with A and B swapped.
    local_b = _rotate_t(c, s, clip2 - position)
    points = jnp.where(use_polygon, clip2, local_b)
    keys_a = _key(ids2[:, 0], ids2[:, 1], ids2[:, 2], ids2[:, 3])
    keys_b = _key(ids2[:, 1], ids2[:, 0], ids2[:, 3], ids2[:, 2])
    keys = jnp.where(use_polygon, keys_b, keys_a)
    # Box2D packs the kept points first.
    swap = ~keep[0] & keep[1]
    points = jnp.where(swap, points[::-1], points)
    keys = jnp.where(swap, keys[::-1], keys)
    return dict(
        type=jnp.where(use_polygon, FACE_B, FACE_A).astype(jnp.int32),
        local_normal=jnp.where(use_polygon, normals[p1], rf_normal).astype(dtype),
        local_point=jnp.where(use_polygon, vertices[p1], rf_v1).astype(dtype),
        points=points.astype(dtype),
        keys=keys.astype(jnp.int32),
        count=keep.sum().astype(jnp.int32),
    )


def static_bounds(world: World) -> tuple[jax.Array, jax.Array]:
    """Each static shape's axis-aligned bounding box (of its core), edges first.

    Args:
        world: The world.

    Returns:
        `([S, 2] lower corners, [S, 2] upper corners)`.
    """
    lo, hi = jnp.minimum(world.edge_v1, world.edge_v2), jnp.maximum(world.edge_v1, world.edge_v2)
    if not world.num_polygons:
        return lo, hi
    return (
        jnp.concatenate([lo, jnp.min(world.poly_vertices, axis=1)]),
        jnp.concatenate([hi, jnp.max(world.poly_vertices, axis=1)]),
    )


def near_statics(world: World, vertices, position, angle, margin) -> jax.Array:
    """Box2D's broad-phase test for one body: the static shapes whose bounding boxes overlap
    its polygon's, grown by `margin`.

    Args:
        world: The world.
        vertices: `[V, 2]` the body's polygon in its frame (padding repeats a vertex).
        position: `[2]` the body's origin.
        angle: The body's angle.
        margin: How far the body's box is grown (m).

    Returns:
        `[S]` bool.
    """
    verts = position + rotate(angle, vertices)
    lo, hi = jnp.min(verts, axis=0) - margin, jnp.max(verts, axis=0) + margin
    static_lo, static_hi = static_bounds(world)
    return jnp.all((lo <= static_hi) & (static_lo <= hi), axis=-1)


def _on_near(fn, near, width: int, n: int):
    """`fn(index)` on `n` static shapes of one kind, run on the `near` ones only.

    Args:
        fn: Takes an index into the kind's arrays (a `[k]` array, or `slice(None)`: all) and
            returns a pytree with a leading axis `[k]`.
        near: `[n]` bool, the shapes the result can differ from zeros on, or None (all).
        width: At most this many near shapes are gathered (0: `fn` runs on all).
        n: The kind's shapes.

    Returns:
        `fn`'s result for every shape, `[n]`: zeros where not near. Where more than `width`
        are near, `fn` on all of them (a loop of at most one trip: under `vmap` it runs only
        when some element of the batch needs it).
    """
    if near is None or not width or width >= n:
        return fn(slice(None))
    index = jnp.nonzero(near, size=width, fill_value=n)[0]
    part = fn(jnp.minimum(index, n - 1))
    out = jax.tree.map(lambda x: jnp.zeros((n,) + x.shape[1:], x.dtype).at[index].set(x, mode="drop"), part)
    overflow = jnp.sum(near) > width

    def every(carry):
        # Every shape, by an index read from the loop's carry (True in here): a body that
        # depended on nothing the loop carries would be hoisted out of it and always run.
        return jnp.zeros((), bool), fn(jnp.where(carry[0], jnp.arange(n), 0))

    return jax.lax.while_loop(lambda c: c[0], every, (overflow, out))[1]


def collide_statics(world: World, vertices, normals, count, centroid, position, angle, near=None) -> dict:
    """The narrow phase of one body's polygon against every static shape: the edges
    (`collide_edge_polygon`, the edge as A, as Box2D's edge-polygon contact has it), then the
    static polygons (`collide_polygons`, the static polygon as A: the fixture of the lower
    broad-phase proxy, created first on a fresh world).

    Args:
        world: The world (its statics).
        vertices: `[V, 2]` the body's polygon in its frame.
        normals: `[V, 2]` its outward edge normals.
        count: Its vertices.
        centroid: `[2]` its area centroid.
        position: `[2]` the body's origin.
        angle: The body's angle.
        near: `[S]` bool, the statics the broad phase found near (`near_statics`), or None;
            the others have no contact and are not tested when `world.max_near` is set.

    Returns:
        The manifold fields, each with a leading axis `[S]` (the collision filter not applied);
        zeros where the broad phase skipped the pair.
    """
    world = jax.tree.map(jnp.asarray, world)
    e_count = world.num_edges

    def on_edges(index):
        def per_edge(v1, v2):
            return collide_edge_polygon(v1, v2, vertices, normals, count, centroid, position, angle)

        return jax.vmap(per_edge)(world.edge_v1[index], world.edge_v2[index])

    m = _on_near(on_edges, None if near is None else near[:e_count], world.max_near, e_count)
    if not world.num_polygons:
        return m
    dtype = vertices.dtype
    origin, zero = jnp.zeros((2,), dtype), jnp.zeros((), dtype)

    def on_polygons(index):
        def per_polygon(pv, pn, pc, pcentroid):
            return collide_polygons(
                pv, pn, pc, pcentroid, origin, zero, vertices, normals, count, centroid, position, angle
            )

        return jax.vmap(per_polygon)(
            world.poly_vertices[index], world.poly_normals[index], world.poly_count[index], world.poly_centroid[index]
        )

    mp = _on_near(on_polygons, None if near is None else near[e_count:], world.max_near, world.num_polygons)
    return {k: jnp.concatenate([m[k], mp[k]]) for k in m}


def static_friction(world: World) -> tuple[jax.Array, jax.Array]:
    """Each static shape's fixture friction and restitution, edges first.

    Args:
        world: The world.

    Returns:
        `([S], [S])`: the frictions and the restitutions.
    """
    if not world.num_polygons:
        return world.edge_friction, world.edge_restitution
    return (
        jnp.concatenate([world.edge_friction, world.poly_friction]),
        jnp.concatenate([world.edge_restitution, world.poly_restitution]),
    )


def collide(world: World, state: WorldState) -> dict:
    """The narrow phase for every (body, static shape) pair at the state's positions.

    Args:
        world: The world (the bodies' polygons, the statics and the collision filter).
        state: The state (each body's centre of mass and angle).

    Returns:
        The manifold fields (`collide_edge_polygon`'s), each with leading axes `[B, S]`; a pair
        the filter excludes has count 0.
    """
    world = jax.tree.map(jnp.asarray, world)
    position = body_position(world, state)
    near = None
    if world.max_near:
        near = jax.vmap(near_statics, in_axes=(None, 0, 0, 0, None))(
            world, world.vertices, position, state.angle, AABB_EXTENSION
        )
    per_body = functools.partial(collide_statics, world)
    m = jax.vmap(per_body)(
        world.vertices, world.normals, world.vertex_count, world.centroid, position, state.angle, near
    )
    m["count"] = jnp.where(world.collides, m["count"], 0)
    return m


# ---------------------------------------------------------------------------------------------
# The contact solver (b2ContactSolver), one contact of each body at a time
# ---------------------------------------------------------------------------------------------


def _world_manifold(m, center, angle, local_center):
    """`b2WorldManifold::Initialize` for a static shape (A, at the origin) and a body (B).

    Returns:
        `(normal [2], points [2, 2], separations [2])`, the normal pointing from A to B.
    """
    r_a = POLYGON_RADIUS
    r_b = POLYGON_RADIUS
    p_b = center - rotate(angle, local_center)
    # FACE_A: the edge's face is the plane, B's points clip against it.
    normal_a = m["local_normal"]
    plane_a = m["local_point"]
    clip_a = p_b + rotate(angle, m["points"])
    ca = clip_a + (r_a - _dot(clip_a - plane_a, normal_a))[..., None] * normal_a
    cb = clip_a - r_b * normal_a
    points_a, sep_a = 0.5 * (ca + cb), _dot(cb - ca, normal_a)
    # FACE_B: B's face is the plane, the edge's points clip against it.
    normal_b = rotate(angle, m["local_normal"])
    plane_b = p_b + rotate(angle, m["local_point"])
    clip_b = m["points"]
    cb2 = clip_b + (r_b - _dot(clip_b - plane_b, normal_b))[..., None] * normal_b
    ca2 = clip_b - r_a * normal_b
    points_b, sep_b = 0.5 * (ca2 + cb2), _dot(ca2 - cb2, normal_b)
    face_b = m["type"] == FACE_B
    normal = jnp.where(face_b, -normal_b, normal_a)
    points = jnp.where(face_b, points_b, points_a)
    separations = jnp.where(face_b, sep_b, sep_a)
    return normal, points, separations


def _contact_velocity_constraint(slot, center, angle, v, w, inv_mass, inv_inertia, local_center):
    """`InitializeVelocityConstraints` for one contact of one body (the ground static)."""
    normal, points, _ = _world_manifold(slot, center, angle, local_center)
    r_b = points - center
    m_b, i_b = inv_mass, inv_inertia
    rn = _cross(r_b, normal)
    k_normal = m_b + i_b * rn * rn
    normal_mass = jnp.where(k_normal > 0, 1.0 / k_normal, 0.0)
    tangent = jnp.stack([normal[1], -normal[0]])
    rt = _cross(r_b, tangent)
    k_tangent = m_b + i_b * rt * rt
    tangent_mass = jnp.where(k_tangent > 0, 1.0 / k_tangent, 0.0)
    v_rel = _dot(normal, v + _cross_sv(w, r_b))
    velocity_bias = jnp.where(v_rel < -VELOCITY_THRESHOLD, -slot["restitution"] * v_rel, 0.0)
    # The block solver's matrix, or one point where it is ill-conditioned.
    k11 = m_b + i_b * rn[0] * rn[0]
    k22 = m_b + i_b * rn[1] * rn[1]
    k12 = m_b + i_b * rn[0] * rn[1]
    det = k11 * k22 - k12 * k12
    well_conditioned = k11 * k11 < 1000.0 * det
    det_inv = jnp.where(det != 0, 1.0 / det, 0.0)
    count = jnp.where((slot["count"] == 2) & ~well_conditioned, 1, slot["count"])
    return dict(
        normal=normal,
        tangent=tangent,
        r_b=r_b,
        normal_mass=normal_mass,
        tangent_mass=tangent_mass,
        velocity_bias=velocity_bias,
        k=jnp.stack([k11, k12, k22]),
        k_inv=jnp.stack([det_inv * k22, -det_inv * k12, det_inv * k11]),
        count=count,
        friction=slot["friction"],
    )


def _warm_start_contact(c, normal_impulse, tangent_impulse, v, w, inv_mass, inv_inertia):
    """`b2ContactSolver::WarmStart` for one contact: apply the carried impulses."""
    active = jnp.arange(2) < c["count"]
    for j in range(2):
        p = normal_impulse[j] * c["normal"] + tangent_impulse[j] * c["tangent"]
        p = jnp.where(active[j], p, 0.0)
        w = w + inv_inertia * _cross(c["r_b"][j], p)
        v = v + inv_mass * p
    return v, w


# ---------------------------------------------------------------------------------------------
# The solver's iterations, on scalars
# ---------------------------------------------------------------------------------------------
#
# The velocity and position iterations run hundreds of times a step, so their bodies work on
# scalars: each body's velocity and pose, and each contact's and joint's numbers, are separate
# arrays (`Vec2` for vectors). XLA fuses such a body into a few kernels; arrays of bodies or
# contacts would be sliced and updated piece by piece, a kernel or more each, which is where a
# step's time went. What is computed once per step stays vectorised over bodies and edges.


@struct.dataclass
class Vec2:
    """Box2D's `b2Vec2` as two arrays of the same shape, for the solver's loops.

    Attributes:
        x: The x components.
        y: The y components.
    """

    x: jax.Array
    y: jax.Array

    @classmethod
    def of(cls, a) -> Vec2:
        """The vectors of an array.

        Args:
            a: `[..., 2]` array.

        Returns:
            Its x and y components as a `Vec2`.
        """
        return cls(a[..., 0], a[..., 1])

    def array(self) -> jax.Array:
        """The vectors as one array.

        Returns:
            `[..., 2]`.
        """
        return jnp.stack([self.x, self.y], axis=-1)

    def __add__(self, other):
        return Vec2(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vec2(self.x - other.x, self.y - other.y)

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def __mul__(self, s):
        return Vec2(self.x * s, self.y * s)

    def __rmul__(self, s):
        return Vec2(s * self.x, s * self.y)


def _vdot(a: Vec2, b: Vec2):
    return a.x * b.x + a.y * b.y


def _vcross(a: Vec2, b: Vec2):
    return a.x * b.y - a.y * b.x


def _vcross_sv(w, r: Vec2) -> Vec2:
    return Vec2(-w * r.y, w * r.x)


def _vrotate(angle, v: Vec2) -> Vec2:
    c, s = jnp.cos(angle), jnp.sin(angle)
    return Vec2(c * v.x - s * v.y, s * v.x + c * v.y)


def _select(cond, a, b):
    """`jnp.where(cond, a, b)` leaf by leaf of two pytrees of one structure."""
    return jax.tree.map(lambda x, y: jnp.where(cond, x, y), a, b)


def _same(x):
    return x


def _keep(one):
    """A function that hands values on to later steps as computed, not as formulas.

    XLA:CPU gives each array a loop needs its own kernel and copies the (cheap) arithmetic that
    array depends on into it. In a Gauss-Seidel sweep every value depends on all earlier ones,
    so the sweep's kernels would each recompute most of the sweep. XLA never copies a division,
    so dividing a value by `one` (a 1.0 known only at run time: exact) makes it computed once
    and read from memory by the steps after it.

    Args:
        one: 1.0, from run-time data (XLA must not see that it is 1).

    Returns:
        A function of a pytree of float arrays returning the same values.
    """
    return lambda tree: jax.tree.map(lambda x: x / one, tree)


def _pair(x):
    """The last axis (of size 2) as a tuple."""
    return x[..., 0], x[..., 1]


def _contact_scalars(con):
    """A contact's velocity constraint (`_contact_velocity_constraint`) as the loop uses it."""
    k, k_inv = con["k"], con["k_inv"]
    return dict(
        normal=Vec2.of(con["normal"]),
        tangent=Vec2.of(con["tangent"]),
        r_b=(Vec2.of(con["r_b"][..., 0, :]), Vec2.of(con["r_b"][..., 1, :])),
        normal_mass=_pair(con["normal_mass"]),
        tangent_mass=_pair(con["tangent_mass"]),
        velocity_bias=_pair(con["velocity_bias"]),
        k=(k[..., 0], k[..., 1], k[..., 2]),
        k_inv=(k_inv[..., 0], k_inv[..., 1], k_inv[..., 2]),
        count=con["count"],
        friction=con["friction"],
    )


def _position_scalars(slot):
    """A contact's manifold (`collide_edge_polygon`'s, in a slot) as the position loop uses it."""
    return dict(
        face_b=slot["type"] == FACE_B,
        local_normal=Vec2.of(slot["local_normal"]),
        local_point=Vec2.of(slot["local_point"]),
        points=(Vec2.of(slot["points"][..., 0, :]), Vec2.of(slot["points"][..., 1, :])),
        count=slot["count"],
    )


def _solve_contact_velocity(c, normal_impulse, tangent_impulse, v, w, inv_mass, inv_inertia, keep=None):
    """`b2ContactSolver::SolveVelocityConstraints` for one contact of one body.

    Friction first (clamped by the friction cone of the current normal impulse), then the
    normal impulse, one point alone or two by Box2D's block solver (its four cases in order).

    Args:
        c: The contact's constraint (`_contact_scalars`).
        normal_impulse: `(p0, p1)` each point's accumulated normal impulse.
        tangent_impulse: `(p0, p1)` each point's accumulated friction impulse.
        v: The body's linear velocity (`Vec2`).
        w: Its angular velocity.
        inv_mass, inv_inertia: Its inverse mass and inertia.
        keep: `_keep`'s function, or None.

    Returns:
        `(normal_impulse, tangent_impulse, v, w)` after the solve.
    """
    keep = keep or _same
    normal, tangent, r_b, count = c["normal"], c["tangent"], c["r_b"], c["count"]
    tangent_impulse = list(tangent_impulse)
    for j in range(2):
        dv = v + _vcross_sv(w, r_b[j])
        vt = _vdot(dv, tangent)
        lam = c["tangent_mass"][j] * (-vt)
        max_friction = c["friction"] * normal_impulse[j]
        new = jnp.clip(tangent_impulse[j] + lam, -max_friction, max_friction)
        lam = jnp.where(count > j, new - tangent_impulse[j], 0.0)
        tangent_impulse[j] = tangent_impulse[j] + lam
        p = lam * tangent
        v = v + inv_mass * p
        w = w + inv_inertia * _vcross(r_b[j], p)
        v, w = keep((v, w))

    # One point.
    dv = v + _vcross_sv(w, r_b[0])
    vn = _vdot(dv, normal)
    lam = -c["normal_mass"][0] * (vn - c["velocity_bias"][0])
    new = jnp.maximum(normal_impulse[0] + lam, 0.0)

    # Two points: the block solver.
    a0, a1 = normal_impulse
    vn1 = _vdot(v + _vcross_sv(w, r_b[0]), normal)
    vn2 = _vdot(v + _vcross_sv(w, r_b[1]), normal)
    k11, k12, k22 = c["k"]
    i11, i12, i22 = c["k_inv"]
    bx = vn1 - c["velocity_bias"][0] - (k11 * a0 + k12 * a1)
    by = vn2 - c["velocity_bias"][1] - (k12 * a0 + k22 * a1)
    zero = jnp.zeros_like(bx)
    x1 = (-(i11 * bx + i12 * by), -(i12 * bx + i22 * by))
    case1 = (x1[0] >= 0) & (x1[1] >= 0)
    x2 = (-c["normal_mass"][0] * bx, zero)
    case2 = (x2[0] >= 0) & (k12 * x2[0] + by >= 0)
    x3 = (zero, -c["normal_mass"][1] * by)
    case3 = (x3[1] >= 0) & (k12 * x3[1] + bx >= 0)
    case4 = (bx >= 0) & (by >= 0)
    x = tuple(
        jnp.where(case1, x1[i], jnp.where(case2, x2[i], jnp.where(case3, x3[i], jnp.where(case4, 0.0, a))))
        for i, a in enumerate(normal_impulse)
    )
    new, x = keep((new, x))
    lam = new - normal_impulse[0]
    p = lam * normal
    v1 = v + inv_mass * p
    w1 = w + inv_inertia * _vcross(r_b[0], p)
    impulse1 = (new, normal_impulse[1])
    p1, p2 = (x[0] - a0) * normal, (x[1] - a1) * normal
    v2 = v + inv_mass * (p1 + p2)
    w2 = w + inv_inertia * (_vcross(r_b[0], p1) + _vcross(r_b[1], p2))

    two = count == 2
    one = count == 1
    v = _select(two, v2, _select(one, v1, v))
    w = jnp.where(two, w2, jnp.where(one, w1, w))
    normal_impulse = _select(two, x, _select(one, impulse1, tuple(normal_impulse)))
    return normal_impulse, tuple(tangent_impulse), *keep((v, w))


def _solve_contact_position(p, center, angle, inv_mass, inv_inertia, local_center, baumgarte=BAUMGARTE, keep=None):
    """`b2ContactSolver::SolvePositionConstraints` for one contact of one body.

    Args:
        p: The contact's manifold (`_position_scalars`).
        center: The body's centre of mass (`Vec2`).
        angle: Its angle.
        inv_mass, inv_inertia: Its inverse mass and inertia.
        local_center: Its centre of mass in its frame (`Vec2`).
        baumgarte: The fraction of the overlap corrected (`SolveTOIPositionConstraints` uses
            `TOI_BAUMGARTE`).
        keep: `_keep`'s function, or None.

    Returns:
        `(center, angle, min_separation)` after pushing each manifold point out, Baumgarte
        fashion, to within `LINEAR_SLOP`.
    """
    keep = keep or _same
    min_separation = jnp.zeros_like(angle)
    for j in range(2):
        active = j < p["count"]
        p_b = center - _vrotate(angle, local_center)
        # FACE_A: the edge's plane, B's clip point.
        normal_a = p["local_normal"]
        clip_a = p_b + _vrotate(angle, p["points"][j])
        sep_a = _vdot(clip_a - p["local_point"], normal_a) - 2.0 * POLYGON_RADIUS
        # FACE_B: B's plane, the edge's clip point; the normal flipped to point from A to B.
        normal_b = _vrotate(angle, p["local_normal"])
        plane_b = p_b + _vrotate(angle, p["local_point"])
        clip_b = p["points"][j]
        sep_b = _vdot(clip_b - plane_b, normal_b) - 2.0 * POLYGON_RADIUS
        normal = _select(p["face_b"], -normal_b, normal_a)
        point = _select(p["face_b"], clip_b, clip_a)
        separation = jnp.where(p["face_b"], sep_b, sep_a)
        r_b = point - center
        min_separation = jnp.where(active, jnp.minimum(min_separation, separation), min_separation)
        correction = jnp.clip(baumgarte * (separation + LINEAR_SLOP), -MAX_LINEAR_CORRECTION, 0.0)
        rn = _vcross(r_b, normal)
        k = inv_mass + inv_inertia * rn * rn
        impulse = jnp.where(k > 0, -correction / k, 0.0)
        push = jnp.where(active, impulse, 0.0) * normal
        center = center + inv_mass * push
        angle = angle + inv_inertia * _vcross(r_b, push)
        center, angle = keep((center, angle))
    return center, angle, min_separation


# ---------------------------------------------------------------------------------------------
# Revolute joints (b2RevoluteJoint)
# ---------------------------------------------------------------------------------------------


def _joint_velocity_constraint(world, j, state_impulse, state_motor, state_limit, angle):
    """`b2RevoluteJoint::InitVelocityConstraints`: anchors, effective masses, limit state.

    Returns:
        A dict: `r_a`, `r_b` (`[2]` anchors from the centres of mass), `k` (the symmetric 3x3
        mass matrix's six entries), the inverse determinants `det22` (its upper 2x2 block) and
        `det33` with `cross_yz` (`ey x ez`, Solve33's loop-invariant parts), `motor_mass`, and
        the warm-start `impulse` `[3]`, `motor` and `limit` state.
    """
    a, b = world.joint_bodies[j]
    m_a, m_b = world.inv_mass[a], world.inv_mass[b]
    i_a, i_b = world.inv_inertia[a], world.inv_inertia[b]
    r_a = rotate(angle[a], world.joint_anchor_a[j] - world.local_center[a])
    r_b = rotate(angle[b], world.joint_anchor_b[j] - world.local_center[b])
    exx = m_a + m_b + r_a[1] * r_a[1] * i_a + r_b[1] * r_b[1] * i_b
    eyx = -r_a[1] * r_a[0] * i_a - r_b[1] * r_b[0] * i_b
    ezx = -r_a[1] * i_a - r_b[1] * i_b
    eyy = m_a + m_b + r_a[0] * r_a[0] * i_a + r_b[0] * r_b[0] * i_b
    ezy = r_a[0] * i_a + r_b[0] * i_b
    ezz = i_a + i_b
    motor_mass = jnp.where(ezz > 0, 1.0 / ezz, ezz)
    impulse, motor, limit = state_impulse[j], state_motor[j], state_limit[j]
    if not world.joint_enable_motor[j]:
        motor = jnp.zeros_like(motor)
    if world.joint_enable_limit[j]:
        joint_angle = angle[b] - angle[a] - world.joint_reference_angle[j]
        lower, upper = world.joint_lower[j], world.joint_upper[j]
        equal = jnp.abs(upper - lower) < 2.0 * ANGULAR_SLOP
        new_limit = jnp.where(
            equal,
            EQUAL_LIMITS,
            jnp.where(
                joint_angle <= lower,
                AT_LOWER_LIMIT,
                jnp.where(joint_angle >= upper, AT_UPPER_LIMIT, INACTIVE_LIMIT),
            ),
        )
        # The limit impulse restarts when the limit changes side or lets go.
        reset_z = ~equal & ((new_limit != limit) | (new_limit == INACTIVE_LIMIT))
        impulse = impulse.at[2].set(jnp.where(reset_z, 0.0, impulse[2]))
        limit = new_limit.astype(jnp.int32)
    else:
        limit = jnp.int32(INACTIVE_LIMIT)
    k = (exx, eyx, ezx, eyy, ezy, ezz)
    det22 = exx * eyy - eyx * eyx
    cross_yz = _cross3((eyx, eyy, ezy), (ezx, ezy, ezz))
    det33 = _dot3((exx, eyx, ezx), cross_yz)
    return dict(
        r_a=r_a,
        r_b=r_b,
        k=k,
        det22=jnp.where(det22 != 0, 1.0 / det22, det22),
        det33=jnp.where(det33 != 0, 1.0 / det33, det33),
        cross_yz=cross_yz,
        motor_mass=motor_mass,
        impulse=impulse,
        motor=motor,
        limit=limit,
    )


def _cross3(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _solve33(jc, rhs):
    """`b2Mat33::Solve33` with the joint's mass matrix (its determinant and `ey x ez` given)."""
    exx, eyx, ezx, eyy, ezy, ezz = jc["k"]
    ex, ey, ez = (exx, eyx, ezx), (eyx, eyy, ezy), (ezx, ezy, ezz)
    det = jc["det33"]
    return (
        det * _dot3(rhs, jc["cross_yz"]),
        det * _dot3(ex, _cross3(rhs, ez)),
        det * _dot3(ex, _cross3(ey, rhs)),
    )


def _solve22(a11, a12, a21, a22, rhs, det=None):
    """`b2Mat22::Solve` / `b2Mat33::Solve22`; `det`, when given, is the inverse determinant."""
    if det is None:
        det = a11 * a22 - a12 * a21
        det = jnp.where(det != 0, 1.0 / det, det)
    return det * (a22 * rhs[0] - a12 * rhs[1]), det * (a11 * rhs[1] - a21 * rhs[0])


def _solve_joint_velocity(world, j, jc, impulse, motor, v_a, w_a, v_b, w_b, dt, keep=None):
    """`b2RevoluteJoint::SolveVelocityConstraints`: the motor, then the limit with the point
    constraint (3x3), or the point constraint alone (2x2).

    Args:
        world: The world (the joint's bodies, masses, motor and limit settings).
        j: The joint's index.
        jc: Its constraint (`_joint_velocity_constraint`, vectors as `Vec2`).
        impulse: `(x, y, z)` its accumulated point and limit impulse.
        motor: Its accumulated motor impulse.
        v_a, w_a, v_b, w_b: The bodies' velocities (`Vec2` and scalar).
        dt: The step.
        keep: `_keep`'s function, or None.

    Returns:
        `(impulse, motor, v_a, w_a, v_b, w_b)` after the solve.
    """
    keep = keep or _same
    a, b = world.joint_bodies[j]
    m_a, m_b = world.inv_mass[a], world.inv_mass[b]
    i_a, i_b = world.inv_inertia[a], world.inv_inertia[b]
    limit = jc["limit"]
    if world.joint_enable_motor[j]:
        cdot = w_b - w_a - world.joint_motor_speed[j]
        step_impulse = -jc["motor_mass"] * cdot
        max_impulse = dt * world.joint_max_motor_torque[j]
        new_motor = jnp.clip(motor + step_impulse, -max_impulse, max_impulse)
        step_impulse = jnp.where(limit != EQUAL_LIMITS, new_motor - motor, 0.0)
        motor = motor + step_impulse
        w_a = w_a - i_a * step_impulse
        w_b = w_b + i_b * step_impulse
        w_a, w_b = keep((w_a, w_b))

    r_a, r_b = jc["r_a"], jc["r_b"]
    exx, eyx, ezx, eyy, ezy, ezz = jc["k"]
    cdot1 = v_b + _vcross_sv(w_b, r_b) - v_a - _vcross_sv(w_a, r_a)
    # The point constraint alone.
    step3 = (*_solve22(exx, eyx, eyx, eyy, (-cdot1.x, -cdot1.y), jc["det22"]), jnp.zeros_like(w_a))
    if world.joint_enable_limit[j]:
        # With the limit.
        cdot2 = w_b - w_a
        full = tuple(-x for x in _solve33(jc, (cdot1.x, cdot1.y, cdot2)))
        new_z = impulse[2] + full[2]
        rhs = (-cdot1.x + impulse[2] * ezx, -cdot1.y + impulse[2] * ezy)
        reduced = _solve22(exx, eyx, eyx, eyy, rhs, jc["det22"])
        lets_go = ((limit == AT_LOWER_LIMIT) & (new_z < 0)) | ((limit == AT_UPPER_LIMIT) & (new_z > 0))
        limited = _select(lets_go, (reduced[0], reduced[1], -impulse[2]), full)
        step3 = _select(limit != INACTIVE_LIMIT, limited, step3)
    step3 = keep(step3)
    impulse = tuple(i + s for i, s in zip(impulse, step3, strict=True))
    p = Vec2(step3[0], step3[1])
    v_a = v_a - m_a * p
    w_a = w_a - i_a * (_vcross(r_a, p) + step3[2])
    v_b = v_b + m_b * p
    w_b = w_b + i_b * (_vcross(r_b, p) + step3[2])
    return impulse, motor, *keep((v_a, w_a, v_b, w_b))


def _solve_joint_position(world, j, limit, motor_mass, c_a, a_a, c_b, a_b, keep=None):
    """`b2RevoluteJoint::SolvePositionConstraints`: the limit's angle, then the anchors.

    Args:
        world: The world.
        j: The joint's index.
        limit: Its limit state this step.
        motor_mass: `1 / (i_a + i_b)`.
        c_a, a_a, c_b, a_b: The bodies' centres of mass (`Vec2`) and angles.
        keep: `_keep`'s function, or None.

    Returns:
        `(c_a, a_a, c_b, a_b, ok)`, ok when both errors are within slop.
    """
    keep = keep or _same
    a, b = world.joint_bodies[j]
    m_a, m_b = world.inv_mass[a], world.inv_mass[b]
    i_a, i_b = world.inv_inertia[a], world.inv_inertia[b]
    angular_error = jnp.zeros_like(a_a)
    if world.joint_enable_limit[j]:
        joint_angle = a_b - a_a - world.joint_reference_angle[j]
        lower, upper = world.joint_lower[j], world.joint_upper[j]
        c_equal = jnp.clip(joint_angle - lower, -MAX_ANGULAR_CORRECTION, MAX_ANGULAR_CORRECTION)
        c_lower = jnp.clip(joint_angle - lower + ANGULAR_SLOP, -MAX_ANGULAR_CORRECTION, 0.0)
        c_upper = jnp.clip(joint_angle - upper - ANGULAR_SLOP, 0.0, MAX_ANGULAR_CORRECTION)
        c = jnp.where(
            limit == EQUAL_LIMITS,
            c_equal,
            jnp.where(limit == AT_LOWER_LIMIT, c_lower, jnp.where(limit == AT_UPPER_LIMIT, c_upper, 0.0)),
        )
        angular_error = jnp.where(
            limit == EQUAL_LIMITS,
            jnp.abs(c_equal),
            jnp.where(
                limit == AT_LOWER_LIMIT,
                -(joint_angle - lower),
                jnp.where(limit == AT_UPPER_LIMIT, joint_angle - upper, 0.0),
            ),
        )
        limit_impulse = -motor_mass * c
        a_a = a_a - i_a * limit_impulse
        a_b = a_b + i_b * limit_impulse
        a_a, a_b = keep((a_a, a_b))
    r_a = _vrotate(a_a, Vec2.of(world.joint_anchor_a[j] - world.local_center[a]))
    r_b = _vrotate(a_b, Vec2.of(world.joint_anchor_b[j] - world.local_center[b]))
    c = c_b + r_b - c_a - r_a
    position_error = jnp.sqrt(_vdot(c, c))
    kxx = m_a + m_b + i_a * r_a.y * r_a.y + i_b * r_b.y * r_b.y
    kxy = -i_a * r_a.x * r_a.y - i_b * r_b.x * r_b.y
    kyy = m_a + m_b + i_a * r_a.x * r_a.x + i_b * r_b.x * r_b.x
    ix, iy = _solve22(kxx, kxy, kxy, kyy, (c.x, c.y))
    impulse = Vec2(-ix, -iy)
    c_a = c_a - m_a * impulse
    a_a = a_a - i_a * _vcross(r_a, impulse)
    c_b = c_b + m_b * impulse
    a_b = a_b + i_b * _vcross(r_b, impulse)
    ok = (position_error <= LINEAR_SLOP) & (angular_error <= ANGULAR_SLOP)
    return *keep((c_a, a_a, c_b, a_b)), ok


# ---------------------------------------------------------------------------------------------
# The island's iterations (b2Island::Solve's loops)
# ---------------------------------------------------------------------------------------------


def _any_touching(contacts):
    """Whether any of `[B][k]` contacts has a point."""
    return jnp.any(jnp.stack([c["count"] > 0 for body_contacts in contacts for c in body_contacts]))


def _velocity_iterations(
    world, order, contacts, joints, masses, vel, normal, tangent, joint_impulse, dt, iterations, keep=None
):
    """Box2D's velocity iterations: in each, the joints in island order, then each body's
    contacts in slot order (contacts of different bodies share no body: the ground is static).

    Args:
        world: The world (the joints' bodies, masses and settings).
        order: The joints' solving order (`joint_order`).
        contacts: `[B][k]` each body's contact constraints (`_contact_scalars`).
        joints: `{j: constraint}` each joint's (`_joint_velocity_constraint`, vectors `Vec2`).
        masses: `[B]` `(inv_mass, inv_inertia)` of each body.
        vel: `[B]` `(v, w)` each body's velocities.
        normal: `[B][k]` `(p0, p1)` the contacts' normal impulses.
        tangent: `[B][k]` likewise, friction.
        joint_impulse: `{j: ((x, y, z), motor)}` the joints' impulses.
        dt: The step.
        iterations: How many.
        keep: `_keep`'s function, or None.

    Returns:
        `(vel, normal, tangent, joint_impulse)` after the iterations, in the same forms.
    """

    def contact_sweep(carry):
        _, vel, normal, tangent = carry
        vel, normal, tangent = list(vel), [list(n) for n in normal], [list(t) for t in tangent]
        for s in range(len(contacts[0])):
            for b, body_contacts in enumerate(contacts):
                normal[b][s], tangent[b][s], v, w = _solve_contact_velocity(
                    body_contacts[s], normal[b][s], tangent[b][s], *vel[b], *masses[b], keep
                )
                vel[b] = (v, w)
        return jnp.zeros((), bool), vel, normal, tangent

    def iteration(_, carry):
        vel, normal, tangent, joint_impulse = carry
        vel, joint_impulse = list(vel), dict(joint_impulse)
        for j in order:
            a, b = world.joint_bodies[j]
            impulse, motor, v_a, w_a, v_b, w_b = _solve_joint_velocity(
                world, j, joints[j], *joint_impulse[j], *vel[a], *vel[b], dt, keep
            )
            vel[a], vel[b], joint_impulse[j] = (v_a, w_a), (v_b, w_b), (impulse, motor)
        # Without a touching contact the sweep changes nothing: a loop of at most one trip
        # skips it (under vmap, when no env in the batch has one).
        _, vel, normal, tangent = jax.lax.while_loop(lambda c: c[0], contact_sweep, (touching, vel, normal, tangent))
        return vel, normal, tangent, joint_impulse

    touching = _any_touching(contacts)

    return jax.lax.fori_loop(0, iterations, iteration, (vel, normal, tangent, joint_impulse))


def _position_iterations(world, order, contacts, joints, masses, pose, iterations, baumgarte, tolerance, keep=None):
    """Box2D's position iterations, until solved or `iterations` of them: in each, each body's
    contacts in slot order, then the joints in island order.

    Args:
        world: The world (the joints' bodies, masses and settings).
        order: The joints' solving order.
        contacts: `[B][k]` each body's contact manifolds (`_position_scalars`).
        joints: `{j: (limit, motor_mass)}` each joint's limit state and motor mass this step.
        masses: `[B]` `(inv_mass, inv_inertia, local_center)` of each body (`local_center` a
            `Vec2`).
        pose: `[B]` `(center, angle)` each body's centre of mass (`Vec2`) and angle.
        iterations: The most iterations.
        baumgarte: The fraction of a contact's overlap corrected per iteration.
        tolerance: Solved when no contact's separation is below this (and every joint's error
            within slop).
        keep: `_keep`'s function, or None.

    Returns:
        `(pose, solved)`.
    """

    def contact_sweep(carry):
        _, pose, min_separation = carry
        pose = list(pose)
        for s in range(len(contacts[0])):
            for b, body_contacts in enumerate(contacts):
                center, angle, separation = _solve_contact_position(
                    body_contacts[s], *pose[b], *masses[b], baumgarte=baumgarte, keep=keep
                )
                pose[b] = (center, angle)
                min_separation = jnp.minimum(min_separation, separation)
        return jnp.zeros((), bool), pose, min_separation

    touching = _any_touching(contacts)

    def iteration(carry):
        i, _, pose = carry
        # As in `_velocity_iterations`, the contacts' sweep only when one touches.
        _, pose, min_separation = jax.lax.while_loop(
            lambda c: c[0], contact_sweep, (touching, list(pose), jnp.zeros_like(pose[0][1]))
        )
        pose = list(pose)
        ok = min_separation >= tolerance
        for j in order:
            a, b = world.joint_bodies[j]
            c_a, a_a, c_b, a_b, joint_ok = _solve_joint_position(world, j, *joints[j], *pose[a], *pose[b], keep)
            pose[a], pose[b] = (c_a, a_a), (c_b, a_b)
            ok = ok & joint_ok
        return i + 1, ok, pose

    def keep_iterating(carry):
        i, solved, _ = carry
        return (i < iterations) & ~solved

    _, solved, pose = jax.lax.while_loop(keep_iterating, iteration, (jnp.int32(0), jnp.zeros((), bool), pose))
    return pose, solved


# ---------------------------------------------------------------------------------------------
# Continuous collision (b2World::SolveTOI, b2TimeOfImpact, b2Island::SolveTOI)
# ---------------------------------------------------------------------------------------------

# b2TimeOfImpact's target distance between the cores (the skins overlapping by 3 slops) and
# its tolerance.
TOI_TARGET = max(LINEAR_SLOP, 2.0 * POLYGON_RADIUS - 3.0 * LINEAR_SLOP)
TOI_TOLERANCE = 0.25 * LINEAR_SLOP
_FLT_EPSILON = 1.1920929e-07
# b2_maxPolygonVertices (the push-back loop's bound) and b2TimeOfImpact's iteration bound.
MAX_POLYGON_VERTICES = 8
MAX_TOI_ITERATIONS = 20


def _point_segment_distance(p, a, b):
    """Distance from point(s) `p` to the segment from `a` to `b`."""
    ab = b - a
    t = jnp.clip(_dot(p - a, ab) / jnp.maximum(_dot(ab, ab), 1e-30), 0.0, 1.0)
    d = p - (a + t[..., None] * ab)
    return jnp.sqrt(_dot(d, d))


def segment_polygon_distance(v1, v2, verts, normals, count):
    """The distance between a segment and a convex polygon, cores only (`b2Distance` without
    radii): 0 when they overlap.

    Args:
        v1: `[2]` the segment's first end point.
        v2: `[2]` the segment's second end point.
        verts: `[V, 2]` the polygon's vertices in the same frame (padded past `count`).
        normals: `[V, 2]` the polygon's outward edge normals in that frame.
        count: Its vertices.

    Returns:
        The distance.
    """
    valid = jnp.arange(verts.shape[0]) < count
    # Separating axes: the polygon's normals and the segment's normal.
    face = jnp.minimum(_dot(normals, v1 - verts), _dot(normals, v2 - verts))
    edge = v2 - v1
    n = jnp.stack([edge[1], -edge[0]])
    side = _dot(n, verts - v1)
    separated = jnp.any(valid & (face > 0)) | jnp.all(~valid | (side > 0)) | jnp.all(~valid | (side < 0))
    # Disjoint convex shapes: the closest pair has a vertex of one on the other.
    to_segment = jnp.where(valid, _point_segment_distance(verts, v1, v2), jnp.inf)
    nxt = jnp.where(jnp.arange(verts.shape[0]) + 1 < count, jnp.arange(verts.shape[0]) + 1, 0)
    to_edges = jnp.minimum(
        _point_segment_distance(v1, verts, verts[nxt]), _point_segment_distance(v2, verts, verts[nxt])
    )
    to_edges = jnp.where(valid, to_edges, jnp.inf)
    return jnp.where(separated, jnp.minimum(jnp.min(to_segment), jnp.min(to_edges)), 0.0)


def _support(vertices, count, d):
    """`b2DistanceProxy::GetSupport`: the first vertex farthest along `d`."""
    dots = jnp.where(jnp.arange(vertices.shape[0]) < count, _dot(vertices, d), -jnp.inf)
    return jnp.argmax(dots).astype(jnp.int32)


def _at(xf, v):
    """`b2Mul(xf, v)`: `xf` is `(p, cos, sin)`, a position and its rotation."""
    p, c, s = xf
    return _transform_point(c, s, p, v)


def _rotate_back(xf, v):
    """`b2MulT(xf.q, v)`: `v` in the frame's axes."""
    _, c, s = xf
    return _rotate_t(c, s, v)


def _rotated(xf, v):
    """`b2Mul(xf.q, v)`."""
    _, c, s = xf
    return jnp.stack([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _sweep_transform(c0, a0, c1, a1, local_center, beta):
    """`b2Sweep::GetTransform(beta)`: the body's origin and rotation at `beta` of its sweep."""
    c = (1.0 - beta) * c0 + beta * c1
    angle = (1.0 - beta) * a0 + beta * a1
    cos, sin = jnp.cos(angle), jnp.sin(angle)
    p = c - jnp.stack([cos * local_center[0] - sin * local_center[1], sin * local_center[0] + cos * local_center[1]])
    return p, cos, sin


def gjk_distance(verts_a, count_a, xf_a, verts_b, count_b, xf_b, cache):
    """`b2Distance` without radii (GJK): the distance between two convex proxies' cores.

    Args:
        verts_a: `[Va, 2]` proxy A's vertices in its frame (padded past `count_a`).
        count_a: Its vertices.
        xf_a: A's transform, `(p, cos, sin)`.
        verts_b: `[Vb, 2]` proxy B's vertices.
        count_b: Its vertices.
        xf_b: B's transform.
        cache: `b2SimplexCache`: `(count, index_a [3], index_b [3], metric)` (count 0: empty).

    Returns:
        `(distance, cache)`: the distance between the witness points and the simplex the search
        ended on (read by the next call, as Box2D's time of impact does).
    """
    dtype = verts_a.dtype
    slots = jnp.arange(3)

    def support_points(ia, ib):
        wa = _at(xf_a, verts_a[ia])
        wb = _at(xf_b, verts_b[ib])
        return wa, wb, wb - wa

    def metric(count, w):
        e12 = w[1] - w[0]
        two = jnp.sqrt(_dot(e12, e12))
        three = _cross(w[1] - w[0], w[2] - w[0])
        return jnp.where(count == 2, two, jnp.where(count == 3, three, 0.0))

    # ReadCache.
    count, ia, ib, metric1 = cache
    _, _, w = support_points(ia, ib)
    metric2 = metric(count, w)
    flush = (count > 1) & ((metric2 < 0.5 * metric1) | (2.0 * metric1 < metric2) | (metric2 < _FLT_EPSILON))
    empty = (count == 0) | flush
    count = jnp.where(empty, 1, count)
    ia = jnp.where(empty, 0, ia)
    ib = jnp.where(empty, 0, ib)
    a = jnp.where(empty & (slots == 0), 1.0, 0.0).astype(dtype)

    def solve2(ia, ib, a, w):
        w1, w2 = w[0], w[1]
        e12 = w2 - w1
        d12_2 = -_dot(w1, e12)
        d12_1 = _dot(w2, e12)
        inv = 1.0 / jnp.where(d12_1 + d12_2 == 0, 1.0, d12_1 + d12_2)
        region1, region2 = d12_2 <= 0.0, (d12_2 > 0.0) & (d12_1 <= 0.0)
        # w2's region: v1 = v2.
        ia = jnp.where(region2, ia[jnp.array([1, 1, 2])], ia)
        ib = jnp.where(region2, ib[jnp.array([1, 1, 2])], ib)
        a = jnp.where(region1 | region2, jnp.array([1.0, 0.0, 0.0], dtype), jnp.stack([d12_1 * inv, d12_2 * inv, a[2]]))
        return ia, ib, a, jnp.where(region1 | region2, 1, 2).astype(jnp.int32)

    def solve3(ia, ib, a, w):
        w1, w2, w3 = w[0], w[1], w[2]
        e12 = w2 - w1
        d12_1, d12_2 = _dot(w2, e12), -_dot(w1, e12)
        e13 = w3 - w1
        d13_1, d13_2 = _dot(w3, e13), -_dot(w1, e13)
        e23 = w3 - w2
        d23_1, d23_2 = _dot(w3, e23), -_dot(w2, e23)
        n123 = _cross(e12, e13)
        d123_1 = n123 * _cross(w2, w3)
        d123_2 = n123 * _cross(w3, w1)
        d123_3 = n123 * _cross(w1, w2)

        def inv(x):
            return 1.0 / jnp.where(x == 0, 1.0, x)

        cases = [
            # (condition, slot order, weights, count)
            ((d12_2 <= 0.0) & (d13_2 <= 0.0), (0, 1, 2), (1.0, 0.0, 0.0), 1),
            (
                (d12_1 > 0.0) & (d12_2 > 0.0) & (d123_3 <= 0.0),
                (0, 1, 2),
                (d12_1 * inv(d12_1 + d12_2), d12_2 * inv(d12_1 + d12_2), 0.0),
                2,
            ),
            (
                (d13_1 > 0.0) & (d13_2 > 0.0) & (d123_2 <= 0.0),
                (0, 2, 2),
                (d13_1 * inv(d13_1 + d13_2), d13_2 * inv(d13_1 + d13_2), 0.0),
                2,
            ),
            ((d12_1 <= 0.0) & (d23_2 <= 0.0), (1, 1, 2), (1.0, 0.0, 0.0), 1),
            ((d13_1 <= 0.0) & (d23_1 <= 0.0), (2, 1, 2), (1.0, 0.0, 0.0), 1),
            (
                (d23_1 > 0.0) & (d23_2 > 0.0) & (d123_1 <= 0.0),
                (2, 1, 2),
                (d23_2 * inv(d23_1 + d23_2), d23_1 * inv(d23_1 + d23_2), 0.0),
                2,
            ),
        ]
        d123 = inv(d123_1 + d123_2 + d123_3)
        out_ia, out_ib = ia, ib
        out_a = jnp.stack([d123_1 * d123, d123_2 * d123, d123_3 * d123])
        out_count = jnp.int32(3)
        # The first region that holds, as Box2D's `if` chain tests them.
        for cond, order, weights, n in reversed(cases):
            order = jnp.array(order)
            out_ia = jnp.where(cond, ia[order], out_ia)
            out_ib = jnp.where(cond, ib[order], out_ib)
            out_a = jnp.where(cond, jnp.stack([jnp.asarray(x, dtype) for x in weights]), out_a)
            out_count = jnp.where(cond, n, out_count)
        return out_ia, out_ib, out_a, out_count

    def body(carry):
        it, _, count, ia, ib, a = carry
        save_count, save_a, save_b = count, ia, ib
        _, _, w = support_points(ia, ib)
        ia2, ib2, a2, c2 = solve2(ia, ib, a, w)
        ia3, ib3, a3, c3 = solve3(ia, ib, a, w)
        ia = jnp.where(count == 2, ia2, jnp.where(count == 3, ia3, ia))
        ib = jnp.where(count == 2, ib2, jnp.where(count == 3, ib3, ib))
        a = jnp.where(count == 2, a2, jnp.where(count == 3, a3, a))
        count = jnp.where(count == 2, c2, jnp.where(count == 3, c3, count))
        _, _, w = support_points(ia, ib)
        # The search direction: toward the origin from the point or the segment.
        e12 = w[1] - w[0]
        sgn = _cross(e12, -w[0])
        d = jnp.where(
            count == 1, -w[0], jnp.where(sgn > 0.0, jnp.stack([-e12[1], e12[0]]), jnp.stack([e12[1], -e12[0]]))
        )
        stop = (count == 3) | (_dot(d, d) < _FLT_EPSILON * _FLT_EPSILON)
        new_a = _support(verts_a, count_a, _rotate_back(xf_a, -d))
        new_b = _support(verts_b, count_b, _rotate_back(xf_b, d))
        duplicate = jnp.any((slots < save_count) & (save_a == new_a) & (save_b == new_b))
        add = ~stop & ~duplicate
        ia = jnp.where(add & (slots == count), new_a, ia)
        ib = jnp.where(add & (slots == count), new_b, ib)
        it = it + jnp.where(stop, 0, 1)
        return it, stop | duplicate, count + add.astype(jnp.int32), ia, ib, a

    init = (jnp.int32(0), jnp.zeros((), bool), count, ia, ib, a)
    _, _, count, ia, ib, a = jax.lax.while_loop(lambda c: (c[0] < 20) & ~c[1], body, init)
    wa, wb, w = support_points(ia, ib)
    live = (slots < count)[:, None]
    # One point: its own witnesses (a cached point's weight is not kept); two or three: the
    # weighted sums (three: the origin is inside, both witnesses the same point).
    point_a = jnp.where(count == 1, wa[0], jnp.sum(jnp.where(live, a[:, None] * wa, 0.0), axis=0))
    point_b = jnp.where(
        count == 1, wb[0], jnp.where(count == 3, point_a, jnp.sum(jnp.where(live, a[:, None] * wb, 0.0), axis=0))
    )
    gap = point_a - point_b
    return jnp.sqrt(_dot(gap, gap)), (count, ia, ib, metric(count, w))


def time_of_impact(verts_a, count_a, vertices, normals, count, local_center, c0, a0, c1, a1):
    """`b2TimeOfImpact` of a static shape (A: an edge or a polygon, on the ground at the origin)
    and a body's polygon (B) swept from `(c0, a0)` to
    `(c1, a1)`: conservative advancement along separating axes (`b2SeparationFunction`), each
    root found by Box2D's mix of bisection and the secant rule, the distance by GJK
    (`gjk_distance`), to the first time the cores come within `TOI_TARGET` (to `TOI_TOLERANCE`).

    Args:
        verts_a: `[Va, 2]` A's vertices (world frame): an edge's two end points, or a polygon's
            vertices in hull order (padded past `count_a`).
        count_a: A's vertices (2 for an edge).
        vertices: `[V, 2]` the body's polygon's vertices in its frame (padded past `count`).
        normals: `[V, 2]` the polygon's outward edge normals (unused: Box2D's search needs none).
        count: Its vertices.
        local_center: `[2]` its centre of mass in its frame.
        c0: `[2]` the sweep's start: the centre of mass (world frame).
        a0: The sweep's start angle, radians.
        c1: `[2]` the sweep's end: the centre of mass.
        a1: The sweep's end angle.

    Returns:
        `(touching, t)`: whether Box2D's search ends touching (its `e_touching`), and when (a
        fraction of the sweep; 1 otherwise).
    """
    del normals
    dtype = vertices.dtype
    zero = jnp.zeros((), dtype)
    xf_a = (jnp.zeros((2,), dtype), jnp.ones((), dtype), zero)  # the ground's, for GJK
    # b2Sweep::Normalize: the angles shifted by whole turns, a0 into [0, 2 pi).
    two_pi = jnp.asarray(2.0 * math.pi, dtype)
    shift = two_pi * jnp.floor(a0 / two_pi)
    a0, a1 = a0 - shift, a1 - shift
    target, tolerance = jnp.asarray(TOI_TARGET, dtype), jnp.asarray(TOI_TOLERANCE, dtype)

    def xf_b(t):
        return _sweep_transform(c0, a0, c1, a1, local_center, t)

    # The separation function's kinds (b2SeparationFunction::Type).
    points, face_a, face_b = 0, 1, 2

    # A's ground body is at the origin: its points and directions are the world's.
    def initialize(cache, t1):
        n, ia, ib, _ = cache
        xb = xf_b(t1)
        kind = jnp.where(n == 1, points, jnp.where(ia[0] == ia[1], face_b, face_a))
        # e_points: from A's witness to B's.
        axis_points = _normalize(_at(xb, vertices[ib[0]]) - verts_a[ia[0]])
        # e_faceB: B's segment's normal, pointing at A's point.
        b1, b2 = vertices[ib[0]], vertices[ib[1]]
        axis_b = _normalize(jnp.stack([(b2 - b1)[1], -(b2 - b1)[0]]))
        local_b = 0.5 * (b1 + b2)
        s_b = _dot(verts_a[ia[0]] - _at(xb, local_b), _rotated(xb, axis_b))
        axis_b = jnp.where(s_b < 0.0, -axis_b, axis_b)
        # e_faceA: A's segment's normal, pointing at B's point.
        a_1, a_2 = verts_a[ia[0]], verts_a[ia[1]]
        axis_a = _normalize(jnp.stack([(a_2 - a_1)[1], -(a_2 - a_1)[0]]))
        local_a = 0.5 * (a_1 + a_2)
        s_a = _dot(_at(xb, vertices[ib[0]]) - local_a, axis_a)
        axis_a = jnp.where(s_a < 0.0, -axis_a, axis_a)
        axis = jnp.where(kind == points, axis_points, jnp.where(kind == face_a, axis_a, axis_b))
        local = jnp.where(kind == face_a, local_a, local_b)
        return kind, axis, local

    def evaluate(fcn, ia, ib, t):
        """`b2SeparationFunction::Evaluate`: the separation of the witnesses along the axis,
        from A to B (e_faceB's, Box2D's A-from-B form, negated on both sides: the same bits)."""
        kind, axis, local = fcn
        xb = xf_b(t)
        on_b = kind == face_b
        point_a = jnp.where(kind == face_a, local, verts_a[ia])
        point_b = _at(xb, jnp.where(on_b, local, vertices[ib]))
        normal = jnp.where(on_b, -_rotated(xb, axis), axis)
        return _dot(point_b - point_a, normal)

    def find_min_separation(fcn, t):
        """`b2SeparationFunction::FindMinSeparation`: the deepest witnesses at `t` (an index
        a face kind does not use is ignored by `evaluate`, -1 in Box2D)."""
        kind, axis, _ = fcn
        xb = xf_b(t)
        ib = _support(vertices, count, _rotate_back(xb, -axis))
        ia = _support(verts_a, count_a, jnp.where(kind == face_b, -_rotated(xb, axis), axis))
        return evaluate(fcn, ia, ib, t), ia, ib

    def root(fcn, ia, ib, t1, t2, s1, s2):
        """The 1-D root of `separation(t) - target` on [t1, t2], to the tolerance (50 tries)."""

        def body(carry):
            k, found, a1_, a2_, s1_, s2_, t2_ = carry
            t = jnp.where(k % 2 == 1, a1_ + (target - s1_) * (a2_ - a1_) / (s2_ - s1_), 0.5 * (a1_ + a2_))
            s = evaluate(fcn, ia, ib, t)
            hit = jnp.abs(s - target) < tolerance
            above = s > target
            return (
                k + 1,
                hit,
                jnp.where(~hit & above, t, a1_),
                jnp.where(~hit & ~above, t, a2_),
                jnp.where(~hit & above, s, s1_),
                jnp.where(~hit & ~above, s, s2_),
                jnp.where(hit, t, t2_),
            )

        init = (jnp.int32(0), jnp.zeros((), bool), t1, t2, s1, s2, t2)
        return jax.lax.while_loop(lambda c: (c[0] < 50) & ~c[1], body, init)[-1]

    # Outcomes: 0 running, 1 touching, 2 separated, 3 failed or overlapped.
    running, touching, separated, failed = 0, 1, 2, 3

    def push_back(fcn, t1):
        """The inner loop: resolve the deepest point until it advances, decides, or runs out."""

        def body(carry):
            it, state, advanced, t1_, t2, t = carry
            s2, ia, ib = find_min_separation(fcn, t2)
            sep = s2 > target + tolerance
            adv = ~sep & (s2 > target - tolerance)
            s1 = evaluate(fcn, ia, ib, t1_)
            deep = ~sep & ~adv & (s1 < target - tolerance)
            touch = ~sep & ~adv & ~deep & (s1 <= target + tolerance)
            solve = ~sep & ~adv & ~deep & ~touch
            new_t2 = jnp.where(solve, root(fcn, ia, ib, t1_, t2, s1, s2), t2)
            state = jnp.where(sep, separated, jnp.where(deep, failed, jnp.where(touch, touching, running)))
            state = state.astype(jnp.int32)
            t = jnp.where(sep, 1.0, jnp.where(deep | touch, t1_, t))
            return it + 1, state, adv, jnp.where(adv, t2, t1_), new_t2, t

        init = (jnp.int32(0), jnp.int32(running), jnp.zeros((), bool), t1, jnp.ones((), dtype), jnp.ones((), dtype))
        _, state, _, t1, _, t = jax.lax.while_loop(
            lambda c: (c[0] < MAX_POLYGON_VERTICES) & (c[1] == running) & ~c[2], body, init
        )
        return state, t1, t

    def outer(carry):
        it, state, t1, t, cache = carry
        d, cache = gjk_distance(verts_a, count_a, xf_a, vertices, count, xf_b(t1), cache)
        overlapped = d <= 0.0
        close = ~overlapped & (d < target + tolerance)
        fcn = initialize(cache, t1)
        inner_state, new_t1, inner_t = push_back(fcn, t1)
        state = jnp.where(overlapped, failed, jnp.where(close, touching, inner_state)).astype(jnp.int32)
        t = jnp.where(overlapped, 0.0, jnp.where(close, t1, inner_t))
        t1 = jnp.where(overlapped | close, t1, new_t1)
        it = it + 1
        # Root finder stuck: Box2D gives up at t1 (a failure, not an impact).
        stuck = (state == running) & (it == MAX_TOI_ITERATIONS)
        return it, jnp.where(stuck, failed, state).astype(jnp.int32), t1, jnp.where(stuck, t1, t), cache

    cache = (jnp.int32(0), jnp.zeros((3,), jnp.int32), jnp.zeros((3,), jnp.int32), zero)
    init = (jnp.int32(0), jnp.int32(running), zero, jnp.ones((), dtype), cache)
    _, state, _, t, _ = jax.lax.while_loop(lambda c: c[1] == running, outer, init)
    hit = state == touching
    return hit, jnp.where(hit, t, 1.0)


def _solve_toi_island(world, b, slots, center, angle, v, w, h, keep):
    """`b2Island::SolveTOI` for body `b` and its touching contacts with the ground.

    Returns:
        `(safe_center, safe_angle, center, angle, v, w)`: the pose the position solve reached
        (the sweep's new start), then the pose and velocities after the remaining `h` seconds.
    """
    inv_mass, inv_inertia, local_center = world.inv_mass[b], world.inv_inertia[b], world.local_center[b]
    k = slots["count"].shape[0]
    contacts = [[_position_scalars(jax.tree.map(lambda x, s=s: x[s], slots)) for s in range(k)]]
    masses = [(inv_mass, inv_inertia, Vec2.of(local_center))]
    [(c, a)], _ = _position_iterations(
        world, (), contacts, {}, masses, [(Vec2.of(center), angle)], 20, TOI_BAUMGARTE, -1.5 * LINEAR_SLOP, keep
    )
    center, angle = c.array(), a

    # No warm starting: the discrete solve already applied those impulses.
    cons = jax.vmap(_contact_velocity_constraint, in_axes=(0, None, None, None, None, None, None, None))(
        slots, center, angle, v, w, inv_mass, inv_inertia, local_center
    )
    contacts = [[_contact_scalars(jax.tree.map(lambda x, s=s: x[s], cons)) for s in range(k)]]
    zero = jnp.zeros_like(angle)
    zeros = [[(zero, zero)] * k]
    [(v, w)], _, _, _ = _velocity_iterations(
        world,
        (),
        contacts,
        {},
        [(inv_mass, inv_inertia)],
        [(Vec2.of(v), w)],
        zeros,
        zeros,
        {},
        h,
        world.velocity_iterations,
        keep,
    )
    v, w = _clamp_motion(v.array(), w, h)
    return center, angle, center + h * v, angle + h * w, v, w


def _clamp_motion(v, w, h):
    """Box2D's caps on one step's translation (`MAX_TRANSLATION`) and rotation."""
    translation = h * v
    t2 = _dot(translation, translation)
    v = jnp.where((t2 > MAX_TRANSLATION**2)[..., None], v * (MAX_TRANSLATION / jnp.sqrt(t2))[..., None], v)
    rotation = h * w
    w = jnp.where(rotation * rotation > MAX_ROTATION**2, w * (MAX_ROTATION / jnp.abs(rotation)), w)
    return v, w


# Time-of-impact candidates searched together (`_solve_toi`): the search loops over a step's
# candidates this many at a time.
_TOI_CHUNK = 2


def polygon_separation(verts_a, normals_a, count_a, verts_b, normals_b, count_b):
    """A lower bound on the distance between two convex polygons' cores (same frame): the
    largest gap along either polygon's face normals (separating axes), 0 when none separates.

    Args:
        verts_a: `[Va, 2]` A's vertices (padded past `count_a`).
        normals_a: `[Va, 2]` A's outward edge normals.
        count_a: A's vertices.
        verts_b: `[Vb, 2]` B's vertices, likewise.
        normals_b: `[Vb, 2]` B's outward edge normals.
        count_b: B's vertices.

    Returns:
        The bound (the distance itself when the closest points are a vertex and a face).
    """

    def gap(vs, ns, n, ws, m):
        # [face of one, vertex of the other]: each face's distance to the other's nearest vertex.
        d = ns[:, None, 0] * (ws[None, :, 0] - vs[:, None, 0]) + ns[:, None, 1] * (ws[None, :, 1] - vs[:, None, 1])
        d = jnp.min(jnp.where(jnp.arange(ws.shape[0]) < m, d, jnp.inf), axis=1)
        return jnp.max(jnp.where(jnp.arange(vs.shape[0]) < n, d, -jnp.inf))

    best = jnp.maximum(
        gap(verts_a, normals_a, count_a, verts_b, count_b), gap(verts_b, normals_b, count_b, verts_a, count_a)
    )
    return jnp.maximum(best, 0.0)


def static_proxies(world: World) -> tuple[jax.Array, jax.Array]:
    """Each static shape as `time_of_impact`'s proxy A.

    Args:
        world: The world.

    Returns:
        `([S, Va, 2] vertices, [S] counts)`: the edges' two end points (padded as the
        polygons are), then the polygons' vertices.
    """
    edges = jnp.stack([world.edge_v1, world.edge_v2], axis=1)
    edge_count = jnp.full((world.num_edges,), 2, jnp.int32)
    if not world.num_polygons:
        return edges, edge_count
    width = world.poly_vertices.shape[1]
    edges = jnp.concatenate([edges, jnp.repeat(edges[:, 1:], width - 2, axis=1)], axis=1)
    return jnp.concatenate([edges, world.poly_vertices]), jnp.concatenate([edge_count, world.poly_count])


def toi_candidates(world: World, c0, a0, c1, a1) -> jax.Array:
    """The (body, static shape) pairs that may have a time of impact during the bodies' sweeps.

    Every point of a body moves at most `|c1 - c0| + |a1 - a0| r` along its sweep (r: its
    farthest vertex from its centre of mass), so a pair's distance stays above
    `(d0 + d1 - that) / 2`, d0 and d1 its distances at the sweep's ends. A pair whose bound
    stays clear of `TOI_TARGET` (with its tolerance and a margin for rounding) has no impact.

    Args:
        world: The world.
        c0: `[B, 2]` each sweep's start: the centre of mass.
        a0: `[B]` the start angle.
        c1: `[B, 2]` each sweep's end.
        a1: `[B]` the end angle.

    Returns:
        `[B, S]` bool: every pair for which `time_of_impact` can find an impact is True.
    """
    offsets = world.vertices - world.local_center[:, None, :]
    valid_vertex = jnp.arange(world.vertices.shape[1]) < world.vertex_count[:, None]
    radius = jnp.max(jnp.where(valid_vertex, jnp.sqrt(_dot(offsets, offsets)), 0.0), axis=1)
    reach = jnp.sqrt(_dot(c1 - c0, c1 - c0)) + jnp.abs(a1 - a0) * radius
    # The margin allows for rounding (float32 distances of ~10 m), far above it.
    threshold = TOI_TARGET + TOI_TOLERANCE + 2.0 * LINEAR_SLOP
    world = jax.tree.map(jnp.asarray, world)
    e_count = world.num_edges

    def per_body(vertices, normals, count, local_center, c0, a0, c1, a1, reach):
        # Every point of the sweep stays within `reach` of its start: the broad phase's box.
        p0, p1 = c0 - rotate(a0, local_center), c1 - rotate(a1, local_center)
        near = near_statics(world, vertices, p0, a0, reach + AABB_EXTENSION) if world.max_near else None
        v0, n0 = p0 + rotate(a0, vertices), rotate(a0, normals)
        v1, n1 = p1 + rotate(a1, vertices), rotate(a1, normals)

        def on_edges(index):
            d = jax.vmap(segment_polygon_distance, in_axes=(0, 0, None, None, None))
            e1, e2 = world.edge_v1[index], world.edge_v2[index]
            return 0.5 * (d(e1, e2, v0, n0, count) + d(e1, e2, v1, n1, count) - reach) <= threshold

        edges = _on_near(on_edges, None if near is None else near[:e_count], world.max_near, e_count)
        if not world.num_polygons:
            return edges

        def on_polygons(index):
            d = jax.vmap(polygon_separation, in_axes=(0, 0, 0, None, None, None))
            pv, pn, pc = world.poly_vertices[index], world.poly_normals[index], world.poly_count[index]
            return 0.5 * (d(pv, pn, pc, v0, n0, count) + d(pv, pn, pc, v1, n1, count) - reach) <= threshold

        polygons = _on_near(on_polygons, None if near is None else near[e_count:], world.max_near, world.num_polygons)
        return jnp.concatenate([edges, polygons])

    shapes = (world.vertices, world.normals, world.vertex_count, world.local_center)
    return jax.vmap(per_body)(*shapes, c0, a0, c1, a1, reach)


def _solve_toi(world: World, sweep_start, state: WorldState, dt, max_events: int, keep):
    """`b2World::SolveTOI`: handle time-of-impact events, earliest first, until none is left.

    Each event moves its body back to the time its core came within `TOI_TARGET` of a static shape,
    updates the body's contacts there (their begin and end events count), pushes it out and
    solves its contacts' velocities (no joints: Box2D's TOI island holds the body and the
    ground), then integrates the rest of the step.

    The search for the earliest event runs `time_of_impact` only on the pairs
    `toi_candidates` keeps (the others have no impact), a few at a time in index order, so the
    earliest event and its ties come out as a search of every pair would give them.

    Args:
        world: The world.
        sweep_start: `(center, angle)` at the start of the step (the sweeps' `c0`, `a0`).
        state: The state after the discrete solve (the sweeps' ends), its manifolds and the
            step's `began` / `ended` events so far.
        dt: The step.
        max_events: The most events handled in one step.
        keep: `_keep`'s function.

    Returns:
        The state after the events.
    """
    b_count, e_count = world.num_bodies, world.num_statics
    dtype = state.center.dtype
    proxy_vertices, proxy_count = static_proxies(world)

    def toi_pair(pair, c0, a0, c1, a1):
        b, e = pair // e_count, pair % e_count
        return time_of_impact(
            proxy_vertices[e],
            proxy_count[e],
            world.vertices[b],
            world.normals[b],
            world.vertex_count[b],
            world.local_center[b],
            c0[b],
            a0[b],
            c1[b],
            a1[b],
        )

    def next_event(sweep, st, enabled, toi_count, cache, fresh):
        """The earliest time of impact over every pair: `(done, b, e, alpha, cache, fresh)`.

        Box2D keeps each contact's time of impact until an event moves one of its bodies
        (`e_toiFlag`); so here: `cache` `[B * S]` holds each pair's, valid where `fresh`, and only
        the other candidates are searched.
        """
        c0, a0, alpha0 = sweep
        live = (world.collides & enabled & (toi_count <= MAX_SUB_STEPS)).reshape(-1)
        candidate = live & toi_candidates(world, c0, a0, st.center, st.angle).reshape(-1)

        def search(carry):
            remaining, cache = carry
            pairs = jnp.nonzero(remaining, size=_TOI_CHUNK, fill_value=0)[0].astype(jnp.int32)
            valid = jnp.arange(_TOI_CHUNK) < jnp.sum(remaining)
            touching, beta = jax.vmap(toi_pair, in_axes=(0, None, None, None, None))(pairs, c0, a0, st.center, st.angle)
            a = alpha0[pairs // e_count]
            alpha = jnp.where(touching, jnp.minimum(a + (1.0 - a) * beta, 1.0), 1.0)
            stored = cache.at[jnp.where(valid, pairs, cache.shape[0])].set(alpha, mode="drop")
            return remaining.at[pairs].set(False), stored

        # A pair no candidate has no impact.
        cache = jnp.where(fresh | candidate, cache, 1.0)
        _, cache = jax.lax.while_loop(lambda c: jnp.any(c[0]), search, (candidate & ~fresh, cache))
        # The earliest; on a tie the lowest pair index.
        pair = jnp.argmin(jnp.where(live, cache, 1.0)).astype(jnp.int32)
        min_alpha = jnp.where(live[pair], cache[pair], 1.0)
        done = min_alpha >= 1.0 - 10.0 * _FLT_EPSILON
        return done, pair // e_count, pair % e_count, min_alpha, cache, jnp.ones_like(fresh)

    def body(carry):
        i, _, sweep, st, enabled, toi_count, cache, fresh = carry
        done, b, e, min_alpha, cache, fresh = next_event(sweep, st, enabled, toi_count, cache, fresh)
        c0, a0, alpha0 = sweep

        # Advance body b to the time of impact and update its contacts there.
        frac = (min_alpha - alpha0[b]) / (1.0 - alpha0[b])
        pose_c = c0[b] + frac * (st.center[b] - c0[b])
        pose_a = a0[b] + frac * (st.angle[b] - a0[b])
        p = pose_c - rotate(pose_a, world.local_center[b])
        near = near_statics(world, world.vertices[b], p, pose_a, AABB_EXTENSION) if world.max_near else None
        m = collide_statics(
            world, world.vertices[b], world.normals[b], world.vertex_count[b], world.centroid[b], p, pose_a, near
        )
        m["count"] = jnp.where(world.collides[b], m["count"], 0)
        normal, tangent = _carry_impulses(
            m["count"],
            m["keys"],
            st.manifold_count[b],
            st.manifold_key[b],
            st.normal_impulse[b],
            st.tangent_impulse[b],
        )
        hit = m["count"][e] > 0
        # The event's contact is updated; the body's others only when it touches.
        updated = jnp.where(hit, jnp.ones((e_count,), bool), jnp.arange(e_count) == e) & ~done
        was = st.manifold_count[b] > 0
        now = m["count"] > 0
        row = lambda old, new: old.at[b].set(jnp.where(updated.reshape((-1,) + (1,) * (new.ndim - 1)), new, old[b]))  # noqa: E731
        st = st.replace(
            manifold_count=row(st.manifold_count, m["count"]),
            manifold_key=row(st.manifold_key, m["keys"]),
            normal_impulse=row(st.normal_impulse, normal),
            tangent_impulse=row(st.tangent_impulse, tangent),
            began=st.began.at[b].set(st.began[b] | (updated & now & ~was)),
            ended=st.ended.at[b].set(st.ended[b] | (updated & was & ~now)),
            event_rank=st.event_rank.at[b].set(jnp.where(updated & (now != was), 2 + i, st.event_rank[b])),
            last_began=st.last_began.at[b].set(jnp.where(updated & (now != was), now, st.last_began[b])),
        )
        toi_count = toi_count.at[b, e].add(jnp.where(done, 0, 1))
        enabled = enabled.at[b, e].set(enabled[b, e] & (done | hit))

        # The island: the event's contact first, then the body's other touching contacts.
        rank = jnp.where(jnp.arange(e_count) == e, -1, e_count - 1 - jnp.arange(e_count))
        order = jnp.argsort(jnp.where(now, rank, e_count + 1))[: world.max_contacts]
        slots = {key: val[order] for key, val in m.items()}
        slots["count"] = jnp.where(now[order], slots["count"], 0)
        friction, restitution = static_friction(world)
        slots["friction"] = jnp.sqrt(world.friction[b] * friction[order])
        slots["restitution"] = jnp.maximum(world.restitution[b], restitution[order])
        h = (1.0 - min_alpha) * dt
        safe_c, safe_a, new_c, new_a, v, w = _solve_toi_island(
            world, b, slots, pose_c, pose_a, st.linear_velocity[b], st.angular_velocity[b], h, keep
        )
        solved = hit & ~done
        st = st.replace(
            center=st.center.at[b].set(jnp.where(solved, new_c, st.center[b])),
            angle=st.angle.at[b].set(jnp.where(solved, new_a, st.angle[b])),
            linear_velocity=st.linear_velocity.at[b].set(jnp.where(solved, v, st.linear_velocity[b])),
            angular_velocity=st.angular_velocity.at[b].set(jnp.where(solved, w, st.angular_velocity[b])),
        )
        sweep = (
            c0.at[b].set(jnp.where(solved, safe_c, c0[b])),
            a0.at[b].set(jnp.where(solved, safe_a, a0[b])),
            alpha0.at[b].set(jnp.where(solved, min_alpha, alpha0[b])),
        )
        # The event moved body b: its pairs' times of impact are searched again.
        fresh = fresh & (jnp.arange(b_count * e_count) // e_count != b)
        return i + 1, done, sweep, st, enabled, toi_count, cache, fresh

    sweep = (sweep_start[0], sweep_start[1], jnp.zeros((b_count,), dtype))
    enabled = jnp.ones((b_count, e_count), bool)
    toi_count = jnp.zeros((b_count, e_count), jnp.int32)
    cache = jnp.ones((b_count * e_count,), dtype)
    fresh = jnp.zeros((b_count * e_count,), bool)
    init = (jnp.int32(0), jnp.zeros((), bool), sweep, state, enabled, toi_count, cache, fresh)
    # Each trip searches for the earliest event and handles it (nothing, when there is none);
    # the loop stops at the first search that finds none.
    return jax.lax.while_loop(lambda c: (c[0] < max_events) & ~c[1], body, init)[3]


# ---------------------------------------------------------------------------------------------
# The step (b2World::Step)
# ---------------------------------------------------------------------------------------------


def _carry_impulses(count, keys, old_count, old_keys, old_normal, old_tangent):
    """`b2Contact::Update`'s warm-start matching: each new point takes the impulses of the old
    point with its feature key, or 0. Broadcasts over leading axes; points on the last."""
    slot = jnp.arange(2)
    new_valid = slot < count[..., None]
    old_valid = slot < old_count[..., None]
    # [..., new point, old point]
    match = (keys[..., :, None] == old_keys[..., None, :]) & old_valid[..., None, :]
    # The first matching old point of two (written out: XLA folds an argmax over constant
    # arrays slowly, as a reset's are).
    first = jnp.where(match[..., 0], 0, 1)
    found = (match[..., 0] | match[..., 1]) & new_valid
    normal = jnp.where(found, jnp.take_along_axis(old_normal, first, axis=-1), 0.0)
    tangent = jnp.where(found, jnp.take_along_axis(old_tangent, first, axis=-1), 0.0)
    return normal, tangent


def _update_contacts(world: World, state: WorldState):
    """`b2ContactManager::Collide`: new manifolds, with matching old points' impulses."""
    m = collide(world, state)
    normal, tangent = _carry_impulses(
        m["count"], m["keys"], state.manifold_count, state.manifold_key, state.normal_impulse, state.tangent_impulse
    )
    return m, normal, tangent


def _select_slots(world: World, m, normal_impulse, tangent_impulse):
    """The touching contacts each body solves, `[B, max_contacts]`, in contact-list order.

    Returns:
        `(slots, normal, tangent, static_index)`: the slots' manifolds with their friction and
        restitution, their impulses, and the static shape each slot holds (-1: empty).
    """
    touching = m["count"] > 0
    # Edge index descending: the order of contacts created in one broad-phase update.
    order = jnp.arange(world.num_statics)[::-1]

    def per_body(t):
        idx = jnp.nonzero(t[order], size=world.max_contacts, fill_value=-1)[0]
        return jnp.where(idx >= 0, order[jnp.maximum(idx, 0)], -1)

    static_index = jax.vmap(per_body)(touching)
    gather_e = jnp.maximum(static_index, 0)

    def take(x):
        index = gather_e.reshape(gather_e.shape + (1,) * (x.ndim - 2))
        return jnp.take_along_axis(x, index, axis=1)

    slots = {k: take(v) for k, v in m.items()}
    slots["count"] = jnp.where(static_index >= 0, slots["count"], 0)
    # b2MixFriction and b2MixRestitution.
    friction, restitution = static_friction(world)
    slots["friction"] = jnp.sqrt(world.friction[:, None] * friction[gather_e])
    slots["restitution"] = jnp.maximum(world.restitution[:, None], restitution[gather_e])
    return slots, take(normal_impulse), take(tangent_impulse), static_index


@functools.partial(jax.jit, static_argnames="dt")
def step(world: World, state: WorldState, dt: float) -> WorldState:
    """One `b2World::Step(dt, world.velocity_iterations, world.position_iterations)`.

    Args:
        world: Shapes, masses, edges, joints and solver settings.
        state: The state before the step (forces applied since the last step included).
        dt: The time step (s).

    Returns:
        The state after the step: moved bodies, the manifolds found at the start of the step
        (`state.touching`), impulses for warm starting, sleep timers, forces cleared.
    """
    world = jax.tree.map(jnp.asarray, world)
    dtype = state.center.dtype
    dt = jnp.asarray(dt, dtype)
    b_count = world.num_bodies

    # A sleeping island's contacts are not updated (Box2D skips pairs with no awake body), and
    # its bodies do not move, so its step only clears the forces.
    m, carried_normal, carried_tangent = _update_contacts(world, state)
    dt_ratio = state.inv_dt0 * dt
    slots, slot_normal, slot_tangent, static_index = _select_slots(
        world, m, carried_normal * dt_ratio, carried_tangent * dt_ratio
    )

    inv_mass, inv_inertia, local_center = world.inv_mass, world.inv_inertia, world.local_center
    # A 1.0 that XLA cannot see through, for `_keep`.
    keep = _keep(state.awake.astype(dtype) + (~state.awake).astype(dtype))

    # Integrate velocities.
    lin = state.linear_velocity + dt * (world.gravity + inv_mass[:, None] * state.force)
    ang = state.angular_velocity + dt * inv_inertia * state.torque
    center, angle = state.center, state.angle

    k = world.max_contacts
    contact_init = jax.vmap(
        jax.vmap(_contact_velocity_constraint, in_axes=(0, None, None, None, None, None, None, None)),
        in_axes=(0, 0, 0, 0, 0, 0, 0, 0),
    )
    cons = contact_init(slots, center, angle, lin, ang, inv_mass, inv_inertia, local_center)

    warm = jax.vmap(_warm_start_contact)
    for s in range(k):
        con = jax.tree.map(lambda x, s=s: x[:, s], cons)
        lin, ang = warm(con, slot_normal[:, s], slot_tangent[:, s], lin, ang, inv_mass, inv_inertia)

    order = joint_order(b_count, world.joint_bodies)
    joint_cons = {}
    for j in order:
        jc = _joint_velocity_constraint(
            world,
            j,
            state.joint_impulse * dt_ratio,
            state.joint_motor_impulse * dt_ratio,
            state.joint_limit_state,
            angle,
        )
        p = jc["impulse"][:2]
        a, b = world.joint_bodies[j]
        lin = lin.at[a].add(-inv_mass[a] * p).at[b].add(inv_mass[b] * p)
        ang = ang.at[a].add(-inv_inertia[a] * (_cross(jc["r_a"], p) + jc["motor"] + jc["impulse"][2]))
        ang = ang.at[b].add(inv_inertia[b] * (_cross(jc["r_b"], p) + jc["motor"] + jc["impulse"][2]))
        joint_cons[j] = jc

    # The iterations, on scalars.
    bodies = range(b_count)
    contacts = [[_contact_scalars(jax.tree.map(lambda x, b=b, s=s: x[b, s], cons)) for s in range(k)] for b in bodies]
    joints = {j: dict(jc, r_a=Vec2.of(jc["r_a"]), r_b=Vec2.of(jc["r_b"])) for j, jc in joint_cons.items()}
    joint_impulse = {j: (tuple(jc["impulse"][i] for i in range(3)), jc["motor"]) for j, jc in joint_cons.items()}
    vel, normal, tangent, joint_out = _velocity_iterations(
        world,
        order,
        contacts,
        joints,
        [(inv_mass[b], inv_inertia[b]) for b in bodies],
        [(Vec2.of(lin[b]), ang[b]) for b in bodies],
        [[_pair(slot_normal[b, s]) for s in range(k)] for b in bodies],
        [[_pair(slot_tangent[b, s]) for s in range(k)] for b in bodies],
        joint_impulse,
        dt,
        world.velocity_iterations,
        keep,
    )
    lin = jnp.stack([v.array() for v, _ in vel])
    ang = jnp.stack([w for _, w in vel])
    slot_normal = jnp.stack([jnp.stack([jnp.stack(n) for n in row]) for row in normal])
    slot_tangent = jnp.stack([jnp.stack([jnp.stack(t) for t in row]) for row in tangent])

    # Integrate positions, with Box2D's caps on one step's translation and rotation.
    translation = dt * lin
    t2 = _dot(translation, translation)
    lin = jnp.where((t2 > MAX_TRANSLATION**2)[:, None], lin * (MAX_TRANSLATION / jnp.sqrt(t2))[:, None], lin)
    rotation = dt * ang
    ang = jnp.where(rotation * rotation > MAX_ROTATION**2, ang * (MAX_ROTATION / jnp.abs(rotation)), ang)
    center = center + dt * lin
    angle = angle + dt * ang

    pose, position_solved = _position_iterations(
        world,
        order,
        [[_position_scalars(jax.tree.map(lambda x, b=b, s=s: x[b, s], slots)) for s in range(k)] for b in bodies],
        {j: (jc["limit"], jc["motor_mass"]) for j, jc in joint_cons.items()},
        [(inv_mass[b], inv_inertia[b], Vec2.of(local_center[b])) for b in bodies],
        [(Vec2.of(center[b]), angle[b]) for b in bodies],
        world.position_iterations,
        BAUMGARTE,
        -3.0 * LINEAR_SLOP,
        keep,
    )
    center = jnp.stack([c.array() for c, _ in pose])
    angle = jnp.stack([a for _, a in pose])

    # Sleep: the island sleeps once every body has rested TIME_TO_SLEEP with positions solved.
    resting = (ang * ang <= ANGULAR_SLEEP_TOLERANCE**2) & (_dot(lin, lin) <= LINEAR_SLEEP_TOLERANCE**2)
    sleep_time = jnp.where(resting, state.sleep_time + dt, 0.0)
    min_sleep = jnp.min(jnp.where(resting, sleep_time, 0.0))
    falls_asleep = (min_sleep >= TIME_TO_SLEEP) & position_solved
    lin = jnp.where(falls_asleep, 0.0, lin)
    ang = jnp.where(falls_asleep, 0.0, ang)
    sleep_time = jnp.where(falls_asleep, 0.0, sleep_time)

    # Store impulses for warm starting: the points the solver used get its impulses; a point
    # it dropped (an ill-conditioned pair, or a contact past max_contacts) keeps what it carried.
    used = jnp.arange(2) < cons["count"][..., None]
    rows = jnp.arange(b_count)[:, None]
    scatter_e = jnp.where(static_index >= 0, static_index, world.num_statics)  # out of range: dropped
    gather_e = jnp.maximum(static_index, 0)[..., None]
    stored_n = jnp.where(used, slot_normal, jnp.take_along_axis(carried_normal, gather_e, axis=1))
    stored_t = jnp.where(used, slot_tangent, jnp.take_along_axis(carried_tangent, gather_e, axis=1))
    normal_impulse = carried_normal.at[rows, scatter_e].set(stored_n, mode="drop")
    tangent_impulse = carried_tangent.at[rows, scatter_e].set(stored_t, mode="drop")

    joint_impulse = state.joint_impulse
    joint_motor = state.joint_motor_impulse
    joint_limit = state.joint_limit_state
    for j in order:
        joint_impulse = joint_impulse.at[j].set(jnp.stack(joint_out[j][0]))
        joint_motor = joint_motor.at[j].set(joint_out[j][1])
        joint_limit = joint_limit.at[j].set(joint_cons[j]["limit"])

    began = (m["count"] > 0) & ~state.touching
    ended = state.touching & (m["count"] == 0)
    stepped = WorldState(
        center=center,
        angle=angle,
        linear_velocity=lin,
        angular_velocity=ang,
        force=jnp.zeros_like(state.force),
        torque=jnp.zeros_like(state.torque),
        sleep_time=sleep_time,
        awake=~falls_asleep,
        manifold_count=m["count"],
        manifold_key=m["keys"],
        normal_impulse=normal_impulse,
        tangent_impulse=tangent_impulse,
        joint_impulse=joint_impulse,
        joint_motor_impulse=joint_motor,
        joint_limit_state=joint_limit,
        began=began,
        ended=ended,
        event_rank=jnp.where(began, 0, jnp.where(ended, 1, -1)),
        last_began=began,
        inv_dt0=1.0 / dt,
    )
    if world.continuous:
        after_toi = _solve_toi(world, (state.center, state.angle), stepped, dt, world.max_toi_events, keep)
        stepped = jax.tree.map(lambda x, y: jnp.where(falls_asleep, x, y), stepped, after_toi)
    no_events = jnp.zeros_like(state.began)
    asleep = state.replace(
        force=jnp.zeros_like(state.force),
        torque=jnp.zeros_like(state.torque),
        began=no_events,
        ended=no_events,
        event_rank=jnp.full_like(state.event_rank, -1),
        last_began=no_events,
        inv_dt0=1.0 / dt,
    )
    return jax.tree.map(lambda x, y: jnp.where(state.awake, x, y), stepped, asleep)


# ---------------------------------------------------------------------------------------------
# Narrow phase: b2CollidePolygons (two convex polygons)
# ---------------------------------------------------------------------------------------------


def _pad_rows(x, rows):
    """`x` with its last row repeated up to `rows` rows (static shapes)."""
    return jnp.concatenate([x, jnp.repeat(x[-1:], rows - x.shape[0], axis=0)]) if x.shape[0] < rows else x


def _transform_point(c, s, position, v):
    """`b2Mul(b2Transform, v)`: a body-frame point in the world."""
    return jnp.stack([(c * v[..., 0] - s * v[..., 1]) + position[0], (s * v[..., 0] + c * v[..., 1]) + position[1]], -1)


def _normalize(v):
    """`b2Vec2::Normalize`: times 1 / length, left as it is when shorter than FLT_EPSILON."""
    length = jnp.sqrt(_dot(v, v))
    inv = jnp.where(length < _FLT_EPSILON, 1.0, 1.0 / jnp.where(length < _FLT_EPSILON, 1.0, length))
    return v * inv[..., None]


def _edge_separations(poly1, poly2):
    """`b2EdgeSeparation` for every edge of `poly1`: how far `poly2`'s deepest vertex lies
    beyond the edge's line (world frame; negative: behind it)."""
    v1s, n1s, _, _, c1, s1, p1 = poly1
    v2s, _, count2, _, c2, s2, p2 = poly2
    valid2 = jnp.arange(v2s.shape[0]) < count2
    normal_world = jnp.stack([c1 * n1s[:, 0] - s1 * n1s[:, 1], s1 * n1s[:, 0] + c1 * n1s[:, 1]], -1)
    normal_in_2 = _rotate_t(c2, s2, normal_world)
    # The support vertex of poly2 against each normal (the first of equals).
    dots = v2s[None, :, 0] * normal_in_2[:, None, 0] + v2s[None, :, 1] * normal_in_2[:, None, 1]
    support = jnp.argmin(jnp.where(valid2[None, :], dots, jnp.inf), axis=1)
    w1 = _transform_point(c1, s1, p1, v1s)
    w2 = _transform_point(c2, s2, p2, v2s[support])
    return _dot(w2 - w1, normal_world)


def _find_max_separation(poly1, poly2):
    """Box2D 2.3.0's `b2FindMaxSeparation` (the version pybox2d 2.3.10 builds): the edge of
    `poly1` whose normal points most towards `poly2`'s centroid, then a hill climb over the
    neighbouring edges while the separation grows. A local search: it can stop short of the
    largest separation, and Box2D's manifolds follow the edge it stops on.

    Returns:
        `(edge, separation)`.
    """
    v1s, n1s, count1, centroid1, c1, s1, p1 = poly1
    _, _, _, centroid2, c2, s2, p2 = poly2
    size = v1s.shape[0]
    index = jnp.arange(size)
    valid1 = index < count1
    d = _transform_point(c2, s2, p2, centroid2) - _transform_point(c1, s1, p1, centroid1)
    d_local = _rotate_t(c1, s1, d)
    edge = jnp.argmax(jnp.where(valid1, _dot(n1s, d_local), -jnp.inf)).astype(jnp.int32)
    separations = _edge_separations(poly1, poly2)

    def wrap(i):
        return jnp.where(i < 0, count1 - 1, jnp.where(i >= count1, 0, i))

    prev_edge, next_edge = wrap(edge - 1), wrap(edge + 1)
    s, s_prev, s_next = separations[edge], separations[prev_edge], separations[next_edge]
    go_back = (s_prev > s) & (s_prev > s_next)
    go_on = ~go_back & (s_next > s)
    increment = jnp.where(go_back, -1, 1)
    best = jnp.where(go_back, prev_edge, jnp.where(go_on, next_edge, edge))
    best_separation = jnp.where(go_back, s_prev, jnp.where(go_on, s_next, s))
    climbing = go_back | go_on
    # The separation grows strictly at each move, so the climb ends within count1 - 1 moves.
    for _ in range(size):
        candidate = wrap(best + increment)
        better = climbing & (separations[candidate] > best_separation)
        best = jnp.where(better, candidate, best)
        best_separation = jnp.where(better, separations[candidate], best_separation)
        climbing = better
    return best, best_separation


def collide_polygons(
    vertices_a,
    normals_a,
    count_a,
    centroid_a,
    position_a,
    angle_a,
    vertices_b,
    normals_b,
    count_b,
    centroid_b,
    position_b,
    angle_b,
):
    """`b2CollidePolygons` for two convex polygons A and B, each on its own body.

    The reference face is A's best separating edge, or B's when its separation is larger by
    Box2D's tolerance (`> 0.98 * separation_a + 0.001`); the incident edge is the other
    polygon's edge most against the reference normal, clipped to the reference face's sides
    widened by both skins; clip points deeper than the skins' sum are dropped. The manifold has
    the fields and conventions of `collide_edge_polygon`'s, so the contact solver can take it.

    Args:
        vertices_a: `[V, 2]` A's vertices in its body frame, hull order (padded past `count_a`).
        normals_a: `[V, 2]` A's outward edge normals in its body frame.
        count_a: int, A's vertices.
        centroid_a: `[2]` A's area centroid (body frame; `b2PolygonShape::m_centroid`).
        position_a: `[2]` A's body origin (world frame).
        angle_a: A's body angle.
        vertices_b: `[W, 2]` B's vertices, likewise.
        normals_b: `[W, 2]` B's outward edge normals.
        count_b: int, B's vertices.
        centroid_b: `[2]` B's area centroid.
        position_b: `[2]` B's body origin.
        angle_b: B's body angle.

    Returns:
        A dict, Box2D's `b2Manifold`: `type` (`FACE_A`: a face of A is the reference, `FACE_B`:
        a face of B), `local_normal` and `local_point` (the reference face's normal and its
        midpoint, in its own body's frame), `points` `[2, 2]` (the clip points, in the other
        body's frame), `keys` `[2]` (feature ids, A's features first as in `b2ContactID`) and
        `count` (0, 1 or 2). Where count is 0 the other fields are left over from the search.
    """
    dtype = vertices_a.dtype
    size = max(vertices_a.shape[0], vertices_b.shape[0])
    total_radius = 2.0 * POLYGON_RADIUS
    poly_a = (
        _pad_rows(vertices_a, size),
        _pad_rows(normals_a, size),
        count_a,
        centroid_a,
        jnp.cos(angle_a),
        jnp.sin(angle_a),
        position_a,
    )
    poly_b = (
        _pad_rows(vertices_b, size),
        _pad_rows(normals_b, size),
        count_b,
        centroid_b,
        jnp.cos(angle_b),
        jnp.sin(angle_b),
        position_b,
    )
    edge_a, separation_a = _find_max_separation(poly_a, poly_b)
    edge_b, separation_b = _find_max_separation(poly_b, poly_a)
    separated = (separation_a > total_radius) | (separation_b > total_radius)
    flip = separation_b > 0.98 * separation_a + 0.001

    # Reference polygon 1 and incident polygon 2.
    v1s, n1s, count1, _, c1, s1, p1 = (jnp.where(flip, b, a) for a, b in zip(poly_a, poly_b, strict=True))
    v2s, n2s, count2, _, c2, s2, p2 = (jnp.where(flip, a, b) for a, b in zip(poly_a, poly_b, strict=True))
    edge1 = jnp.where(flip, edge_b, edge_a).astype(jnp.int32)

    # b2FindIncidentEdge: poly2's edge most anti-parallel to the reference normal.
    n1 = n1s[edge1]
    normal1 = _rotate_t(c2, s2, jnp.stack([c1 * n1[0] - s1 * n1[1], s1 * n1[0] + c1 * n1[1]]))
    valid2 = jnp.arange(size) < count2
    i1 = jnp.argmin(jnp.where(valid2, _dot(normal1, n2s), jnp.inf)).astype(jnp.int32)
    i2 = jnp.where(i1 + 1 < count2, i1 + 1, 0).astype(jnp.int32)
    incident = _transform_point(c2, s2, p2, jnp.stack([v2s[i1], v2s[i2]]))
    incident_ids = jnp.stack(
        [
            jnp.stack([edge1, i1, jnp.int32(_FACE), jnp.int32(_VERTEX)]),
            jnp.stack([edge1, i2, jnp.int32(_FACE), jnp.int32(_VERTEX)]),
        ]
    ).astype(jnp.int32)

    iv1 = edge1
    iv2 = jnp.where(edge1 + 1 < count1, edge1 + 1, 0).astype(jnp.int32)
    v11, v12 = v1s[iv1], v1s[iv2]
    local_tangent = _normalize(v12 - v11)
    local_normal = jnp.stack([local_tangent[1], -local_tangent[0]])
    plane_point = 0.5 * (v11 + v12)
    tangent = jnp.stack([c1 * local_tangent[0] - s1 * local_tangent[1], s1 * local_tangent[0] + c1 * local_tangent[1]])
    normal = jnp.stack([tangent[1], -tangent[0]])
    w11 = _transform_point(c1, s1, p1, v11)
    w12 = _transform_point(c1, s1, p1, v12)
    front_offset = _dot(normal, w11)
    # The side planes, pushed out by the skins.
    side_offset1 = -_dot(tangent, w11) + total_radius
    side_offset2 = _dot(tangent, w12) + total_radius
    clip1, ids1, np1 = _clip(incident, incident_ids, -tangent, side_offset1, iv1)
    clip2, ids2, np2 = _clip(clip1, ids1, tangent, side_offset2, iv2)

    separation = _dot(normal, clip2) - front_offset
    keep = (separation <= total_radius) & ~separated & (np1 >= 2) & (np2 >= 2)
    points = _rotate_t(c2, s2, clip2 - p2)
    keys_ref = _key(ids2[:, 0], ids2[:, 1], ids2[:, 2], ids2[:, 3])
    keys_swapped = _key(ids2[:, 1], ids2[:, 0], ids2[:, 3], ids2[:, 2])
    keys = jnp.where(flip, keys_swapped, keys_ref)
    # Box2D packs the kept points first.
    swap = ~keep[0] & keep[1]
    points = jnp.where(swap, points[::-1], points)
    keys = jnp.where(swap, keys[::-1], keys)
    return dict(
        type=jnp.where(flip, FACE_B, FACE_A).astype(jnp.int32),
        local_normal=local_normal.astype(dtype),
        local_point=plane_point.astype(dtype),
        points=points.astype(dtype),
        keys=keys.astype(jnp.int32),
        count=keep.sum().astype(jnp.int32),
    )


# ---------------------------------------------------------------------------------------------
# Ray casts (b2EdgeShape::RayCast, b2PolygonShape::RayCast, b2World::RayCast)
# ---------------------------------------------------------------------------------------------


def ray_cast_edge(p1, p2, max_fraction, v1, v2):
    """`b2EdgeShape::RayCast` of the segment `p1 -> p2` against an edge of the static ground.

    The ray hits where it crosses the edge's line within `[0, max_fraction]` of its length and
    within the edge's two end points (both ends included); a ray parallel to the edge misses.
    (Box2D 2.3.0, pybox2d's build, reports the normal in the edge's body frame, unrotated; the
    edges here lie on the ground at the origin, where that is the world frame.)

    Args:
        p1: `[2]` the ray's start (world frame).
        p2: `[2]` the ray's end; the fraction is measured along `p2 - p1`.
        max_fraction: The longest fraction of `p2 - p1` searched (Box2D's `maxFraction`).
        v1: `[2]` the edge's first end point (world frame, the ground at the origin).
        v2: `[2]` the edge's second end point.

    Returns:
        `(hit, fraction, normal)`: whether it hits, the fraction of `p2 - p1` where, and the
        edge's unit normal on the side the ray comes from (`(0, 0)` and `max_fraction` on a
        miss).
    """
    d = p2 - p1
    e = v2 - v1
    normal = _normalize(jnp.stack([e[1], -e[0]]))
    numerator = _dot(normal, v1 - p1)
    denominator = _dot(normal, d)
    t = numerator / jnp.where(denominator == 0.0, 1.0, denominator)
    q = p1 + t * d
    rr = _dot(e, e)
    s = _dot(q - v1, e) / jnp.where(rr == 0.0, 1.0, rr)
    hit = (denominator != 0.0) & (t >= 0.0) & (t <= max_fraction) & (rr != 0.0) & (s >= 0.0) & (s <= 1.0)
    normal = jnp.where(numerator > 0.0, -normal, normal)
    return hit, jnp.where(hit, t, max_fraction), jnp.where(hit, normal, 0.0)


def ray_cast_polygon(p1, p2, max_fraction, vertices, normals, count, position, angle):
    """`b2PolygonShape::RayCast` of the segment `p1 -> p2` against a convex polygon.

    Clips the ray to each edge's half-plane in turn (Box2D's order, with its early exits); it
    hits at the last face it enters, so a ray that starts inside the polygon misses. The
    polygon's skin (`POLYGON_RADIUS`) is ignored, as Box2D ignores it.

    Args:
        p1: `[2]` the ray's start (world frame).
        p2: `[2]` the ray's end; the fraction is measured along `p2 - p1`.
        max_fraction: The longest fraction of `p2 - p1` searched (Box2D's `maxFraction`).
        vertices: `[V, 2]` the polygon's vertices in its body frame, hull order (padded past
            `count`).
        normals: `[V, 2]` its outward edge normals in its body frame.
        count: int, its vertices.
        position: `[2]` its body's origin (zeros for a polygon given in world coordinates on
            a static body at the origin, as terrain is).
        angle: its body's angle.

    Returns:
        `(hit, fraction, normal)`: whether it hits, the fraction of `p2 - p1` where, and the
        entered face's outward unit normal in the world (`(0, 0)` and `max_fraction` on a
        miss).
    """
    dtype = vertices.dtype
    c, s = jnp.cos(angle), jnp.sin(angle)
    # The ray in the polygon's frame.
    q1 = _rotate_t(c, s, p1 - position)
    q2 = _rotate_t(c, s, p2 - position)
    d = q2 - q1
    lower = jnp.zeros((), dtype)
    upper = jnp.asarray(max_fraction, dtype)
    index = jnp.int32(-1)
    missed = jnp.zeros((), bool)
    for i in range(vertices.shape[0]):
        live = (i < count) & ~missed
        numerator = _dot(normals[i], vertices[i] - q1)
        denominator = _dot(normals[i], d)
        t = numerator / jnp.where(denominator == 0.0, 1.0, denominator)
        # The segment enters this half-plane (raises lower) or leaves it (lowers upper).
        enters = live & (denominator < 0.0) & (numerator < lower * denominator)
        leaves = live & ~enters & (denominator > 0.0) & (numerator < upper * denominator)
        lower = jnp.where(enters, t, lower)
        index = jnp.where(enters, i, index)
        upper = jnp.where(leaves, t, upper)
        outside = (denominator == 0.0) & (numerator < 0.0)
        missed = missed | (live & (outside | (upper < lower)))
    hit = ~missed & (index >= 0)
    n = normals[jnp.maximum(index, 0)]
    normal = jnp.stack([c * n[0] - s * n[1], s * n[0] + c * n[1]])
    return hit, jnp.where(hit, lower, max_fraction), jnp.where(hit, normal, 0.0)


@struct.dataclass
class RayTargets:
    """The shapes a ray is cast against, with their Box2D filter categories.

    E edges of the static ground and P convex polygons (each on its own body, padded to V
    vertices); either kind may be empty.

    Attributes:
        edge_v1: `[E, 2]` each edge's first end point (world frame).
        edge_v2: `[E, 2]` each edge's second end point.
        edge_category: `[E]` int32, each edge's fixture `categoryBits`.
        polygon_vertices: `[P, V, 2]` each polygon's vertices in its body frame, hull order;
            padding repeats the last vertex.
        polygon_normals: `[P, V, 2]` the outward normal of the edge from vertex i to i + 1.
        polygon_count: `[P]` int32, each polygon's number of vertices.
        polygon_position: `[P, 2]` each polygon's body origin (world frame).
        polygon_angle: `[P]` each polygon's body angle (radians).
        polygon_category: `[P]` int32, each polygon's fixture `categoryBits`.
    """

    edge_v1: jax.Array
    edge_v2: jax.Array
    edge_category: jax.Array
    polygon_vertices: jax.Array
    polygon_normals: jax.Array
    polygon_count: jax.Array
    polygon_position: jax.Array
    polygon_angle: jax.Array
    polygon_category: jax.Array

    @property
    def num_edges(self) -> int:
        """E."""
        return self.edge_v1.shape[0]

    @property
    def num_polygons(self) -> int:
        """P."""
        return self.polygon_vertices.shape[0]


def make_ray_targets(edges=(), polygons=()) -> RayTargets:
    """`RayTargets` from Box2D-style definitions.

    Args:
        edges: One dict per edge: `v1`, `v2` (world frame), `category` (`categoryBits`,
            default 1, Box2D's default).
        polygons: One dict per polygon: `vertices` (the polygon, body frame) or `box`
            (`(hx, hy)`, `SetAsBox`'s half-widths), `position` (default the origin), `angle`
            (default 0), `category` (default 1).

    Returns:
        The targets, numpy arrays in the default float dtype.
    """
    dtype = np.dtype(jnp.result_type(float))
    shapes = [box(*p["box"]) if "box" in p else polygon(p["vertices"]) for p in polygons]
    v = max((len(vs) for vs, _, _ in shapes), default=3)

    def pad(x):
        return np.concatenate([x, np.repeat(x[-1:], v - len(x), axis=0)])

    def arr(x, shape):
        return np.asarray(x, np.float64).astype(dtype).reshape(shape)

    e, p = len(edges), len(polygons)
    return RayTargets(
        edge_v1=arr([ed["v1"] for ed in edges], (e, 2)),
        edge_v2=arr([ed["v2"] for ed in edges], (e, 2)),
        edge_category=np.asarray([ed.get("category", 1) for ed in edges], np.int32).reshape(e),
        polygon_vertices=arr([pad(vs) for vs, _, _ in shapes], (p, v, 2)),
        polygon_normals=arr([pad(ns) for _, ns, _ in shapes], (p, v, 2)),
        polygon_count=np.asarray([len(vs) for vs, _, _ in shapes], np.int32).reshape(p),
        polygon_position=arr([pl.get("position", (0.0, 0.0)) for pl in polygons], (p, 2)),
        polygon_angle=arr([pl.get("angle", 0.0) for pl in polygons], (p,)),
        polygon_category=np.asarray([pl.get("category", 1) for pl in polygons], np.int32).reshape(p),
    )


def ray_cast_closest(targets: RayTargets, p1, p2, mask_bits: int = 1, max_fraction=1.0) -> dict:
    """`b2World::RayCast(callback, p1, p2)` with a callback that keeps the closest hit among
    the fixtures whose `categoryBits & mask_bits` is non-zero, as BipedalWalker's lidar
    (gymnasium's `LidarCallback`, `mask_bits` 1) does.

    Box2D reports the hits in its broad phase's order, each callback returning its fraction to
    shorten the ray, so the last hit reported is the closest; on an exact tie of fractions
    (a ray through a vertex two edges share) which shape Box2D reports last depends on its
    tree, and here it is the first in `targets` (edges, then polygons).

    Args:
        targets: The shapes and their categories.
        p1: `[2]` the ray's start (world frame).
        p2: `[2]` the ray's end.
        mask_bits: Only shapes whose category shares a bit with this are seen.
        max_fraction: The starting fraction of `p2 - p1` searched (`LidarCallback`: 1).

    Returns:
        A dict: `hit` (bool), `fraction` (where along `p2 - p1`, `max_fraction` on a miss, as
        the lidar keeps it), `point` (`(1 - fraction) p1 + fraction p2`, Box2D's reported
        point; `p2` on a miss, as the lidar keeps it), `normal` (the surface's unit normal,
        zeros on a miss) and `index` (the shape hit: an edge's index, or `num_edges` plus a
        polygon's; -1 on a miss).
    """
    targets = jax.tree.map(jnp.asarray, targets)
    p1 = jnp.asarray(p1, targets.edge_v1.dtype)
    p2 = jnp.asarray(p2, targets.edge_v1.dtype)
    if not (targets.num_edges or targets.num_polygons):
        return dict(
            hit=jnp.zeros((), bool),
            fraction=jnp.asarray(max_fraction, p1.dtype),
            point=p2,
            normal=jnp.zeros_like(p1),
            index=jnp.int32(-1),
        )
    hits, fractions, normals = [], [], []
    if targets.num_edges:
        h, f, n = jax.vmap(lambda v1, v2: ray_cast_edge(p1, p2, max_fraction, v1, v2))(targets.edge_v1, targets.edge_v2)
        hits.append(h & ((targets.edge_category & mask_bits) != 0))
        fractions.append(f)
        normals.append(n)
    if targets.num_polygons:
        h, f, n = jax.vmap(lambda v, n, c, p, a: ray_cast_polygon(p1, p2, max_fraction, v, n, c, p, a))(
            targets.polygon_vertices,
            targets.polygon_normals,
            targets.polygon_count,
            targets.polygon_position,
            targets.polygon_angle,
        )
        hits.append(h & ((targets.polygon_category & mask_bits) != 0))
        fractions.append(f)
        normals.append(n)
    hit = jnp.concatenate(hits)
    fraction = jnp.concatenate(fractions)
    index = jnp.argmin(jnp.where(hit, fraction, jnp.inf)).astype(jnp.int32)
    any_hit = jnp.any(hit)
    best = jnp.where(any_hit, fraction[index], max_fraction)
    return dict(
        hit=any_hit,
        fraction=best,
        point=jnp.where(any_hit, (1.0 - best) * p1 + best * p2, p2),
        normal=jnp.where(any_hit, jnp.concatenate(normals)[index], 0.0),
        index=jnp.where(any_hit, index, -1),
    )
