"""jaxenvs' ray casts and polygon-polygon manifolds against pybox2d's own (Box2D 2.3.10).

Each test draws a few thousand random configurations (fixed seeds), asks pybox2d for its answer
one at a time (`b2EdgeShape.RayCast`, `b2PolygonShape.RayCast`, `b2World.RayCast` with
gymnasium's lidar callback, `b2CollidePolygons`) and ours in one jitted, vmapped call.

Tolerances: the discrete answers (hit or miss, which shape, the manifold's point count, type
and feature keys) must be equal. The numbers are float32 in both; ours differ from Box2D's by
the rounding of `sin`/`cos` (an ulp against C's `sinf`/`cosf`) and by XLA's order of
operations (fused multiply-adds): a few ulps. Fractions, normals and shape-sized coordinates
(at most about 10 m, where an ulp is at most 1e-6) get 1e-5; the lidar's world points (up to
45 m, an ulp 3.8e-6) get 4e-5. Both are far below what a wrong face, vertex or clip would give
(millimetres and more). Measured (CPU): manifolds 4.8e-7; edge ray fractions 2.4e-7; polygon
ray fractions and normals 1.2e-7; lidar fractions 2.4e-7, points 3.8e-6 (one ulp); no discrete
answer differed. A ray grazing a vertex to within a few ulps could in principle hit on one side
and miss on the other; the seeds are fixed, so the draws here are the ones measured.
"""

import jax
import numpy as np
import pytest

from jaxenvs.envs.box2d import physics

Box2D = pytest.importorskip("Box2D")

# Vertices every polygon is padded to (Box2D's b2_maxPolygonVertices is 8).
V = 8
ATOL = 1e-5
ATOL_WORLD_POINT = 4e-5


def f32(x):
    return np.asarray(x, np.float32)


def random_shape(rng, scale=1.0):
    """A box (`SetAsBox`) or a random convex polygon of 3 to 8 points (its hull may drop some)."""
    if rng.random() < 0.35:
        hx, hy = f32(rng.uniform(0.05, 1.0, 2) * scale)
        return dict(box=(float(hx), float(hy)))
    while True:
        n = rng.integers(3, V + 1)
        angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, n))
        radii = rng.uniform(0.3, 1.0, n) * scale
        points = f32(np.stack([radii * np.cos(angles), radii * np.sin(angles)], 1) + rng.uniform(-0.3, 0.3, 2))
        gaps = np.linalg.norm(points[:, None] - points[None], axis=-1) + 9.0 * np.eye(n)
        # Box2D asserts on very short edges.
        if gaps.min() > 0.05:
            return dict(vertices=[tuple(map(float, p)) for p in points])


def our_shape(shape):
    """`(vertices, normals, count, centroid)`, padded to V vertices."""
    vs, ns, centroid = physics.box(*shape["box"]) if "box" in shape else physics.polygon(shape["vertices"])

    def pad(x):
        return np.concatenate([x, np.repeat(x[-1:], V - len(x), axis=0)])

    return pad(vs), pad(ns), np.int32(len(vs)), centroid


def box2d_shape(shape):
    if "box" in shape:
        return Box2D.b2PolygonShape(box=shape["box"])
    return Box2D.b2PolygonShape(vertices=shape["vertices"])


def box2d_transform(position, angle):
    xf = Box2D.b2Transform()
    xf.Set(tuple(map(float, position)), float(angle))
    return xf


def box2d_ray(p1, p2, max_fraction):
    return Box2D.b2RayCastInput(
        p1=tuple(map(float, p1)), p2=tuple(map(float, p2)), maxFraction=float(max_fraction)
    ), Box2D.b2RayCastOutput()


def random_max_fraction(rng):
    return f32(1.0 if rng.random() < 0.5 else rng.uniform(0.2, 1.5))


def stack(rows):
    return [np.stack(column) for column in zip(*rows, strict=True)]


