"""The JaxUED export: a PLR loop drives it, and JaxUED's own CartPole, Acrobot and Pendulum agree.

JaxUED 0.0.1 (the package index's release) calls `jax.tree_map`, which current jax no longer
has; the tests that run its `LevelSampler` and wrappers take the `tree_map_shim` fixture, the
one line docs/levels.md shows users.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("jaxued")
from jaxued.environments.gymnax import acrobot as jaxued_acrobot  # noqa: E402
from jaxued.environments.gymnax import cartpole as jaxued_cartpole  # noqa: E402
from jaxued.environments.gymnax import pendulum as jaxued_pendulum  # noqa: E402
from jaxued.level_sampler import LevelSampler  # noqa: E402
from jaxued.wrappers import AutoReplayWrapper  # noqa: E402

import jaxenvs  # noqa: E402
from jaxenvs.envs.classic.acrobot import AcrobotState  # noqa: E402
from jaxenvs.export import jaxued as jaxenvs_jaxued  # noqa: E402
from jaxenvs.levels import Level, apply_level  # noqa: E402
from jaxenvs.parity.stats import ATOL_F32_STEP  # noqa: E402


@pytest.fixture
def tree_map_shim(monkeypatch):
    """JaxUED 0.0.1 calls `jax.tree_map`; current jax has only `jax.tree_util.tree_map`."""
    monkeypatch.setattr(jax, "tree_map", jax.tree_util.tree_map, raising=False)


def _equal_trees(a, b) -> bool:
    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b) and all(
        np.array_equal(x, y) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b))
    )


# --- the export -------------------------------------------------------------------------------


def test_the_export_is_jaxueds_underspecified_env_and_steps_as_jaxenvs_does():
    from jaxued.environments import UnderspecifiedEnv

    env, params = jaxenvs_jaxued.make("CartPole-v1", max_steps_in_episode=3)
    assert isinstance(env, UnderspecifiedEnv) and params.max_steps_in_episode == 3
    assert env.action_space(params).n == 2 and env.observation_space(params).shape == (4,)
    raw, _ = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=3)
    level = Level(settings={"length": jnp.float32(1.5), "masspole": jnp.float32(0.3)})
    key = jax.random.key(3)
    obs, state = env.reset_to_level(key, level, params)
    obs_raw, state_raw = raw.reset_to_level(key, level, params)
    assert np.array_equal(obs, obs_raw) and _equal_trees(state.env_state, state_raw)
    for t in range(3):
        obs, state, reward, done, info = env.step(jax.random.key(t), state, 1, params)
        obs_raw, state_raw, reward_raw, terminated, truncated, _ = raw.step(
            jax.random.key(t), state_raw, 1, apply_level(params, level)
        )
        assert np.array_equal(obs, obs_raw) and _equal_trees(state.env_state, state_raw)
        assert reward == reward_raw and bool(done) == bool(terminated | truncated)
        assert bool(info["truncated"]) == bool(truncated) and bool(info["terminated"]) == bool(terminated)
        assert _equal_trees(info["level"], level)
    assert bool(done) and bool(info["truncated"])  # the time limit is part of JaxUED's done


def test_make_docstring_example_runs():
    import doctest

    (test,) = doctest.DocTestFinder().find(jaxenvs_jaxued.make, "make", globs={})
    outcome = doctest.DocTestRunner(verbose=False).run(test, out=lambda s: None)
    assert outcome.attempted == 8 and outcome.failed == 0


def test_bad_input_to_the_export_is_a_clear_error():
    env, params = jaxenvs_jaxued.make("CartPole-v1")
    with pytest.raises(jaxenvs.UnknownEnvError, match="CartPole-v1"):
        jaxenvs_jaxued.make("CartPole-v9")
    with pytest.raises(
        ValueError, match="'x_threshold' cannot vary per episode; the fields a level may set are gravity"
    ):
        env.default_level(params, fields=("length", "x_threshold"))
    with pytest.raises(TypeError, match=r"settings\['length'\] must be a float, got int32"):
        env.reset_to_level(jax.random.key(0), Level(settings={"length": jnp.int32(1)}), params)
    assert list(env.default_level(params, fields=("length",)).settings) == ["length"]


def test_without_jaxued_the_export_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "jaxued" or m.startswith("jaxued.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "jaxued", None)
    monkeypatch.delitem(sys.modules, "jaxenvs.export.jaxued", raising=False)
    with pytest.raises(ImportError, match=r'pip install "jaxenvs\[jaxued\]"'):
        import jaxenvs.export.jaxued  # noqa: F401


def test_jaxueds_release_needs_the_tree_map_line_under_current_jax():
    """What docs/levels.md says: without `jax.tree_map`, JaxUED 0.0.1's LevelSampler fails."""
    if hasattr(jax, "tree_map"):
        pytest.skip("this jax still has jax.tree_map")
    env, params = jaxenvs_jaxued.make("CartPole-v1")
    with pytest.raises(AttributeError, match="tree_map"):
        LevelSampler(4).initialize(env.default_level(params))


