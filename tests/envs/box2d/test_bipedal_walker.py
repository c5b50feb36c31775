"""BipedalWalker against gymnasium's BipedalWalker-v3, step by step.

The reference's course and initial push are replayed: its terrain heights are read from the
reset env, and its push is the draw that follows the clouds' (read from a copy of its generator).
Our `start` / `advance` take them; both sides then take the same actions. The walker's step draws
nothing, so the two episodes part only where the physics does.

Measured (seeds 0-7 random play, 0-3 the reference's scripted walker): the reset observation
within 1e-5 of the reference's; every observation within 1e-3 for the first 95 to 113 steps,
where the two start to part; random-play episodes 1 to 6 end on the reference's step with its
-100, 0 and 7 walk past 1,600 steps on both sides; the scripted walker's episodes part after
about 100 steps (chaos: a walker's fall follows from differences of 1e-4), and the whole
episodes are compared in distribution by the parity checks (`bipedal_walker/parity.py`).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.envs.box2d.bipedal_walker import env as bw
from jaxenvs.envs.box2d.bipedal_walker import parity as bp
from jaxenvs.envs.box2d.bipedal_walker import terrain as tr

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("Box2D")


def _recording_walker():
    """gymnasium's BipedalWalker, noting the initial push it is about to draw (`push`)."""
    from gymnasium.envs.box2d.bipedal_walker import INITIAL_RANDOM, BipedalWalker

    class Recording(BipedalWalker):
        def _generate_clouds(self):
            super()._generate_clouds()
            upcoming = np.random.Generator(np.random.PCG64())
            upcoming.bit_generator.state = self.np_random.bit_generator.state
            self.push = upcoming.uniform(-INITIAL_RANDOM, INITIAL_RANDOM)

    return Recording()


@functools.cache
def _compiled():
    env = bw.BipedalWalker()
    return jax.jit(env.transition), env.default_params


def _plain(terrain_y) -> tr.Terrain:
    n = tr.REFERENCE.max_obstacles
    dtype = jnp.result_type(float)
    return tr.Terrain(
        terrain_x=jnp.asarray(tr.REFERENCE.terrain_x, dtype),
        terrain_y=jnp.asarray(np.asarray(terrain_y, np.float32), dtype),
        obstacle_vertices=jnp.zeros((n, 4, 2), dtype),
        obstacle_kind=jnp.full((n,), tr.GRASS, jnp.int32),
        num_obstacles=jnp.int32(0),
    )


def replay(seed, steps):
    """Reset both sides on the reference's course and push, then take uniform random actions
    (`default_rng(100 + seed)`) until either episode ends.

    Returns:
        `(reset_error, errors, ends)`: the reset observation's largest difference, each step's,
        and `(step, reference terminated, ours, reference reward, ours)` at the end (or None).
    """
    transition, params = _compiled()
    ref = _recording_walker()
    obs_ref, _ = ref.reset(seed=seed)
    # the reset's step with the motors off (one compiled step serves it and the episode)
    _, state, _, _ = transition(bw.start(_plain(ref.terrain_y), ref.push), jnp.zeros(4), params)
    state = state.replace(time=jnp.zeros_like(state.time), prev_shaping=bw.shaping(state))
    reset_error = np.abs(np.asarray(bw.observation(state)) - obs_ref).max()
    rng = np.random.default_rng(100 + seed)
    errors = []
    for t in range(steps):
        action = rng.uniform(-1, 1, 4).astype(np.float32)
        obs_ref, r_ref, te_ref, _, _ = ref.step(action)
        obs, state, r, te = transition(state, jnp.asarray(action), params)
        errors.append(np.abs(np.asarray(obs) - obs_ref).max())
        if te_ref or bool(te):
            return reset_error, np.array(errors), (t, te_ref, bool(te), r_ref, float(r))
    return reset_error, np.array(errors), None


