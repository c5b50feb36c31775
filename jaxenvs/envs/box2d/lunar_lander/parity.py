"""LunarLander against gymnasium's Box2D LunarLander-v3 and LunarLanderContinuous-v3.

pybox2d cannot set the solver's warm-start impulses, a body's sleep timer or a contact's state,
so a state is injected by building the reference's world afresh (`write_state`: a new
`b2World` with the moon, the lander and its legs created in `reset`'s order, then placed and
set moving). Each compared step is therefore a cold-started one on both sides (our side's
state starts with no contacts and no impulses, as `physics.init_state` builds it), taken from a
state the reference reached (its own play, re-injected before every step) with the
reference's engine dispersion replayed (`LanderReference` records the two numbers each step
draws). Compared: every body's centre of mass, angle and velocities, the legs' contact flags,
the crash flag, the reward, the termination and the observation; to `STEP_ATOL` in free flight,
and in distribution in contact (`in_contact`), where a leg's motor at its torque limit on one
side may be just under it on the other (measured since the time of impact is Box2D's own: at
the demo's scale every contact step within 2.4e-5 too; not yet held to it at full scale).

Warm starting and sleeping as they really occur are left to whole-episode statistics: episode
length, return, and how episodes end (crash or off screen, asleep on the ground, cut at the time
limit), under uniform random actions and under the reference's own controller
(`gymnasium.envs.box2d.lunar_lander.heuristic`, written again here in JAX as `heuristic`).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.box2d import pybox2d
from jaxenvs.envs.box2d.lunar_lander import env as ll
from jaxenvs.parity.reference import elapsed_steps, episode_seeds, set_elapsed_steps

# The bodies' fields, `[3, ...]` in creation order (lander, left leg, right leg).
BODY_FIELDS = pybox2d.BODY_FIELDS
# Per-step tolerance of a cold-started step's float values (metres, radians, m/s, rad/s, and
# the observation): float32 against Box2D's float32, after 180 + 60 solver iterations.
STEP_ATOL = 2e-4
# Rewards are 100 x shaping differences of such values (and -100 / +100 at the end).
REWARD_ATOL = 5e-2
# A step is in contact when a body is this near the terrain (`pybox2d.CONTACT_MARGIN`); these
# steps are compared in distribution (the module's docstring).
CONTACT_MARGIN = pybox2d.CONTACT_MARGIN
# How many rounds of play `half_in_contact` may take to fill its contact half, and their least
# length (the play's episodes last 100 to 1,000 steps and reach the ground late).
CONTACT_ROUNDS = 8
ROUND_STEPS = 1000


def _bodies(env: Any) -> list[Any]:
    u = env.unwrapped
    return [u.lander, u.legs[0], u.legs[1]]


def read_state(env: Any) -> dict[str, Any]:
    """The reference's state, named as `from_jax` names ours.

    Args:
        env: gymnasium's LunarLander (possibly wrapped).

    Returns:
        `{field: numpy value}`: the bodies' centres of mass, angles and velocities, whether the
        island is awake, the terrain, the legs' contact flags, the crash flag, the last shaping,
        the wind's phases and the time.
    """
    u = env.unwrapped
    bodies = _bodies(env)
    edges = [f.shape.vertices for f in u.moon.fixtures[1:]]
    return pybox2d.read_bodies(bodies) | {
        "awake": np.bool_(u.lander.awake),
        "terrain_y": np.array([e[0][1] for e in edges] + [edges[-1][1][1]], np.float64),
        "leg_contact": np.array([u.legs[0].ground_contact, u.legs[1].ground_contact], bool),
        "game_over": np.bool_(u.game_over),
        "prev_shaping": np.float64(u.prev_shaping if u.prev_shaping is not None else 0.0),
        "wind_idx": np.int32(getattr(u, "wind_idx", 0)),
        "torque_idx": np.int32(getattr(u, "torque_idx", 0)),
        "time": np.int32(elapsed_steps(env)),
    }


def write_state(env: Any, state: dict[str, Any]) -> None:
    """Build the reference's world afresh at `state` (cold: no contacts, impulses or timers).

    The bodies, fixtures and joints are gymnasium's `reset`'s, created in its order; the legs'
    joints take the reference angle `reset` gives them (the legs' angle relative to the lander
    at creation, +-0.05), whatever the bodies' angles now.

    Args:
        env: gymnasium's LunarLander (possibly wrapped).
        state: a state as `read_state` reads it.
    """
    import Box2D
    from gymnasium.envs.box2d.lunar_lander import ContactDetector

    u = env.unwrapped
    u._destroy()
    u.world = Box2D.b2World(gravity=(0, u.gravity))
    u.world.contactListener_keepref = ContactDetector(u)
    u.world.contactListener = u.world.contactListener_keepref
    y = [float(v) for v in state["terrain_y"]]
    x = [float(v) for v in ll.CHUNK_X]
    u.moon = u.world.CreateStaticBody(shapes=Box2D.b2EdgeShape(vertices=[(0, 0), (ll.W, 0)]))
    for i in range(ll.CHUNKS - 1):
        u.moon.CreateEdgeFixture(vertices=[(x[i], y[i]), (x[i + 1], y[i + 1])], density=0, friction=0.1)
    u.lander = u.world.CreateDynamicBody(
        fixtures=Box2D.b2FixtureDef(
            shape=Box2D.b2PolygonShape(vertices=[(a / ll.SCALE, b / ll.SCALE) for a, b in ll.LANDER_POLY]),
            density=5.0,
            friction=0.1,
            categoryBits=0x0010,
            maskBits=0x001,
            restitution=0.0,
        )
    )
    u.legs = []
    for i in (-1, 1):
        leg = u.world.CreateDynamicBody(
            fixtures=Box2D.b2FixtureDef(
                shape=Box2D.b2PolygonShape(box=(ll.LEG_W / ll.SCALE, ll.LEG_H / ll.SCALE)),
                density=1.0,
                restitution=0.0,
                categoryBits=0x0020,
                maskBits=0x001,
            )
        )
        joint = Box2D.b2RevoluteJointDef()
        joint.bodyA, joint.bodyB = u.lander, leg
        joint.localAnchorA = (0, 0)
        joint.localAnchorB = (i * ll.LEG_AWAY / ll.SCALE, ll.LEG_DOWN / ll.SCALE)
        joint.referenceAngle = i * 0.05
        joint.enableMotor, joint.enableLimit = True, True
        joint.maxMotorTorque, joint.motorSpeed = ll.LEG_SPRING_TORQUE, 0.3 * i
        joint.lowerAngle, joint.upperAngle = (0.4, 0.9) if i == -1 else (-0.9, -0.4)
        leg.joint = u.world.CreateJoint(joint)
        u.legs.append(leg)
    pybox2d.place_bodies(_bodies(env), state)
    u.legs[0].ground_contact, u.legs[1].ground_contact = (bool(v) for v in state["leg_contact"])
    u.game_over = bool(state["game_over"])
    u.prev_shaping = float(state["prev_shaping"])
    u.wind_idx, u.torque_idx = int(state["wind_idx"]), int(state["torque_idx"])
    set_elapsed_steps(env, int(state["time"]))


def to_jax(states: dict[str, Any], params: Any) -> ll.LunarLanderState:
    """A batch of reference states as cold-started JAX states (`physics.init_state`).

    Args:
        states: `{field: [n, ...]}` reference states (`read_state`'s fields).
        params: the params (unused: a state does not depend on them).

    Returns:
        The batched `LunarLanderState`: no contacts, no impulses, sleep timers at 0.
    """
    world = ll.lander_world()
    dtype = world.inv_mass.dtype

    def one(
        center, angle, linear_velocity, angular_velocity, awake, terrain_y, leg_contact, game_over, prev, wi, ti, t
    ):
        wstate = pybox2d.cold_world_state(world, center, angle, linear_velocity, angular_velocity, awake)
        return ll.LunarLanderState(
            time=t,
            world=wstate,
            terrain_y=terrain_y.astype(dtype),
            leg_contact=leg_contact,
            game_over=game_over,
            prev_shaping=prev.astype(dtype),
            wind_idx=wi,
            torque_idx=ti,
        )

    names = BODY_FIELDS + ("awake", "terrain_y", "leg_contact", "game_over", "prev_shaping", "wind_idx", "torque_idx")
    args = [jnp.asarray(states[k]) for k in names] + [jnp.asarray(states["time"], jnp.int32)]
    return jax.vmap(one)(*args)


def from_jax(state: ll.LunarLanderState) -> dict[str, Any]:
    """The JAX state named as `read_state` names the reference's.

    Args:
        state: a (batched) `LunarLanderState`.

    Returns:
        `{field: array}`.
    """
    return pybox2d.body_fields(state.world) | {
        "terrain_y": state.terrain_y,
        "leg_contact": state.leg_contact,
        "game_over": state.game_over,
        "prev_shaping": state.prev_shaping,
        "wind_idx": state.wind_idx,
        "torque_idx": state.torque_idx,
        "time": state.time,
    }


class LanderReference(p.GymnasiumReference):
    """gymnasium's LunarLander with each step's engine dispersion recorded (`take_draws`).

    The two numbers a step draws (`np_random.uniform(-1, 1) / SCALE`, before anything else)
    are read from a copy of the env's generator just before the step.
    """

    _draws: Any = None

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        upcoming = np.random.Generator(np.random.PCG64())
        upcoming.bit_generator.state = self.env.unwrapped.np_random.bit_generator.state
        self._draws = np.array([upcoming.uniform(-1.0, 1.0) / ll.SCALE for _ in range(2)])
        return super().step(action)

    def take_draws(self) -> Any:
        draws, self._draws = self._draws, None
        return draws


def reference(env_id: str, **settings: Any) -> LanderReference:
    """gymnasium's `env_id` (at `settings`: gravity, wind) as a reference.

    Args:
        env_id: `LunarLander-v3` or `LunarLanderContinuous-v3`.
        **settings: gymnasium's constructor arguments.

    Returns:
        The reference.
    """
    return LanderReference(
        make=pybox2d.gymnasium_maker(env_id, settings),
        read_state=read_state,
        write_state=write_state,
        to_jax=to_jax,
        from_jax=from_jax,
        batched_to_jax=True,
        draws_to_jax=lambda draws, state: np.asarray(draws, np.float64),
        exact_fields=("time", "awake", "leg_contact", "game_over", "wind_idx", "torque_idx"),
        angle_fields=(),
        policy=mixed_policy,
        name=f"gymnasium {env_id} (box2d {pybox2d.box2d_version()})",
    )


def mixed_policy(ref: Any, rng: np.random.Generator) -> Any:
    """The reference's controller three steps in four, else a uniform random action: it lands,
    so that contacts, touchdowns and resting on the legs come up among the compared steps.

    Args:
        ref: the reference (`ref.env` the live gymnasium env).
        rng: the generator deciding between the two.

    Returns:
        The action, as gymnasium's env takes it.
    """
    from gymnasium.envs.box2d.lunar_lander import heuristic as ref_heuristic

    if rng.random() < 0.25:
        return ref.env.action_space.sample()
    u = ref.env.unwrapped
    action = ref_heuristic(u, _observe(u))
    return np.asarray(action, np.float32) if u.continuous else int(action)


def _observe(u: Any) -> np.ndarray:
    """The reference's observation of its current state (as its `step` computes it)."""
    pos, vel = u.lander.position, u.lander.linearVelocity
    return np.array(
        [
            (pos.x - ll.W / 2) / (ll.W / 2),
            (pos.y - (u.helipad_y + ll.LEG_DOWN / ll.SCALE)) / (ll.H / 2),
            vel.x * (ll.W / 2) / ll.FPS,
            vel.y * (ll.H / 2) / ll.FPS,
            u.lander.angle,
            20.0 * u.lander.angularVelocity / ll.FPS,
            1.0 if u.legs[0].ground_contact else 0.0,
            1.0 if u.legs[1].ground_contact else 0.0,
        ],
        np.float32,
    )


def _terrain_distance(ref: Any, state: dict[str, Any]) -> float:
    """The least distance between a body of the reference at `state` and the terrain (Box2D's
    `b2Distance`, shapes' radii counted)."""
    import Box2D

    ref.load(state)
    moon = ref.env.unwrapped.moon
    return min(
        Box2D.b2Distance(
            shapeA=f.shape, shapeB=e.shape, transformA=b.transform, transformB=moon.transform, useRadii=True
        ).distance
        for b in _bodies(ref.env)
        for f in b.fixtures
        for e in moon.fixtures
    )


def in_contact(ref: Any, data: Any) -> np.ndarray:
    """`FieldPolicy.in_distribution`: the steps with a body within `CONTACT_MARGIN` of the
    terrain before or after them (`pybox2d.near_terrain`, the reference's states).

    Args:
        ref: the reference (`LanderReference`), whose world measures the distances.
        data: the transitions.

    Returns:
        `bool[n]`, True where the step is in contact.
    """
    return pybox2d.near_terrain(ref, data, _terrain_distance)


def half_in_contact(ref: Any, n: int, seed: int) -> Any:
    """`n` cold-started steps of the reference's own play (`mixed_policy`), half of them in
    contact (`in_contact`) and half in free flight, each half in the order played: the play
    touches the ground in about one step in eight, and the contact steps are those a two-sample
    test needs many of. Play continues in rounds of `n` steps (their seeds
    `episode_seeds(seed, CONTACT_ROUNDS)`) until both halves are full (at least `ROUND_STEPS`
    steps a round, so that episodes reach the ground; at most `CONTACT_ROUNDS` rounds; then the
    halves are as full as the play made them).

    Args:
        ref: the reference (`LanderReference`).
        n: how many steps.
        seed: the seed of the rounds' seeds.

    Returns:
        The transitions: the contact half first.
    """
    contact, free = [], []
    for round_seed in episode_seeds(seed, CONTACT_ROUNDS):
        data = ref.transitions(max(n, ROUND_STEPS), round_seed, None, pybox2d.reinject)
        touching = in_contact(ref, data)
        contact.append(data.select(touching))
        free.append(data.select(~touching))
        if min(sum(map(len, contact)), sum(map(len, free))) >= n - n // 2:
            break
    contact_rows, free_rows = (sum(parts[1:], parts[0]) for parts in (contact, free))
    return contact_rows.select(np.arange(min(n // 2, len(contact_rows)))) + free_rows.select(
        np.arange(min(n - n // 2, len(free_rows)))
    )


def heuristic(obs: jax.Array, continuous: bool) -> jax.Array:
    """gymnasium's `heuristic` controller, in JAX: point toward the pad and hover down to it.

    Args:
        obs: `[8]` an observation.
        continuous: Return the continuous throttles instead of a discrete action.

    Returns:
        int32 action, or `float32[2]` throttles in [-1, 1].
    """
    s = obs
    angle_targ = jnp.clip(s[0] * 0.5 + s[2] * 1.0, -0.4, 0.4)
    hover_targ = 0.55 * jnp.abs(s[0])
    angle_todo = (angle_targ - s[4]) * 0.5 - s[5] * 1.0
    hover_todo = (hover_targ - s[1]) * 0.5 - s[3] * 0.5
    legs_down = (s[6] != 0) | (s[7] != 0)
    angle_todo = jnp.where(legs_down, 0.0, angle_todo)
    hover_todo = jnp.where(legs_down, -s[3] * 0.5, hover_todo)
    if continuous:
        return jnp.clip(jnp.stack([hover_todo * 20 - 1, -angle_todo * 20]), -1.0, 1.0).astype(jnp.float32)
    main = (hover_todo > jnp.abs(angle_todo)) & (hover_todo > 0.05)
    return jnp.where(main, 2, jnp.where(angle_todo < -0.05, 3, jnp.where(angle_todo > 0.05, 1, 0))).astype(jnp.int32)


# ---------------------------------------------------------------------------------------------
# whole episodes under a policy


def ending(terminated: np.ndarray, last_reward: np.ndarray) -> np.ndarray:
    """How each episode ended: "crash" (the body touched the ground, or off screen: -100),
    "asleep" (came to rest: +100), or "cut" (the time limit).

    Args:
        terminated: whether each episode ended by itself (else it was cut).
        last_reward: each episode's last reward.

    Returns:
        One string per episode.
    """
    return np.where(~terminated, "cut", np.where(last_reward > 0, "asleep", "crash"))


def _reference_controller(ref: LanderReference) -> Any:
    """gymnasium's `heuristic` on the reference's lander, as `obs -> action`."""
    from gymnasium.envs.box2d.lunar_lander import heuristic as ref_heuristic

    u = ref.env.unwrapped
    return lambda obs: np.asarray(ref_heuristic(u, obs), np.float32) if u.continuous else int(ref_heuristic(u, obs))


# Whole episodes under the reference's controller (`heuristic`, which keeps no state) or uniform
# random actions, compared by length, return and how they ended.
EPISODES = pybox2d.Episodes(
    name="lunar lander episodes",
    label="heuristic controller",
    heuristic=lambda env, controller, obs: (controller, heuristic(obs, bool(env.continuous))),
    start=tuple,
    reference_controller=_reference_controller,
    ending=ending,
)


def cold_steps(at_one: int, least: int, label: str = "step") -> p.CheckFn:
    """Cold-started steps from the reference's own play (`mixed_policy`), re-injected before each
    step, replayed on the env under test with the reference's dispersion (`LunarLander.transition`):
    half in free flight, to `STEP_ATOL`, half in contact (`in_contact`), in distribution and by
    the direction of their differences (`half_in_contact`, `harness.compare_in_distribution`).

    Args:
        at_one: transitions at scale 1.
        least: transitions at the smallest scale.
        label: the checks' name prefix.

    Returns:
        A check function.
    """

    def check(ctx: p.Context) -> list:
        env = getattr(ctx.env, "unwrapped", ctx.env)
        n = ctx.size(at_one, least)
        steps = p.transitions(
            "atol",
            STEP_ATOL,
            at_one,
            least,
            label=label,
            reward_atol=REWARD_ATOL,
            data=half_in_contact(ctx.reference, n, ctx.seed),
            replay=env.transition,
            in_distribution=in_contact,
        )
        return steps(ctx)

    return check


# The checks of `LunarLander-v3` and `LunarLanderContinuous-v3`: the reset distribution (every
# state field, KS per coordinate; and the lander's first velocity, where the initial push
# shows, with more samples), first, so that a wrong start fails before the step compiles;
# cold-started steps (`cold_steps`), without wind and with it; whole episodes under random
# actions and under the reference's controller.
SPEC = p.ParitySpec(
    checks=p.chain(
        p.resets(at_one=2000, least=200),
        # the initial push, alone: its range shows in the tails of the lander's first velocity
        p.resets(
            at_one=4000, least=1000, outcome=lambda s, o: s["linear_velocity"][:, 0], label="reset lander velocity"
        ),
        cold_steps(1000, 100),
        p.on(p.variant(reference, enable_wind=True), cold_steps(500, 50, "wind")),
        pybox2d.episodes_under(EPISODES, False, at_one=300, least=60),
        pybox2d.episodes_under(EPISODES, True, at_one=200, least=40),
    ),
    reference=reference,
    library="gymnasium",
)