# --- a PLR loop -------------------------------------------------------------------------------


def _physics(key):
    """CartPole levels: the pole's half-length and mass."""
    length, masspole = jax.random.uniform(key, (2,), minval=jnp.array([0.25, 0.05]), maxval=jnp.array([2.0, 1.0]))
    return Level(settings={"length": length, "masspole": masspole})


def test_a_plr_loop_drives_the_export(tree_map_shim):
    num_envs, num_steps = 8, 48
    env, params = jaxenvs_jaxued.make("CartPole-v1", max_steps_in_episode=20)  # every env ends episodes
    replay_env = AutoReplayWrapper(env)  # JaxUED's: each finished episode restarts its own level
    level_sampler = LevelSampler(capacity=num_envs, replay_prob=1.0, staleness_coeff=0.3)
    sampler = level_sampler.initialize(env.default_level(params, fields=("length", "masspole")))

    @jax.jit
    def rollout(key, levels):
        """A random policy on each level; the score is the mean length of its finished episodes."""
        reset_key, step_key = jax.random.split(key)
        keys = jax.random.split(reset_key, num_envs)
        _, state = jax.vmap(replay_env.reset_to_level, (0, 0, None))(keys, levels, params)

        def step(state, key):
            action_key, env_key = jax.random.split(key)
            actions = jax.random.randint(action_key, (num_envs,), 0, 2)
            keys = jax.random.split(env_key, num_envs)
            _, state, reward, done, info = jax.vmap(replay_env.step, (0, 0, 0, None))(keys, state, actions, params)
            return state, (reward, done, info["level"])

        _, (rewards, dones, ran_under) = jax.lax.scan(step, state, jax.random.split(step_key, num_steps))
        episodes = dones.sum(0)
        scores = jnp.where(episodes > 0, (rewards * (jnp.cumsum(dones[::-1], 0)[::-1] > 0)).sum(0) / episodes, 0.0)
        return scores, episodes, ran_under

    # on_new: fresh levels, played and inserted with their scores
    new_levels = jax.vmap(_physics)(jax.random.split(jax.random.key(0), num_envs))
    scores, episodes, ran_under = rollout(jax.random.key(1), new_levels)
    assert np.all(episodes >= 1)  # every env finished an episode, so the replay restarted it
    for t in range(num_steps):  # ... from its own level, every step
        assert _equal_trees(jax.tree_util.tree_map(lambda x, t=t: x[t], ran_under), new_levels)
    assert len(np.unique(np.asarray(scores))) > 1  # the levels play differently
    sampler, inserted = level_sampler.insert_batch(sampler, new_levels, scores)
    assert int(sampler["size"]) == num_envs and np.array_equal(inserted, np.arange(num_envs))
    assert _equal_trees(sampler["levels"], new_levels) and np.array_equal(sampler["scores"], scores)

    # on_replay: levels drawn from the buffer by score and staleness, replayed, rescored
    sampler, (indices, replay_levels) = level_sampler.sample_replay_levels(sampler, jax.random.key(2), num_envs)
    assert _equal_trees(replay_levels, jax.tree_util.tree_map(lambda x: x[indices], new_levels))
    new_scores, _, ran_under = rollout(jax.random.key(3), replay_levels)
    assert _equal_trees(jax.tree_util.tree_map(lambda x: x[-1], ran_under), replay_levels)
    sampler = level_sampler.update_batch(sampler, indices, new_scores)
    last = {int(i): float(s) for i, s in zip(indices, new_scores)}  # update_batch scans: the last write wins
    for i in range(num_envs):
        assert float(sampler["scores"][i]) == last.get(i, float(scores[i]))
    assert int(sampler["episode_count"]) == 2 * num_envs