@pytest.mark.parametrize("seed", [3, 6])
def test_random_play_follows_gymnasium_to_the_fall(seed):
    # Seeds 3 and 6: the walker falls at step 56 and 78 on both sides (-100); every observation
    # within 6e-4 of the reference's to the end (measured: 2.3e-4 and 8.9e-6 over the first 50
    # steps; seeds 1 to 6 all end on the reference's step, 0 and 7 walk on past 1,600 steps).
    reset_error, errors, end = replay(seed, 100)
    assert reset_error < 1e-5
    assert end == ({3: 56, 6: 78}[seed], True, True, -100.0, -100.0)
    assert errors.max() < 1e-3, errors.max()


def test_scripted_walker_matches_gymnasium():
    """Our `heuristic` against gymnasium's `BipedalWalkerHeuristics`, fed the same observations
    (the reference's, as it walks under its own controller): the same actions to float32
    rounding, through its phases and leg swaps."""
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    ref = _recording_walker()
    obs, _ = ref.reset(seed=1)
    theirs = BipedalWalkerHeuristics()
    step = jax.jit(bp.heuristic)
    controller = bp.heuristic_start()
    swaps = 0
    for _ in range(300):
        want = np.asarray(theirs.step_heuristic(obs), np.float64)
        moving = int(controller[1])
        controller, got = step(controller, jnp.asarray(obs))
        swaps += int(controller[1]) != moving
        np.testing.assert_allclose(np.asarray(got), want, atol=2e-5)
        assert int(controller[0]) == theirs.state and int(controller[1]) == theirs.moving_leg
        obs, _, terminated, _, _ = ref.step(want.astype(np.float32))
        if terminated:
            break
    assert swaps >= 2


def test_falls_are_seen_where_the_reference_sees_them():
    """The fall (the hull's first touch of the ground: `game_over`, -100) on both sides. From
    gymnasium's own random play (episodes 5000 to 5019, each to its fall or step 300), every
    fall and the three steps before it, rebuilt cold on both sides (`parity.write_state` /
    `to_jax`) and stepped with the reference's action: the falls are the same steps."""
    ref = bp.reference("BipedalWalker-v3")
    transition, params = _compiled()
    cases = []
    for i in range(20):
        ref.reset(5000 + i)
        ref.env.action_space.seed(5000 + i)
        history = []
        for _ in range(300):
            state, action = ref.state(), ref.env.action_space.sample()
            _, reward, terminated, _, _ = ref.step(action)
            history.append((state, action))
            if terminated:
                break
        if terminated and reward <= -100:
            cases += history[-4:]
    batch = bp.to_jax({k: np.stack([np.asarray(s[k]) for s, _ in cases]) for k in cases[0][0]}, params)
    theirs, ours = [], []
    for i, (state, action) in enumerate(cases):
        ref.load(state)
        ref.step(action)
        theirs.append(bool(ref.env.unwrapped.game_over))
        _, after, _, _ = transition(jax.tree.map(lambda x, i=i: x[i], batch), jnp.asarray(action), params)
        ours.append(bool(after.game_over))
    assert sum(theirs) >= 8, theirs  # measured: 12 falls in these 20 episodes, 48 steps
    assert ours == theirs


def test_reference_episode_does_not_depend_on_the_episodes_before_it():
    """gymnasium's walker keeps one b2World across resets, and the proxy ids Box2D recycles
    change the order its contacts are solved in: the same seed, played after 2 resets, puts
    the hull elsewhere 200 scripted steps on. The parity's reference (`WalkerReference`) plays
    each episode in a fresh world, so an episode is its seed's alone."""
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    from jaxenvs import parity

    def hull_after(ref, resets_before):
        for i in range(resets_before):
            ref.reset(100 + i)
        obs, walker = ref.reset(3), BipedalWalkerHeuristics()
        for _ in range(200):
            obs, *_ = ref.step(np.asarray(walker.step_heuristic(obs), np.float32))
        return np.array(ref.env.unwrapped.hull.position)

    make = functools.partial(bp.reference, "BipedalWalker-v3")
    first = hull_after(make(), 0)
    for resets_before in (2, 5):
        np.testing.assert_array_equal(hull_after(make(), resets_before), first)
    plain = parity.GymnasiumReference(make=make().make, read_state=bp.read_state, write_state=bp.write_state)
    assert np.abs(hull_after(plain, 2) - first).max() > 0.1


