import re
import subprocess
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env as gym_check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402

import jaxenvs  # noqa: E402
from jaxenvs import spaces  # noqa: E402
from jaxenvs.environment import Environment, EnvParams, EnvState  # noqa: E402
from jaxenvs.export import _gymnasium_hook  # noqa: E402
from jaxenvs.export.gymnasium import JaxEnv, JaxVectorEnv, gymnasium_id, register_gymnasium_envs  # noqa: E402
from jaxenvs.spaces import to_gymnasium  # noqa: E402

X_LIMIT, THETA_LIMIT = 2.4, 12 * 2 * np.pi / 360


def _cartpole_ended(obs):
    return abs(obs[0]) > X_LIMIT or abs(obs[2]) > THETA_LIMIT


def _is_reset_obs(obs):
    return bool(np.all(np.abs(obs) <= 0.05))


# --- registration ---------------------------------------------------------------------------


def _fresh_interpreter(code: str) -> str:
    """Run `code` in a new Python (a UserWarning is an error there); its stdout."""
    out = subprocess.run(
        [sys.executable, "-W", "error::UserWarning", "-c", code], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_jaxenvs_does_not_import_gymnasium_but_registers_when_it_is_imported():
    code = (
        "import sys, jaxenvs\n"
        "assert 'gymnasium' not in sys.modules, 'import jaxenvs imported gymnasium'\n"
        "import gymnasium\n"
        "ids = [i for i in gymnasium.registry if i.startswith('jaxenvs/')]\n"
        "assert 'jaxenvs/CartPole-v1' in ids, ids\n"
        "env = gymnasium.make('jaxenvs/CartPole-v1')\n"
        "obs, _ = env.reset(seed=0)\n"
        "assert obs.shape == (4,)\n"
        "print(len(ids))\n"
    )
    assert int(_fresh_interpreter(code).split()[-1]) >= 2


def test_importing_gymnasium_first_registers_when_jaxenvs_is_imported():
    code = "import gymnasium, jaxenvs\nassert gymnasium.spec('jaxenvs/CartPole-v1').kwargs['env_id'] == 'CartPole-v1'\n"
    _fresh_interpreter(code)


def test_importing_the_export_module_first_registers_too():
    # jaxenvs.export.gymnasium imports gymnasium itself, so the hook fires mid-import
    code = (
        "from jaxenvs.export.gymnasium import JaxEnv\n"
        "import gymnasium\n"
        "assert 'jaxenvs/CartPole-v1' in gymnasium.registry\n"
    )
    _fresh_interpreter(code)


def test_every_registered_id_reaches_gymnasium():
    _gymnasium_hook.install()  # gymnasium already imported here: registers at once, idempotently
    gym_ids = register_gymnasium_envs()
    assert gymnasium_id("bsuite/catch/0") == "jaxenvs/bsuite-catch-0"
    for env_id in jaxenvs.registered_envs():
        ns, name, version = gymnasium.envs.registration.parse_env_id(gymnasium_id(env_id))
        if version is None and any(
            s.namespace == ns and s.name == name and s.version is not None for s in gymnasium.registry.values()
        ):
            continue  # gymnasium keeps only the versioned ids of a name (e.g. Breakout-MinAtar-v0/-v1)
        assert gymnasium_id(env_id) in gym_ids
        spec = gymnasium.spec(gymnasium_id(env_id))
        assert spec.kwargs["env_id"] == env_id and spec.vector_entry_point is not None


# --- the single env -------------------------------------------------------------------------


def test_check_env_passes_without_other_warnings():
    env = gymnasium.make("jaxenvs/CartPole-v1", render_mode="rgb_array")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gym_check_env(env.unwrapped)
    # CartPole's velocities are unbounded, as in gymnasium's own CartPole
    unexpected = [str(w.message) for w in caught if "infinity" not in str(w.message)]
    assert not unexpected, unexpected


def test_outputs_are_numpy_and_python_scalars():
    env = gymnasium.make("jaxenvs/CartPole-v1")
    obs, info = env.reset(seed=0)
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.flags.writeable
    obs, reward, terminated, truncated, info = env.step(1)
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert isinstance(info["discount"], np.ndarray)


def test_reset_seed_is_deterministic():
    def rollout(seed):
        env = gymnasium.make("jaxenvs/CartPole-v1")
        observations = [env.reset(seed=seed)[0]]
        for t in range(15):
            observations.append(env.step(t % 2)[0])
        observations.append(env.reset()[0])  # an unseeded reset continues the seeded stream
        return np.stack(observations)

    np.testing.assert_array_equal(rollout(7), rollout(7))
    assert not np.array_equal(rollout(7)[0], rollout(8)[0])


def test_time_limit_override_and_truncation():
    env = gymnasium.make("jaxenvs/CartPole-v1", max_episode_steps=5)
    env.reset(seed=0)
    flags = [env.step(t % 2)[2:4] for t in range(5)]
    assert flags[-1] == (False, True) and all(f == (False, False) for f in flags[:-1])


def test_render_rgb_array_shows_the_state():
    env = gymnasium.make("jaxenvs/CartPole-v1", render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    assert first.shape == (400, 600, 3) and first.dtype == np.uint8
    for _ in range(4):
        env.step(1)
    assert (env.render() != first).any()


def test_invalid_discrete_action_raises():
    env = JaxEnv("CartPole-v1")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(2)


def test_wraps_an_env_instance_but_not_an_autoresetting_one():
    raw, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=3)
    env = JaxEnv(raw, params)
    env.reset(seed=0)
    assert [env.step(0)[3] for _ in range(3)] == [False, False, True]
    with pytest.raises(ValueError, match="AutoReset"):
        JaxEnv(jaxenvs.make("CartPole-v1")[0])


class _CounterEnv(Environment):
    """Unbounded integer observations (as jumanji's adapters give): a counter in a Dict."""

    @property
    def default_params(self):
        return EnvParams(max_steps_in_episode=5)

    def reset_env(self, key, params):
        state = EnvState(time=jnp.int32(0))
        return self._obs(state), state

    def _obs(self, state):
        return {"count": jnp.full(3, -state.time, jnp.int32), "flag": state.time > 2}

    def step_env(self, key, state, action, params):
        state = state.replace(time=state.time + 1)
        return self._obs(state), state, jnp.float32(1.0), jnp.asarray(False), {}

    def observation_space(self, params=None):
        return spaces.Dict(
            {"count": spaces.Box(-np.inf, np.inf, (3,), jnp.int32), "flag": spaces.Box(False, True, (), jnp.bool_)}
        )

    def action_space(self, params=None):
        return spaces.Discrete(2)


def test_integer_box_with_infinite_bounds_exports_as_the_dtype_limits():
    info = np.iinfo(np.int32)
    env = JaxEnv(_CounterEnv())
    count_space = env.observation_space["count"]
    assert count_space.dtype == np.int32
    assert (count_space.low == info.min).all() and (count_space.high == info.max).all()
    obs, _ = env.reset(seed=0)
    for _ in range(3):
        obs, *_ = env.step(1)
        assert env.observation_space.contains(obs), obs
    vec = JaxVectorEnv(_CounterEnv(), num_envs=2)
    assert vec.single_observation_space == env.observation_space
    obs, _ = vec.reset(seed=0)
    assert vec.observation_space.contains(vec.step(np.ones(2, np.int64))[0])


# --- the vector env -------------------------------------------------------------------------


def test_make_vec_is_the_jitted_vector_env_with_same_step_by_default():
    envs = gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=4)
    assert isinstance(envs.unwrapped, JaxVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = envs.reset(seed=0)
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    obs, reward, terminated, truncated, info = envs.step(np.ones(4, np.int64))
    assert reward.shape == (4,) and reward.dtype == np.float32
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_
    assert info["discount"].shape == (4,) and info["_discount"].all()
    assert envs.observation_space.contains(obs)


def test_same_step_final_obs_is_the_terminal_obs():
    envs = gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=4)
    raw, params = jaxenvs.make("CartPole-v1", autoreset=False)
    raw_step = jax.jit(jax.vmap(raw.step, in_axes=(0, 0, 0, None)))
    envs.reset(seed=1)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(250):
        actions = rng.integers(0, 2, size=4)
        # CartPole's transition ignores its key, so the raw step of the same state predicts it
        expected = np.asarray(
            raw_step(jax.random.split(jax.random.key(0), 4), envs.unwrapped.state, actions, params)[0]
        )
        obs, _, terminated, truncated, info = envs.step(actions)
        done = terminated | truncated
        if done.any():
            np.testing.assert_array_equal(info["_final_obs"], done)
            for i in range(4):
                if done[i]:
                    finished += 1
                    np.testing.assert_allclose(info["final_obs"][i], expected[i], rtol=1e-6, atol=1e-6)
                    assert _cartpole_ended(info["final_obs"][i])
                    assert _is_reset_obs(obs[i])
                    assert info["_final_info"][i]
                else:
                    assert info["final_obs"][i] is None
                    np.testing.assert_allclose(obs[i], expected[i], rtol=1e-6, atol=1e-6)
        else:
            assert "final_obs" not in info
            # a separately compiled step may differ in the last bit
            np.testing.assert_allclose(obs, expected, rtol=1e-6, atol=1e-6)
    assert finished >= 20