# --- parity with JaxUED's envs ----------------------------------------------------------------


def _cartpole_level(key):
    """A JaxUED CartPole level jaxenvs can express (its derived masses consistent)."""
    gravity, masscart, masspole, length, force_mag, tau = jax.random.uniform(
        key,
        (6,),
        minval=jnp.array([2.0, 0.2, 0.02, 0.1, 2.0, 0.005]),
        maxval=jnp.array([20.0, 5.0, 5.0, 5.0, 30.0, 0.04]),
    )
    return jaxued_cartpole.Level(
        gravity=gravity,
        masscart=masscart,
        masspole=masspole,
        total_mass=masspole + masscart,  # as jaxenvs (and gymnasium) add them
        polemass_length=masspole * length,
        length=length,
        force_mag=force_mag,
        tau=tau,
    )


def _acrobot_level(key):
    """A JaxUED Acrobot level jaxenvs can express (its dt and torque fixed at gymnasium's)."""
    lengths_masses = jax.random.uniform(key, (4,), minval=0.2, maxval=3.0)
    l1, l2, m1, m2 = lengths_masses
    return jaxued_acrobot.Level(dt=0.2, link_length_1=l1, link_length_2=l2, link_mass_1=m1, link_mass_2=m2)


def _pendulum_level(key):
    """A JaxUED Pendulum level (every field of it is a jaxenvs setting)."""
    low, high = jnp.array([0.01, 1.0, 0.2, 0.2]), jnp.array([0.1, 20.0, 3.0, 3.0])
    dt, g, m, length = jax.random.uniform(key, (4,), minval=low, maxval=high)
    return jaxued_pendulum.Level(dt=dt, g=g, m=m, l=length)


def _acrobot_start(key):
    """An Acrobot start state below the bar (|theta1| <= pi/2: not yet ended), velocities up to 4 rad/s."""
    high = jnp.array([jnp.pi / 2, jnp.pi, 4.0, 4.0])
    theta1, theta2, dtheta1, dtheta2 = jax.random.uniform(key, (4,), minval=-high, maxval=high)
    return AcrobotState(time=jnp.int32(0), theta1=theta1, theta2=theta2, dtheta1=dtheta1, dtheta2=dtheta2)


class Pair(NamedTuple):
    """One of JaxUED's envs beside the jaxenvs id it ports, and the translations between them."""

    ref_env: Any  # JaxUED's env class
    sample_level: Callable  # key -> a JaxUED level jaxenvs can express
    settings: tuple[str, ...]  # the JaxUED level's fields that are jaxenvs per-episode settings
    to_ref_state: Callable  # (jaxenvs state, JaxUED level) -> JaxUED's state
    ours: Callable  # jaxenvs state -> its fields, in the order of `theirs`
    theirs: Callable  # JaxUED state -> the same fields
    sample_action: Callable  # key -> an action
    start: Callable | None = None  # key -> a jaxenvs start state (a level's `state`), or None


