"""BipedalWalker against gymnasium's Box2D BipedalWalker-v3 and BipedalWalkerHardcore-v3.

As for LunarLander (`jaxenvs.envs.box2d.lunar_lander.parity`), pybox2d cannot set the solver's
warm-start impulses, a body's sleep timer or a contact's state, so a state is injected by
building the reference's world afresh (`write_state`: a new `b2World` with the terrain's edges,
the hull and its legs created in `reset`'s order, then placed and set moving), and each compared
step is a cold-started one on both sides. The walker's step draws nothing, so no draw is
replayed. Compared: every body's centre of mass, angle and velocities, the lower legs' contact
flags, the fall flag, the lidar, the reward, the flags and the observation; to `STEP_ATOL`
where no body is near the terrain, and in distribution where one is (`in_contact`), as for
LunarLander. The walker stands on the ground, so most steps are in contact; measured at the
demo's scale (seed 0), every one of 250 steps agreed to 1.6e-5 as well.

Warm starting as it really occurs is left to whole-episode statistics: episode length, return,
how far the hull got and how episodes end (fallen, finished, cut at the time limit), under
uniform random actions and under the reference's scripted walker
(`gymnasium.envs.box2d.bipedal_walker.BipedalWalkerHeuristics`, written again here in JAX as
`heuristic`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.box2d import physics, pybox2d
from jaxenvs.envs.box2d.bipedal_walker import env as bw
from jaxenvs.envs.box2d.bipedal_walker import terrain as tr
from jaxenvs.parity.reference import elapsed_steps, set_elapsed_steps

BODY_FIELDS = pybox2d.BODY_FIELDS
# Per-step tolerance of a cold-started step's float values away from the terrain.
STEP_ATOL = 2e-4
# Rewards are 130 / SCALE x metres plus 5 x radians differences of such values.
REWARD_ATOL = 5e-3
# A step is in contact when a body is this near the terrain (`pybox2d.CONTACT_MARGIN`).
CONTACT_MARGIN = pybox2d.CONTACT_MARGIN


def _bodies(env: Any) -> list[Any]:
    u = env.unwrapped
    return [u.hull, *u.legs]


def read_state(env: Any) -> dict[str, Any]:
    """The reference's state, named as `from_jax` names ours.

    Args:
        env: gymnasium's BipedalWalker (possibly wrapped), reset.

    Returns:
        `{field: numpy value}`: the bodies' centres of mass, angles and velocities, whether the
        walker is awake, the terrain's heights, the lower legs' contact flags, the fall flag,
        the lidar's fractions, the last shaping and the time; on the hardcore course also its
        obstacles (`obstacle_vertices`, padded with zeros, and `num_obstacles`).
    """
    u = env.unwrapped
    bodies = _bodies(env)
    obstacles = _read_obstacles(u) if u.hardcore else {}
    return (
        obstacles
        | pybox2d.read_bodies(bodies)
        | {
            "awake": np.bool_(u.hull.awake),
            # as Box2D holds the edges' vertices (float32)
            "terrain_y": np.array(u.terrain_y, np.float32).astype(np.float64),
            "ground_contact": np.array([u.legs[1].ground_contact, u.legs[3].ground_contact], bool),
            "game_over": np.bool_(u.game_over),
            "lidar": np.array([lidar.fraction for lidar in u.lidar], np.float64),
            "prev_shaping": np.float64(u.prev_shaping if u.prev_shaping is not None else 0.0),
            "time": np.int32(elapsed_steps(env)),
        }
    )


def _read_obstacles(u: Any) -> dict[str, Any]:
    """The course's obstacles as Box2D holds them (float32 vertices, its hull order), in the
    order `reset` created them (`u.terrain` is reversed at its end)."""
    import Box2D

    shapes = [t.fixtures[0].shape for t in reversed(u.terrain)]
    found = [np.array(s.vertices, np.float32) for s in shapes if isinstance(s, Box2D.b2PolygonShape)]
    vertices = np.zeros((tr.REFERENCE.max_obstacles, 4, 2))
    vertices[: len(found)] = found
    return {"obstacle_vertices": vertices, "num_obstacles": np.int32(len(found))}


def _lidar_callback() -> Any:
    """A lidar ray's callback as the reference's: the closest fixture of category 1."""
    import Box2D

    class Lidar(Box2D.b2.rayCastCallback):
        def ReportFixture(self, fixture, point, normal, fraction):  # noqa: N802 (pybox2d's name)
            if (fixture.filterData.categoryBits & tr.TERRAIN_CATEGORY) == 0:
                return -1
            self.p2 = point
            self.fraction = fraction
            return fraction

    return Lidar()


def write_state(env: Any, state: dict[str, Any]) -> None:
    """Build the reference's world afresh at `state` (cold: no contacts, impulses or timers).

    The terrain's obstacles (hardcore), its edges, the hull, the legs and the joints are
    gymnasium's `reset`'s, created in its order (so each obstacle is its contacts' A, as on the
    reference's first course, and on ours); the joints take the reference angles `reset` gives
    them (-0.05 and +0.05 at the hips, 0 at the knees), whatever the bodies' angles now.

    Args:
        env: gymnasium's BipedalWalker (possibly wrapped).
        state: a state as `read_state` reads it.
    """
    import Box2D
    from gymnasium.envs.box2d.bipedal_walker import HULL_FD, LEG_FD, LOWER_FD, ContactDetector

    u = env.unwrapped
    _new_world(u)
    u.world.contactListener_bug_workaround = ContactDetector(u)
    u.world.contactListener = u.world.contactListener_bug_workaround
    x = [float(v) for v in tr.REFERENCE.terrain_x]
    y = [float(v) for v in state["terrain_y"]]
    u.terrain_x, u.terrain_y = x, y
    u.terrain, u.terrain_poly = [], []
    for vertices in state.get("obstacle_vertices", ())[: int(state.get("num_obstacles", 0))]:
        poly = [(float(a), float(b)) for a, b in vertices]
        fixture = Box2D.b2FixtureDef(shape=Box2D.b2PolygonShape(vertices=poly), friction=tr.FRICTION)
        u.terrain.append(u.world.CreateStaticBody(fixtures=fixture))
        u.terrain_poly.append((poly, (255, 255, 255)))
    for i in range(len(x) - 1):
        edge = Box2D.b2FixtureDef(
            shape=Box2D.b2EdgeShape(vertices=[(x[i], y[i]), (x[i + 1], y[i + 1])]),
            friction=tr.FRICTION,
            categoryBits=tr.TERRAIN_CATEGORY,
        )
        u.terrain.append(u.world.CreateStaticBody(fixtures=edge))
        u.terrain_poly.append(([(x[i], y[i]), (x[i + 1], y[i + 1]), (x[i + 1], 0), (x[i], 0)], (102, 153, 76)))
    u.terrain.reverse()
    u.hull = u.world.CreateDynamicBody(fixtures=HULL_FD)
    u.legs, u.joints = [], []
    for i in (-1, 1):
        upper = u.world.CreateDynamicBody(fixtures=LEG_FD)
        hip = Box2D.b2RevoluteJointDef()
        hip.bodyA, hip.bodyB = u.hull, upper
        hip.localAnchorA, hip.localAnchorB = (0, bw.LEG_DOWN), (0, bw.LEG_H / 2)
        hip.referenceAngle = i * 0.05
        hip.enableMotor, hip.enableLimit = True, True
        hip.maxMotorTorque, hip.motorSpeed = bw.MOTORS_TORQUE, float(i)
        hip.lowerAngle, hip.upperAngle = -0.8, 1.1
        u.legs.append(upper)
        u.joints.append(u.world.CreateJoint(hip))
        lower = u.world.CreateDynamicBody(fixtures=LOWER_FD)
        knee = Box2D.b2RevoluteJointDef()
        knee.bodyA, knee.bodyB = upper, lower
        knee.localAnchorA, knee.localAnchorB = (0, -bw.LEG_H / 2), (0, bw.LEG_H / 2)
        knee.referenceAngle = 0.0
        knee.enableMotor, knee.enableLimit = True, True
        knee.maxMotorTorque, knee.motorSpeed = bw.MOTORS_TORQUE, 1.0
        knee.lowerAngle, knee.upperAngle = -1.6, -0.1
        u.legs.append(lower)
        u.joints.append(u.world.CreateJoint(knee))
    pybox2d.place_bodies(_bodies(env), state)
    u.legs[1].ground_contact, u.legs[3].ground_contact = (bool(v) for v in state["ground_contact"])
    u.drawlist = u.terrain + u.legs + [u.hull]
    u.lidar = [_lidar_callback() for _ in range(bw.NUM_LIDAR)]
    for lidar, fraction in zip(u.lidar, state["lidar"], strict=True):
        lidar.fraction = float(fraction)
    u.game_over = bool(state["game_over"])
    u.prev_shaping = float(state["prev_shaping"])
    set_elapsed_steps(env, int(state["time"]))


def to_jax(states: dict[str, Any], params: Any) -> bw.BipedalWalkerState:
    """A batch of reference states as cold-started JAX states (`physics.init_state`).

    Args:
        states: `{field: [n, ...]}` reference states (`read_state`'s fields).
        params: the params (unused: a state does not depend on them).

    Returns:
        The batched `BipedalWalkerState`: no contacts, no impulses, sleep timers at 0. A
        hardcore state's obstacles are its own (their kinds are not read back: each is marked
        `STUMP`, which only says the row is real).
    """
    hardcore = "obstacle_vertices" in states
    world = bw.walker_world(hardcore=hardcore)
    dtype = world.inv_mass.dtype
    n = tr.REFERENCE.max_obstacles
    count = len(states["time"])

    def one(
        center,
        angle,
        linear_velocity,
        angular_velocity,
        awake,
        terrain_y,
        contact,
        game_over,
        lidar,
        prev,
        t,
        obstacle_vertices,
        num_obstacles,
    ):
        wstate = pybox2d.cold_world_state(world, center, angle, linear_velocity, angular_velocity, awake)
        terrain = tr.Terrain(
            terrain_x=jnp.asarray(tr.REFERENCE.terrain_x, dtype),
            terrain_y=terrain_y.astype(dtype),
            obstacle_vertices=obstacle_vertices.astype(dtype),
            obstacle_kind=jnp.where(jnp.arange(n) < num_obstacles, tr.STUMP, tr.GRASS).astype(jnp.int32),
            num_obstacles=num_obstacles.astype(jnp.int32),
        )
        return bw.BipedalWalkerState(
            time=t,
            world=wstate,
            terrain=terrain,
            ground_contact=contact,
            game_over=game_over,
            lidar=lidar.astype(dtype),
            prev_shaping=prev.astype(dtype),
        )

    names = BODY_FIELDS + ("awake", "terrain_y", "ground_contact", "game_over", "lidar", "prev_shaping")
    args = [jnp.asarray(states[k]) for k in names] + [jnp.asarray(states["time"], jnp.int32)]
    args += [
        jnp.asarray(states.get("obstacle_vertices", np.zeros((count, n, 4, 2)))),
        jnp.asarray(states.get("num_obstacles", np.zeros(count, np.int32))),
    ]
    return jax.vmap(one)(*args)


def from_jax(state: bw.BipedalWalkerState) -> dict[str, Any]:
    """The JAX state named as `read_state` names the reference's.

    Args:
        state: a (batched) `BipedalWalkerState`.

    Returns:
        `{field: array}`.
    """
    return pybox2d.body_fields(state.world) | {
        "terrain_y": state.terrain.terrain_y,
        "obstacle_vertices": state.terrain.obstacle_vertices,
        "num_obstacles": state.terrain.num_obstacles,
        "ground_contact": state.ground_contact,
        "game_over": state.game_over,
        "lidar": state.lidar,
        "prev_shaping": state.prev_shaping,
        "time": state.time,
    }


class WalkerReference(p.GymnasiumReference):
    """gymnasium's BipedalWalker, each episode in a fresh `b2World`.

    gymnasium's walker keeps one `b2World` for the env's life (its LunarLander builds one each
    reset). Box2D recycles the broad phase's proxy ids of the bodies a reset destroys, and the
    ids decide the order in which contacts are made, hence solved, so an episode depends on how
    many the env played before it, measurably in the episodes' statistics (docs/box2d.md).
    Built afresh, an episode depends on its seed alone, and its contacts are made in the order
    ours models (a fresh world's), as they are in an injected state (`write_state`).
    """

    def reset(self, seed: int | None = None) -> Any:
        """Destroy the episode's bodies and world, then gymnasium's reset in a new world.

        Args:
            seed: gymnasium's `reset(seed=)`.

        Returns:
            The first observation.
        """
        if self.env is not None:
            _new_world(self.env.unwrapped)
        return super().reset(seed)


def _new_world(u: Any) -> None:
    """Destroy gymnasium's walker's bodies and give it a new, empty `b2World` (what
    `write_state` builds on, and `WalkerReference.reset` resets in)."""
    import Box2D

    u._destroy()
    u.world = Box2D.b2World()


def reference(env_id: str, **settings: Any) -> p.GymnasiumReference:
    """gymnasium's `env_id` as a reference (`WalkerReference`: each episode in a fresh world).

    Args:
        env_id: `BipedalWalker-v3` or `BipedalWalkerHardcore-v3`.
        **settings: gymnasium's constructor arguments.

    Returns:
        The reference.
    """
    return WalkerReference(
        make=pybox2d.gymnasium_maker(env_id, settings),
        read_state=read_state,
        write_state=write_state,
        to_jax=to_jax,
        from_jax=from_jax,
        batched_to_jax=True,
        exact_fields=("time", "awake", "ground_contact", "game_over", "num_obstacles"),
        angle_fields=(),
        policy=mixed_policy,
        name=f"gymnasium {env_id} (box2d {pybox2d.box2d_version()})",
    )


def mixed_policy(ref: Any, rng: np.random.Generator) -> Any:
    """The reference's scripted walker (a fresh one, from the current observation) three steps
    in four, else a uniform random action: it walks, lifts and sets down its legs.

    Args:
        ref: the reference (`ref.env` the live gymnasium env).
        rng: the generator deciding between the two.

    Returns:
        The action, `float32[4]`.
    """
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    if rng.random() < 0.25:
        return ref.env.action_space.sample()
    controller = getattr(ref, "_walker", None)
    if controller is None:
        controller = ref._walker = BipedalWalkerHeuristics()
    return np.asarray(controller.step_heuristic(_observe(ref.env.unwrapped)), np.float32)


def _observe(u: Any) -> np.ndarray:
    """The reference's observation of its current state (as its `step` computes it)."""
    vel = u.hull.linearVelocity
    legs = []
    for hip, knee, lower in ((0, 1, 1), (2, 3, 3)):
        legs += [
            u.joints[hip].angle,
            u.joints[hip].speed / bw.SPEED_HIP,
            u.joints[knee].angle + 1.0,
            u.joints[knee].speed / bw.SPEED_KNEE,
            1.0 if u.legs[lower].ground_contact else 0.0,
        ]
    head = [u.hull.angle, 2.0 * u.hull.angularVelocity / bw.FPS]
    head += [0.3 * vel.x * (bw.VIEWPORT_W / bw.SCALE) / bw.FPS, 0.3 * vel.y * (bw.VIEWPORT_H / bw.SCALE) / bw.FPS]
    return np.array(head + legs + [lidar.fraction for lidar in u.lidar], np.float32)


def _terrain_distance(ref: Any, state: dict[str, Any]) -> float:
    """The least distance between a body of the reference at `state` and the terrain (Box2D's
    `b2Distance`, shapes' radii counted), over the edges under the walker."""
    import Box2D

    ref.load(state)
    u = ref.env.unwrapped
    x = float(state["center"][0][0])
    near = [t for t in u.terrain if abs(t.fixtures[0].shape.vertices[0][0] - x) < 4.0]
    return min(
        Box2D.b2Distance(
            shapeA=f.shape, shapeB=t.fixtures[0].shape, transformA=b.transform, transformB=t.transform, useRadii=True
        ).distance
        for b in _bodies(ref.env)
        for f in b.fixtures
        for t in near
    )


def in_contact(ref: Any, data: Any) -> np.ndarray:
    """`FieldPolicy.in_distribution`: the steps with a body within `CONTACT_MARGIN` of the
    terrain before or after them (`pybox2d.near_terrain`, the reference's states).

    Args:
        ref: the reference, whose world measures the distances.
        data: the transitions.

    Returns:
        `bool[n]`, True where the step is in contact.
    """
    return pybox2d.near_terrain(ref, data, _terrain_distance)


# ---------------------------------------------------------------------------------------------
# the scripted walker, in JAX

STAY_ON_ONE_LEG, PUT_OTHER_DOWN, PUSH_OFF = 1, 2, 3
SPEED = 0.29
SUPPORT_KNEE_ANGLE = 0.1


def heuristic_start() -> tuple[jax.Array, jax.Array, jax.Array]:
    """The scripted walker's state before its first step.

    Returns:
        `(phase, moving_leg, supporting_knee_angle)`: standing on the right leg, the left one
        moving, the knee at `SUPPORT_KNEE_ANGLE`.
    """
    return jnp.int32(STAY_ON_ONE_LEG), jnp.int32(0), jnp.float32(SUPPORT_KNEE_ANGLE)


def heuristic(controller: tuple, s: jax.Array) -> tuple[tuple, jax.Array]:
    """gymnasium's `BipedalWalkerHeuristics.step_heuristic`, in JAX: stand on one leg, put the
    other down ahead, push off, swap.

    Its three phases run in one call as the reference's `if` blocks do (a phase entered this
    step sets its targets at once); a target of exactly 0 counts as none, as the reference's
    `if hip_targ[0]:` reads it.

    Args:
        controller: `(phase, moving_leg, supporting_knee_angle)` (`heuristic_start`).
        s: `[24]` an observation.

    Returns:
        `(controller, action)`: the next controller state and `float32[4]` in [-1, 1].
    """
    phase, moving, knee_angle = controller
    s = s.astype(jnp.float32)
    supporting = 1 - moving
    moving_base, supporting_base = 4 + 5 * moving, 4 + 5 * supporting
    legs = jnp.arange(2)
    none = jnp.full((2,), jnp.nan, jnp.float32)

    def set_leg(targ, leg, value):
        return jnp.where(legs == leg, value, targ)

    hip_targ, knee_targ = none, none
    stay = phase == STAY_ON_ONE_LEG
    bent = jnp.minimum(knee_angle + 0.03 + jnp.where(s[2] > SPEED, 0.03, 0.0), SUPPORT_KNEE_ANGLE)
    knee_angle = jnp.where(stay, bent, knee_angle)
    hip_targ = jnp.where(stay, set_leg(hip_targ, moving, 1.1), hip_targ)
    knee_targ = jnp.where(stay, set_leg(set_leg(knee_targ, moving, -0.6), supporting, knee_angle), knee_targ)
    phase = jnp.where(stay & (s[supporting_base] < 0.10), PUT_OTHER_DOWN, phase)

    put = phase == PUT_OTHER_DOWN
    hip_targ = jnp.where(put, set_leg(hip_targ, moving, 0.1), hip_targ)
    knee_targ = jnp.where(
        put, set_leg(set_leg(knee_targ, moving, SUPPORT_KNEE_ANGLE), supporting, knee_angle), knee_targ
    )
    down = put & (s[moving_base + 4] != 0)
    knee_angle = jnp.where(down, jnp.minimum(s[moving_base + 2], SUPPORT_KNEE_ANGLE), knee_angle)
    phase = jnp.where(down, PUSH_OFF, phase)

    push = phase == PUSH_OFF
    knee_targ = jnp.where(push, set_leg(set_leg(knee_targ, moving, knee_angle), supporting, 1.0), knee_targ)
    swap = push & ((s[supporting_base + 2] > 0.88) | (s[2] > 1.2 * SPEED))
    phase = jnp.where(swap, STAY_ON_ONE_LEG, phase)
    moving = jnp.where(swap, 1 - moving, moving)

    hips, hip_speeds = s[jnp.array([4, 9])], s[jnp.array([5, 10])]
    knees, knee_speeds = s[jnp.array([6, 11])], s[jnp.array([7, 12])]
    hip_set = ~jnp.isnan(hip_targ) & (hip_targ != 0)
    knee_set = ~jnp.isnan(knee_targ) & (knee_targ != 0)
    hip_todo = jnp.where(hip_set, 0.9 * (hip_targ - hips) - 0.25 * hip_speeds, 0.0)
    knee_todo = jnp.where(knee_set, 4.0 * (knee_targ - knees) - 0.25 * knee_speeds, 0.0)
    hip_todo = hip_todo - (0.9 * (0 - s[0]) - 1.5 * s[1])
    knee_todo = knee_todo - 15.0 * s[3]
    action = jnp.stack([hip_todo[0], knee_todo[0], hip_todo[1], knee_todo[1]])
    return (phase.astype(jnp.int32), moving.astype(jnp.int32), knee_angle), jnp.clip(0.5 * action, -1.0, 1.0)


# ---------------------------------------------------------------------------------------------
# whole episodes under a policy


def ending(terminated: np.ndarray, last_reward: np.ndarray) -> np.ndarray:
    """How each episode ended: "fell" (-100: the hull touched the ground or left the course on
    the left), "finished" (past the course's far end) or "cut" (the time limit).

    Args:
        terminated: whether each episode ended by itself (else it was cut).
        last_reward: each episode's last reward.

    Returns:
        One string per episode.
    """
    return np.where(~terminated, "cut", np.where(last_reward <= -100.0, "fell", "finished"))


def _reference_walker(ref: Any) -> Any:
    """gymnasium's `BipedalWalkerHeuristics`, a fresh one, as `obs -> action`."""
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    walker = BipedalWalkerHeuristics()
    return lambda obs: np.asarray(walker.step_heuristic(obs), np.float32)


# Whole episodes under the scripted walker (`heuristic`; the reference's `BipedalWalkerHeuristics`)
# or uniform random actions, compared by length, return, the hull's final x and how they ended.
EPISODES = pybox2d.Episodes(
    name="bipedal walker episodes",
    label="scripted walker",
    heuristic=lambda env, controller, obs: heuristic(controller, obs),
    start=heuristic_start,
    reference_controller=_reference_walker,
    ending=ending,
    final=(
        "final hull x",
        lambda env, state: physics.body_position(bw.walker_world(env.constants), state.world)[bw.HULL, 0],
        lambda ref: ref.env.unwrapped.hull.position[0],
    ),
)


def cold_steps(at_one: int, least: int, label: str = "step") -> p.CheckFn:
    """Cold-started steps from the reference's own play (`mixed_policy`), re-injected before each
    step: away from the terrain to `STEP_ATOL`, near it (`in_contact`) in distribution and by
    the direction of their differences (`harness.compare_in_distribution`).

    Args:
        at_one: transitions at scale 1.
        least: transitions at the smallest scale.
        label: the checks' name prefix.

    Returns:
        A check function.
    """
    return p.transitions(
        "atol",
        STEP_ATOL,
        at_one,
        least,
        label=label,
        reward_atol=REWARD_ATOL,
        scramble=pybox2d.reinject,
        in_distribution=in_contact,
    )


# The checks of `BipedalWalker-v3`: the reset distribution (every state field, KS per
# coordinate), first, so that a wrong start fails before the step compiles; cold-started steps
# (`cold_steps`); whole episodes under random actions and under the reference's scripted walker.
SPEC = p.ParitySpec(
    checks=p.chain(
        p.resets(at_one=1000, least=100),
        cold_steps(1000, 100),
        pybox2d.episodes_under(EPISODES, False, at_one=300, least=60),
        pybox2d.episodes_under(EPISODES, True, at_one=100, least=20),
    ),
    reference=reference,
    library="gymnasium",
)
