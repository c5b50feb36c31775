"""jaxenvs' Box2D-algorithm physics against pybox2d (Box2D 2.3.10), number for number.

Each test builds one world in both, steps both N times with LunarLander's time step (1/50 s) and
iterations (180 velocity, 60 position), and compares every body's centre of mass, angle and
velocities after every step, and the step the island falls asleep at. Most run with
`continuousPhysics` off on both sides (the discrete step alone); the last ones with it on
(the time of impact and its sub-step). Both are exact to rounding. Box2D
computes in float32 and so do we, in another order of rounding, so the tolerances are a few
float32 ulps of the values grown over the steps; the worst errors measured (CPU) are in each
test's comment.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.envs.box2d import physics

from ._reference import FAR_EDGE, FIELDS, LANDER_POLY, SCALE, lander_with_legs, run_both

pytest.importorskip("Box2D")


def assert_close(reference, ours, atol):
    """Every field of every body after every step within `atol`, the awake flag exactly."""
    assert reference.shape == ours.shape
    err = np.abs(reference - ours)
    step, body, field = np.unravel_index(np.argmax(err[..., :6]), err[..., :6].shape)
    assert err[..., :6].max() <= atol, (
        f"step {step} body {body} {FIELDS[field]}: pybox2d {reference[step, body, field]!r}, "
        f"ours {ours[step, body, field]!r}"
    )
    np.testing.assert_array_equal(ours[..., 6], reference[..., 6], err_msg="awake flags differ")


def test_polygon_and_mass_follow_box2d():
    import Box2D

    world = Box2D.b2World()
    lander = world.CreateDynamicBody(
        position=(0, 0), fixtures=Box2D.b2FixtureDef(shape=Box2D.b2PolygonShape(vertices=LANDER_POLY), density=5.0)
    )
    vertices, normals, _ = physics.polygon(LANDER_POLY)
    np.testing.assert_array_equal(vertices, np.asarray(lander.fixtures[0].shape.vertices, np.float32))
    mass, center, inertia = physics.polygon_mass(vertices, 5.0)
    np.testing.assert_allclose(mass, lander.mass, rtol=1e-6)
    np.testing.assert_allclose(center, tuple(lander.localCenter), atol=1e-7)
    # pybox2d's `inertia` is about the body's origin.
    np.testing.assert_allclose(inertia + mass * center @ center, lander.inertia, rtol=1e-6)


def test_joint_order_is_box2d_island_search():
    # LunarLander: the lander (0) then two legs (1, 2), each jointed to the lander. The island
    # search starts at the newest body (leg 2) and reaches its joint first.
    assert physics.joint_order(3, ((0, 1), (0, 2))) == (1, 0)
    assert physics.joint_order(3, ((0, 1), (1, 2))) == (1, 0)


def test_free_fall_with_spin():
    # Gravity, a moving and spinning body, its centre of mass off the origin. Measured: 1e-6.
    bodies = [dict(vertices=LANDER_POLY, position=(10.0, 13.0), density=5.0, v=(1.0, 2.0), w=0.5)]
    reference, ours = run_both(bodies, FAR_EDGE, [], 100)
    assert_close(reference, ours, atol=1e-5)


def test_lander_legs_joints_limits_and_motors():
    # LunarLander's lander and legs in free flight: the legs start past their limits, the limits
    # push them in, the motors drive them against the other limit. Measured: 6e-6 over 100 steps.
    bodies, joints = lander_with_legs(10.0, 13.333, velocity=(0.3, -1.0), angular_velocity=0.1)
    reference, ours = run_both(bodies, FAR_EDGE, joints, 100)
    assert_close(reference, ours, atol=5e-5)


def test_box_resting_on_an_edge_falls_asleep():
    # Resting contact (two-point manifold, block solver, warm starting, position correction) and
    # the sleep timer. Measured: 7e-8; both fall asleep after step 24.
    bodies = [dict(box=(0.5, 0.25), position=(1.0, 0.255), density=1.0)]
    reference, ours = run_both(bodies, [dict(v1=(-5.0, 0.0), v2=(5.0, 0.0))], [], 60)
    assert_close(reference, ours, atol=1e-5)
    assert reference[-1, 0, 6] == 0.0, "the reference should have fallen asleep"


def test_box_sliding_down_a_slope_with_friction():
    # Friction below the slope's angle: the box slides, the friction impulse at its cone.
    # Measured: 8e-7.
    bodies = [dict(box=(0.3, 0.2), position=(0.0, 0.45), angle=-0.4636, density=2.0, friction=0.5)]
    slope = [dict(v1=(-5.0, 2.5), v2=(5.0, -2.5), friction=0.3)]
    reference, ours = run_both(bodies, slope, [], 100)
    assert_close(reference, ours, atol=1e-5)
    assert reference[-1, 0, 0] > 1.0, "the box should have slid"


def test_box_bouncing_with_restitution():
    # An impact faster than Box2D's velocity threshold bounces with restitution 0.5.
    # Measured: 1e-6.
    bodies = [dict(box=(0.3, 0.2), position=(0.0, 0.5), density=1.0, restitution=0.5, v=(0.2, -1.4))]
    reference, ours = run_both(bodies, [dict(v1=(-5.0, 0.0), v2=(5.0, 0.0))], [], 100)
    assert_close(reference, ours, atol=1e-5)
    assert reference[:, 0, 4].max() > 1.0, "the box should have bounced"


def test_tilted_lander_on_two_edges():
    # A polygon landing on the vertex between two edges: contacts with both, a polygon face as
    # the reference face. Measured: 2.4e-7.
    bodies = [dict(vertices=LANDER_POLY, position=(0.2, 0.6), angle=0.3, density=5.0, friction=0.1, v=(0.0, -1.0))]
    edges = [dict(v1=(-5.0, 1.0), v2=(0.0, 0.0), friction=0.1), dict(v1=(0.0, 0.0), v2=(5.0, 0.5), friction=0.1)]
    reference, ours = run_both(bodies, edges, [], 150)
    assert_close(reference, ours, atol=1e-5)


# A stump and a stair of BipedalWalker's hardcore course (static rectangles, world frame).
STUMP = dict(vertices=[(3.0, 0.0), (3.5, 0.0), (3.5, 0.5), (3.0, 0.5)], friction=2.5)
STAIR = dict(vertices=[(3.5, 0.0), (5.5, 0.0), (5.5, 0.25), (3.5, 0.25)], friction=2.5)


# One box tips off the stump's corner onto the stair, the other lands tilted on the stair.
FALLING_BOXES = [
    dict(box=(0.3, 0.1), position=(3.6, 1.2), angle=0.1, density=1.0, friction=0.5, v=(0.0, -6.0)),
    dict(box=(0.2, 0.2), position=(5.0, 1.0), angle=0.6, density=2.0, friction=0.5, v=(-0.3, -6.0), w=1.0),
]


@pytest.mark.parametrize("box, continuous", [(0, True), (1, False)])
def test_box_landing_on_static_polygons(box, continuous):
    # `b2CollidePolygons` with the static polygon as A, a body touching two polygons at once,
    # and (continuous) the times of impact against polygons: falling at 6 m/s, each box comes
    # down on a stump and a stair of BipedalWalker's hardcore kind, then sleeps. One box per
    # world: unjointed bodies are separate islands in Box2D (here all bodies are one).
    # Measured over both boxes, continuous and not: within 5e-5 (positions 1.5e-5) at every
    # one of 100 steps; each sleeps on the reference's step.
    ground = [dict(v1=(0.0, 0.0), v2=(8.0, 0.0), friction=2.5)]
    reference, ours = run_both([FALLING_BOXES[box]], ground, [], 100, continuous=continuous, polygons=[STUMP, STAIR])
    assert_close(reference, ours, atol=1e-4)
    assert reference[-1, 0, 6] == 0.0, "the box should have come to rest"
    assert reference[-1, 0, 1] < 0.5, "on the stair"


def terrain_and_lander(seed, fall_speed):
    """LunarLander's kind of terrain (11 edges) and its lander above the pad, falling."""
    rng = np.random.default_rng(seed)
    w, h = 20.0, 400 / SCALE
    heights = rng.uniform(0, h / 2, 12)
    heights[3:8] = h / 4
    smooth = [0.33 * (heights[i - 1] + heights[i] + heights[i + 1]) for i in range(11)]
    xs = [w / 10 * i for i in range(11)]
    edges = [dict(v1=(0.0, 0.0), v2=(w, 0.0), friction=0.2)]
    edges += [dict(v1=(xs[i], smooth[i]), v2=(xs[i + 1], smooth[i + 1]), friction=0.1) for i in range(10)]
    bodies, joints = lander_with_legs(10.0, h / 4 + 1.2, velocity=(rng.uniform(-1, 1), -fall_speed))
    return bodies, edges, joints


