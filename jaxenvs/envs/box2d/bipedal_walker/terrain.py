"""BipedalWalker's terrain: gymnasium's `_generate_terrain`, plain and hardcore, as one `lax.scan`.

Reference: gymnasium `BipedalWalker-v3` and `BipedalWalkerHardcore-v3`
(`gymnasium/envs/box2d/bipedal_walker.py`, `BipedalWalker._generate_terrain`). Same constants,
same state machine (GRASS, STUMP, STAIRS, PIT), same counters and the same random choices: the
terrain's 200 points (`terrain_x`, `terrain_y`), its 199 edges (`terrain_poly`'s top sides,
category 0x0001, friction `FRICTION`) and the obstacles (stumps, pit walls, stairs: static
axis-aligned rectangles, friction `FRICTION`, Box2D's default category 0x0001), padded to the
most a terrain can hold, `MAX_OBSTACLES`. `ray_targets` gives them to `physics.ray_cast_closest`
(the walker's lidar).

The generator takes its random numbers as `TerrainDraws`, one array per kind of draw, indexed by
the step `i` at which the reference would draw it; `draw_terrain` draws them from a `jax.random`
key with the reference's distributions. The reference draws the same numbers from one stream in
its order (per step: the grass's push, or a feature's sizes, then the next counter and, in
hardcore, the next state), each independent of the others, so the terrains have the reference's
distribution. Checked (tests/envs/box2d/test_walker_terrain.py): given the reference's own
draws, recorded step by step, the terrain equals gymnasium's to float64 rounding, and in float32
what depends on no push (every obstacle's x, the start pad, the first feature) is Box2D's float32
value exactly (the sums are double-float, `_add`); drawn from keys,
its heights, obstacle counts and sizes pass two-sample KS and chi-square tests against
gymnasium's terrains at hundreds of seeds, and a terrain 15% too high, stumps 15% too large or
grass 20% too long fail them.

The reference's quirks, kept: the first grass step after each feature (and every `counter` steps
on plain terrain) is flat, its velocity carried over, also across a feature; the grass's random
push starts after the start pad, so `terrain_y[:TERRAIN_STARTPAD + 1]` is `TERRAIN_HEIGHT` and
hardcore's first feature always starts at `i = TERRAIN_STARTPAD`; when grass ends in hardcore the
next grass's length is drawn and then overwritten by the feature's own counter; `stair_width` is
drawn from `integers(4, 5)`, always 4; the ground over stairs is a ramp (`s / stair_width` is a
true division) that runs above rising stairs and below falling ones, not the stairs' steps; the
ground edges into and out of a pit are diagonals inside its walls; a feature near the end keeps
all its obstacles, past `terrain_x[-1]`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs.envs.box2d import physics

# gymnasium's constants.
SCALE = 30.0
VIEWPORT_H = 400
TERRAIN_STEP = 14 / SCALE
TERRAIN_LENGTH = 200  # in steps
TERRAIN_HEIGHT = VIEWPORT_H / SCALE / 4
TERRAIN_GRASS = 10  # low long are grass spots, in steps
TERRAIN_STARTPAD = 20  # in steps
FRICTION = 2.5
# The terrain states, `range(5)` in the reference (its `_STATES_` is 4, one past the last).
GRASS, STUMP, STAIRS, PIT = range(4)
NUM_STATES = 4
# The reference's draws of feature sizes, numpy's `integers(low, high)` bounds (high excluded).
PIT_COUNTER = (3, 5)
STUMP_COUNTER = (1, 3)
STAIR_WIDTH = (4, 5)
STAIR_STEPS = (3, 5)
# The edges' `categoryBits` (fd_edge's); the obstacles keep Box2D's default, the same bit.
TERRAIN_CATEGORY = 0x0001
# One step creates at most this many obstacles (the longest stairs).
_PER_STEP = STAIR_STEPS[1] - 1
# An axis-aligned rectangle's edge normals in `physics.polygon`'s hull order (`_rectangle`).
RECTANGLE_NORMALS = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))


@dataclasses.dataclass(frozen=True)
class Constants:
    """The reference's module constants that shape the terrain (its names, lower-cased).

    A generator with other values (a parity mutant, a longer course) is the same functions
    given other constants; shapes follow `terrain_length` and `max_obstacles()`.

    Attributes:
        terrain_step: The points' x spacing (14 / SCALE m).
        terrain_length: The number of points (200).
        terrain_height: The start pad's height, which the grass is pulled back to (10/3 m).
        terrain_grass: Grass lasts `integers(terrain_grass // 2, terrain_grass)` steps (10).
        terrain_startpad: The flat steps before the first random one (20).
    """

    terrain_step: float = TERRAIN_STEP
    terrain_length: int = TERRAIN_LENGTH
    terrain_height: float = TERRAIN_HEIGHT
    terrain_grass: int = TERRAIN_GRASS
    terrain_startpad: int = TERRAIN_STARTPAD

    @functools.cached_property
    def terrain_x(self) -> np.ndarray:
        """`float64[terrain_length]`, the reference's `i * TERRAIN_STEP`."""
        return np.array([i * self.terrain_step for i in range(self.terrain_length)])

    @functools.cached_property
    def max_obstacles(self) -> int:
        """The most obstacles one hardcore terrain can hold (39 for the reference's constants).

        Features follow each other with at least `terrain_grass // 2` grass steps between;
        a feature that starts before the last step is built whole.
        """
        # (steps a feature lasts, obstacles it builds): a stump of side c, a pit of width c
        # (c + 2 steps, two walls), stairs of `steps` steps of `width`.
        features = [(c, 1) for c in range(*STUMP_COUNTER)] + [(c + 2, 2) for c in range(*PIT_COUNTER)]
        features += [(n * w, n) for n in range(*STAIR_STEPS) for w in range(*STAIR_WIDTH)]
        gap = self.terrain_grass // 2
        best = [0] * (self.terrain_length + max(f for f, _ in features) + gap + 1)
        for p in range(self.terrain_length - 1, self.terrain_startpad - 1, -1):
            best[p] = max(n + best[p + f + gap] for f, n in features)
        return best[self.terrain_startpad]


