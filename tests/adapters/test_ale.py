"""The ALE family (`ale/<Game>-v5`, ale-py's emulators through its XLA interface): its ids and
settings against gymnasium's, jaxenvs' auto-reset exactly, step for step against
`ale_py.AtariVectorEnv` driven from Python, and the clear errors of its refused uses."""

import inspect
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

ale_py = pytest.importorskip("ale_py")
gymnasium = pytest.importorskip("gymnasium")

import jaxenvs  # noqa: E402
from jaxenvs.adapters import ale, registration  # noqa: E402
from jaxenvs.wrappers import LogWrapper  # noqa: E402

# small frames keep the step-for-step comparisons quick; the emulator and its settings are the same
SMALL = dict(img_height=42, img_width=42, grayscale=True, stack_num=2, maxpool=True)


def test_the_ids_are_gymnasiums_ale_v5_ids_and_their_roms():
    import ale_py.registration  # noqa: F401  (registers ALE/* with gymnasium)

    ids = {
        e[len("ALE/") : -len("-v5")]: s.kwargs["game"] for e, s in gymnasium.registry.items() if e.startswith("ALE/")
    }
    ids = {name: rom for name, rom in ids.items() if f"ALE/{name}-v5" in gymnasium.registry}
    assert dict(registration.ALE_GAMES) == ids and len(ids) == len(registration.ALE_GAMES)
    assert jaxenvs.registered_envs("ale") == [f"ale/{name}-v5" for name, _ in registration.ALE_GAMES]
    assert all(jaxenvs.spec(i).batch_native and jaxenvs.spec(i).extra == "ale" for i in jaxenvs.registered_envs("ale"))
    assert set(dict(registration.ALE_GAMES).values()) <= set(ale_py.roms.get_all_rom_ids())


def test_the_installed_ale_py_is_a_tested_version():
    """The FFI targets' signature is not public API: a new ale-py is tested before it is allowed."""
    assert ale_py.__version__ in ale.TESTED_ALE_PY


def test_default_params_are_gymnasiums_v5_settings():
    gym_env = gymnasium.make("ALE/Pong-v5")
    kwargs = gymnasium.spec("ALE/Pong-v5").kwargs
    params = jaxenvs.make_vec("ale/Pong-v5", 1)[1]
    assert params.frameskip == kwargs["frameskip"] == gym_env.unwrapped._frameskip == 4
    assert params.repeat_action_probability == kwargs["repeat_action_probability"] == 0.25
    assert params.full_action_space is kwargs["full_action_space"] is False
    assert params.max_num_frames_per_episode == kwargs["max_num_frames_per_episode"] == 108_000
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 1)
    assert venv.action_space(params).n == gym_env.action_space.n
    # the screen as gymnasium's v5 returns it, in ale-py's vector layout (a stack of one frame)
    assert venv.observation_space(params).shape == (1, *gym_env.observation_space.shape)
    assert venv.observation_space(params).dtype == gym_env.observation_space.dtype
    assert (params.noop_max, params.reward_clipping, params.use_fire_reset, params.episodic_life) == (
        0,
        False,
        False,
        False,
    )
    gym_env.close()


def test_params_are_named_as_ale_pys_atari_vector_env_names_them():
    arguments = set(inspect.signature(ale_py.AtariVectorEnv).parameters)
    names = {name for name, _ in ale.emulator_settings(ale.AleParams())}
    assert names <= arguments, names - arguments
    assert set(ale.TRAINING_SETTINGS) <= names


def _jax_rollout(env_id, num_envs, actions, key, **settings):
    """A jitted `lax.scan` of make_vec's step over `actions` (int[T, n]); per step what the test
    compares, and the keys the auto-reset drew its seeds from."""
    venv, params = jaxenvs.make_vec(env_id, num_envs, **settings)
    key_reset, key_steps = jax.random.split(key)
    keys = jax.random.split(key_steps, actions.shape[0])

    @jax.jit
    def run(key_reset, keys, actions):
        obs0, state = venv.reset(key_reset, params)

        def body(state, x):
            k, a = x
            obs, state, reward, terminated, truncated, info = venv.step(k, state, a, params)
            out = dict(
                obs=obs,
                final=info["final_observation"],
                reward=reward,
                terminated=terminated,
                truncated=truncated,
                lives=info["lives"],
                state_lives=state.lives,
                time=state.time,
            )
            return state, out

        return obs0, jax.lax.scan(body, state, (keys, actions))[1]

    obs0, out = run(key_reset, keys, jnp.asarray(actions))
    # the seeds each step's resets used: `AutoReset` splits the step's key into (step, reset)
    seeds = jax.vmap(lambda k: ale.reset_seeds(jax.random.split(k)[1], num_envs))(keys)
    return (
        np.asarray(obs0),
        jax.tree_util.tree_map(np.asarray, out),
        np.asarray(ale.reset_seeds(key_reset, num_envs)),
        np.asarray(seeds),
    )