@pytest.mark.parametrize("seed", [0, 1])
def test_lander_landing_on_terrain(seed):
    # The legs touch, joints and contacts together, then the island sleeps; continuous
    # collision off on both sides. Measured: 9e-6 over 150 steps; both sleep at the same step.
    reference, ours = run_both(*terrain_and_lander(seed, 1.0), 150)
    assert_close(reference, ours, atol=5e-5)
    assert reference[-1, 0, 6] == 0.0, "the reference lander should have come to rest"


@pytest.mark.slow
@pytest.mark.parametrize("fall_speed", [1.0, 3.0, 6.0])
def test_lander_landing_with_continuous_collision(fall_speed):
    # Box2D's default: the legs hit the ground between steps, and continuous collision moves
    # them back to the time of impact (Box2D's own search, `physics.time_of_impact`). Measured
    # over seeds 0-2 and these speeds: all 9 landings within 4e-6 in position and angle and
    # 1.4e-5 in velocity at every step (the time of impact by sampling and bisection, before:
    # 2e-5 and 3e-3, one landing parting by 0.018 rad and 4.8 m/s for a few steps); all 9 fall
    # asleep on the same step.
    reference, ours = run_both(*terrain_and_lander(1, fall_speed), 120, continuous=True)
    assert_close(reference, ours, atol=1e-4)
    err = np.abs(reference - ours)
    assert err[..., :3].max() <= 2e-5, "positions and angles after the impacts"