def test_next_step_resets_on_the_following_call():
    envs = gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=4, autoreset_mode=AutoresetMode.NEXT_STEP)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    envs.reset(seed=2)
    rng = np.random.default_rng(1)
    prev_done = np.zeros(4, bool)
    resets = 0
    for _ in range(250):
        obs, reward, terminated, truncated, info = envs.step(rng.integers(0, 2, size=4))
        assert "final_obs" not in info
        for i in np.flatnonzero(prev_done):
            resets += 1
            assert reward[i] == 0.0 and not terminated[i] and not truncated[i]
            assert _is_reset_obs(obs[i])
            assert not info["_discount"][i]
        for i in np.flatnonzero(terminated):
            assert _cartpole_ended(obs[i])  # the terminal observation itself
        prev_done = terminated | truncated
    assert resets >= 20


def test_next_step_and_same_step_agree_up_to_where_they_differ():
    """Same seed and actions: identical until the first episode end; then NEXT_STEP returns
    SAME_STEP's `final_obs` at once and SAME_STEP's reset observation one call later."""
    same = JaxVectorEnv("CartPole-v1", num_envs=4)
    nxt = JaxVectorEnv("CartPole-v1", num_envs=4, autoreset_mode="NextStep")
    np.testing.assert_array_equal(same.reset(seed=3)[0], nxt.reset(seed=3)[0])
    rng = np.random.default_rng(2)
    for _ in range(200):
        actions = rng.integers(0, 2, size=4)
        s_obs, s_rew, s_te, s_tr, s_info = same.step(actions)
        n_obs, n_rew, n_te, n_tr, _ = nxt.step(actions)
        np.testing.assert_array_equal(s_rew, n_rew)
        np.testing.assert_array_equal(s_te, n_te)
        np.testing.assert_array_equal(s_tr, n_tr)
        done = s_te | s_tr
        if done.any():
            for i in range(4):
                want = s_info["final_obs"][i] if done[i] else s_obs[i]
                np.testing.assert_array_equal(n_obs[i], want)
            n_obs2, n_rew2, *_ = nxt.step(actions)
            for i in np.flatnonzero(done):
                np.testing.assert_array_equal(n_obs2[i], s_obs[i])
                assert n_rew2[i] == 0.0
            return
        np.testing.assert_array_equal(s_obs, n_obs)
    pytest.fail("no episode ended")


