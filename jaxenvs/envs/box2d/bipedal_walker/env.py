"""BipedalWalker: a hull on two legs of two segments each, walking right over rough ground.

Reference: gymnasium `BipedalWalker-v3` and `BipedalWalkerHardcore-v3`
(`gymnasium/envs/box2d/bipedal_walker.py`, `hardcore=True`, on Box2D 2.3.10). Same constants,
bodies and joints (a five-sided hull; each leg an upper and a lower box on motored revolute
joints with limits, hip then knee, the left leg first; pybox2d's joint reference angles of
-0.05, 0, +0.05, 0), the same terrain (`terrain.py`: grass and, on the hardcore course, stumps,
stairs and pits, in the reference's order of draws), the same random initial push, the same ten
lidar rays (the closest hit among the terrain's fixtures, category 1), the same shaping reward
and the same endings: the hull touching the ground or leaving the course on the left (-100), or
reaching its far end. Each action sets the four motors as the reference does: speed `SPEED_HIP`
or `SPEED_KNEE` times the action's sign, torque `MOTORS_TORQUE` times its clipped magnitude. The
first observation is that of one step with the motors off, as `reset` takes it there.

The world steps on `jaxenvs.envs.box2d.physics` (Box2D's algorithm: 180 velocity and 60 position
iterations at 50 Hz, warm starting, continuous collision, sleeping), on the terrain's 199 edges
and, hardcore, its obstacles (static rectangles, each the contact's A, as on the reference's
first course).
Setting a motor wakes the walker in Box2D (`SetMotorSpeed`), so every step starts awake. The
lower legs' `ground_contact` flags are the reference's contact listener's: set by a lower leg's
`BeginContact` with any terrain fixture, cleared by its `EndContact`, so a flag is its leg's last
event's (not whether the leg still touches another fixture). Differs: the random draws follow the
reference's distributions, not numpy's generator. Invalid action: clipped to [-1, 1] (NaN taken
as 0).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.envs.box2d import physics
from jaxenvs.envs.box2d.bipedal_walker import terrain as tr

# gymnasium's constants.
FPS = 50
SCALE = tr.SCALE
MOTORS_TORQUE = 80.0
SPEED_HIP = 4.0
SPEED_KNEE = 6.0
LIDAR_RANGE = 160 / SCALE
INITIAL_RANDOM = 5.0
HULL_POLY = ((-30, +9), (+6, +9), (+34, +1), (+34, -8), (-30, -8))
LEG_DOWN = -8 / SCALE
LEG_W, LEG_H = 8 / SCALE, 34 / SCALE
VIEWPORT_W = 600
VIEWPORT_H = 400
HULL_DENSITY = 5.0
NUM_LIDAR = 10
# Bodies, in creation order: the hull, then for the left leg (i = -1) and the right (+1) its
# upper and its lower segment. Joints, in creation order: left hip, left knee, right hip, right
# knee (`hull -> upper`, `upper -> lower`).
HULL = 0
UPPER, LOWER = (1, 3), (2, 4)
HIPS, KNEES = (0, 2), (1, 3)
# The observation's bounds (the reference's Box).
_OBS_HIGH = np.array(
    [math.pi, 5.0, 5.0, 5.0, math.pi, 5.0, math.pi, 5.0, 5.0, math.pi, 5.0, math.pi, 5.0, 5.0] + [1.0] * NUM_LIDAR,
    np.float32,
)
_OBS_LOW = np.array(
    [-math.pi, -5.0, -5.0, -5.0, -math.pi, -5.0, -math.pi, -5.0, -0.0, -math.pi, -5.0, -math.pi, -5.0, -0.0]
    + [-1.0] * NUM_LIDAR,
    np.float32,
)


@dataclasses.dataclass(frozen=True)
class Constants:
    """The reference's module constants that shape the dynamics (its own names, lower-cased).

    They are not gymnasium's constructor arguments, so they are no params fields; an env class
    holds them (`BipedalWalker.constants`), so that a deliberately wrong copy (a parity mutant)
    is a subclass with other values.

    Attributes:
        motors_torque: The motors' largest torque, at |action| = 1 (80 N m).
        speed_hip: The hips' motor speed (4 rad/s), also the observation's scale of their speed.
        speed_knee: The knees' motor speed (6 rad/s), likewise.
        lidar_range: The lidar rays' length (160 / SCALE m).
        hull_density: The hull's density (5).
        initial_random: The initial push's largest force (5 N, along x).
        terrain: The terrain's constants (`terrain.Constants`: its step, length, heights).
    """

    motors_torque: float = MOTORS_TORQUE
    speed_hip: float = SPEED_HIP
    speed_knee: float = SPEED_KNEE
    lidar_range: float = LIDAR_RANGE
    hull_density: float = HULL_DENSITY
    initial_random: float = INITIAL_RANDOM
    terrain: tr.Constants = tr.REFERENCE

    @property
    def start(self) -> tuple[float, float]:
        """The hull's starting position, `(init_x, init_y)`."""
        t = self.terrain
        return t.terrain_step * t.terrain_startpad / 2, t.terrain_height + 2 * LEG_H

    @property
    def finish_x(self) -> float:
        """The hull's x past which an episode ends: `(TERRAIN_LENGTH - TERRAIN_GRASS) * TERRAIN_STEP`."""
        t = self.terrain
        return (t.terrain_length - t.terrain_grass) * t.terrain_step