REFERENCE = Constants()
MAX_OBSTACLES = REFERENCE.max_obstacles


@struct.dataclass
class TerrainDraws:
    """The reference's random draws, each kind at the step `i` it would be drawn at.

    A draw the reference does not make at a step is ignored there. `L` is `terrain_length`.

    Attributes:
        velocity: `[L]` `uniform(-1, 1)`, the grass's push (divided by SCALE), past the pad.
        counter: `[L]` int32, `integers(TERRAIN_GRASS / 2, TERRAIN_GRASS)`, the next grass's
            length, drawn when a counter runs out.
        state: `[L]` int32, `integers(1, _STATES_)`, hardcore's next feature, drawn next.
        pit_counter: `[L]` int32, `integers(3, 5)`, a pit's width in steps.
        stump_counter: `[L]` int32, `integers(1, 3)`, a stump's side in steps.
        stair_direction: `[L]` `random()`: the stairs go up when it is above 0.5.
        stair_width: `[L]` int32, `integers(4, 5)`, each stair's width in steps (always 4).
        stair_steps: `[L]` int32, `integers(3, 5)`, the number of stairs.
    """

    velocity: jax.Array
    counter: jax.Array
    state: jax.Array
    pit_counter: jax.Array
    stump_counter: jax.Array
    stair_direction: jax.Array
    stair_width: jax.Array
    stair_steps: jax.Array


@struct.dataclass
class Terrain:
    """One course: its points and its obstacles. `L` is `terrain_length`, `N` `max_obstacles`.

    Attributes:
        terrain_x: `[L]` the points' x, `i * TERRAIN_STEP`.
        terrain_y: `[L]` the points' heights.
        obstacle_vertices: `[N, 4, 2]` each obstacle's rectangle (world frame, on a static body
            at the origin, as the reference builds it), in `physics.polygon`'s hull order:
            counter-clockwise from the lower right; zeros past `num_obstacles`.
        obstacle_kind: `[N]` int32, the feature that built each obstacle (`STUMP`, `STAIRS`,
            `PIT`), in the reference's order of creation; `GRASS` past `num_obstacles`.
        num_obstacles: int32, how many obstacles there are (0 on plain terrain).
    """

    terrain_x: jax.Array
    terrain_y: jax.Array
    obstacle_vertices: jax.Array
    obstacle_kind: jax.Array
    num_obstacles: jax.Array

    @property
    def edges(self) -> jax.Array:
        """`[L - 1, 4]` each edge's `(x1, y1, x2, y2)`, point i to point i + 1 (`terrain_poly`)."""
        x, y = self.terrain_x, self.terrain_y
        return jnp.stack([x[..., :-1], y[..., :-1], x[..., 1:], y[..., 1:]], axis=-1)

    @property
    def obstacle_mask(self) -> jax.Array:
        """`[N]` bool, which obstacle rows are real."""
        return self.obstacle_kind != GRASS


