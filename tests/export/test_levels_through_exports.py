"""Levels through the exports (issue 47): gymnasium's `reset(options={"level": ...})` on the env
and on the vector env (with `reset_mask`), SB3's `set_options({"level": ...})`, the gymnax
export's `reset_to_level`, a `levels=` sampler on every export (pickled by reconstruction), and
the checks: a bad level is a clear error, never dropped."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
cloudpickle = pytest.importorskip("cloudpickle")
from gymnasium.utils.env_checker import check_env, data_equivalence  # noqa: E402

import jaxenvs  # noqa: E402
from jaxenvs.export.gymnasium import JaxEnv, JaxVectorEnv  # noqa: E402
from jaxenvs.levels import Level, apply_level  # noqa: E402
from jaxenvs.wrappers.levels import LevelState  # noqa: E402

N = 4
LENGTHS = jnp.array([0.2, 0.4, 0.8, 1.6], jnp.float32)
COPIES = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "cloudpickle": lambda x: cloudpickle.loads(cloudpickle.dumps(x)),
    "deepcopy": copy.deepcopy,
}


def physics(key):
    """A module-level sampler (so the exports pickle): the pole's half-length, per episode."""
    return Level(settings={"length": jax.random.uniform(key, (), minval=0.25, maxval=1.0)})


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


def _raw_episode(start_state, length, steps):
    """The raw CartPole's observations from `start_state` under `length`, always pushing right."""
    raw, params = jaxenvs.make("CartPole-v1", autoreset=False)
    params = apply_level(params, Level(settings={"length": jnp.float32(length)}))
    state, out = start_state, []
    for _ in range(steps):
        obs, state, _, terminated, truncated, _ = raw.step(jax.random.key(0), state, 1, params)
        out.append(np.asarray(obs))
        if terminated or truncated:
            break
    return out


# --- gymnasium's Env ---------------------------------------------------------------------------


def test_a_level_given_to_reset_runs_its_episode_under_its_settings():
    env = gymnasium.make("jaxenvs/CartPole-v1")
    twin = gymnasium.make("jaxenvs/CartPole-v1", length=1.6)  # the same physics as params
    obs, _ = env.reset(seed=3, options={"level": Level(settings={"length": 1.6})})
    np.testing.assert_array_equal(obs, twin.reset(seed=3)[0])  # a reset at a level is the reset under it
    assert isinstance(env.unwrapped.state, LevelState)
    assert float(env.unwrapped.state.level.settings["length"]) == pytest.approx(1.6)
    default = gymnasium.make("jaxenvs/CartPole-v1")
    default.reset(seed=3)
    for _ in range(5):
        got, want = env.step(1), twin.step(1)
        _close(got[0], want[0])
        assert got[2:4] == want[2:4]
        assert float(got[4]["level"]["settings"]["length"]) == pytest.approx(1.6)  # gymnasium's way: dicts
    assert not np.allclose(got[0], [default.step(1) for _ in range(5)][-1][0])  # not the default physics


def test_a_reset_without_a_level_goes_back_to_the_params_and_the_key_stream_goes_on():
    with_level, plain = JaxEnv("CartPole-v1"), JaxEnv("CartPole-v1")
    with_level.reset(seed=5, options={"level": Level(settings={"masspole": 0.3})})
    plain.reset(seed=5)
    for _ in range(3):
        with_level.step(0)
        plain.step(0)
    obs, _ = with_level.reset()  # no level: the params' own values, and the next key of the stream
    assert data_equivalence((obs, {}), plain.reset(), exact=True)
    assert not isinstance(with_level.state, LevelState)
    assert data_equivalence(with_level.step(1), plain.step(1), exact=True)


def test_a_start_state_is_where_the_episode_starts():
    env = JaxEnv("CartPole-v1")
    env.reset(seed=1)
    for _ in range(4):
        env.step(1)
    saved = env.state
    env.reset(seed=9)
    obs, _ = env.reset(options={"level": Level(state=saved)})
    np.testing.assert_array_equal(obs, np.asarray([saved.x, saved.x_dot, saved.theta, saved.theta_dot]))
    got = [env.step(1)[0] for _ in range(3)]
    for a, b in zip(got, _raw_episode(saved, 0.5, 3)):
        _close(a, b)