REFERENCE = Constants()


# Where an obstacle row a course leaves empty is parked (a hardcore world holds the most any
# course has; `place_terrain` turns the empty rows' collisions off as well).
_PARKED = ((-1000.0, -1000.0), (-999.0, -1000.0), (-999.0, -999.0), (-1000.0, -999.0))

# The broad phase's width (`physics.World.max_near`): the hull spans five of the terrain's
# 14/30 m steps; a step's sweep adds a few.
_MAX_NEAR = 12


@functools.cache
def _world(dtype, constants: Constants = REFERENCE, hardcore: bool = False) -> physics.World:
    """The hull, the legs and their joints on the terrain's edges and, on the hardcore course,
    its obstacles (both placed by `place_terrain`).

    Built once per float dtype (float64 under `jax_enable_x64`), constants and course.
    """
    bodies = [
        dict(vertices=[(x / SCALE, y / SCALE) for x, y in HULL_POLY], density=constants.hull_density, friction=0.1)
    ]
    joints = []
    for i in (-1, 1):
        upper = len(bodies)
        bodies.append(dict(box=(LEG_W / 2, LEG_H / 2), density=1.0))
        bodies.append(dict(box=(0.8 * LEG_W / 2, LEG_H / 2), density=1.0))
        # The motors' speed and torque are set by every step (`motors`); pybox2d's
        # revoluteJointDef(bodyA=, bodyB=) sets the reference angle to angleB - angleA.
        motor = dict(enable_motor=True, enable_limit=True, max_motor_torque=constants.motors_torque)
        joints.append(
            dict(
                motor,
                bodies=(HULL, upper),
                anchor_a=(0.0, LEG_DOWN),
                anchor_b=(0.0, LEG_H / 2),
                reference_angle=i * 0.05,
                motor_speed=float(i),
                lower=-0.8,
                upper=1.1,
            )
        )
        joints.append(
            dict(
                motor,
                bodies=(upper, upper + 1),
                anchor_a=(0.0, -LEG_H / 2),
                anchor_b=(0.0, LEG_H / 2),
                reference_angle=0.0,
                motor_speed=1.0,
                lower=-1.6,
                upper=-0.1,
            )
        )
    t = constants.terrain
    edges = [dict(v1=(0.0, 0.0), v2=(1.0, 0.0), friction=tr.FRICTION) for _ in range(t.terrain_length - 1)]
    obstacles = [dict(vertices=_PARKED, friction=tr.FRICTION)] * (t.max_obstacles if hardcore else 0)
    return physics.make_world(
        bodies,
        edges,
        joints,
        gravity=(0.0, -10.0),
        velocity_iterations=180,
        position_iterations=60,
        polygons=obstacles,
        max_near=_MAX_NEAR,
    )