def _ale_settings(params):
    return dict(ale.emulator_settings(params))


def _assert_same_as_python(game, env_id, num_envs, steps, seed, **settings):
    """The jitted rollout equals `ale_py.AtariVectorEnv` driven from Python with the same seeds,
    actions and masked resets; returns how many episodes ended."""
    venv, params = jaxenvs.make_vec(env_id, num_envs, **settings)
    n_actions = venv.action_space(params).n
    actions = np.random.default_rng(seed).integers(0, n_actions, (steps, num_envs)).astype(np.int32)
    obs0, out, first_seeds, seeds = _jax_rollout(env_id, num_envs, actions, jax.random.key(seed), **settings)
    reference = ale_py.AtariVectorEnv(game, num_envs, **_ale_settings(params))
    obs, info = reference.reset(seed=first_seeds)
    np.testing.assert_array_equal(obs, obs0)
    ended = 0
    for t in range(steps):
        obs, reward, terminated, truncated, info = reference.step(actions[t])
        where = f"{env_id} step {t}"
        np.testing.assert_array_equal(obs, out["final"][t], err_msg=where)
        np.testing.assert_array_equal(reward.astype(np.float32), out["reward"][t], err_msg=where)
        np.testing.assert_array_equal(terminated, out["terminated"][t], err_msg=where)
        np.testing.assert_array_equal(truncated, out["truncated"][t], err_msg=where)
        np.testing.assert_array_equal(info["lives"], out["lives"][t], err_msg=where)
        done = terminated | truncated
        if done.any():
            ended += int(done.sum())
            # a reseed from the step's key, or (by default) the emulator's own stream: seed None
            seed = seeds[t][done] if params.reseed_finished else None
            obs, info = reference.reset(seed=seed, options={"reset_mask": done})
        np.testing.assert_array_equal(obs, out["obs"][t], err_msg=where)  # the next episode's first
        np.testing.assert_array_equal(info["lives"], out["state_lives"][t], err_msg=where)
    reference.close()
    return ended, out


GAMES = [
    ("pong", "ale/Pong-v5"),
    ("breakout", "ale/Breakout-v5"),
    ("seaquest", "ale/Seaquest-v5"),
    ("montezuma_revenge", "ale/MontezumaRevenge-v5"),
]


@pytest.mark.parametrize("sticky", [0.0, 0.25], ids=["sticky-off", "sticky-on"])
@pytest.mark.parametrize("game,env_id", GAMES, ids=[g for g, _ in GAMES])
def test_a_jitted_rollout_is_ale_step_for_step(game, env_id, sticky):
    """Observations, rewards, flags and lives, across several truncations (a 160-frame limit)."""
    ended, out = _assert_same_as_python(
        game,
        env_id,
        2,
        90,
        seed=3,
        repeat_action_probability=sticky,
        max_num_frames_per_episode=160,
        noop_max=8,
        **SMALL,
    )
    assert ended >= 4 and out["truncated"].sum() >= 4  # each row ended at least twice
    assert (out["time"][out["truncated"] | out["terminated"]] == 0).all()  # reset in the step that ended it


def test_terminations_by_lost_lives_reset_in_the_step_that_ends_them():
    """Breakout with episodic lives, fire at reset and clipped rewards: terminations, ALE's (the
    next episode a new game, lives back at 5)."""
    settings = {**ale.TRAINING_SETTINGS, **SMALL, "episodic_life": True}
    ended, out = _assert_same_as_python("breakout", "ale/Breakout-v5", 2, 100, seed=5, **settings)
    assert out["terminated"].sum() >= 3 and ended == out["terminated"].sum() + out["truncated"].sum()
    assert (out["lives"][out["terminated"]] == 4).all() and (out["state_lives"][out["terminated"]] == 5).all()


def test_reseeded_resets_are_ale_reset_with_seeds_from_the_steps_key():
    """`reseed_finished`: each finished row reseeded from `fold_in(key_reset, row)`, as
    `AtariVectorEnv.reset(seed=seeds, options={"reset_mask": done})`."""
    settings = dict(SMALL, max_num_frames_per_episode=120, noop_max=30, reseed_finished=True)
    ended, _ = _assert_same_as_python("seaquest", "ale/Seaquest-v5", 2, 70, seed=4, **settings)
    assert ended >= 4