def test_ray_cast_edge_matches_box2d():
    rng = np.random.default_rng(0)
    rays = []
    for _ in range(3000):
        v1, v2 = f32(rng.uniform(-4.0, 4.0, 2)), f32(rng.uniform(-4.0, 4.0, 2))
        p1, p2 = f32(rng.uniform(-5.0, 5.0, 2)), f32(rng.uniform(-5.0, 5.0, 2))
        kind = rng.random()
        if kind < 0.1:  # a horizontal edge and a ray along it: the denominator is exactly 0
            v2[1], p2[1] = v1[1], p1[1]
        elif kind < 0.2:  # a vertical edge
            v2[0] = v1[0]
        rays.append((p1, p2, random_max_fraction(rng), v1, v2))

    reference = []
    for p1, p2, max_fraction, v1, v2 in rays:
        shape = Box2D.b2EdgeShape(vertices=[tuple(map(float, v1)), tuple(map(float, v2))])
        ray, out = box2d_ray(p1, p2, max_fraction)
        hit = shape.RayCast(out, ray, box2d_transform((0.0, 0.0), 0.0), 0)
        reference.append((hit, out.fraction, tuple(out.normal)))
    ref_hit, ref_fraction, ref_normal = (np.array(c) for c in zip(*reference, strict=True))

    hit, fraction, normal = map(np.asarray, jax.jit(jax.vmap(physics.ray_cast_edge))(*stack(rays)))
    assert 300 < ref_hit.sum() < 2700  # both outcomes are well represented
    np.testing.assert_array_equal(hit, ref_hit)
    np.testing.assert_allclose(fraction[hit], ref_fraction[hit], rtol=0, atol=ATOL)
    np.testing.assert_allclose(normal[hit], ref_normal[hit], rtol=0, atol=ATOL)


def test_ray_cast_polygon_matches_box2d():
    rng = np.random.default_rng(1)
    rays, shapes = [], []
    for _ in range(3000):
        shape = random_shape(rng)
        vertices, normals, count, centroid = our_shape(shape)
        position, angle = f32(rng.uniform(-3.0, 3.0, 2)), f32(rng.uniform(-np.pi, np.pi))
        if rng.random() < 0.2:  # terrain's stumps: world-frame vertices on a body at the origin
            position, angle = f32([0.0, 0.0]), f32(0.0)
        if rng.random() < 0.2:  # from inside (the centroid): Box2D reports no hit
            p1 = f32(position + physics.np.asarray(physics.rotate(angle, centroid)))
        else:
            p1 = f32(position + rng.uniform(-3.0, 3.0, 2))
        p2 = f32(position + rng.uniform(-3.0, 3.0, 2))
        rays.append((p1, p2, random_max_fraction(rng), vertices, normals, count, position, angle))
        shapes.append(shape)

    reference = []
    for (p1, p2, max_fraction, *_, position, angle), shape in zip(rays, shapes, strict=True):
        ray, out = box2d_ray(p1, p2, max_fraction)
        hit = box2d_shape(shape).RayCast(out, ray, box2d_transform(position, angle), 0)
        reference.append((hit, out.fraction, tuple(out.normal)))
    ref_hit, ref_fraction, ref_normal = (np.array(c) for c in zip(*reference, strict=True))

    hit, fraction, normal = map(np.asarray, jax.jit(jax.vmap(physics.ray_cast_polygon))(*stack(rays)))
    assert 300 < ref_hit.sum() < 2700
    np.testing.assert_array_equal(hit, ref_hit)
    np.testing.assert_allclose(fraction[hit], ref_fraction[hit], rtol=0, atol=ATOL)
    np.testing.assert_allclose(normal[hit], ref_normal[hit], rtol=0, atol=ATOL)


class LidarCallback(Box2D.b2RayCastCallback):
    """gymnasium's BipedalWalker lidar callback, with the fixture and normal kept too."""

    def ReportFixture(self, fixture, point, normal, fraction):  # noqa: N802 (Box2D's name)
        if (fixture.filterData.categoryBits & 1) == 0:
            return -1
        self.p2 = point
        self.fraction = fraction
        self.index = fixture.userData
        self.normal = tuple(normal)
        return fraction