def walker_world(constants: Constants = REFERENCE, hardcore: bool = False) -> physics.World:
    """The physics world of the default float dtype, its terrain still unplaced.

    Args:
        constants: The dynamics' constants (the hull's density, the motors' torque, the
            terrain's length).
        hardcore: The hardcore course's world: its obstacles (stumps, pit walls, stairs) are
            static polygons the bodies collide with, `max_obstacles` rows of them.

    Returns:
        The hull, its two legs of two segments and their four joints, `terrain_length - 1`
        edges and, on the hardcore course, the obstacles, to be placed by `place_terrain`;
        built once per dtype, constants and course.
    """
    return _world(jnp.result_type(float), constants, bool(hardcore))


def place_terrain(world: physics.World, terrain: tr.Terrain) -> physics.World:
    """The world with its statics on the terrain: edge i from point i to point i + 1, and in a
    hardcore world each of the course's obstacles (the rows it leaves empty parked, their
    collisions off).

    Args:
        world: The walker's world (`walker_world()`).
        terrain: The course (`terrain.generate_terrain`).

    Returns:
        The world with its statics placed, in the world's float dtype.
    """
    dtype = world.edge_v1.dtype
    edges = terrain.edges.astype(dtype)
    world = world.replace(edge_v1=edges[:, :2], edge_v2=edges[:, 2:])
    if not world.num_polygons:
        return world
    real = terrain.obstacle_mask
    vertices = jnp.where(real[:, None, None], terrain.obstacle_vertices.astype(dtype), world.poly_vertices)
    collides = jnp.asarray(world.collides).at[:, world.num_edges :].set(real[None, :])
    # A rectangle's centroid (Box2D's sum of triangles gives the same up to rounding; it only
    # seeds the search for the separating face).
    return world.replace(
        poly_vertices=vertices, poly_centroid=0.5 * (vertices[:, 0] + vertices[:, 2]), collides=collides
    )


def motors(world: physics.World, action: jax.Array, constants: Constants = REFERENCE) -> physics.World:
    """The reference's motor settings for `action` (not `control_speed`): each joint's speed is
    its `SPEED_HIP` or `SPEED_KNEE` times the action's sign, its largest torque
    `MOTORS_TORQUE` times the action's magnitude clipped to 1.

    Args:
        world: The walker's world.
        action: `[4]` left hip, left knee, right hip, right knee.
        constants: The motors' speeds and torque.

    Returns:
        The world with its joints' motor speed and torque set.
    """
    dtype = world.inv_mass.dtype
    action = jnp.asarray(action, dtype)
    speed = jnp.asarray([constants.speed_hip, constants.speed_knee] * 2, dtype)
    return world.replace(
        joint_motor_speed=speed * jnp.sign(action),
        joint_max_motor_torque=constants.motors_torque * jnp.clip(jnp.abs(action), 0.0, 1.0),
    )


@struct.dataclass
class BipedalWalkerState(EnvState):
    """The world and the episode's bookkeeping.

    Attributes:
        world: The bodies' `physics.WorldState` (hull, left upper and lower leg, right upper
            and lower leg): positions, velocities, contacts, impulses, sleep.
        terrain: The course (`terrain.Terrain`).
        ground_contact: `[2]` bool, the lower legs' `ground_contact` flags (left, right).
        game_over: bool, the hull has touched the ground.
        lidar: `[10]` the lidar's fractions after the last step (1 where nothing was hit).
        prev_shaping: The shaping term of the last step.
    """

    world: physics.WorldState
    terrain: tr.Terrain
    ground_contact: jax.Array
    game_over: jax.Array
    lidar: jax.Array
    prev_shaping: jax.Array


@struct.dataclass
class BipedalWalkerParams(EnvParams):
    """BipedalWalker's settings.

    Attributes:
        max_steps_in_episode: The time limit (gymnasium's registration: 1600; 2000 for the
            hardcore course, which `make("BipedalWalkerHardcore-v3")` sets).
    """

    max_steps_in_episode: int = 1600


