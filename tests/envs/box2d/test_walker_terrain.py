"""BipedalWalker's terrain against gymnasium's `_generate_terrain` (`BipedalWalker-v3`,
`BipedalWalkerHardcore-v3`).

Three ways: the plain course's definition (its x grid, the flat start pad, each grass step's
slope within the reference's push of the last one, flat steps 5 to 9 apart), on our courses and
the reference's alike; the reference's own draws, recorded step by step as it makes them and
replayed, give its terrain to float64 rounding (its obstacles' float32 vertices exactly); and
courses drawn from `jax.random` keys against the reference's at as many seeds, by the parity
harness's two-sample tests (KS per coordinate, chi-square of counts and sizes), which a course
15% too high, stumps 15% too large and grass 20% too long (TERRAIN_GRASS 12) fail.
"""

import functools
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.envs.box2d import physics
from jaxenvs.envs.box2d.bipedal_walker import terrain as wt
from jaxenvs.parity import stats

gymnasium = pytest.importorskip("gymnasium")
Box2D = pytest.importorskip("Box2D")

SAMPLES = 300  # reference seeds and JAX keys per variant
REPLAYS = 20  # reference seeds replayed per variant
STEP = wt.TERRAIN_STEP
# Heights compared: past the pad, features' spans, the far end.
HEIGHTS_AT = (21, 25, 40, 60, 100, 150, 199)
# An obstacle's (width, height) in steps: a stump of side 1 or 2, a pit's wall, a stair.
SHAPES = {(1.0, 1.0): wt.STUMP, (2.0, 2.0): wt.STUMP, (1.0, 4.0): wt.PIT, (4.0, 1.0): wt.STAIRS}


def _reference_terrain(env):
    """`(terrain_x, terrain_y, [n, 4, 2] obstacles)` of a reset env, obstacles in creation order."""
    polygons = [
        np.array(f.shape.vertices)
        for body in env.terrain
        for f in body.fixtures
        if isinstance(f.shape, Box2D.b2PolygonShape)
    ]
    # `_generate_terrain` reverses its body list at the end.
    return np.array(env.terrain_x), np.array(env.terrain_y), np.array(polygons[::-1]).reshape(-1, 4, 2)


@functools.cache
def reference_courses(hardcore):
    """The reference's courses at seeds 0 to SAMPLES - 1, as `reset` builds them."""
    env = gymnasium.make("BipedalWalkerHardcore-v3" if hardcore else "BipedalWalker-v3").unwrapped
    courses = []
    for seed in range(SAMPLES):
        env.reset(seed=seed)
        courses.append(_reference_terrain(env))
    env.close()
    return courses


@functools.cache
def _generate(constants):
    """Courses for a batch of keys, compiled once per constants (hardcore traced)."""
    return jax.jit(jax.vmap(lambda k, h: wt.generate_terrain(k, h, constants), in_axes=(0, None)))


@functools.cache
def our_terrains(hardcore, constants=wt.REFERENCE):
    """Our `Terrain`s (numpy, batched) at SAMPLES keys."""
    keys = jax.random.split(jax.random.key(7 + hardcore), SAMPLES)
    return jax.device_get(_generate(constants)(keys, jnp.asarray(hardcore)))


def our_courses(hardcore, constants=wt.REFERENCE):
    """Our courses at SAMPLES keys, as `(terrain_x, terrain_y, obstacles)` like the reference's."""
    t = our_terrains(hardcore, constants)
    n = t.num_obstacles
    return [(t.terrain_x[i], t.terrain_y[i], t.obstacle_vertices[i, : n[i]]) for i in range(SAMPLES)]


def _shape(rectangle):
    """An obstacle's (width, height) in steps, to a thousandth."""
    size = rectangle.max(0) - rectangle.min(0)
    return tuple(np.round(size / STEP, 3).tolist())


def _kind(rectangle):
    """The feature an obstacle belongs to, by its proportions: a stump is square, a pit's wall
    tall, a stair wide."""
    width, height = _shape(rectangle)
    return wt.STUMP if width == height else wt.PIT if height > width else wt.STAIRS