def lidar_world(rng):
    """BipedalWalker-like shapes: a terrain of edges, stumps (world-frame polygons on static
    bodies), moving polygons, each with a category the lidar sees (bit 1) or not."""
    xs = np.linspace(0.0, 40.0, 81)
    ys = np.cumsum(rng.normal(0.0, 0.15, len(xs))) + 4.0
    edges = [dict(v1=(xs[i], ys[i]), v2=(xs[i + 1], ys[i + 1]), category=1) for i in range(len(xs) - 1)]
    # Edges the lidar ignores, in mid-air.
    edges += [dict(v1=(x, y + 1.5), v2=(x + 1.0, y + 1.7), category=2) for x, y in zip(xs[3::9], ys[3::9], strict=True)]
    polygons = []
    for x, y in zip(xs[5::7], ys[5::7], strict=True):
        w, h = rng.uniform(0.2, 0.6, 2)
        polygons.append(dict(vertices=[(x, y - 0.1), (x + w, y - 0.1), (x + w, y + h), (x, y + h)], category=1))
    for x, y in zip(xs[2::6], ys[2::6], strict=True):
        polygons.append(
            dict(
                **random_shape(rng, 0.4),
                position=tuple(map(float, f32([x, y + rng.uniform(0.8, 2.5)]))),
                angle=float(f32(rng.uniform(-np.pi, np.pi))),
                category=int(rng.choice([0x20, 0x21])),
            )
        )
    edges = [dict(e, v1=tuple(map(float, f32(e["v1"]))), v2=tuple(map(float, f32(e["v2"])))) for e in edges]
    polygons = [
        dict(p, vertices=[tuple(map(float, f32(v))) for v in p["vertices"]]) if "vertices" in p else p for p in polygons
    ]

    world = Box2D.b2World()
    for i, e in enumerate(edges):
        world.CreateStaticBody(
            fixtures=Box2D.b2FixtureDef(
                shape=Box2D.b2EdgeShape(vertices=[e["v1"], e["v2"]]), categoryBits=e["category"], userData=i
            )
        )
    for i, p in enumerate(polygons):
        fixture = Box2D.b2FixtureDef(
            shape=box2d_shape(p), density=1.0, categoryBits=p["category"], userData=len(edges) + i
        )
        if "position" in p:
            world.CreateDynamicBody(position=p["position"], angle=p["angle"], fixtures=fixture)
        else:
            world.CreateStaticBody(fixtures=fixture)
    return world, physics.make_ray_targets(edges, polygons)


def test_ray_cast_closest_matches_box2d_world_ray_cast_with_lidar_filter():
    rng = np.random.default_rng(2)
    world, targets = lidar_world(rng)
    # Lidar-like rays: from above the terrain, LIDAR_RANGE (160 / 30 m) long, every direction.
    p1 = f32(np.stack([rng.uniform(1.0, 39.0, 1000), rng.uniform(4.5, 8.0, 1000)], 1))
    direction = rng.uniform(-np.pi, np.pi, 1000)
    p2 = f32(p1 + 160.0 / 30.0 * np.stack([np.sin(direction), -np.cos(direction)], 1))

    reference = []
    for a, b in zip(p1, p2, strict=True):
        lidar = LidarCallback()
        lidar.fraction, lidar.p2, lidar.index, lidar.normal = 1.0, tuple(map(float, b)), -1, (0.0, 0.0)
        world.RayCast(lidar, tuple(map(float, a)), tuple(map(float, b)))
        reference.append((lidar.index, lidar.fraction, tuple(lidar.p2), lidar.normal))
    ref_index, ref_fraction, ref_point, ref_normal = (np.array(c) for c in zip(*reference, strict=True))

    ours = jax.jit(jax.vmap(physics.ray_cast_closest, in_axes=(None, 0, 0)))(targets, p1, p2)
    ours = jax.tree.map(np.asarray, ours)
    e = targets.num_edges
    # Every kind of target is hit, and some rays miss everything.
    assert (
        (ref_index < 0).sum() > 20 and (ref_index >= e).sum() > 20 and ((ref_index >= 0) & (ref_index < e)).sum() > 200
    )
    np.testing.assert_array_equal(ours["index"], ref_index)
    np.testing.assert_array_equal(ours["hit"], ref_index >= 0)
    np.testing.assert_allclose(ours["fraction"], ref_fraction, rtol=0, atol=ATOL)
    np.testing.assert_allclose(ours["point"], ref_point, rtol=0, atol=ATOL_WORLD_POINT)
    np.testing.assert_allclose(ours["normal"], ref_normal, rtol=0, atol=ATOL)
    # The filter matters: seeing every category, many rays would stop at another shape first.
    unfiltered = jax.jit(jax.vmap(lambda a, b: physics.ray_cast_closest(targets, a, b, mask_bits=0xFFFF)))(p1, p2)
    assert (np.asarray(unfiltered["index"]) != ref_index).sum() > 50