def lidar(state_world: physics.WorldState, terrain: tr.Terrain, constants: Constants = REFERENCE) -> jax.Array:
    """The ten lidar rays from the hull's origin, down and forward from straight down to 1.35 rad,
    each the closest hit's fraction among the terrain's fixtures (`physics.ray_cast_closest`).

    Args:
        state_world: The physics state.
        terrain: The course.
        constants: The rays' length.

    Returns:
        `[10]` fractions in [0, 1] (1: nothing within `lidar_range`).
    """
    world = walker_world(constants)
    dtype = world.inv_mass.dtype
    pos = physics.body_position(world, state_world)[HULL]
    targets = jax.tree.map(
        lambda x: x.astype(dtype) if jnp.issubdtype(x.dtype, jnp.floating) else x, tr.ray_targets(terrain)
    )
    ends = _ray_ends(pos, constants.lidar_range)
    return jax.vmap(lambda p2: physics.ray_cast_closest(targets, pos, p2, tr.TERRAIN_CATEGORY)["fraction"])(ends)


def _ray_ends(pos: jax.Array, lidar_range: float) -> jax.Array:
    """The rays' ends as the reference computes them: the hull's float32 position plus each ray's
    offset in float64 (Python floats), rounded once to float32 where Box2D takes the point.

    In float32 the offset is carried as two float32 parts and the sum's own rounding error is
    kept (Knuth's two-sum), so the end is the reference's point and the lidar's fractions agree
    bit for bit (computed as `pos + offset` in float32, a third of them were a unit in the last
    place apart, a bias the reset's KS test sees).

    Args:
        pos: `[2]` the hull's origin.
        lidar_range: The rays' length.

    Returns:
        `[10, 2]` the rays' ends.
    """
    i = np.arange(NUM_LIDAR)
    offset = np.stack([np.sin(1.5 * i / 10.0), -np.cos(1.5 * i / 10.0)], axis=1) * lidar_range  # float64
    hi = offset.astype(pos.dtype)
    lo = (offset - hi).astype(pos.dtype)
    total = pos + hi
    back = total - pos
    error = (pos - (total - back)) + (hi - back)
    return total + (error + lo)


def joint_angles(state_world: physics.WorldState) -> tuple[jax.Array, jax.Array]:
    """Each joint's angle and speed, as Box2D's `b2RevoluteJoint` reports them.

    Args:
        state_world: The physics state.

    Returns:
        `(angle [4], speed [4])`: body B's angle less body A's and the reference angle, and
        B's angular velocity less A's.
    """
    world = walker_world()
    a = jnp.asarray([j[0] for j in world.joint_bodies])
    b = jnp.asarray([j[1] for j in world.joint_bodies])
    angle = state_world.angle[b] - state_world.angle[a] - jnp.asarray(world.joint_reference_angle)
    speed = state_world.angular_velocity[b] - state_world.angular_velocity[a]
    return angle, speed


def observation_values(state: BipedalWalkerState, constants: Constants = REFERENCE) -> jax.Array:
    """The reference's 24 numbers in the state's float dtype.

    Args:
        state: The env state.
        constants: The joints' speed scales.

    Returns:
        `[24]` hull angle, angular velocity (times 2 / FPS), x and y velocity (scaled to the
        viewport), then per leg (left, right): hip angle and speed, knee angle + 1 and speed,
        the lower leg's contact flag; then the ten lidar fractions.
    """
    w = state.world
    dtype = w.angle.dtype
    vel = w.linear_velocity[HULL]
    angle, speed = joint_angles(w)
    legs = []
    for leg in range(2):
        hip, knee = HIPS[leg], KNEES[leg]
        legs += [
            angle[hip],
            speed[hip] / constants.speed_hip,
            angle[knee] + 1.0,
            speed[knee] / constants.speed_knee,
            state.ground_contact[leg].astype(dtype),
        ]
    head = [
        w.angle[HULL],
        2.0 * w.angular_velocity[HULL] / FPS,
        0.3 * vel[0] * (VIEWPORT_W / SCALE) / FPS,
        0.3 * vel[1] * (VIEWPORT_H / SCALE) / FPS,
    ]
    return jnp.concatenate([jnp.stack(head + legs), state.lidar.astype(dtype)])


def observation(state: BipedalWalkerState, constants: Constants = REFERENCE) -> jax.Array:
    """`observation_values` as the reference returns them.

    Args:
        state: The env state.
        constants: The joints' speed scales.

    Returns:
        `float32[24]`.
    """
    return observation_values(state, constants).astype(jnp.float32)