class _Walk(NamedTuple):
    """The reference's loop variables between two steps."""

    state: jax.Array  # int32, GRASS, STUMP, STAIRS or PIT
    oneshot: jax.Array  # bool, the state's first step (builds its obstacles)
    counter: jax.Array  # int32, steps left in the state
    velocity: jax.Array  # the grass's slope per step
    y: tuple  # the height, a double-float `(hi, lo)` (`_add`)
    original_y: tuple  # a pit's or stairs' starting height, likewise
    stair_steps: jax.Array  # int32
    stair_width: jax.Array  # int32
    stair_height: jax.Array  # int32, +1 up, -1 down


def draw_terrain(key: jax.Array, constants: Constants = REFERENCE) -> TerrainDraws:
    """Every draw the reference may make, with its distributions.

    Args:
        key: A `jax.random` key.
        constants: The terrain's constants (`terrain_length`, `terrain_grass`).

    Returns:
        `TerrainDraws` of `terrain_length` draws each, in the default float dtype.
    """
    dtype = jnp.result_type(float)
    shape = (constants.terrain_length,)
    keys = jax.random.split(key, 8)

    def integers(k, bounds):
        return jax.random.randint(k, shape, *bounds, dtype=jnp.int32)

    return TerrainDraws(
        velocity=jax.random.uniform(keys[0], shape, dtype, -1.0, 1.0),
        counter=integers(keys[1], (constants.terrain_grass // 2, constants.terrain_grass)),
        state=integers(keys[2], (1, NUM_STATES)),
        pit_counter=integers(keys[3], PIT_COUNTER),
        stump_counter=integers(keys[4], STUMP_COUNTER),
        stair_direction=jax.random.uniform(keys[5], shape, dtype),
        stair_width=integers(keys[6], STAIR_WIDTH),
        stair_steps=integers(keys[7], STAIR_STEPS),
    )


# The reference computes the course in Python floats (float64) and Box2D keeps it in float32. A
# course's coordinates are sums `a + q * TERRAIN_STEP` (`a` a point's x or a height, `q` a whole or
# quarter number of steps), and many are atoms (every obstacle's x, the first feature's heights),
# which a float32 sum rounds a unit in the last place off as often as not: a two-sample test of
# the reset sees that. So the generator carries each value as a double-float `(hi, lo)` of the
# dtype (float32: about 48 bits; in float64, lo is 0), adds as Knuth's two-sum, and its float32
# result is `hi`, the reference's float64 value rounded once.
_QUARTERS = 80  # offsets of -20 to +20 steps, in quarter steps


def _split(values: np.ndarray, dtype) -> tuple[jax.Array, jax.Array]:
    """float64 `values` as double-floats of `dtype`: `(hi, lo)`, hi the rounded value."""
    hi = np.asarray(values, np.float64).astype(dtype)
    return jnp.asarray(hi), jnp.asarray((np.asarray(values, np.float64) - hi.astype(np.float64)).astype(dtype))


def _add(a: tuple, b: tuple) -> tuple:
    """The double-float sum `a + b` (each `(hi, lo)`), renormalized: hi is the sum rounded."""
    s = a[0] + b[0]
    back = s - a[0]
    lo = ((a[0] - (s - back)) + (b[0] - back)) + (a[1] + b[1])
    hi = s + lo
    return hi, lo - (hi - s)


def _rectangle(x1, x2, y1, y2) -> jax.Array:
    """`[..., 4, 2]` the rectangle [x1, x2] x [y1, y2] as `b2PolygonShape::Set` orders it."""
    return jnp.stack(
        [jnp.stack(corner, axis=-1) for corner in ((x2, y1), (x2, y2), (x1, y2), (x1, y1))],
        axis=-2,
    )


def terrain_from_draws(draws: TerrainDraws, hardcore=False, constants: Constants = REFERENCE) -> Terrain:
    """The reference's `_generate_terrain` given its draws.

    Args:
        draws: The random numbers (`draw_terrain`, or the reference's own, recorded).
        hardcore: bool (Python or traced): the hardcore course, with stumps, stairs and pits.
        constants: The terrain's constants.

    Returns:
        The terrain, in the dtype of `draws.velocity`.
    """
    dtype = draws.velocity.dtype
    step = constants.terrain_step
    height = _split(constants.terrain_height, dtype)
    terrain_x = _split(constants.terrain_x, dtype)
    # `q * TERRAIN_STEP` in float64, q in quarter steps: `offset(q)` (q traced).
    steps64 = np.arange(-_QUARTERS, _QUARTERS + 1) / 4 * step
    table = _split(steps64, dtype)

    def offset(q):
        index = jnp.round(4 * jnp.asarray(q, dtype)).astype(jnp.int32) + _QUARTERS
        return table[0][index], table[1][index]

    hardcore = jnp.asarray(hardcore, bool)
    slot = jnp.arange(_PER_STEP)

    def where(cond, a: tuple, b: tuple) -> tuple:
        return jnp.where(cond, a[0], b[0]), jnp.where(cond, a[1], b[1])

    def advance(walk: _Walk, inputs):
        i, x_hi, x_lo, d = inputs
        x = (x_hi, x_lo)
        on_grass = (walk.state == GRASS) & ~walk.oneshot
        pit_start = (walk.state == PIT) & walk.oneshot
        in_pit = (walk.state == PIT) & ~walk.oneshot
        stump_start = (walk.state == STUMP) & walk.oneshot
        stairs_start = (walk.state == STAIRS) & walk.oneshot
        on_stairs = (walk.state == STAIRS) & ~walk.oneshot

        above = (height[0] - walk.y[0]) + (height[1] - walk.y[1])
        velocity = 0.8 * walk.velocity + 0.01 * jnp.sign(above)
        velocity = velocity + jnp.where(i > constants.terrain_startpad, d.velocity / SCALE, 0.0)
        y = where(on_grass, _add(walk.y, (velocity, jnp.zeros_like(velocity))), walk.y)
        velocity = jnp.where(on_grass, velocity, walk.velocity)

        # A pit: its near wall here, its far wall `pit_counter` steps on; the ground sinks
        # 4 steps deep until the counter's last step.
        pit = d.pit_counter
        y = where(in_pit, _add(walk.original_y, offset(jnp.where(walk.counter > 1, -4, 0))), y)

        # A stump: a square of `stump_counter` steps on the ground.
        stump = d.stump_counter

        # Stairs: `stair_steps` blocks `stair_width` steps wide, each a step higher (or lower);
        # the ground over them ramps by `1 / stair_width` of a step per step.
        stair_height = jnp.where(d.stair_direction > 0.5, 1, -1).astype(jnp.int32)
        stair_width, stair_steps = d.stair_width, d.stair_steps
        s = walk.stair_steps * walk.stair_width - walk.counter - walk.stair_height
        n = s.astype(dtype) / walk.stair_width.astype(dtype)
        y = where(on_stairs, _add(walk.original_y, offset(n * walk.stair_height.astype(dtype))), y)

        # The obstacles this step builds: slot k is the k-th stair, or the pit's k-th wall.
        pit_x1 = jnp.stack([x[0], _add(x, offset(pit))[0]])
        pit_x2 = jnp.stack([_add(x, offset(1))[0], _add(_add(x, offset(1)), offset(pit))[0]])
        stair_x1 = _add(x, offset(slot * stair_width))[0]
        stair_x2 = _add(x, offset((1 + slot) * stair_width))[0]
        stair_top = _add(y, offset(slot * stair_height))[0]
        stair_bottom = _add(y, offset(-1 + slot * stair_height))[0]
        pad = jnp.zeros(_PER_STEP - 2, dtype)
        x1 = jnp.where(pit_start, jnp.concatenate([pit_x1, pad]), jnp.where(stairs_start, stair_x1, x[0]))
        x2 = jnp.where(
            pit_start, jnp.concatenate([pit_x2, pad]), jnp.where(stairs_start, stair_x2, _add(x, offset(stump))[0])
        )
        y1 = jnp.where(pit_start, _add(y, offset(-4))[0], jnp.where(stairs_start, stair_bottom, y[0]))
        y2 = jnp.where(pit_start, y[0], jnp.where(stairs_start, stair_top, _add(y, offset(stump))[0]))
        kind = jnp.select(
            [pit_start & (slot < 2), stairs_start & (slot < stair_steps), stump_start & (slot == 0)],
            [PIT, STAIRS, STUMP],
            GRASS,
        ).astype(jnp.int32)

        counter = jnp.select(
            [pit_start, stump_start, stairs_start], [pit + 2, stump, stair_steps * stair_width], walk.counter
        )
        counter = counter - 1
        done = counter == 0
        next_state = jnp.where((walk.state == GRASS) & hardcore, d.state, GRASS)
        starts = pit_start | stairs_start
        walk = _Walk(
            state=jnp.where(done, next_state, walk.state).astype(jnp.int32),
            oneshot=done,
            counter=jnp.where(done, d.counter, counter),
            velocity=velocity,
            y=y,
            original_y=where(starts, y, walk.original_y),
            stair_steps=jnp.where(stairs_start, stair_steps, walk.stair_steps),
            stair_width=jnp.where(stairs_start, stair_width, walk.stair_width),
            stair_height=jnp.where(stairs_start, stair_height, walk.stair_height),
        )
        return walk, (y[0], _rectangle(x1, x2, y1, y2), kind)

    zero = jnp.zeros((), jnp.int32)
    start = _Walk(
        state=jnp.int32(GRASS),
        oneshot=jnp.zeros((), bool),
        counter=jnp.int32(constants.terrain_startpad),
        velocity=jnp.zeros((), dtype),
        y=height,
        original_y=(jnp.zeros((), dtype), jnp.zeros((), dtype)),
        stair_steps=zero,
        stair_width=zero,
        stair_height=zero,
    )
    steps = jnp.arange(constants.terrain_length)
    _, (terrain_y, rectangles, kinds) = jax.lax.scan(advance, start, (steps, *terrain_x, draws))

    # Keep the built obstacles in the order the reference creates them, padded.
    rectangles, kinds = rectangles.reshape(-1, 4, 2), kinds.reshape(-1)
    built = kinds != GRASS
    n = constants.max_obstacles
    row = jnp.where(built, jnp.cumsum(built) - 1, n)
    return Terrain(
        terrain_x=terrain_x[0],
        terrain_y=terrain_y,
        obstacle_vertices=jnp.zeros((n, 4, 2), dtype).at[row].set(rectangles, mode="drop"),
        obstacle_kind=jnp.full((n,), GRASS, jnp.int32).at[row].set(kinds, mode="drop"),
        num_obstacles=built.sum().astype(jnp.int32),
    )


def generate_terrain(key: jax.Array, hardcore=False, constants: Constants = REFERENCE) -> Terrain:
    """A random course, as the reference's `reset` generates it.

    Args:
        key: A `jax.random` key.
        hardcore: bool (Python or traced): `BipedalWalkerHardcore-v3`'s course.
        constants: The terrain's constants.

    Returns:
        The terrain, in the default float dtype.

    >>> import jax
    >>> terrain = generate_terrain(jax.random.key(0), hardcore=True)
    >>> terrain.terrain_y.shape, terrain.obstacle_vertices.shape
    ((200,), (39, 4, 2))
    >>> bool(terrain.num_obstacles > 0), int(terrain.obstacle_kind[0]) != GRASS
    (True, True)
    """
    return terrain_from_draws(draw_terrain(key, constants), hardcore, constants)


def ray_targets(terrain: Terrain) -> physics.RayTargets:
    """The terrain's fixtures as `physics.ray_cast_closest` takes them (the lidar's targets).

    Args:
        terrain: One course (unbatched; vmap for many).

    Returns:
        `RayTargets`: the `L - 1` edges, category `TERRAIN_CATEGORY`, then the `N` obstacle
        rectangles on bodies at the origin; padding rows get category 0, which no mask sees.
    """
    dtype = terrain.terrain_y.dtype
    edges = terrain.edges
    n = terrain.obstacle_kind.shape[0]
    return physics.RayTargets(
        edge_v1=edges[:, :2],
        edge_v2=edges[:, 2:],
        edge_category=jnp.full((edges.shape[0],), TERRAIN_CATEGORY, jnp.int32),
        polygon_vertices=terrain.obstacle_vertices,
        polygon_normals=jnp.broadcast_to(jnp.asarray(RECTANGLE_NORMALS, dtype), (n, 4, 2)),
        polygon_count=jnp.full((n,), 4, jnp.int32),
        polygon_position=jnp.zeros((n, 2), dtype),
        polygon_angle=jnp.zeros((n,), dtype),
        polygon_category=jnp.where(terrain.obstacle_mask, TERRAIN_CATEGORY, 0).astype(jnp.int32),
    )