def _run_with_statistics(mode, steps, seed=0):
    envs = RecordEpisodeStatistics(
        gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=4, autoreset_mode=mode, max_episode_steps=30)
    )
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns, lengths = np.zeros(4), np.zeros(4, int)
    prev_done = np.zeros(4, bool)
    ours, theirs = [], []
    for _ in range(steps):
        _, reward, terminated, truncated, info = envs.step(rng.integers(0, 2, size=4))
        counts = ~prev_done if mode == AutoresetMode.NEXT_STEP else np.ones(4, bool)
        returns[counts] += reward[counts]
        lengths[counts] += 1
        done = terminated | truncated
        if done.any():
            for i in np.flatnonzero(done):
                ours.append((returns[i], lengths[i]))
                theirs.append((info["episode"]["r"][i], info["episode"]["l"][i]))
                assert info["_episode"][i]
            returns[done], lengths[done] = 0.0, 0
        prev_done = done
    return envs, ours, theirs


def test_record_episode_statistics_next_step_counts_every_episode_exactly():
    envs, ours, theirs = _run_with_statistics(AutoresetMode.NEXT_STEP, 200)
    assert len(ours) >= 20 and envs.episode_count == len(ours)
    np.testing.assert_allclose(theirs, ours)


def test_record_episode_statistics_same_step_counts_every_episode():
    # gymnasium 1.3.0's wrapper assumes NEXT_STEP when adding up (gymnasium PR #1624): in
    # SAME_STEP every episode is still counted once, and each env's first is measured right.
    envs, ours, theirs = _run_with_statistics(AutoresetMode.SAME_STEP, 200)
    assert len(ours) >= 20 and envs.episode_count == len(ours)
    np.testing.assert_allclose(theirs[0], ours[0])
    lengths_off = np.array([o[1] - t[1] for o, t in zip(ours, theirs)])
    assert set(lengths_off.tolist()) <= {0, 1}