def _features(obstacles):
    """The features a course's obstacles make, `(kind, size)` each in creation order: a stump's
    side, a pit's width (its far wall's offset, in steps), stairs' `(steps, +1 up / -1 down)`."""
    kinds = [_kind(r) for r in obstacles]
    features, k = [], 0
    while k < len(obstacles):
        if kinds[k] == wt.STUMP:
            features.append((wt.STUMP, _shape(obstacles[k])[0]))
            k += 1
        elif kinds[k] == wt.PIT:  # the near wall, then the far one
            width = (obstacles[k + 1][:, 0].min() - obstacles[k][:, 0].min()) / STEP
            features.append((wt.PIT, round(float(width), 3)))
            k += 2
        else:  # stairs: rectangles side by side
            n = 1
            while (
                k + n < len(obstacles)
                and kinds[k + n] == wt.STAIRS
                and abs(obstacles[k + n][:, 0].min() - obstacles[k + n - 1][:, 0].max()) < 1e-4
            ):
                n += 1
            up = 1 if obstacles[k + 1][:, 1].max() > obstacles[k][:, 1].max() else -1
            features.append((wt.STAIRS, (n, up)))
            k += n
    return features


def _heights(courses):
    """`[n, d]` heights at `HEIGHTS_AT`, their mean, lowest and highest, to 1e-4 m (float32 and
    float64 courses agree to that; the reference's atoms, such as a pit's floor, stay atoms)."""
    y = np.array([c[1] for c in courses], np.float64)
    values = np.concatenate(
        [y[:, HEIGHTS_AT], y.mean(1, keepdims=True), y.min(1, keepdims=True), y.max(1, keepdims=True)], axis=1
    )
    return np.round(values, 4)


def distribution_checks(ours, reference, hardcore):
    """The parity harness's two-sample checks of our courses against the reference's."""
    checks = stats.ks_check("heights", _heights(ours), _heights(reference))
    if not hardcore:
        # Plain courses: how many flat grass steps (a counter ran out) past the pad.
        def flats(c):
            return int(np.sum(np.diff(c[1][wt.TERRAIN_STARTPAD :]) == 0.0))

        return checks + stats.chi_square_check("flat steps", [flats(c) for c in ours], [flats(c) for c in reference])
    ours_f = [_features(c[2]) for c in ours]
    ref_f = [_features(c[2]) for c in reference]
    checks += stats.chi_square_check("features per course", [len(f) for f in ours_f], [len(f) for f in ref_f])
    for kind, name in ((wt.STUMP, "stumps"), (wt.PIT, "pits"), (wt.STAIRS, "stairs")):
        count = [[sum(k == kind for k, _ in f) for f in fs] for fs in (ours_f, ref_f)]
        checks += stats.chi_square_check(f"{name} per course", *count)
    checks += stats.chi_square_check(
        "obstacle shapes",
        [_shape(r) for c in ours for r in c[2]],
        [_shape(r) for c in reference for r in c[2]],
        set(SHAPES),
    )
    pooled = {
        name: [[s for f in fs for k, s in f if k == kind] for fs in (ours_f, ref_f)]
        for kind, name in ((wt.PIT, "pit widths"), (wt.STAIRS, "stairs"))
    }
    checks += stats.chi_square_check("pit widths", *pooled["pit widths"], {3.0, 4.0})
    checks += stats.chi_square_check(
        "stairs (steps, direction)", *pooled["stairs"], {(n, d) for n in (3, 4) for d in (1, -1)}
    )
    return checks


def _report(checks):
    return "; ".join(f"{c.name}: {c.value:.3g} ({'ok' if c.passed else 'FAILED'})" for c in checks)


# ---------------------------------------------------------------------------------------------
# the course's definition