def test_toi_candidates_keep_every_impact():
    # The time-of-impact search runs only on the pairs toi_candidates keeps: every pair that
    # time_of_impact finds an impact for must be among them. Random sweeps (up to 0.2 m and
    # 0.2 rad in a step) of the lander and its legs just above LunarLander-like terrain, with
    # four stumps (static polygons, whose distance the bound only bounds from below) on it.
    bodies, edges, joints = terrain_and_lander(0, 1.0)
    xs = np.asarray([e["v1"][0] for e in edges[1:]] + [edges[-1]["v2"][0]])
    ys = np.asarray([e["v1"][1] for e in edges[1:]] + [edges[-1]["v2"][1]])
    stumps = [
        dict(
            vertices=[(x, 0.0), (x + 0.5, 0.0), (x + 0.5, np.interp(x, xs, ys) + 0.3), (x, np.interp(x, xs, ys) + 0.3)]
        )
        for x in (2.5, 7.0, 11.2, 16.0)
    ]
    keys = ("vertices", "box", "density")
    world = physics.make_world(
        [{k: v for k, v in b.items() if k in keys} for b in bodies], edges, joints, polygons=stumps
    )
    rng = np.random.default_rng(0)
    n, b = 1000, world.num_bodies
    x = rng.uniform(0.5, 19.5, (n, b))
    c0 = np.stack([x, np.interp(x, xs, ys) + rng.uniform(-0.05, 0.4, (n, b))], axis=-1)
    a0 = rng.uniform(-1.0, 1.0, (n, b))
    c1 = c0 + rng.uniform(-0.2, 0.2, (n, b, 2))
    a1 = a0 + rng.uniform(-0.2, 0.2, (n, b))
    c0, a0, c1, a1 = (jnp.asarray(v, world.inv_mass.dtype) for v in (c0, a0, c1, a1))

    def impacts(c0, a0, c1, a1):
        per_static = jax.vmap(physics.time_of_impact, in_axes=(0, 0) + (None,) * 8)
        per_body = jax.vmap(per_static, in_axes=(None, None, 0, 0, 0, 0, 0, 0, 0, 0))
        touching, _ = per_body(
            *physics.static_proxies(world),
            world.vertices,
            world.normals,
            world.vertex_count,
            world.local_center,
            c0,
            a0,
            c1,
            a1,
        )
        return touching, physics.toi_candidates(world, c0, a0, c1, a1)

    # With the broad phase (World.max_near) too: one shape of each kind per body gathered, so
    # many sweeps overflow it and take the search of every shape.
    narrow = world.replace(max_near=1)
    touching, candidate, near = jax.jit(
        jax.vmap(lambda *sweep: impacts(*sweep) + (physics.toi_candidates(narrow, *sweep),))
    )(c0, a0, c1, a1)
    touching, candidate, near = np.asarray(touching), np.asarray(candidate), np.asarray(near)
    assert touching.sum() > 100, "the sample should hold impacts"
    assert touching[..., world.num_edges :].sum() > 20, "and impacts on the stumps"
    assert not (touching & ~candidate).any(), "an impact's pair was left out"
    assert candidate.mean() < 0.2, "the bound should leave most pairs out"
    assert not (touching & ~near).any(), "an impact's pair was left out by the broad phase"
    assert not (near & ~candidate).any(), "the broad phase only leaves pairs out"