def test_vector_seeding_is_deterministic_and_per_env_seeds_work():
    def rollout(seed):
        envs = JaxVectorEnv("CartPole-v1", num_envs=4)
        obs = [envs.reset(seed=seed)[0]]
        for t in range(10):
            obs.append(envs.step(np.full(4, t % 2))[0])
        return np.stack(obs)

    np.testing.assert_array_equal(rollout(5), rollout(5))
    assert not np.array_equal(rollout(5)[0], rollout(6)[0])
    a = rollout([1, 2, 3, 4])
    np.testing.assert_array_equal(a, rollout([1, 2, 3, 4]))
    assert not np.array_equal(a[0, 0], a[0, 1])


def test_disabled_mode_and_reset_mask():
    envs = JaxVectorEnv("CartPole-v1", num_envs=4, autoreset_mode=AutoresetMode.DISABLED)
    obs, _ = envs.reset(seed=0)
    done = np.zeros(4, bool)
    for _ in range(200):
        obs, _, terminated, truncated, info = envs.step(np.zeros(4, np.int64))
        assert "final_obs" not in info
        done |= terminated | truncated
        if done.any() and not done.all():
            break
    kept = obs.copy()
    obs, _ = envs.reset(options={"reset_mask": done})
    for i in range(4):
        if done[i]:
            assert _is_reset_obs(obs[i])
        else:
            np.testing.assert_array_equal(obs[i], kept[i])


def test_reset_mask_is_checked_naming_what_is_expected():
    # gymnasium's vector envs assert the same (tests/vector/test_vector_env.py's partial reset)
    envs = JaxVectorEnv("CartPole-v1", num_envs=3, autoreset_mode=AutoresetMode.DISABLED)
    envs.reset(options={"reset_mask": np.array([True, True, True])})  # a first reset may have one
    expected = re.escape("options['reset_mask'] must be a numpy bool array of shape (3,)")
    for mask in ([True, True, False], np.array([1, 1, 0]), np.array([1.0, 1.0, 0.0]), "yes"):
        with pytest.raises(TypeError, match=expected):
            envs.reset(options={"reset_mask": mask})
    for mask in (np.array([True]), np.array([True, True, False, False]), np.array([[True, True, True]])):
        with pytest.raises(ValueError, match=expected + ", got shape"):
            envs.reset(options={"reset_mask": mask})
    with pytest.raises(ValueError, match="at least one True"):
        envs.reset(options={"reset_mask": np.zeros(3, bool)})
    obs, _ = envs.reset(options={"reset_mask": jnp.array([False, True, False])})  # a JAX array is one too
    assert obs.shape == (3, 4)


def test_one_action_for_a_batch_is_a_type_error_as_in_gymnasium():
    ours = JaxVectorEnv("CartPole-v1", num_envs=3)
    theirs = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make("CartPole-v1")] * 3)
    for envs in (ours, theirs):
        envs.reset(seed=0)
        for one in (0, np.int64(1), np.array(0)):
            with pytest.raises(TypeError):
                envs.step(one)
    with pytest.raises(TypeError, match=r"CartPole: step\(\) takes one action per env \(3\), got one action 0"):
        ours.step(0)


def test_vector_render_and_invalid_actions():
    envs = JaxVectorEnv("CartPole-v1", num_envs=4, render_mode="rgb_array")
    envs.reset(seed=0)
    frames = envs.render()
    assert len(frames) == 4 and frames[0].shape == (400, 600, 3) and frames[0].dtype == np.uint8
    with pytest.raises(ValueError, match="action"):
        envs.step(np.array([0, 1, 5, 0]))