def shaping(state: BipedalWalkerState) -> jax.Array:
    """The reference's potential: 130 per `SCALE` metres of the hull's x, less 5 per radian of
    its tilt.

    Args:
        state: The env state.

    Returns:
        The scalar potential, in the state's float dtype.
    """
    x = physics.body_position(walker_world(), state.world)[HULL, 0]
    return 130 * x / SCALE - 5.0 * jnp.abs(state.world.angle[HULL])


def start(terrain: tr.Terrain, push, constants: Constants = REFERENCE, hardcore: bool = False) -> BipedalWalkerState:
    """The reference's world after `reset` built it, before its first step.

    Args:
        terrain: The course.
        push: The random force on the hull's centre along x, uniform in +-`INITIAL_RANDOM`.
        constants: The dynamics' constants.
        hardcore: The hardcore course's world (its contacts include the obstacles).

    Returns:
        The walker standing at the start, the push applied, no contact.
    """
    world = walker_world(constants, hardcore)
    dtype = world.inv_mass.dtype
    x0, y0 = constants.start
    upper_y, lower_y = y0 - LEG_H / 2 - LEG_DOWN, y0 - LEG_H * 3 / 2 - LEG_DOWN
    position = jnp.asarray([[x0, y0], [x0, upper_y], [x0, lower_y], [x0, upper_y], [x0, lower_y]], dtype)
    angle = jnp.asarray([0.0, -0.05, -0.05, 0.05, 0.05], dtype)
    wstate = physics.init_state(world, position, angle)
    force = jnp.stack([jnp.asarray(push, dtype), jnp.zeros((), dtype)])
    wstate = physics.apply_force_to_center(wstate, HULL, force)
    return BipedalWalkerState(
        time=jnp.zeros((), jnp.int32),
        world=wstate,
        terrain=jax.tree.map(lambda x: x.astype(dtype) if jnp.issubdtype(x.dtype, jnp.floating) else x, terrain),
        ground_contact=jnp.zeros((2,), bool),
        game_over=jnp.zeros((), bool),
        lidar=jnp.ones((NUM_LIDAR,), dtype),
        prev_shaping=jnp.zeros((), dtype),
    )


def advance(
    state: BipedalWalkerState, action: jax.Array, constants: Constants = REFERENCE, hardcore: bool = False
) -> BipedalWalkerState:
    """One reference step: the motors set from `action`, `world.Step(1/50, 180, 60)`, the
    contact listener's events, then the lidar.

    Args:
        state: The state before the step.
        action: `[4]`, in [-1, 1].
        constants: The dynamics' constants.
        hardcore: The bodies collide with the course's obstacles (the hardcore course).

    Returns:
        The new state (its `prev_shaping` and `time` unchanged).
    """
    world = motors(place_terrain(walker_world(constants, hardcore), state.terrain), action, constants)
    # Setting a motor's speed or torque wakes both its bodies (b2RevoluteJoint::SetMotorSpeed).
    wstate = physics.wake(state.world)
    wstate = physics.step(world, wstate, 1.0 / FPS)
    # The contact listener: the hull's BeginContact ends the game; a lower leg's BeginContact
    # sets its flag and its EndContact clears it, so a flag is its last event's.
    game_over = state.game_over | jnp.any(wstate.began[HULL])
    ground_contact = physics.last_event_began(wstate, LOWER, state.ground_contact)
    return state.replace(
        world=wstate,
        ground_contact=ground_contact,
        game_over=game_over,
        lidar=lidar(wstate, state.terrain, constants),
    )


def fell_and_ended(state: BipedalWalkerState, constants: Constants = REFERENCE) -> tuple[jax.Array, jax.Array]:
    """Whether the walker at `state` has fallen (the hull touched the ground, or it left the course
    on the left) and whether its episode has ended (fallen, or past the course's far end).

    Args:
        state: A state.
        constants: The course's length.

    Returns:
        `(fell, terminated)`, two bools.
    """
    x = physics.body_position(walker_world(constants), state.world)[HULL, 0]
    fell = state.game_over | (x < 0.0)
    return fell, fell | (x > constants.finish_x)