@pytest.mark.parametrize(
    "level, error, needle",
    [
        (Level(settings={"length": -1.0}), ValueError, r"Level.settings\['length'\]=-1.0 is not valid; valid values"),
        (Level(settings={"lenght": 1.0}), ValueError, "did you mean 'length'"),
        (Level(settings={"x_threshold": 3.0}), ValueError, "'x_threshold' cannot vary per episode"),
        (Level(settings={"length": 1}), TypeError, r"Level.settings\['length'\] must be a float"),
        ({"length": 1.0}, TypeError, "options\\['level'\\] must be a jaxenvs.levels.Level"),
    ],
)
def test_a_bad_level_is_a_clear_error_and_the_episode_goes_on(level, error, needle):
    env = JaxEnv("CartPole-v1")
    env.reset(seed=0)
    before = jax.device_get(env.state)
    with pytest.raises(error, match=needle):
        env.reset(options={"level": level})
    assert data_equivalence(jax.device_get(env.state).__dict__, before.__dict__, exact=True)
    assert env.step(1)[0].shape == (4,)


def test_other_reset_options_are_still_refused():
    env = JaxEnv("CartPole-v1")
    with pytest.raises(ValueError, match="reset options are not supported.*'low'.*'level'"):
        env.reset(seed=0, options={"low": -0.1, "level": Level()})


def test_replay_levels_is_refused_by_the_exports():
    with pytest.raises(ValueError, match="replay_levels is make_vec's option"):
        JaxEnv("CartPole-v1", replay_levels=True)
    with pytest.raises(ValueError, match="replay_levels is make_vec's option"):
        JaxVectorEnv("CartPole-v1", 2, replay_levels=True)


def test_a_sampler_starts_every_episode_from_its_own_level():
    env = gymnasium.make("jaxenvs/CartPole-v1", levels=physics)
    lengths = set()
    for seed in range(3):
        env.reset(seed=seed)
        level = env.unwrapped.state.level
        length = float(level.settings["length"])
        assert 0.25 <= length <= 1.0
        lengths.add(length)
        start = env.unwrapped.state.env_state
        got = [env.step(1)[0] for _ in range(3)]
        for a, b in zip(got, _raw_episode(start, length, 3)):
            _close(a, b)
    assert len(lengths) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped, skip_render_check=True)  # gymnasium's checker, infos holding the level
    # a level given to a reset replaces the sampled one, with the sampler's fields only
    env.reset(options={"level": Level(settings={"length": 0.7})})
    assert float(env.unwrapped.state.level.settings["length"]) == pytest.approx(0.7)
    with pytest.raises(TypeError, match="differs from the sampler's"):
        env.reset(options={"level": Level(settings={"masspole": 0.2})})


# --- gymnasium's VectorEnv ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def venv():
    return JaxVectorEnv("CartPole-v1", N)


def test_each_env_of_the_batch_starts_from_its_own_level(venv):
    venv.reset(seed=0, options={"level": Level(settings={"length": LENGTHS})})
    state = venv.state
    np.testing.assert_array_equal(np.asarray(state.level.settings["length"]), np.asarray(LENGTHS))
    starts = [jax.tree_util.tree_map(lambda x, i=i: x[i], state.env_state) for i in range(N)]
    wanted = [_raw_episode(starts[i], LENGTHS[i], 60) for i in range(N)]
    lengths = [len(w) for w in wanted]
    assert len(set(lengths)) > 1  # the levels' physics, not the defaults': the episodes differ
    seen = [[] for _ in range(N)]
    ended = np.zeros(N, bool)
    while not ended.all():
        obs, _, terminated, truncated, info = venv.step(np.ones(N, np.int64))
        for i in np.flatnonzero(~ended):
            done = terminated[i] or truncated[i]
            seen[i].append(info["final_obs"][i] if done else obs[i])
            if done:
                ended[i] = True
                # the next episode starts as without levels (none was given for it)
                assert float(venv.state.level.settings["length"][i]) == pytest.approx(0.5)
    for i in range(N):
        assert len(seen[i]) == lengths[i]
        for a, b in zip(seen[i], wanted[i]):
            _close(a, b)


def test_a_masked_reset_starts_only_the_masked_envs_from_their_levels(venv):
    obs, _ = venv.reset(seed=1)
    assert not isinstance(venv.state, LevelState)
    for _ in range(2):
        obs, *_ = venv.step(np.zeros(N, np.int64))
    mask = np.array([False, True, False, True])
    new_obs, _ = venv.reset(options={"reset_mask": mask, "level": Level(settings={"length": LENGTHS})})
    np.testing.assert_array_equal(new_obs[~mask], obs[~mask])  # the others go on
    assert not np.array_equal(new_obs[mask], obs[mask])
    lengths = np.asarray(venv.state.level.settings["length"])
    np.testing.assert_array_equal(lengths, np.where(mask, np.asarray(LENGTHS), np.float32(0.5)))
    venv.step(np.ones(N, np.int64))
    venv.reset(seed=2)  # every env, no level: the batch without levels again
    assert not isinstance(venv.state, LevelState)