def test_motors_are_set_as_the_reference_sets_them():
    world = bw.motors(bw.walker_world(), jnp.array([0.5, -1.5, 0.0, -0.25]))
    np.testing.assert_allclose(world.joint_motor_speed, [4.0, -6.0, 0.0, -6.0])
    np.testing.assert_allclose(world.joint_max_motor_torque, [40.0, 80.0, 0.0, 20.0])


def test_repr_names_the_course():
    import jaxenvs

    assert repr(bw.BipedalWalker()) == "BipedalWalker()"
    assert repr(jaxenvs.make("BipedalWalkerHardcore-v3")[0].unwrapped) == "BipedalWalker(hardcore=True)"
    assert repr(jaxenvs.make("LunarLanderContinuous-v3")[0].unwrapped) == "LunarLander(continuous=True)"


def test_lidar_sees_the_flat_start_pad():
    # Straight down from the hull's origin at its start (2*LEG_H above the pad): ray 0 hits the
    # pad at 2 * LEG_H / LIDAR_RANGE of its length.
    state = bw.start(_plain(np.full(tr.TERRAIN_LENGTH, tr.TERRAIN_HEIGHT)), 0.0)
    fractions = np.asarray(bw.lidar(state.world, state.terrain))
    np.testing.assert_allclose(fractions[0], 2 * bw.LEG_H / bw.LIDAR_RANGE, rtol=1e-5)
    # the rays turn toward the horizon: longer and longer, the last ones out of range
    assert np.all(np.diff(fractions) >= 0) and fractions[-1] == 1.0


def test_hardcore_steps_against_obstacles_match_gymnasium():
    """The hardcore course: states of gymnasium's own BipedalWalkerHardcore-v3 (its scripted
    walker, seed 0, climbing its stumps and stairs) where a body touches an obstacle, each
    stepped cold on both sides (`parity.write_state` / `to_jax`: the course's obstacles read
    from the reference). Measured on 71 such states: observations within 1.4e-6, centres of
    mass 1.9e-6, rewards 9.4e-6, every termination flag the same."""
    import Box2D
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    ref = gymnasium.make("BipedalWalkerHardcore-v3")
    env = bw.BipedalWalker(hardcore=True)
    transition = jax.jit(env.transition)
    obs, _ = ref.reset(seed=0)
    controller = BipedalWalkerHeuristics()
    touching = []
    for _ in range(400):
        action = np.asarray(controller.step_heuristic(obs), np.float32)
        u = ref.unwrapped
        on_obstacle = any(
            c.touching
            and isinstance(c.fixtureA.shape, Box2D.b2PolygonShape)
            and c.fixtureA.body.type == Box2D.b2_staticBody
            for c in u.world.contacts
        )
        if on_obstacle:
            touching.append((bp.read_state(ref), action))
        obs, _, terminated, truncated, _ = ref.step(action)
        if terminated or truncated:
            break
    assert len(touching) >= 40, "the scripted walker should reach the obstacles"
    for state, action in touching[::4]:
        assert state["num_obstacles"] > 0
        ours = jax.tree.map(lambda x: x[0], bp.to_jax({k: np.asarray(v)[None] for k, v in state.items()}, None))
        bp.write_state(ref, state)
        obs_ref, reward_ref, terminated_ref, _, _ = ref.step(action)
        obs, _, reward, terminated = transition(ours, jnp.asarray(action), env.default_params)
        np.testing.assert_allclose(np.asarray(obs), obs_ref, atol=2e-5)
        assert abs(float(reward) - reward_ref) < 1e-4 and bool(terminated) == terminated_ref