def test_a_run_is_reproducible_from_its_keys_and_reseeding_changes_the_next_episodes():
    actions = np.zeros((40, 2), np.int32)
    runs = [
        _jax_rollout("ale/Pong-v5", 2, actions, jax.random.key(7), max_num_frames_per_episode=80, noop_max=30, **SMALL)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0][1]["obs"], runs[1][1]["obs"])
    reseeded = _jax_rollout(
        "ale/Pong-v5",
        2,
        actions,
        jax.random.key(7),
        max_num_frames_per_episode=80,
        noop_max=30,
        reseed_finished=True,
        **SMALL,
    )
    np.testing.assert_array_equal(reseeded[1]["obs"][:19], runs[0][1]["obs"][:19])  # the first episode
    assert not np.array_equal(reseeded[1]["obs"][19:], runs[0][1]["obs"][19:])  # the next ones: other no-ops


@pytest.mark.slow
def test_the_default_rgb_screen_is_ale_step_for_step():
    _assert_same_as_python("pong", "ale/Pong-v5", 2, 60, seed=1, max_num_frames_per_episode=120)


def test_jaxenvs_time_limit_truncates_and_resets():
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, max_steps_in_episode=5, **SMALL)
    obs, state = venv.reset(jax.random.key(0), params)
    flags = []
    for t in range(7):
        obs, state, _, terminated, truncated, info = venv.step(
            jax.random.key(t), state, jnp.zeros(2, jnp.int32), params
        )
        flags.append(bool(truncated.all()))
    assert flags == [False] * 4 + [True, False, False] and state.time.tolist() == [2, 2]


def test_log_wrapper_counts_each_episode_once():
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, max_num_frames_per_episode=40, **SMALL)
    logged = LogWrapper(venv)
    obs, state = logged.reset(jax.random.key(0), params)

    @jax.jit
    def run(state, keys):
        def body(state, k):
            a = venv.sample_actions(jax.random.fold_in(k, 1), params)
            obs, state, reward, terminated, truncated, info = logged.step(k, state, a, params)
            return state, (info["returned_episode"], info["returned_episode_lengths"], truncated)

        return jax.lax.scan(body, state, keys)

    state, (returned, lengths, truncated) = run(state, jax.random.split(jax.random.key(1), 25))
    returned, lengths = np.asarray(returned), np.asarray(lengths)
    assert returned.sum() == np.asarray(truncated).sum() == 4  # 40 frames: 10 steps an episode, 2 rows
    assert (lengths[returned] == 10).all()


def test_the_family_is_batch_native_one_auto_reset_layer():
    from jaxenvs.wrappers import AutoReset, VecEnv

    venv, params = jaxenvs.make_vec("ale/Pong-v5", 3)
    assert isinstance(venv, AutoReset) and not isinstance(venv, VecEnv) and venv.env.reset_rows is not None
    assert venv.num_envs == 3 and venv.sample_actions(jax.random.key(0), params).shape == (3,)


def test_each_make_vec_owns_its_emulators_and_a_state_of_another_is_refused():
    a, params = jaxenvs.make_vec("ale/Pong-v5", 2, **SMALL)
    b, _ = jaxenvs.make_vec("ale/Pong-v5", 2, **SMALL)
    _, state_a = a.reset(jax.random.key(0), params)
    _, state_b = b.reset(jax.random.key(0), params)
    assert not np.array_equal(np.asarray(state_a.handle), np.asarray(state_b.handle))
    with pytest.raises(ValueError, match="another batch of emulators"):
        b.step(jax.random.key(1), state_a, jnp.zeros(2, jnp.int32), params)


# --- refused uses: each a clear error that says what to use instead ------------------------------


def test_make_refuses_and_names_make_vec():
    with pytest.raises(TypeError, match=r"make_vec\('ale/Pong-v5', num_envs\)"):
        jaxenvs.make("ale/Pong-v5")


def test_vmap_over_the_handle_is_refused():
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, **SMALL)
    obs, state = venv.reset(jax.random.key(0), params)
    keys = jax.random.split(jax.random.key(1), 3)
    with pytest.raises(ValueError, match="Use make_vec's batch instead"):
        jax.vmap(venv.step, in_axes=(0, None, None, None))(keys, state, jnp.zeros(2, jnp.int32), params)
    with pytest.raises(ValueError, match="Use make_vec's batch instead"):
        jax.vmap(venv.reset, in_axes=(0, None))(keys, params)