def reward_and_termination(state: BipedalWalkerState, action: jax.Array, constants: Constants = REFERENCE):
    """The reference's reward for the step into `state` under `action`, and whether it ended.

    Args:
        state: The state after the step (`advance`), its `prev_shaping` the previous step's.
        action: `[4]` the step's action.
        constants: The motors' torque and the course's length.

    Returns:
        `(reward, terminated, shaping)`: float32 reward, bool, and the new shaping value.
    """
    new_shaping = shaping(state)
    torque = 0.00035 * constants.motors_torque * jnp.clip(jnp.abs(action), 0.0, 1.0)
    reward = new_shaping - state.prev_shaping - jnp.sum(torque.astype(new_shaping.dtype))
    fell, terminated = fell_and_ended(state, constants)
    return jnp.where(fell, -100.0, reward).astype(jnp.float32), terminated, new_shaping


class BipedalWalker(Environment[BipedalWalkerState, BipedalWalkerParams]):
    """gymnasium's `BipedalWalker-v3`.

    Observation `float32[24]`: the hull's angle, angular velocity and velocity, each leg's hip
    and knee angle and speed and its lower leg's ground contact, ten lidar fractions; bounded as
    the reference's Box. Action `Box(-1, 1, (4,))`: the hips' and knees' motor commands (left
    hip, left knee, right hip, right knee). Reward: the change of the shaping potential (130 per
    `SCALE` m forward, less 5 per radian of tilt), less 0.028 per unit of each motor command;
    -100 when the hull touches the ground or leaves the course on the left.

    `hardcore=True` is `BipedalWalkerHardcore-v3`: the course has stumps, stairs and pits.

    Args:
        hardcore: The hardcore course (gymnasium's `hardcore` argument).

    Attributes:
        constants: The dynamics' constants, the reference's (a class attribute).
    """

    constants: Constants = REFERENCE

    def __init__(self, hardcore: bool = False):
        self.hardcore = bool(hardcore)

    def __repr__(self) -> str:
        return f"{self.name}(hardcore=True)" if self.hardcore else super().__repr__()

    def observe(self, state, params):
        """`float32[24]`, the reference's observation of `state`."""
        return observation(state, self.constants)

    def is_terminal(self, state, params):
        """Fallen (the hull touched the ground), off the course's left end, or past its far end."""
        return fell_and_ended(state, self.constants)[1]

    def reset_env(self, key, params):
        dtype = jnp.result_type(float)
        k_terrain, k_push = jax.random.split(key)
        terrain = tr.generate_terrain(k_terrain, self.hardcore, self.constants.terrain)
        push = jax.random.uniform(k_push, (), dtype, -1.0, 1.0) * self.constants.initial_random
        state = start(terrain, push, self.constants, self.hardcore)
        # The reference's reset ends with one step with the motors off; its reward is not returned.
        state = advance(state, jnp.zeros((4,), dtype), self.constants, self.hardcore)
        return observation(state, self.constants), state.replace(prev_shaping=shaping(state))

    def step_env(self, key, state, action, params):
        obs, state, reward, terminated = self.transition(state, action, params)
        return obs, state, reward, terminated, {}

    def transition(self, state, action, params):
        """The step (it draws nothing).

        Args:
            state: The state before the step.
            action: `[4]` (clipped to [-1, 1], NaN taken as 0).
            params: The settings.

        Returns:
            `(obs, state, reward, terminated)`.
        """
        action = spaces.clip_action(jnp.asarray(action, state.prev_shaping.dtype), -1.0, 1.0)
        state = advance(state, action, self.constants, self.hardcore)
        reward, terminated, new_shaping = reward_and_termination(state, action, self.constants)
        state = state.replace(time=state.time + 1, prev_shaping=new_shaping)
        return observation(state, self.constants), state, reward, terminated

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(_OBS_LOW, _OBS_HIGH, shape=(24,), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Box(-1.0, 1.0, shape=(4,), dtype=jnp.float32)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.box2d.bipedal_walker.render import render

        return render(state, params)