def test_cleanrl_style_loop():
    """The loop CleanRL's PPO/DQN run: numpy actions in, numpy arrays out, the real next
    observation recovered from `final_obs` where an episode ended."""
    num_envs = 4
    envs = gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=num_envs)
    assert isinstance(envs.single_action_space, gymnasium.spaces.Discrete)
    obs, _ = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    buffer_obs, buffer_next, buffer_done = [], [], []
    episodes, running, lengths = 0, np.zeros(num_envs, int), []
    for _ in range(300):
        actions = rng.integers(0, envs.single_action_space.n, size=num_envs)
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        real_next_obs = next_obs.copy()
        for idx in np.flatnonzero(terminations | truncations):
            real_next_obs[idx] = infos["final_obs"][idx]
        buffer_obs.append(obs)
        buffer_next.append(real_next_obs)
        buffer_done.append(terminations | truncations)
        running += 1
        for idx in np.flatnonzero(terminations | truncations):
            lengths.append(running[idx])
            running[idx] = 0
            episodes += 1
        obs = next_obs
    assert np.stack(buffer_obs).shape == (300, num_envs, 4)
    assert episodes == len(lengths) >= 30
    # a random policy keeps CartPole up for about 22 steps
    assert 15 < np.mean(lengths) < 32
    # transitions chain up: where no episode ended, the next step starts from the real next
    # observation; where one ended, the real next observation is the terminal one
    for t in range(299):
        for i in range(num_envs):
            if buffer_done[t][i]:
                assert _cartpole_ended(buffer_next[t][i]) and _is_reset_obs(buffer_obs[t + 1][i])
            else:
                np.testing.assert_array_equal(buffer_obs[t + 1][i], buffer_next[t][i])


# --- bad input (issue 16) -------------------------------------------------------------------


def test_a_bare_id_means_the_same_env_as_in_jaxenvs():
    for game in ("Breakout", "Asterix"):
        for suffix in ("", "-v0", "-v1"):
            ours, params = jaxenvs.make(f"{game}-MinAtar{suffix}")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = gymnasium.make(f"jaxenvs/{game}-MinAtar{suffix}")
            assert theirs.action_space == to_gymnasium(ours.action_space(params)), (game, suffix)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        venv = gymnasium.make_vec("jaxenvs/Breakout-MinAtar", num_envs=2)
    assert venv.single_action_space == gymnasium.spaces.Discrete(6)


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "MountainCarContinuous-v0", "Reacher-misc"])
def test_an_out_of_range_continuous_action_steps_as_the_jaxenvs_env_does(env_id):
    # what the reference does with it (tests/test_box_actions.py); NaN and inf stay errors
    env = JaxEnv(env_id)
    raw, params = jaxenvs.make(env_id, autoreset=False)
    rng = np.random.default_rng(0)
    space = env.action_space
    env.reset(seed=0)
    for _ in range(5):
        bad = (space.high * rng.uniform(1.5, 100.0, space.shape) * rng.choice([-1, 1], space.shape)).astype(np.float32)
        state = env.state
        obs, reward, *_ = env.step(bad)
        ours = raw.step(jax.random.key(0), state, bad, params)  # the key: deterministic dynamics
        np.testing.assert_allclose(obs, np.asarray(ours[0]), rtol=1e-6)
        assert reward == pytest.approx(float(ours[2]), rel=1e-6)
    for bad in (np.full(space.shape, np.nan, np.float32), np.full(space.shape, np.inf, np.float32)):
        with pytest.raises(ValueError, match="not finite"):
            env.step(bad)
    obs, reward, *_ = env.step(space.sample())
    assert np.all(np.isfinite(obs)) and np.isfinite(reward)


@pytest.mark.parametrize("env_id", ["Catch-bsuite", "DeepSea-bsuite", "Blackjack-v1"])
def test_a_step_after_termination_stays_terminated(env_id):
    env = JaxEnv(env_id)
    env.reset(seed=0)
    terminated = False
    for _ in range(200):
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    assert terminated
    with pytest.warns(UserWarning, match="after the episode terminated"):
        again = env.step(env.action_space.sample())
    assert again[1:4] == (0.0, True, False) and np.array_equal(np.asarray(again[0]), np.asarray(obs))