def test_bad_levels_of_a_batch_are_named_by_env(venv):
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=r"Level.settings\['length'\]\[0\]=-1.0 \(env 0 of 4\) is not valid"):
        venv.reset(options={"level": Level(settings={"length": jnp.array([-1.0, 0.5, 1e-3, jnp.nan])})})
    with pytest.raises(ValueError, match=r"\(env 3 of 4\) is not valid"):
        venv.reset(options={"level": Level(settings={"length": jnp.array([1.0, 0.5, 1e-3, jnp.nan])})})
    with pytest.raises(ValueError, match="one level per env"):
        venv.reset(options={"level": Level(settings={"length": jnp.float32(1.0)})})
    with pytest.raises(ValueError, match="'reset_mask' .*'level'.*'low'"):
        venv.reset(options={"low": 1})
    assert venv.step(np.ones(N, np.int64))[0].shape == (N, 4)


def test_a_sampler_on_the_vector_env_and_make_vec():
    envs = gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=N, levels=physics)
    envs.reset(seed=0)
    first = np.asarray(envs.unwrapped.state.level.settings["length"])
    assert np.all((first >= 0.25) & (first <= 1.0)) and len(set(first.tolist())) == N
    _, _, _, _, info = envs.step(np.ones(N, np.int64))
    np.testing.assert_array_equal(info["level"]["settings"]["length"], first)


# --- SB3 -----------------------------------------------------------------------------------------


def test_sb3_set_options_level_applies_at_the_next_reset_only():
    pytest.importorskip("stable_baselines3")
    from jaxenvs.export.sb3 import JaxSB3VecEnv

    envs, twin = JaxSB3VecEnv("CartPole-v1", N, seed=4), JaxSB3VecEnv("CartPole-v1", N, seed=4, length=1.6)
    envs.set_options({"level": Level(settings={"length": 1.6})})  # SB3: one dict for every env
    np.testing.assert_array_equal(envs.reset(), twin.reset())
    np.testing.assert_allclose(np.asarray(envs.state.level.settings["length"]), 1.6)
    for _ in range(5):
        got, want = envs.step(np.ones(N, np.int64)), twin.step(np.ones(N, np.int64))
        _close(got[0], want[0])
        np.testing.assert_array_equal(got[2], want[2])
    envs.reset()  # the options were used once
    assert not isinstance(envs.state, LevelState)


def test_sb3_per_env_options_and_their_checks():
    pytest.importorskip("stable_baselines3")
    from jaxenvs.export.sb3 import JaxSB3VecEnv

    envs = JaxSB3VecEnv("CartPole-v1", N, seed=0)
    envs.set_options([{"level": Level(settings={"length": 0.25 * (i + 1)})} if i % 2 else {} for i in range(N)])
    envs.reset()
    np.testing.assert_allclose(np.asarray(envs.state.level.settings["length"]), [0.5, 0.5, 0.5, 1.0])
    envs.set_options({"low": -0.1})  # SB3's DummyVecEnv would pass it on; ours refuses it, never drops it
    with pytest.raises(ValueError, match="the only reset option is 'level'.*'low'"):
        envs.reset()
    envs.set_options([{"level": Level(settings={"length": 1.0 if i else -2.0})} for i in range(N)])
    with pytest.raises(ValueError, match=r"\[0\]=-2.0 \(env 0 of 4\) is not valid"):
        envs.reset()
    envs.set_options([{"level": Level(settings={"length": 1.0})}, {"level": Level(settings={"tau": 0.01})}, {}, {}])
    with pytest.raises(TypeError, match="must have one tree"):
        envs.reset()


# --- gymnax, dm_env ------------------------------------------------------------------------------


def test_the_gymnax_export_has_reset_to_level():
    gymnax = pytest.importorskip("gymnax")
    from jaxenvs.export import gymnax as jaxenvs_gymnax

    env, params = jaxenvs_gymnax.make("CartPole-v1")
    key = jax.random.key(0)
    obs, state = env.reset(key, params)
    again = env.reset_to_level(key, Level(state=state), params)
    assert data_equivalence(jax.device_get((obs, state)), jax.device_get(again), exact=True)
    theirs, their_params = gymnax.make("CartPole-v1")
    their_obs, their_state = theirs.reset(jax.random.key(1), their_params)
    obs, state = env.reset_to_level(key, Level(state=their_state), params)  # gymnax's own EnvState
    np.testing.assert_array_equal(obs, their_obs)
    level = Level(settings={"length": jnp.float32(1.6)})
    obs, state = env.reset_to_level(key, level, params)
    stepped = env.step(jax.random.key(2), state, 1, apply_level(params, level))[0]
    raw_state = jaxenvs.make("CartPole-v1", autoreset=False)[0].reset_to_level(key, level)[1]
    _close(stepped, _raw_episode(raw_state, 1.6, 1)[0])
    with pytest.raises(ValueError, match=r"Level.settings\['length'\]=-1.0 is not valid"):
        env.reset_to_level(key, Level(settings={"length": -1.0}), params)