def _plain_invariants(x, y):
    """The reference's plain course, point by point: the rules `(x, y)` breaks, in words."""
    broken = []
    if not np.array_equal(x, wt.REFERENCE.terrain_x.astype(x.dtype)):
        broken.append("x grid")
    if not np.all(y[: wt.TERRAIN_STARTPAD + 1] == y.dtype.type(wt.TERRAIN_HEIGHT)):
        broken.append("start pad")
    # dy[i - 1] is step i's; a counter that runs out makes the next step flat, from the pad's end.
    dy = np.diff(y.astype(np.float64))
    flat = np.flatnonzero(dy[wt.TERRAIN_STARTPAD - 1 :] == 0.0) + wt.TERRAIN_STARTPAD
    gaps = np.diff(flat)
    if flat[0] != wt.TERRAIN_STARTPAD or not np.all((gaps >= wt.TERRAIN_GRASS // 2) & (gaps < wt.TERRAIN_GRASS)):
        broken.append("flat steps")
    # Every other step: the last slope, pulled toward TERRAIN_HEIGHT, plus a push within 1 / SCALE.
    velocity, push = 0.0, 0.0
    for i in range(wt.TERRAIN_STARTPAD + 1, wt.TERRAIN_LENGTH):
        if dy[i - 1] != 0.0:
            pull = 0.8 * velocity + 0.01 * np.sign(wt.TERRAIN_HEIGHT - y[i - 1])
            push = max(push, abs(dy[i - 1] - pull))
            velocity = dy[i - 1]
    if push > 1 / wt.SCALE + 1e-5:
        broken.append(f"push {push * wt.SCALE:.4f} / SCALE")
    return broken


def test_plain_course_is_the_references_definition():
    # The reference's own courses keep these rules; so do ours (the first 100: in float32 a
    # step's slope rounds to zero once in about 5 / 10^6 steps).
    reference = reference_courses(False)
    assert [b for c in reference for b in _plain_invariants(c[0], c[1])] == []
    ours = our_courses(False)[:100]
    x, y, obstacles = ours[0]
    assert x.shape == y.shape == (wt.TERRAIN_LENGTH,) and obstacles.shape == (0, 4, 2)
    np.testing.assert_array_equal(x, np.float32(reference[0][0]))
    assert [b for c in ours for b in _plain_invariants(c[0], c[1])] == []
    # A course whose slopes are 10% steeper breaks them.
    steeper = [b for c in ours for b in _plain_invariants(c[0], wt.TERRAIN_HEIGHT + 1.1 * (c[1] - wt.TERRAIN_HEIGHT))]
    assert any(b.startswith("push") for b in steeper)


def test_hardcore_course_obstacles():
    assert wt.MAX_OBSTACLES == wt.REFERENCE.max_obstacles == 39
    assert max(len(c[2]) for c in reference_courses(True)) <= wt.MAX_OBSTACLES
    t = our_terrains(True)
    for i, (_, y, obstacles) in enumerate(our_courses(True)):
        kinds = t.obstacle_kind[i, : len(obstacles)]
        np.testing.assert_array_equal(y[: wt.TERRAIN_STARTPAD + 1], np.float32(wt.TERRAIN_HEIGHT))
        # Each obstacle has its kind's shape; the first feature starts where the pad ends.
        assert [SHAPES[_shape(r)] for r in obstacles] == list(kinds)
        assert np.all(t.obstacle_kind[i, len(obstacles) :] == wt.GRASS)
        assert np.all(t.obstacle_vertices[i, len(obstacles) :] == 0.0)
        assert obstacles[0][:, 0].min() == pytest.approx(wt.TERRAIN_STARTPAD * STEP, abs=1e-5)
        # A stump stands on the ground at its left side.
        for r in obstacles[kinds == wt.STUMP]:
            assert r[:, 1].min() == pytest.approx(y[int(round(r[:, 0].min() / STEP))], abs=1e-5)


def test_ray_targets_are_the_obstacles_as_box2d_holds_them():
    terrain = wt.generate_terrain(jax.random.key(3), hardcore=True)
    n = int(terrain.num_obstacles)
    targets = wt.ray_targets(terrain)
    x, y = np.asarray(terrain.terrain_x), np.asarray(terrain.terrain_y)
    expected = physics.make_ray_targets(
        edges=[dict(v1=(x[i], y[i]), v2=(x[i + 1], y[i + 1])) for i in range(wt.TERRAIN_LENGTH - 1)],
        polygons=[dict(vertices=v) for v in np.asarray(terrain.obstacle_vertices[:n])],
    )
    for field in ("edge_v1", "edge_v2", "edge_category"):
        np.testing.assert_array_equal(getattr(targets, field), getattr(expected, field))
    for field in ("polygon_vertices", "polygon_normals", "polygon_count", "polygon_position", "polygon_category"):
        np.testing.assert_array_equal(np.asarray(getattr(targets, field))[:n], getattr(expected, field))
    assert np.all(np.asarray(targets.polygon_category)[n:] == 0)
    # The lidar, straight down through the middle of the first stump, stops on its top.
    stump = int(np.flatnonzero(np.asarray(terrain.obstacle_kind) == wt.STUMP)[0])
    rect = np.asarray(terrain.obstacle_vertices[stump])
    middle = rect[:, 0].mean()
    hit = jax.jit(physics.ray_cast_closest)(targets, jnp.array([middle, 20.0]), jnp.array([middle, -20.0]))
    assert bool(hit["hit"]) and int(hit["index"]) == wt.TERRAIN_LENGTH - 1 + stump
    assert float(hit["point"][1]) == pytest.approx(rect[:, 1].max(), abs=1e-5)


# ---------------------------------------------------------------------------------------------
# the reference's own draws, replayed


class _Recorder:
    """A numpy generator that notes each draw `_generate_terrain` makes, with its step and state."""

    def __init__(self, seed):
        self.rng, self.draws = np.random.default_rng(seed), []

    def _note(self, method, args, value):
        frame = sys._getframe(2)
        if frame.f_code.co_name == "_generate_terrain":
            self.draws.append((int(frame.f_locals["i"]), int(frame.f_locals["state"]), method, args, value))
        return value

    def uniform(self, *args):
        return self._note("uniform", args, self.rng.uniform(*args))

    def integers(self, *args):
        return self._note("integers", args, self.rng.integers(*args))

    def random(self, *args):
        return self._note("random", args, self.rng.random(*args))


def _as_draws(noted):
    """`TerrainDraws` (numpy, float64) with the noted draws at their steps; the rest unused."""
    length = wt.TERRAIN_LENGTH
    draws = {f: np.zeros(length) for f in ("velocity", "stair_direction")}
    draws |= {
        f: np.ones(length, np.int32)
        for f in ("counter", "state", "pit_counter", "stump_counter", "stair_width", "stair_steps")
    }
    for i, state, method, args, value in noted:
        if method == "uniform":
            field = "velocity"
        elif method == "random":
            field = "stair_direction"
        elif args == (wt.TERRAIN_GRASS / 2, wt.TERRAIN_GRASS):
            field = "counter"
        elif args == (1, wt.NUM_STATES):
            field = "state"
        elif args == wt.PIT_COUNTER and state == wt.PIT:
            field = "pit_counter"
        elif args == wt.STAIR_STEPS and state == wt.STAIRS:
            field = "stair_steps"
        else:
            field = {wt.STUMP_COUNTER: "stump_counter", wt.STAIR_WIDTH: "stair_width"}[args]
        draws[field][i] = value
    return draws


def test_reference_draws_give_the_references_course():
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalker

    cases = []
    for hardcore in (False, True):
        env = BipedalWalker(hardcore=hardcore)
        for seed in range(REPLAYS):
            env._np_random = recorder = _Recorder(seed)
            env._generate_terrain(hardcore)
            cases.append((hardcore, _as_draws(recorder.draws), _reference_terrain(env)))
            for body in env.terrain:
                env.world.DestroyBody(body)
            env.terrain = []
    with jax.enable_x64(True):
        draws = wt.TerrainDraws(**{f: jnp.asarray(np.stack([c[1][f] for c in cases])) for f in cases[0][1]})
        hardcore = jnp.asarray([c[0] for c in cases])
        ours = jax.device_get(jax.jit(jax.vmap(wt.terrain_from_draws))(draws, hardcore))
    assert ours.terrain_y.dtype == np.float64
    for k, (_, _, (x, y, obstacles)) in enumerate(cases):
        np.testing.assert_array_equal(ours.terrain_x[k], x)
        np.testing.assert_allclose(ours.terrain_y[k], y, rtol=0, atol=1e-13)
        assert int(ours.num_obstacles[k]) == len(obstacles)
        # Box2D holds the vertices in float32.
        np.testing.assert_array_equal(ours.obstacle_vertices[k, : len(obstacles)].astype(np.float32), obstacles)
    assert sum(len(c[2][2]) for c in cases) > 10 * REPLAYS  # the hardcore cases built obstacles

    # In float32 (the default), given the same draws rounded to float32: what depends on no
    # push is the reference's float64 value rounded once, as Box2D holds it (every obstacle's x,
    # the start pad, the first obstacle, always the first feature's); the rest within float32
    # rounding of the pushes. A float32 sum was a unit in the last place off as often as not.
    draws = wt.TerrainDraws(**{f: jnp.asarray(np.stack([c[1][f] for c in cases])) for f in cases[0][1]})
    ours = jax.device_get(jax.jit(jax.vmap(wt.terrain_from_draws))(draws, hardcore))
    assert ours.terrain_y.dtype == np.float32
    for k, (is_hardcore, _, (x, y, obstacles)) in enumerate(cases):
        np.testing.assert_array_equal(ours.terrain_x[k], np.float32(x))
        np.testing.assert_array_equal(
            ours.terrain_y[k, : wt.TERRAIN_STARTPAD + 1], np.float32(y[: wt.TERRAIN_STARTPAD + 1])
        )
        np.testing.assert_allclose(ours.terrain_y[k], y, rtol=0, atol=1e-5)
        if is_hardcore:
            np.testing.assert_array_equal(ours.obstacle_vertices[k, : len(obstacles), :, 0], obstacles[..., 0])
            np.testing.assert_array_equal(ours.obstacle_vertices[k, 0], obstacles[0])
            np.testing.assert_allclose(ours.obstacle_vertices[k, : len(obstacles)], obstacles, rtol=0, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# distributions: jax.random keys against the reference's seeds


@pytest.mark.parametrize("hardcore", [False, True], ids=["plain", "hardcore"])
def test_distribution_matches_the_reference(hardcore):
    checks = distribution_checks(our_courses(hardcore), reference_courses(hardcore), hardcore)
    assert all(c.passed for c in checks), _report(checks)


def _larger_stumps(courses, factor=1.15):
    """A wrong generator: each stump `factor` times larger, about its lower left corner."""
    wrong = []
    for x, y, obstacles in courses:
        obstacles = obstacles.copy()
        for r in obstacles:
            if SHAPES.get(_shape(r)) == wt.STUMP:
                corner = r.min(0)
                r[:] = corner + factor * (r - corner)
        wrong.append((x, y, obstacles))
    return wrong


@pytest.mark.parametrize("hardcore", [False, True], ids=["plain", "hardcore"])
def test_distribution_checks_catch_a_course_too_high(hardcore):
    wrong = our_courses(hardcore, wt.Constants(terrain_height=1.15 * wt.TERRAIN_HEIGHT))
    checks = distribution_checks(wrong, reference_courses(hardcore), hardcore)
    assert not next(c for c in checks if c.name == "heights distribution").passed, _report(checks)


@pytest.mark.parametrize("hardcore", [False, True], ids=["plain", "hardcore"])
def test_distribution_checks_catch_grass_too_long(hardcore):
    # TERRAIN_GRASS 12: grass lasts 6 to 11 steps, not 5 to 9.
    wrong = our_courses(hardcore, wt.Constants(terrain_grass=12))
    checks = distribution_checks(wrong, reference_courses(hardcore), hardcore)
    name = "features per course frequencies" if hardcore else "flat steps frequencies"
    assert not next(c for c in checks if c.name == name).passed, _report(checks)


def test_distribution_checks_catch_stumps_too_large():
    checks = distribution_checks(_larger_stumps(our_courses(True)), reference_courses(True), True)
    assert not next(c for c in checks if c.name == "obstacle shapes support").passed, _report(checks)