def test_reset_to_level_is_refused():
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, **SMALL)
    with pytest.raises(TypeError, match="reset_to_level is refused"):
        venv.reset_to_level(jax.random.key(0), jaxenvs.levels.Level(), params)


def test_a_stale_state_is_caught_eagerly_and_under_jit():
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, **SMALL)
    _, old = venv.reset(jax.random.key(0), params)
    actions = jnp.zeros(2, jnp.int32)
    _, new, *_ = venv.step(jax.random.key(1), old, actions, params)
    with pytest.raises(ValueError, match="stale"):
        venv.step(jax.random.key(2), old, actions, params)
    step = jax.jit(venv.step)
    _, newer, *_ = step(jax.random.key(2), new, actions, params)  # the current state steps
    with pytest.raises(Exception, match="stale"):
        jax.block_until_ready(step(jax.random.key(3), new, actions, params))
    venv.step(jax.random.key(4), newer, actions, params)  # the refused step moved nothing


def test_checked_sees_the_batch_and_catches_a_stale_state_and_a_bad_action():
    """`wrappers.Checked` (checkify, jitted) over the batch: the action checked per env, a stale
    state refused before the emulators move."""
    from jaxenvs.wrappers import Checked

    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, **SMALL)
    env = Checked(venv)
    _, old = env.reset(jax.random.key(0), params)
    actions = jnp.zeros(2, jnp.int32)
    _, new, *_ = env.step(jax.random.key(1), old, actions, params)
    with pytest.raises(Exception, match="stale"):
        env.step(jax.random.key(2), old, actions, params)
    with pytest.raises(Exception, match=r"invalid action \[0, 9\]"):
        env.step(jax.random.key(2), new, jnp.array([0, 9]), params)
    assert env.step(jax.random.key(3), new, actions, params)[2].shape == (2,)


def test_without_check_state_a_stale_state_steps_unchecked():
    """`check_state=False` saves the host callback: an older state then steps the emulators from
    where they are, as documented, and nothing counts on the host."""
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, check_state=False, **SMALL)
    _, old = venv.reset(jax.random.key(0), params)
    actions = jnp.zeros(2, jnp.int32)
    first = venv.step(jax.random.key(1), old, actions, params)
    again = jax.jit(venv.step)(jax.random.key(1), old, actions, params)
    assert int(first[1].time[0]) == int(again[1].time[0]) == 1
    assert int(again[1].episode_frame_number[0]) > int(first[1].episode_frame_number[0])  # the emulators moved on


def test_bad_actions_and_unknown_games_name_what_is_valid():
    venv, params = jaxenvs.make_vec("ale/Pong-v5", 2, **SMALL)
    _, state = venv.reset(jax.random.key(0), params)
    with pytest.raises(ValueError, match=r"int\[2\], one action per env in \[0, 6\)"):
        venv.step(jax.random.key(1), state, jnp.array([0, 6]), params)
    with pytest.raises(ValueError, match=r"int\[2\]"):
        venv.step(jax.random.key(1), state, jnp.int32(0), params)
    with pytest.raises(ValueError, match="ale-py has no env 'pongg'"):
        ale.AleVectorEnv("pongg", 2)
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        ale.AleVectorEnv("pong", 0)
    with pytest.raises(ValueError, match="repeat_action_probability"):
        jaxenvs.make_vec("ale/Pong-v5", 2, repeat_action_probability=1.5)
    with pytest.raises(TypeError, match="valid parameters are"):
        jaxenvs.make_vec("ale/Pong-v5", 2, sticky=0.0)


def test_importing_jaxenvs_and_listing_ale_ids_imports_no_ale_py():
    code = "import sys, jaxenvs; jaxenvs.registered_envs('ale'); jaxenvs.spec('ale/Pong-v5')"
    code += "; print('ale_py' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_rollout_throughput_times_steps_from_one_reset(monkeypatch):
    """`bench.rollout_throughput` (the report's figure) resets a batch-native id once, untimed,
    and its runs step on from the last run's state (a state is used once): one host-side reset
    for the warm-up and every timed run."""
    from jaxenvs import bench

    restarts = []
    restart = ale.Emulators.restart

    def counted(self):
        restarts.append(1)
        return restart(self)

    monkeypatch.setattr(ale.Emulators, "restart", counted)
    tp = bench.rollout_throughput("ale/Pong-v5", num_envs=2, num_steps=3, repeats=3, **SMALL)
    assert tp.steps_per_second > 0 and tp.num_envs == 2 and tp.num_steps == 3
    assert len(restarts) == 1