def random_pair(rng):
    """Two polygons near each other: at random (touching, overlapping or apart), or a box
    resting on a box's face, nearly aligned (BipedalWalker's legs on stumps and stairs)."""
    a, b = random_shape(rng), random_shape(rng)
    position_a, angle_a = f32(rng.uniform(-3.0, 3.0, 2)), f32(rng.uniform(-np.pi, np.pi))
    kind = rng.random()
    if kind < 0.6:
        if kind < 0.15:  # A in world coordinates on a static body at the origin
            position_a, angle_a = f32([0.0, 0.0]), f32(0.0)
        reach = 1.5 * (np.abs(our_shape(a)[0]).max() + np.abs(our_shape(b)[0]).max())
        direction = rng.uniform(0.0, 2.0 * np.pi)
        offset = rng.uniform(0.2, 1.1) * reach * np.array([np.cos(direction), np.sin(direction)])
        return a, position_a, angle_a, b, f32(position_a + offset), f32(rng.uniform(-np.pi, np.pi))
    hx, hy = f32(rng.uniform(0.1, 1.0, 2))
    qx, qy = f32(rng.uniform(0.05, 0.5, 2))
    angle_a = f32(0.0 if rng.random() < 0.5 else rng.uniform(-0.3, 0.3))
    angle_b = f32(angle_a + rng.normal(0.0, 0.02))
    gap = rng.uniform(-0.03, 0.03)
    local = np.array([rng.uniform(-1.2, 1.2) * (hx + qx), hy + qy + gap]) * rng.choice([-1.0, 1.0])
    position_b = f32(position_a + np.asarray(physics.rotate(angle_a, local)))
    return dict(box=(float(hx), float(hy))), position_a, angle_a, dict(box=(float(qx), float(qy))), position_b, angle_b