@pytest.mark.parametrize("env_id", ["jumanji/Snake-v1", "pgx/tic_tac_toe"])
def test_render_modes_are_advertised_only_where_render_works(env_id):
    pytest.importorskip(env_id.split("/")[0])
    env = JaxEnv(env_id)
    assert env.metadata["render_modes"] == []
    with pytest.raises(ValueError, match="render_mode must be None"):
        JaxEnv(env_id, render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(env, skip_render_check=False)
    assert JaxEnv("CartPole-v1").metadata["render_modes"] == ["rgb_array"]


def test_vector_num_envs_is_checked():
    for bad in (2.5, "4", 0):
        with pytest.raises((TypeError, ValueError), match="num_envs must be an int"):
            JaxVectorEnv("CartPole-v1", num_envs=bad)


@pytest.mark.parametrize("env_id", ["gymnax/CartPole-v1", "navix/Navix-Empty-5x5-v0"])
def test_adapter_ids_export(env_id):
    pytest.importorskip(env_id.split("/")[0])
    env = JaxEnv(env_id, max_steps_in_episode=5)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    ends = []
    for _ in range(5):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs) and isinstance(reward, float)
        ends.append(terminated or truncated)
        if ends[-1]:
            break
    assert any(ends), "a 5-step limit must end an episode within 5 steps"


def test_reset_options_are_refused_not_ignored():
    """gymnasium's CartPole honours options={"low", "high"}; ours draws its start from params, so
    an option is an error naming what to do, never silently dropped."""
    env = gymnasium.make("jaxenvs/CartPole-v1")
    with pytest.raises(ValueError, match="reset options are not supported.*low"):
        env.reset(seed=0, options={"low": -0.1, "high": 0.1})
    env.reset(seed=0, options={})  # empty options are no options
    venv = gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=2)
    with pytest.raises(ValueError, match="only reset option is 'reset_mask'"):
        venv.reset(seed=0, options={"low": -0.1})


# --- time limits and reward thresholds in the spec (issue 26) -------------------------------


def test_spec_carries_the_time_limit_and_the_peers_reward_threshold():
    for env_id, limit, threshold in [("CartPole-v1", 500, 475.0), ("Pendulum-v1", 200, None)]:
        spec = gymnasium.spec(gymnasium_id(env_id))
        assert spec.max_episode_steps == limit == jaxenvs.make(env_id)[1].max_steps_in_episode
        assert spec.reward_threshold == threshold == gymnasium.spec(env_id).reward_threshold
        env = gymnasium.make(gymnasium_id(env_id))
        assert (env.spec.max_episode_steps, env.spec.reward_threshold) == (limit, threshold)
    # an id that declares no limit in its registration reports its env's own
    assert (
        gymnasium.make("jaxenvs/Catch-bsuite").spec.max_episode_steps
        == jaxenvs.make("Catch-bsuite")[1].max_steps_in_episode
    )
    assert gymnasium.make("jaxenvs/Blackjack-v1").spec.max_episode_steps is None  # no limit


def _truncation_step(env, steps):
    env.reset(seed=0)
    for t in range(1, steps + 1):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        assert not terminated  # Pendulum never terminates
        if truncated:
            return t
    return None


def test_make_max_episode_steps_is_the_one_limit_larger_or_smaller():
    """One TimeLimit, gymnasium's: N below and above the registered 200, and -1 for none."""
    assert _truncation_step(gymnasium.make("jaxenvs/Pendulum-v1"), 300) == 200
    assert _truncation_step(gymnasium.make("jaxenvs/Pendulum-v1", max_episode_steps=7), 300) == 7
    env = gymnasium.make("jaxenvs/Pendulum-v1", max_episode_steps=230)
    assert env.spec.max_episode_steps == 230 and _truncation_step(env, 300) == 230
    assert _truncation_step(gymnasium.make("jaxenvs/Pendulum-v1", max_episode_steps=-1), 260) is None
    # a JaxEnv built directly keeps the env's own limit
    assert _truncation_step(JaxEnv("Pendulum-v1"), 300) == 200


def test_make_vec_max_episode_steps_sets_the_limit_and_the_spec():
    for n in (3, 230):
        venv = gymnasium.make_vec("jaxenvs/Pendulum-v1", num_envs=2, max_episode_steps=n)
        assert venv.spec.max_episode_steps == n and venv.unwrapped.params.max_steps_in_episode == n
    assert gymnasium.make_vec("jaxenvs/Pendulum-v1", num_envs=2).spec.max_episode_steps == 200


def test_max_steps_in_episode_beside_gymnasiums_time_limit_is_refused():
    with pytest.raises(ValueError, match="pass max_episode_steps=9 to gymnasium.make"):
        gymnasium.make("jaxenvs/Pendulum-v1", max_steps_in_episode=9)
    with pytest.raises(ValueError, match="pass max_episode_steps=9 to gymnasium.make"):
        gymnasium.make_vec("jaxenvs/Pendulum-v1", num_envs=2, max_steps_in_episode=9)
