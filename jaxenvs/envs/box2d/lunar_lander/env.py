"""LunarLander: land a rocket on the pad between the flags, with a main and two side engines.

Reference: gymnasium `LunarLander-v3` and `LunarLanderContinuous-v3`
(`gymnasium/envs/box2d/lunar_lander.py`, on Box2D 2.3.10). Same constants, bodies and joints
(a six-sided lander, two legs on motored revolute joints with limits; pybox2d's joint
reference angles of +-0.05), the same terrain (11 chunks, heights uniform in [0, H/2],
smoothed, flat under the pad), the same random initial push, engine dispersion drawn every
step, wind and turbulence, the same shaping reward, and the same endings: the lander's body
touching the ground (-100), |x| >= 1 (-100), the island falling asleep (+100). The first
observation is that of one no-op step, as `reset` takes it there.

The world steps on `jaxenvs.envs.box2d.physics` (Box2D's algorithm: 180 velocity and 60 position
iterations at 50 Hz, warm starting, continuous collision, sleeping). Given the reference's random
draws, episodes follow gymnasium's step by step (tests/envs/box2d/test_lunar_lander.py states the
measured agreement). Differs: the random draws follow the reference's distributions, not
numpy's generator. Its parity checks (`parity.py`) compare cold-started steps from the reference's states with its draws
replayed, the reset distribution, and whole-episode statistics under random actions and under
the reference's controller. Invalid action: a discrete action other than 1, 2, 3 does nothing;
a continuous one is clipped to [-1, 1] (NaN taken as 0).
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
from jaxenvs.params import flag, real

# gymnasium's constants.
FPS = 50
SCALE = 30.0
MAIN_ENGINE_POWER = 13.0
SIDE_ENGINE_POWER = 0.6
INITIAL_RANDOM = 1000.0
LANDER_POLY = ((-14, 17), (-17, 0), (-17, -10), (17, -10), (17, 0), (14, 17))
LEG_AWAY = 20
LEG_DOWN = 18
LEG_W, LEG_H = 2, 8
LEG_SPRING_TORQUE = 40
SIDE_ENGINE_HEIGHT = 14
SIDE_ENGINE_AWAY = 12
MAIN_ENGINE_Y_LOCATION = 4
VIEWPORT_W = 600
VIEWPORT_H = 400
W = VIEWPORT_W / SCALE
H = VIEWPORT_H / SCALE
CHUNKS = 11
CHUNK_X = np.array([W / (CHUNKS - 1) * i for i in range(CHUNKS)])
HELIPAD_X1 = CHUNK_X[CHUNKS // 2 - 1]
HELIPAD_X2 = CHUNK_X[CHUNKS // 2 + 1]
HELIPAD_Y = H / 4
# Bodies, in creation order: the lander, the left leg (i = -1), the right leg (i = +1).
LANDER, LEGS = 0, (1, 2)
LANDER_DENSITY = 5.0


@dataclasses.dataclass(frozen=True)
class Constants:
    """The reference's module constants that shape the dynamics (its own names, lower-cased).

    They are not gymnasium's constructor arguments, so they are no params fields; an env class
    holds them (`LunarLander.constants`), so that a deliberately wrong copy (a parity mutant)
    is a subclass with other values.

    Attributes:
        main_engine_power: The main engine's impulse scale (13).
        side_engine_power: The side engines' impulse scale (0.6).
        leg_spring_torque: The legs' motors' largest torque (40 N m).
        lander_density: The lander body's density (5).
        initial_random: The initial push's largest force per axis (1000 N).
    """

    main_engine_power: float = MAIN_ENGINE_POWER
    side_engine_power: float = SIDE_ENGINE_POWER
    leg_spring_torque: float = LEG_SPRING_TORQUE
    lander_density: float = LANDER_DENSITY
    initial_random: float = INITIAL_RANDOM


REFERENCE = Constants()


@functools.cache
def _world(dtype, constants: Constants = REFERENCE) -> physics.World:
    """The lander, its legs and their joints, on 1 + 10 edges (placed by `terrain_edges`).

    Built once per float dtype (float64 under `jax_enable_x64`) and constants.
    """
    density = constants.lander_density
    bodies = [dict(vertices=[(x / SCALE, y / SCALE) for x, y in LANDER_POLY], density=density, friction=0.1)]
    joints = []
    for i in (-1, 1):
        bodies.append(dict(box=(LEG_W / SCALE, LEG_H / SCALE), density=1.0))
        joints.append(
            dict(
                bodies=(LANDER, len(bodies) - 1),
                anchor_a=(0.0, 0.0),
                anchor_b=(i * LEG_AWAY / SCALE, LEG_DOWN / SCALE),
                # pybox2d's revoluteJointDef(bodyA=, bodyB=) sets it to angleB - angleA.
                reference_angle=i * 0.05,
                enable_motor=True,
                enable_limit=True,
                max_motor_torque=constants.leg_spring_torque,
                motor_speed=0.3 * i,
                lower=0.9 - 0.5 if i == -1 else -0.9,
                upper=0.9 if i == -1 else -0.9 + 0.5,
            )
        )
    # The moon: its first edge made with `shapes=` (Box2D's default friction, 0.2), then the
    # chunks (0.1).
    edges = [dict(v1=(0.0, 0.0), v2=(W, 0.0), friction=0.2)]
    edges += [dict(v1=(0.0, 0.0), v2=(1.0, 0.0), friction=0.1) for _ in range(CHUNKS - 1)]
    return physics.make_world(
        bodies, edges, joints, gravity=(0.0, -10.0), velocity_iterations=180, position_iterations=60
    )


@struct.dataclass
class LunarLanderState(EnvState):
    """The world and the episode's bookkeeping.

    Attributes:
        world: The bodies' `physics.WorldState` (lander, left leg, right leg): positions,
            velocities, contacts, impulses, sleep.
        terrain_y: `[11]` the terrain's height at each chunk's x (`smooth_y`).
        leg_contact: `[2]` bool, each leg's `ground_contact` flag (the reference's contact
            listener's).
        game_over: bool, the lander's body has touched the ground.
        prev_shaping: The shaping term of the last step.
        wind_idx: int32, the wind's phase counter (used with `enable_wind`).
        torque_idx: int32, the turbulence's phase counter.
    """

    world: physics.WorldState
    terrain_y: jax.Array
    leg_contact: jax.Array
    game_over: jax.Array
    prev_shaping: jax.Array
    wind_idx: jax.Array
    torque_idx: jax.Array


@struct.dataclass
class LunarLanderParams(EnvParams):
    """LunarLander's settings, gymnasium's constructor arguments.

    Attributes:
        gravity: The moon's gravity (m/s^2), in (-12, 0) as the reference asserts.
        enable_wind: Apply wind and turbulence while neither leg touches the ground.
        wind_power: The wind's largest force (N); the reference recommends [0, 20].
        turbulence_power: The turbulence's largest torque (N m); recommended [0, 2].
        max_steps_in_episode: The time limit (1000, gymnasium's registration).
    """

    gravity: float = real(-10.0, low=-12.0, high=0.0, low_open=True, high_open=True, per_episode=True)
    enable_wind: bool = flag(False, per_episode=True)
    wind_power: float = real(15.0, low=0.0, per_episode=True)
    turbulence_power: float = real(1.5, low=0.0, per_episode=True)
    max_steps_in_episode: int = 1000


def terrain_edges(world: physics.World, terrain_y: jax.Array) -> physics.World:
    """The world with its ten terrain edges at `terrain_y` (the first edge stays at y = 0).

    Args:
        world: The lander's world (`lander_world()`), its edges 1 to 10 the terrain's.
        terrain_y: `[11]` the terrain's height at each chunk's x (`terrain`).

    Returns:
        The world with edge i (1 to 10) from chunk i - 1's point `(x, terrain_y)` to chunk i's.
    """
    dtype = world.edge_v1.dtype
    x = jnp.asarray(CHUNK_X, dtype)
    y = terrain_y.astype(dtype)
    v1 = jnp.stack([x[:-1], y[:-1]], axis=1)
    v2 = jnp.stack([x[1:], y[1:]], axis=1)
    return world.replace(
        edge_v1=jnp.asarray(world.edge_v1).at[1:].set(v1),
        edge_v2=jnp.asarray(world.edge_v2).at[1:].set(v2),
    )


def terrain(height: jax.Array) -> jax.Array:
    """The reference's terrain from its 12 drawn heights: flat at H/4 under the pad, each
    chunk's height 0.33 times the sum of three neighbours.

    Args:
        height: `[12]` heights, uniform in [0, H/2] in the reference.

    Returns:
        `[11]` the terrain's height at each chunk's x (`smooth_y`).
    """
    height = height.at[CHUNKS // 2 - 2 : CHUNKS // 2 + 3].set(HELIPAD_Y)
    # smooth_y[i] reads height[i - 1]: height[-1] for the first chunk, as Python indexes.
    smooth = 0.33 * (jnp.roll(height, 1)[:CHUNKS] + height[:CHUNKS] + height[1 : CHUNKS + 1])
    # Under the pad the reference's float64 sum rounds once, to Box2D's float32 vertex; in
    # float32 the sum would round up a unit in the last place, on every episode.
    return smooth.at[CHUNKS // 2 - 1 : CHUNKS // 2 + 2].set(0.33 * 3 * HELIPAD_Y)


def start(
    height: jax.Array, push: jax.Array, wind_idx: jax.Array, torque_idx: jax.Array, constants: Constants = REFERENCE
) -> LunarLanderState:
    """The reference's world after `reset` built it, before its first step.

    Args:
        height: `[12]` the drawn terrain heights (`terrain`).
        push: `[2]` the random force on the lander's centre, uniform in +-`INITIAL_RANDOM`.
        wind_idx: int32, the wind's phase, in [-9999, 9999).
        torque_idx: int32, the turbulence's phase, in [-9999, 9999).
        constants: The dynamics' constants.

    Returns:
        The lander at the top centre, its legs beside it, the push applied, no contact.
    """
    world = lander_world(constants)
    dtype = world.inv_mass.dtype
    x0, y0 = W / 2, H
    # The legs, i = -1 then +1, at x0 - i * LEG_AWAY / SCALE and angle i * 0.05.
    position = jnp.asarray([[x0, y0], [x0 + LEG_AWAY / SCALE, y0], [x0 - LEG_AWAY / SCALE, y0]], dtype)
    angle = jnp.asarray([0.0, -0.05, 0.05], dtype)
    wstate = physics.init_state(world, position, angle)
    wstate = physics.apply_force_to_center(wstate, LANDER, jnp.asarray(push, dtype))
    return LunarLanderState(
        time=jnp.zeros((), jnp.int32),
        world=wstate,
        terrain_y=terrain(jnp.asarray(height, dtype)),
        leg_contact=jnp.zeros((2,), bool),
        game_over=jnp.zeros((), bool),
        prev_shaping=jnp.zeros((), dtype),
        wind_idx=jnp.asarray(wind_idx, jnp.int32),
        torque_idx=jnp.asarray(torque_idx, jnp.int32),
    )


def lander_world(constants: Constants = REFERENCE) -> physics.World:
    """The physics world of the default float dtype, its terrain edges still unplaced.

    Args:
        constants: The dynamics' constants (the lander's density, the legs' motor torque).

    Returns:
        The lander, its two legs and their joints, the moon's flat first edge and ten terrain
        edges to be placed by `terrain_edges`; built once per dtype and constants.
    """
    return _world(jnp.result_type(float), constants)


def observation_values(state: LunarLanderState) -> jax.Array:
    """The reference's 8 numbers in the state's float dtype: position and velocity scaled to
    the viewport, angle, angular velocity (times 20 / FPS), the legs' contact flags.

    Args:
        state: The env state.

    Returns:
        `[8]` x, y (0 at the pad), x and y velocity, angle, angular velocity, left and right
        leg contact (0 or 1).
    """
    pos = physics.body_position(lander_world(), state.world)[LANDER]
    vel = state.world.linear_velocity[LANDER]
    return jnp.stack(
        [
            (pos[0] - W / 2) / (W / 2),
            (pos[1] - (HELIPAD_Y + LEG_DOWN / SCALE)) / (H / 2),
            vel[0] * (W / 2) / FPS,
            vel[1] * (H / 2) / FPS,
            state.world.angle[LANDER],
            20.0 * state.world.angular_velocity[LANDER] / FPS,
            state.leg_contact[0].astype(pos.dtype),
            state.leg_contact[1].astype(pos.dtype),
        ]
    )


def observation(state: LunarLanderState) -> jax.Array:
    """`observation_values` as the reference returns them.

    Args:
        state: The env state.

    Returns:
        `float32[8]`.
    """
    return observation_values(state).astype(jnp.float32)


def shaping(s: jax.Array) -> jax.Array:
    """The reference's potential of observation values `s`: distance, speed and tilt
    penalties, 10 per leg down.

    Args:
        s: `[8]` observation values (`observation_values`).

    Returns:
        The scalar potential, in `s`'s dtype.
    """
    return (
        -100 * jnp.sqrt(s[0] * s[0] + s[1] * s[1])
        - 100 * jnp.sqrt(s[2] * s[2] + s[3] * s[3])
        - 100 * jnp.abs(s[4])
        + 10 * s[6]
        + 10 * s[7]
    )


def is_terminal(state: LunarLanderState) -> jax.Array:
    """Crashed (the body touched the ground), flown off (|x| >= 1) or asleep.

    Args:
        state: The env state.

    Returns:
        bool scalar, whether the episode has ended.
    """
    x = observation_values(state)[0]
    return state.game_over | (jnp.abs(x) >= 1.0) | ~state.world.awake


def engines(world, wstate, action, dispersion, continuous: bool, constants: Constants = REFERENCE):
    """Fire the engines as the reference does: impulses at points off the lander's centre.

    Args:
        world: The physics world.
        wstate: The physics state.
        action: int (discrete) or `[2]` (continuous, already clipped).
        dispersion: `[2]` uniform(-1, 1) / SCALE, drawn every step.
        continuous: Whether `action` is continuous.
        constants: The engines' powers.

    Returns:
        `(wstate, m_power, s_power)`.
    """
    dtype = wstate.center.dtype
    angle = wstate.angle[LANDER]
    tip = jnp.stack([jnp.sin(angle), jnp.cos(angle)])
    side = jnp.stack([-tip[1], tip[0]])
    pos = physics.body_position(world, wstate)[LANDER]
    d0, d1 = dispersion[0], dispersion[1]

    if continuous:
        main_on = action[0] > 0.0
        m_power = jnp.where(main_on, (jnp.clip(action[0], 0.0, 1.0) + 1.0) * 0.5, 0.0)
        side_on = jnp.abs(action[1]) > 0.5
        direction = jnp.sign(action[1])
        s_power = jnp.where(side_on, jnp.clip(jnp.abs(action[1]), 0.5, 1.0), 0.0)
    else:
        main_on = action == 2
        m_power = jnp.where(main_on, 1.0, 0.0)
        side_on = (action == 1) | (action == 3)
        direction = (action - 2).astype(dtype)
        s_power = jnp.where(side_on, 1.0, 0.0)
    m_power, s_power = m_power.astype(dtype), s_power.astype(dtype)

    ox = tip[0] * (MAIN_ENGINE_Y_LOCATION / SCALE + 2 * d0) + side[0] * d1
    oy = -tip[1] * (MAIN_ENGINE_Y_LOCATION / SCALE + 2 * d0) - side[1] * d1
    point = pos + jnp.stack([ox, oy])
    impulse = jnp.stack([-ox, -oy]) * constants.main_engine_power * m_power
    fired = physics.apply_linear_impulse(world, wstate, LANDER, impulse, point)
    wstate = jax.tree.map(lambda a, b: jnp.where(main_on, a, b), fired, wstate)

    lateral = 3 * d1 + direction * SIDE_ENGINE_AWAY / SCALE
    ox = tip[0] * d0 + side[0] * lateral
    oy = -tip[1] * d0 - side[1] * lateral
    point = pos + jnp.stack([ox - tip[0] * 17 / SCALE, oy + tip[1] * SIDE_ENGINE_HEIGHT / SCALE])
    impulse = jnp.stack([-ox, -oy]) * constants.side_engine_power * s_power
    fired = physics.apply_linear_impulse(world, wstate, LANDER, impulse, point)
    wstate = jax.tree.map(lambda a, b: jnp.where(side_on, a, b), fired, wstate)
    return wstate, m_power, s_power


def wind(wstate, state: LunarLanderState, params: LunarLanderParams):
    """The reference's wind (a force) and turbulence (a torque) while no leg touches ground.

    Args:
        wstate: The physics state to apply them to.
        state: The env state (its legs' contact flags and the wind's and turbulence's phases).
        params: The settings (`enable_wind`, `wind_power`, `turbulence_power`).

    Returns:
        `(wstate, wind_idx, torque_idx)`: the physics state with the force and torque applied
        on the lander, and both phases one further, if the wind blew; else all unchanged.
    """
    blowing = jnp.asarray(params.enable_wind, bool) & ~(state.leg_contact[0] | state.leg_contact[1])

    def magnitude(idx):
        # tanh(sin(0.02 idx) + sin(0.01 pi idx)), which the reference takes in float64 with idx
        # up to 10^4: the integer parts are split off exactly so that float32 keeps the phase
        # (0.02 idx = 2 q + 0.02 r with idx = 100 q + r; sin(0.01 pi idx) has period 200).
        dtype = wstate.center.dtype
        q, r = jnp.divmod(idx, 100)
        a, b = (2 * q).astype(dtype), 0.02 * r.astype(dtype)
        first = jnp.sin(a) * jnp.cos(b) + jnp.cos(a) * jnp.sin(b)
        second = jnp.sin(math.pi * 0.01 * jnp.mod(idx, 200).astype(dtype))
        return jnp.tanh(first + second)

    wind_mag = magnitude(state.wind_idx) * params.wind_power
    torque_mag = magnitude(state.torque_idx) * params.turbulence_power
    blown = physics.apply_force_to_center(wstate, LANDER, jnp.stack([wind_mag, jnp.zeros_like(wind_mag)]))
    blown = physics.apply_torque(blown, LANDER, torque_mag)
    wstate = jax.tree.map(lambda a, b: jnp.where(blowing, a, b), blown, wstate)
    step = blowing.astype(jnp.int32)
    return wstate, state.wind_idx + step, state.torque_idx + step


def advance(
    state: LunarLanderState,
    action,
    dispersion,
    params: LunarLanderParams,
    continuous: bool,
    constants: Constants = REFERENCE,
):
    """One reference step with its random draw given: wind, engines, `world.Step(1/50, 180,
    60)`, then the contact listener's events.

    Args:
        state: The state before the step.
        action: int (discrete) or `[2]` (continuous, clipped to [-1, 1]).
        dispersion: `[2]` the engines' dispersion, uniform(-1, 1) / SCALE, drawn every step.
        params: The settings.
        continuous: Whether `action` is continuous.
        constants: The dynamics' constants.

    Returns:
        `(state, m_power, s_power)`: the new state (its `prev_shaping` and `time` unchanged)
        and the engines' powers, charged by the reward.
    """
    world = terrain_edges(lander_world(constants), state.terrain_y)
    gravity = jnp.asarray(params.gravity, world.gravity.dtype)
    world = world.replace(gravity=jnp.stack([jnp.zeros_like(gravity), gravity]))
    wstate, wind_idx, torque_idx = wind(state.world, state, params)
    dispersion = jnp.asarray(dispersion, wstate.center.dtype)
    wstate, m_power, s_power = engines(world, wstate, action, dispersion, continuous, constants)
    wstate = physics.step(world, wstate, 1.0 / FPS)
    # The contact listener: the lander's BeginContact ends the game; a leg's BeginContact sets
    # its flag and its EndContact clears it, so a leg's flag is its last event's.
    game_over = state.game_over | jnp.any(wstate.began[LANDER])
    leg_contact = physics.last_event_began(wstate, LEGS, state.leg_contact)
    state = state.replace(
        world=wstate,
        leg_contact=leg_contact,
        game_over=game_over,
        wind_idx=wind_idx,
        torque_idx=torque_idx,
    )
    return state, m_power, s_power


def reward_and_termination(state: LunarLanderState, m_power, s_power):
    """The reference's reward for the step into `state`, and whether the episode ended.

    Args:
        state: The state after the step (`advance`), its `prev_shaping` the previous step's.
        m_power: The main engine's power this step (0 when off), from `engines`.
        s_power: The side engines' power this step (0 when off), from `engines`.

    Returns:
        `(reward, terminated, shaping)`: float32 reward, bool, and the new shaping value.
    """
    values = observation_values(state)
    new_shaping = shaping(values)
    reward = new_shaping - state.prev_shaping - m_power * 0.30 - s_power * 0.03
    crashed = state.game_over | (jnp.abs(values[0]) >= 1.0)
    asleep = ~state.world.awake
    reward = jnp.where(crashed, -100.0, reward)
    reward = jnp.where(asleep, 100.0, reward)
    return reward.astype(jnp.float32), crashed | asleep, new_shaping


def draw_dispersion(key: jax.Array, dtype) -> jax.Array:
    """The engines' dispersion the reference draws every step: 2 uniform(-1, 1) / SCALE.

    Args:
        key: The PRNG key to draw with.
        dtype: The float dtype of the draw.

    Returns:
        `[2]` in [-1 / SCALE, 1 / SCALE).
    """
    return jax.random.uniform(key, (2,), dtype, -1.0, 1.0) / SCALE


class LunarLander(Environment[LunarLanderState, LunarLanderParams]):
    """gymnasium's `LunarLander-v3` (discrete) and `LunarLanderContinuous-v3`.

    Observation `float32[8]`: x, y (scaled to the viewport, 0 at the pad), their velocities,
    angle, angular velocity, the legs' contact flags; bounded as the reference's Box. Actions:
    `Discrete(4)` (0 nothing, 1 left engine, 2 main engine, 3 right engine), or with
    `continuous=True` `Box(-1, 1, (2,))` (main throttle, lateral throttle). Reward: the change of
    the shaping potential, minus 0.3 per main-engine firing and 0.03 per side-engine firing
    (scaled by the throttle); -100 on a crash or leaving the screen, +100 on coming to rest.

    Args:
        continuous: Continuous throttles instead of four discrete actions (the reference's
            constructor argument).

    Attributes:
        constants: The dynamics' constants, the reference's (a class attribute).
    """

    constants: Constants = REFERENCE

    def __init__(self, continuous: bool = False):
        self.continuous = bool(continuous)

    def __repr__(self) -> str:
        return f"{self.name}(continuous=True)" if self.continuous else super().__repr__()

    def observe(self, state, params):
        """`float32[8]`, the reference's observation of `state`."""
        return observation(state)

    def is_terminal(self, state, params):
        """Crashed, off screen or asleep (the module's `is_terminal`)."""
        return is_terminal(state)

    def reset_env(self, key, params):
        dtype = jnp.result_type(float)
        k_terrain, k_push, k_wind, k_torque, k_step = jax.random.split(key, 5)
        # The wind's phases are drawn only with wind on (the reference's are 0 otherwise).
        windy = jnp.asarray(params.enable_wind, bool)
        state = start(
            jax.random.uniform(k_terrain, (CHUNKS + 1,), dtype, 0.0, H / 2),
            jax.random.uniform(k_push, (2,), dtype, -1.0, 1.0) * self.constants.initial_random,
            jnp.where(windy, jax.random.randint(k_wind, (), -9999, 9999, jnp.int32), 0),
            jnp.where(windy, jax.random.randint(k_torque, (), -9999, 9999, jnp.int32), 0),
            self.constants,
        )
        # The reference's reset ends with one no-op step; its reward is not returned.
        noop = jnp.zeros((2,), dtype) if self.continuous else jnp.int32(0)
        state, _, _ = advance(state, noop, draw_dispersion(k_step, dtype), params, self.continuous, self.constants)
        return observation(state), state.replace(prev_shaping=shaping(observation_values(state)))

    def step_env(self, key, state, action, params):
        dispersion = draw_dispersion(key, state.prev_shaping.dtype)
        obs, state, reward, terminated = self.transition(state, action, dispersion, params)
        return obs, state, reward, terminated, {}

    def transition(self, state, action, dispersion, params):
        """The step given its one random draw, the engines' dispersion (`draw_dispersion`).

        Args:
            state: The state before the step.
            action: The action (a continuous one is clipped to [-1, 1], NaN taken as 0).
            dispersion: `[2]` uniform(-1, 1) / SCALE.
            params: The settings.

        Returns:
            `(obs, state, reward, terminated)`.
        """
        dtype = state.prev_shaping.dtype
        if self.continuous:
            action = spaces.clip_action(jnp.asarray(action, dtype), -1.0, 1.0)
        state, m_power, s_power = advance(state, action, dispersion, params, self.continuous, self.constants)
        reward, terminated, new_shaping = reward_and_termination(state, m_power, s_power)
        state = state.replace(time=state.time + 1, prev_shaping=new_shaping)
        return observation(state), state, reward, terminated

    @defaults_params
    def observation_space(self, params=None):
        high = np.array([2.5, 2.5, 10.0, 10.0, 2 * math.pi, 10.0, 1.0, 1.0], np.float32)
        low = np.array([-2.5, -2.5, -10.0, -10.0, -2 * math.pi, -10.0, -0.0, -0.0], np.float32)
        return spaces.Box(low, high, shape=(8,), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        if self.continuous:
            return spaces.Box(-1.0, 1.0, shape=(2,), dtype=jnp.float32)
        return spaces.Discrete(4)

    @defaults_params
    def render(self, state, params=None):
        from jaxenvs.envs.box2d.lunar_lander.render import render

        return render(state, params)