def test_collide_polygons_matches_box2d():
    rng = np.random.default_rng(3)
    pairs = [random_pair(rng) for _ in range(3000)]

    reference = []
    for a, position_a, angle_a, b, position_b, angle_b in pairs:
        m = Box2D.b2Manifold()
        Box2D.b2CollidePolygons(
            m,
            box2d_shape(a),
            box2d_transform(position_a, angle_a),
            box2d_shape(b),
            box2d_transform(position_b, angle_b),
        )
        points = [tuple(p.localPoint) for p in m.points] + [(0.0, 0.0)] * (2 - m.pointCount)
        keys = [p.id.key for p in m.points] + [0] * (2 - m.pointCount)
        reference.append((m.pointCount, m.type_, tuple(m.localNormal), tuple(m.localPoint), points, keys))
    count, kind, local_normal, local_point, points, keys = (np.array(c) for c in zip(*reference, strict=True))

    rows = [(*our_shape(a), pa, aa, *our_shape(b), pb, ab) for a, pa, aa, b, pb, ab in pairs]
    ours = jax.tree.map(np.asarray, jax.jit(jax.vmap(physics.collide_polygons))(*stack(rows)))

    np.testing.assert_array_equal(ours["count"], count)
    touching = count > 0
    # Box2D's b2Manifold::Type: e_faceA = 1, e_faceB = 2.
    np.testing.assert_array_equal(ours["type"][touching], np.where(kind[touching] == 2, physics.FACE_B, physics.FACE_A))
    # Every outcome is well represented: apart, one point, two points, either reference face.
    assert min(np.bincount(count, minlength=3)) > 200
    assert min((ours["type"][touching] == physics.FACE_A).sum(), (ours["type"][touching] == physics.FACE_B).sum()) > 200
    np.testing.assert_allclose(ours["local_normal"][touching], local_normal[touching], rtol=0, atol=ATOL)
    np.testing.assert_allclose(ours["local_point"][touching], local_point[touching], rtol=0, atol=ATOL)
    used = np.arange(2) < count[:, None]
    np.testing.assert_array_equal(ours["keys"][used], keys[used])
    np.testing.assert_allclose(ours["points"][used], points[used], rtol=0, atol=ATOL)


def test_collide_polygons_conventions_on_two_boxes():
    wide, small = our_shape(dict(box=(2.0, 0.5))), our_shape(dict(box=(0.5, 0.25)))
    zero, level = np.zeros(2, np.float32), np.float32(0.0)
    collide = jax.jit(physics.collide_polygons)
    # The small box resting 1 mm into the wide one's top face. Both faces separate by -1 mm,
    # and Box2D's tolerance keeps A's face as the reference on a tie, whichever box A is.
    m = collide(*wide, zero, level, *small, np.array([0.3, 0.749], np.float32), level)
    assert int(m["count"]) == 2 and int(m["type"]) == physics.FACE_A
    np.testing.assert_allclose(m["local_normal"], [0.0, 1.0])
    np.testing.assert_allclose(m["local_point"], [0.0, 0.5])
    # B's bottom corners, in B's frame: face 2 of A against vertices 0 and 1 of B.
    np.testing.assert_allclose(m["points"], [[-0.5, -0.25], [0.5, -0.25]], atol=1e-6)
    assert np.asarray(m["keys"]).tolist() == [2 + 65536 * 1, 2 + 256 * 1 + 65536 * 1]
    m = collide(*small, np.array([0.3, 0.749], np.float32), level, *wide, zero, level)
    assert int(m["count"]) == 2 and int(m["type"]) == physics.FACE_A
    np.testing.assert_allclose(m["local_normal"], [0.0, -1.0])
    # B's top face clipped to A's sides widened by both skins (0.02), in B's frame; the cuts
    # are vertices 0 and 1 of A against face 2 of B.
    np.testing.assert_allclose(m["points"], [[-0.22, 0.5], [0.82, 0.5]], atol=1e-6)
    assert np.asarray(m["keys"]).tolist() == [256 * 2 + 16777216, 1 + 256 * 2 + 16777216]

    # A tilted small box (A) with its lowest corner 1 mm into the wide box's top face (B):
    # B's face is the reference (FACE_B), the one point is A's corner in A's frame, and its
    # feature key still names A's feature first (vertex 0 of A against face 2 of B).
    angle = np.float32(0.3)
    corner = np.asarray(physics.rotate(angle, np.array([-0.5, -0.25], np.float32)))
    position = np.array([0.3, 0.5 - 0.001 - corner[1]], np.float32)
    m = collide(*small, position, angle, *wide, zero, level)
    assert int(m["count"]) == 1 and int(m["type"]) == physics.FACE_B
    np.testing.assert_allclose(m["local_normal"], [0.0, 1.0])
    np.testing.assert_allclose(m["points"][0], [-0.5, -0.25], atol=1e-6)
    assert int(m["keys"][0]) == 256 * 2 + 16777216