def test_the_dm_env_takes_a_sampler():
    pytest.importorskip("dm_env")
    from jaxenvs.export.dm_env import JaxDmEnv

    env = JaxDmEnv("CartPole-v1", seed=0, levels=physics)
    env.reset()
    length = float(env.state.level.settings["length"])
    assert 0.25 <= length <= 1.0
    start = env.state.env_state
    got = [env.step(1).observation for _ in range(3)]
    for a, b in zip(got, _raw_episode(start, length, 3)):
        _close(a, b)
    with pytest.raises(ValueError, match="replay_levels is make_vec's option"):
        JaxDmEnv("CartPole-v1", replay_levels=True)


# --- pickling --------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", list(COPIES))
def test_exports_with_a_sampler_or_a_level_pickle_mid_episode(how):
    copy_ = COPIES[how]
    env = gymnasium.make("jaxenvs/CartPole-v1", levels=physics)
    env.reset(seed=2)
    env.step(1)
    twin = copy_(env)
    for i in range(4):
        assert data_equivalence(env.step(i % 2), twin.step(i % 2), exact=True), i
    assert data_equivalence(env.reset(seed=4), twin.reset(seed=4), exact=True)

    env = JaxEnv("CartPole-v1")  # a level given to a reset: its program comes back with the copy
    env.reset(seed=2, options={"level": Level(settings={"length": 1.3})})
    env.step(1)
    twin = copy_(env)
    assert isinstance(twin.state, LevelState)
    for i in range(4):
        assert data_equivalence(env.step(i % 2), twin.step(i % 2), exact=True), i

    envs = JaxVectorEnv("CartPole-v1", N)
    envs.reset(seed=0, options={"level": Level(settings={"length": LENGTHS})})
    envs.step(np.ones(N, np.int64))
    twin = copy_(envs)
    for i in range(8):
        act = np.full(N, i % 2)
        assert data_equivalence(envs.step(act), twin.step(act), exact=True), i


@pytest.mark.parametrize("how", ["pickle", "cloudpickle"])
def test_sb3_and_dm_env_with_a_sampler_pickle(how):
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("dm_env")
    from jaxenvs.export.dm_env import JaxDmEnv
    from jaxenvs.export.sb3 import JaxSB3VecEnv

    envs = JaxSB3VecEnv("CartPole-v1", N, seed=1, levels=physics)
    envs.reset()
    envs.step(np.ones(N, np.int64))
    twin = COPIES[how](envs)
    for i in range(6):
        act = np.full(N, i % 2)
        assert data_equivalence(envs.step(act), twin.step(act), exact=True), i
    env = JaxDmEnv("CartPole-v1", seed=3, levels=physics)
    env.reset()
    twin = COPIES[how](env)
    for i in range(4):
        assert data_equivalence(tuple(env.step(i % 2)), tuple(twin.step(i % 2)), exact=True), i


def test_the_docs_example_runs():
    text = (Path(__file__).resolve().parents[2] / "docs" / "levels.md").read_text()
    example = text.split("## Levels through the exports")[1].split("```python\n")[1].split("```")[0]
    namespace = {}
    exec(compile(example, "docs/levels.md", "exec"), namespace)
    assert float(namespace["info"]["level"]["settings"]["length"]) == pytest.approx(1.0)
    lengths = np.asarray(namespace["envs"].unwrapped.state.level.settings["length"])
    np.testing.assert_allclose(lengths, [0.2, 0.5, 0.5, 1.6])


def test_importing_the_exports_starts_no_jax():
    """A process forked from one that imported the exports (gymnasium's suite preloads them in a
    forkserver) can use JAX only if the import started none of it."""
    code = (
        "import jaxenvs.export.gymnasium, jaxenvs.export.sb3, jaxenvs.export.dm_env\n"
        "from jax._src import xla_bridge\n"
        "assert not xla_bridge._backends, 'importing the exports started JAX'\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