def test_broad_phase_changes_no_step():
    # World.max_near gathers the static shapes near each body (their boxes overlap) for the
    # narrow phase and the time-of-impact search; where more are near than it holds, that body
    # runs on all. Its steps are the steps without it to float32 rounding, and its contacts and
    # events exactly: a box thrown at 8 m/s (times of impact) onto ground of 0.5 m edges and
    # against a stump, gathering two shapes of each kind (the box is near two edges, then three:
    # the path of every shape).
    # Measured: within 6e-8 over 60 steps (the gathered narrow phase compiles to other fused
    # multiply-adds), every contact count, event and sleep flag the same.
    xs = np.linspace(0.0, 8.0, 17)
    ys = 0.3 * np.sin(xs)
    edges = [dict(v1=(xs[i], ys[i]), v2=(xs[i + 1], ys[i + 1]), friction=0.5) for i in range(16)]
    stumps = [dict(vertices=[(x, -1.0), (x + 0.5, -1.0), (x + 0.5, 0.8), (x, 0.8)]) for x in (3.0, 5.5)]
    world = physics.make_world([dict(box=(0.3, 0.1), density=1.0, friction=0.5)], edges, polygons=stumps)
    state = physics.init_state(world, [(2.0, 2.0)], [0.1], [(4.0, -8.0)])

    def run(world):
        return jax.lax.scan(lambda s, _: (physics.step(world, s, 1 / 50), s), state, None, 60)[1]

    every, gathered = jax.jit(lambda: [run(world.replace(max_near=k)) for k in (0, 2)])()
    touching = np.asarray(every.manifold_count) > 0
    assert touching[:, :, : world.num_edges].any() and touching[:, :, world.num_edges :].any(), "both kinds touched"
    for name in vars(every):
        ours, theirs = np.asarray(getattr(gathered, name)), np.asarray(getattr(every, name))
        if name == "manifold_key":  # a pair with no points has no keys
            points = np.arange(2) < np.asarray(every.manifold_count)[..., None]
            ours, theirs = np.where(points, ours, 0), np.where(points, theirs, 0)
        if np.issubdtype(theirs.dtype, np.floating):
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=name)


def test_step_runs_in_float64():
    # Under jax_enable_x64 the world and the step are float64, continuous collision included
    # (legs landing at 3 m/s: contacts and times of impact).
    with jax.enable_x64(True):
        bodies, edges, joints = terrain_and_lander(0, 3.0)
        keys = ("vertices", "box", "density", "friction", "restitution")
        world = physics.make_world(
            [{k: v for k, v in b.items() if k in keys} for b in bodies],
            edges,
            joints,
            velocity_iterations=180,
            position_iterations=60,
        )
        state = physics.init_state(
            world,
            [b["position"] for b in bodies],
            [b.get("angle", 0.0) for b in bodies],
            [b.get("v", (0.0, 0.0)) for b in bodies],
        )
        run = jax.jit(
            lambda s: jax.lax.scan(lambda s, _: (physics.step(world, s, 1 / 50), s.touching.any()), s, None, 40)
        )
        state, touched = run(state)
        assert state.center.dtype == jnp.float64
        assert bool(touched.any()) and bool(jnp.isfinite(state.center).all())


def test_step_jits_and_vmaps():
    world = physics.make_world(
        [dict(box=(0.5, 0.25), density=1.0)], [dict(v1=(-5.0, 0.0), v2=(5.0, 0.0))], velocity_iterations=8
    )
    heights = jnp.array([0.255, 0.5, 2.0])
    states = jax.vmap(lambda y: physics.init_state(world, jnp.array([[0.0, y]]), jnp.zeros(1)))(heights)
    stepped = jax.jit(jax.vmap(lambda s: physics.step(world, s, 1 / 60)))(states)
    one = jax.jit(lambda s: physics.step(world, s, 1 / 60))(jax.tree.map(lambda x: x[1], states))
    np.testing.assert_allclose(stepped.center[1], one.center, atol=1e-6)
    assert bool(stepped.touching[0, 0, 0]) and not bool(stepped.touching[2, 0, 0])