PAIRS = {
    "CartPole-v1": Pair(
        jaxued_cartpole.CartPole,
        _cartpole_level,
        ("gravity", "masscart", "masspole", "length", "force_mag", "tau"),
        lambda s, lv: jaxued_cartpole.EnvState(s.x, s.x_dot, s.theta, s.theta_dot, s.time, lv),
        lambda s: (s.x, s.x_dot, s.theta, s.theta_dot, s.time),
        lambda s: (s.x, s.x_dot, s.theta, s.theta_dot, s.time),
        lambda key: jax.random.randint(key, (), 0, 2),
    ),
    "Acrobot-v1": Pair(
        jaxued_acrobot.Acrobot,
        _acrobot_level,
        ("link_length_1", "link_length_2", "link_mass_1", "link_mass_2"),
        lambda s, lv: jaxued_acrobot.EnvState(s.theta1, s.theta2, s.dtheta1, s.dtheta2, s.time, lv),
        lambda s: (s.theta1, s.theta2, s.dtheta1, s.dtheta2, s.time),
        lambda s: (s.joint_angle1, s.joint_angle2, s.velocity_1, s.velocity_2, s.time),
        lambda key: jax.random.randint(key, (), 0, 3),
        _acrobot_start,  # anywhere, so that episodes end (from gymnasium's start they seldom do)
    ),
    "Pendulum-v1": Pair(
        jaxued_pendulum.Pendulum,
        _pendulum_level,
        ("dt", "g", "m", "l"),
        lambda s, lv: jaxued_pendulum.EnvState(s.theta, s.theta_dot, jnp.float32(0.0), s.time, lv),
        lambda s: (s.theta, s.theta_dot, s.time),
        lambda s: (s.theta, s.theta_dot, s.time),
        lambda key: jax.random.uniform(key, (1,), minval=-2.5, maxval=2.5),
    ),
}


@pytest.mark.parametrize("env_id", list(PAIRS))
def test_parity_with_jaxueds_own_env_at_the_same_levels(env_id):
    """Step for step from the same states, at JaxUED levels jaxenvs can express."""
    pair = PAIRS[env_id]
    ref = pair.ref_env()
    ref_params = ref.default_params
    env, params = jaxenvs_jaxued.make(env_id)
    num_levels, num_steps = 16, 40

    def one_level(key, ref_level):
        start = None if pair.start is None else pair.start(jax.random.fold_in(key, 1))
        level = Level(settings={name: getattr(ref_level, name) for name in pair.settings}, state=start)
        _, state = env.reset_to_level(key, level, params)

        def step(state, key):
            action = pair.sample_action(key)
            ours = env.step_env(key, state, action, params)
            theirs = ref.step_env(key, pair.to_ref_state(state.env_state, ref_level), action, ref_params)
            return ours[1], (ours, theirs)

        _, (ours, theirs) = jax.lax.scan(step, state, jax.random.split(key, num_steps))
        return ours, theirs

    keys = jax.random.split(jax.random.key(11), num_levels)
    ref_levels = jax.vmap(pair.sample_level)(keys)
    ours, theirs = jax.jit(jax.vmap(one_level))(keys, ref_levels)
    (obs, state, reward, done, _), (ref_obs, ref_state, ref_reward, ref_done, _) = ours, theirs
    # compared up to each episode's end: past it the export stays put (Absorbing), JaxUED's moves on
    ended_before = jnp.cumsum(done, axis=1) - done > 0
    live = np.asarray(~ended_before)
    assert live.sum() >= num_levels * num_steps // 2
    assert np.array_equal(np.asarray(done)[live], np.asarray(ref_done)[live])
    assert np.abs(np.asarray(reward - ref_reward))[live].max() <= ATOL_F32_STEP
    assert np.abs(np.asarray(obs - ref_obs))[live].max() <= ATOL_F32_STEP
    for ours_field, ref_field in zip(pair.ours(state.env_state), pair.theirs(ref_state)):
        assert np.abs(np.asarray(ours_field - ref_field))[live].max() <= ATOL_F32_STEP
    if env_id != "Pendulum-v1":  # (Pendulum only truncates, after 200 steps)
        assert np.asarray(done).any()  # episodes ended inside the comparison
