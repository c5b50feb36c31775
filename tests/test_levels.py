"""Levels: reset_to_level on every built-in env, make_vec(levels=...) exact and replayed, checks."""

from __future__ import annotations

import re
from pathlib import Path

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify

import jaxenvs
from jaxenvs.fingerprint import fingerprint
from jaxenvs.levels import Level, apply_level, default_level, level_fields
from jaxenvs.wrappers import Checked, LevelState, LogWrapper, NormalizeObservation
from jaxenvs.wrappers.base import Wrapper
from jaxenvs.wrappers.levels import LEVEL_KEY_DATA, Levels
from lab.fingerprints import fingerprint_ids
from tests.conftest import compiled_per_id, run_under_xla_defaults, xla_exact


def physics(key):
    """CartPole levels: pole half-length and mass uniform over a range."""
    length, masspole = jax.random.uniform(key, (2,), minval=jnp.array([0.25, 0.05]), maxval=jnp.array([1.0, 0.5]))
    return Level(settings={"length": length, "masspole": masspole})


def test_every_builtin_env_has_reset_to_level_and_only_traced_level_fields():
    for env_id in fingerprint_ids():
        env, params = jaxenvs.make(env_id)
        assert callable(env.reset_to_level), env_id
        for name in level_fields(params):
            leaves = jax.tree_util.tree_leaves(params.replace(**{name: getattr(params, name)}))
            assert any(leaf is getattr(params, name) for leaf in leaves) or np.ndim(getattr(params, name)) == 0, name
    assert level_fields(jaxenvs.make("CartPole-v1")[1]) == (
        "gravity",
        "masscart",
        "masspole",
        "length",
        "force_mag",
        "tau",
    )
    assert level_fields(jaxenvs.make("FourRooms-misc")[1]) == ("fail_prob",)
    assert level_fields(jaxenvs.make("FrozenLake-v1")[1]) == ("success_rate",)


@pytest.mark.parametrize(
    "env_id", ["CartPole-v1", "Acrobot-v1", "Pendulum-v1", "MountainCar-v0", "FourRooms-misc", "FrozenLake-v1"]
)
def test_default_level_is_the_plain_reset_and_a_state_level_starts_there(env_id):
    env, params = jaxenvs.make(env_id)
    key = jax.random.key(7)
    obs, state = env.reset(key, params)
    obs_l, state_l = env.reset_to_level(key, default_level(params), params)
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, (obs, state), (obs_l, state_l)))
    _, other = env.reset(jax.random.key(8), params)
    obs_s, state_s = env.reset_to_level(key, Level(state=other), params)
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, state_s, other))
    assert np.array_equal(obs_s, env.reset(jax.random.key(8), params)[0])


@pytest.mark.parametrize("env_id", [i for i in fingerprint_ids() if compiled_per_id(i)])
def test_every_builtin_env_starts_from_a_state_given_as_its_level(env_id):
    """Go-Explore's restart on every built-in env: `reset_to_level(Level(state=s))` starts at `s`,
    from the state `reset(key)` returns exactly `reset(key)`; and `observe`, where the env defines
    it, is what `reset` and `step` return with a state. Run op by op (no compile)."""
    raw, params = jaxenvs.make(env_id, autoreset=False)
    raw = raw.unwrapped
    same = lambda a, b: jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, a, b))  # noqa: E731
    key = jax.random.key(1)
    obs, state = raw.reset(key, params)
    assert same(raw.reset_to_level(key, Level(state=state), params), (obs, state)), "reset_to_level"
    if raw.observe is None:  # UmbrellaChain: fresh noise in each observation
        assert raw.start_observation is not None, env_id
        return
    assert same(raw.observe(state, params), obs), "reset"
    space = raw.action_space(params)
    for t in range(2):
        obs, state, *_ = raw.step(jax.random.key(10 + t), state, space.sample(jax.random.key(20 + t)), params)
        assert same(raw.observe(state, params), obs), f"step {t}"
    obs_s, state_s = raw.reset_to_level(jax.random.key(2), Level(state=state), params)
    assert same(state_s, state) and same(obs_s, obs)


def test_a_level_changes_the_physics():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    level = Level(settings={"length": jnp.float32(2.0)})
    a = env.step(key, state, 1, params)[1]
    b = env.step(key, state, 1, apply_level(params, level))[1]
    assert not np.array_equal(a.theta_dot, b.theta_dot)


def test_bad_levels_are_clear_errors():
    env, params = jaxenvs.make("CartPole-v1")
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    with pytest.raises(
        ValueError, match=r"'x_threshold' cannot vary per episode \(.*\); the fields a level may set are gravity"
    ):
        env.reset_to_level(key, Level(settings={"x_threshold": 1.0}), params)
    with pytest.raises(TypeError, match=r"settings\['length'\] must be a float, got int32"):
        env.reset_to_level(key, Level(settings={"length": jnp.int32(1)}), params)
    with pytest.raises(ValueError, match=r"must be a scalar \(shape \(\)\), got shape \(3,\); nothing is broadcast"):
        env.reset_to_level(key, Level(settings={"length": jnp.ones(3)}), params)
    with pytest.raises(ValueError, match=r"length'\]=-1.0 is not valid; valid values: a finite real > 0.0"):
        env.reset_to_level(key, Level(settings={"length": -1.0}), params)
    with pytest.raises(TypeError, match="a level must be a jaxenvs.levels.Level"):
        env.reset_to_level(key, {"length": 1.0}, params)
    with pytest.raises(TypeError, match=r"Level.state.x must have dtype float32, got float16"):
        env.reset_to_level(key, Level(state=state.replace(x=state.x.astype(jnp.float16))), params)
    with pytest.raises(ValueError, match=r"Level.state.x must have shape \(\), got \(2,\)"):
        env.reset_to_level(key, Level(state=state.replace(x=jnp.zeros(2))), params)
    with pytest.raises(TypeError, match="must have the tree of the env's state"):
        env.reset_to_level(key, Level(state=(state.x, state.theta)), params)
    venv, params = jaxenvs.make_vec("CartPole-v1", 4, replay_levels=True)
    with pytest.raises(ValueError, match="one level per env .* num_envs=4.*nothing is broadcast"):
        venv.reset_to_level(key, Level(settings={"length": jnp.ones(3)}), params)
    with pytest.raises(TypeError, match="static params field cannot vary per episode"):
        jaxenvs.params.real(1.0, static=True, per_episode=True)


def _rollout(venv, params, key, steps):
    def run(key):
        obs, state = venv.reset(key, params)

        def body(carry, k):
            ka, ks = jax.random.split(k)
            actions = venv.sample_actions(ka, params)
            obs, state, _, terminated, truncated, info = venv.step(ks, carry[1], actions, params)
            return (obs, state), (actions, obs, terminated | truncated, info["level"])

        return obs, jax.lax.scan(body, (obs, state), jax.random.split(jax.random.split(key)[1], steps))[1]

    return jax.jit(run)(key)


def test_bit_for_bit_comparisons_under_xla_defaults():
    run_under_xla_defaults(__file__)


@xla_exact  # a reset's observation is built from its state in another fusion than the single env's
@pytest.mark.parametrize("strategy", ["capacity", "select"])
def test_make_vec_levels_equal_single_envs_reset_to_those_levels(strategy):
    n, steps, key = 4, 30, jax.random.key(3)
    venv, params = jaxenvs.make_vec("CartPole-v1", n, levels=physics, reset_strategy=strategy, max_steps_in_episode=12)
    obs0, (actions, obs, done, levels) = _rollout(venv, params, key, steps)
    raw = jaxenvs.make("CartPole-v1", autoreset=False)[0].unwrapped
    step = jax.jit(raw.step)
    reset_to_level = jax.jit(raw.reset_to_level)
    step_keys = [jax.random.split(k)[1] for k in jax.random.split(jax.random.split(key)[1], steps)]
    for i in range(n):
        k = jax.random.split(key, n)[i]
        level = physics(jax.random.fold_in(k, LEVEL_KEY_DATA))
        o, s = reset_to_level(k, level, params)
        assert np.array_equal(o, obs0[i])
        for t in range(steps):
            key_i = jax.random.split(jax.random.fold_in(step_keys[t], 2**32 - 1), n)[i]
            o, s, _, terminated, truncated, _ = step(key_i, s, actions[t, i], apply_level(params, level))
            assert bool(terminated | truncated) == bool(done[t, i])
            assert float(levels.settings["length"][t, i]) == float(level.settings["length"])
            if terminated | truncated:  # the next episode: its own key, its own sampled level
                k = jax.random.fold_in(step_keys[t], i)
                level = physics(jax.random.fold_in(k, LEVEL_KEY_DATA))
                o, s = reset_to_level(k, level, params)
                assert np.array_equal(o, obs[t, i]), (i, t)  # the reset: bit for bit
            else:  # the physics: XLA may fuse the batched step differently (an ulp)
                np.testing.assert_allclose(o, obs[t, i], rtol=1e-5, atol=1e-6)
    assert int(done.sum()) >= n  # every env finished at least one episode


def test_vmapped_single_env_levels_equal_the_unbatched_step():
    env, params = jaxenvs.make("CartPole-v1", levels=physics, max_steps_in_episode=5)
    keys = jax.random.split(jax.random.key(1), 3)
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, None, None)))
    one = jax.jit(env.step, static_argnums=())
    for t in range(7):
        keys = jax.random.split(jax.random.fold_in(jax.random.key(2), t), 3)
        out = step(keys, state, 1, params)
        for i in range(3):
            single = one(keys[i], jax.tree_util.tree_map(lambda x, i=i: x[i], state), 1, params)
            mine = jax.tree_util.tree_map(lambda x, i=i: x[i], out)
            assert jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, mine, single))
        state = out[1]


def test_levels_observe_is_the_observation_reset_and_step_give():
    """`Levels.observe`, which `make_vec` trusts to build a batch's observations from its states."""
    env, params = jaxenvs.make("CartPole-v1", levels=physics, autoreset=False)
    levels = env.env
    assert isinstance(levels, Levels) and levels.observe is not None
    assert Levels(Wrapper(levels.env), physics).observe is None  # a layer that may change observations

    def run(key):
        obs, state = levels.reset(key, params)
        stepped = levels.step(key, state, 1, params)
        return (obs, levels.observe(state, params)), (stepped[0], levels.observe(stepped[1], params))

    for given, rebuilt in jax.jit(run)(jax.random.key(4)):
        assert np.array_equal(given, rebuilt)


def test_replay_restarts_each_env_from_its_own_level():
    n = 3
    venv, params = jaxenvs.make_vec("CartPole-v1", n, replay_levels=True, max_steps_in_episode=4)
    levels = Level(settings={"length": jnp.array([0.3, 0.6, 0.9], jnp.float32)})
    obs, state = venv.reset_to_level(jax.random.key(0), levels, params)
    assert isinstance(state, LevelState)
    step = jax.jit(venv.step)
    starts = []
    for t in range(9):
        obs, state, _, terminated, truncated, info = step(jax.random.key(t), state, jnp.ones(n, jnp.int32), params)
        assert np.array_equal(info["level"].settings["length"], levels.settings["length"])
        if np.any(truncated):
            starts.append(obs)
    assert np.array_equal(state.level.settings["length"], levels.settings["length"])
    assert len(starts) == 2 and not np.array_equal(starts[0], starts[1])  # fresh keys, same levels


def test_cartpole_fingerprint_unchanged_under_levels_that_keep_the_params(monkeypatch):
    # in this process, beside the plain env's (tests/conftest.py's XLA flags change bits; the
    # pinned values are checked under XLA's defaults by tests/test_fingerprint.py)
    plain = fingerprint("CartPole-v1")
    make = jaxenvs.make
    calls = []

    def make_with_levels(env_id, **kwargs):
        calls.append(env_id)
        return make(env_id, levels=lambda key: Level(), **kwargs)

    monkeypatch.setattr(jaxenvs, "make", make_with_levels)
    assert fingerprint("CartPole-v1") == plain
    assert calls == ["CartPole-v1"]


def test_levels_at_the_defaults_give_the_episodes_without_levels():
    """Bit for bit, with params passed to the jitted rollout (as a training loop does). The
    pinned fingerprint closes over its params, so XLA folds those constants (other roundings)."""
    params = jaxenvs.make("CartPole-v1")[1]

    def rollout(env):
        def run(key, params):
            _, state = env.reset(key, params)

            def body(state, k):
                obs, state, reward, terminated, truncated, _ = env.step(k, state, 1, params)
                return state, (obs, reward, terminated, truncated)

            return jax.lax.scan(body, state, jax.random.split(key, 200))[1]

        return jax.jit(run)(jax.random.key(0), params)

    plain = rollout(jaxenvs.make("CartPole-v1")[0])
    at_defaults = rollout(jaxenvs.make("CartPole-v1", levels=lambda key: default_level(params))[0])
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(np.array_equal, plain, at_defaults))
    assert int(plain[2].sum()) >= 2  # episodes ended and were reset


def test_checked_refuses_a_sampled_level_out_of_range():
    def bad(key):
        return Level(settings={"length": jax.random.uniform(key, minval=-1.0, maxval=-0.5)})

    env, params = jaxenvs.make("CartPole-v1", levels=bad)
    with pytest.raises(checkify.JaxRuntimeError, match="outside their declared ranges.*length: a finite real > 0.0"):
        Checked(env).reset(jax.random.key(0), params)
    good, _ = jaxenvs.make("CartPole-v1", levels=physics)
    obs, state = Checked(good).reset(jax.random.key(0), params)
    Checked(good).step(jax.random.key(1), state, 1, params)


def test_make_vec_levels_lower_for_a_gpu_without_control_flow_of_their_own():
    """On a GPU the batched step with levels has no data-dependent `while`, and no more `case`s
    than without levels (those are `platform_dependent`'s, of constant index)."""

    def ops(levels):
        venv, params = jaxenvs.make_vec("CartPole-v1", 64, levels=levels)
        _, state = venv.reset(jax.random.key(0), params)
        actions = venv.sample_actions(jax.random.key(1), params)
        lowered = jax.jit(venv.step).trace(jax.random.key(2), state, actions, params)
        text = lowered.lower(lowering_platforms=("cuda",)).as_text()
        return {op: len(re.findall(op, text)) for op in ("stablehlo.while", "stablehlo.case", "stablehlo.if")}

    with_levels = ops(physics)
    assert with_levels["stablehlo.while"] == 0 and with_levels["stablehlo.if"] == 0
    assert with_levels == ops(None)


# --- never a silent wrong level (issue 47) -----------------------------------------------------


def same(a, b) -> bool:
    """Equal trees, bit for bit."""
    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b) and all(
        np.array_equal(x, y) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b))
    )


def test_make_vec_reset_to_level_checks_each_envs_values_as_the_single_env_does():
    venv, params = jaxenvs.make_vec("CartPole-v1", 4, levels=physics)
    key = jax.random.key(0)
    masspole = jnp.full(4, 0.1, jnp.float32)
    for lengths, bad in (
        ([-1.0, 0.5, 1e-3, np.nan], r"\[0\]=-1.0 \(env 0 of 4\)"),
        ([0.5, 0.5, 1e-3, np.nan], r"\[3\]=nan"),
    ):
        level = Level(settings={"length": jnp.array(lengths, jnp.float32), "masspole": masspole})
        with pytest.raises(
            ValueError, match=r"CartPole: Level.settings\['length'\]" + bad + ".*valid values: a finite real > 0.0"
        ):
            venv.reset_to_level(key, level, params)
    with pytest.raises(ValueError, match=r"'masspole'\]\[2\]=0.0 \(env 2 of 4\)"):
        venv.reset_to_level(key, Level(settings={"length": jnp.ones(4), "masspole": jnp.array([1.0, 1, 0, 1])}), params)
    with pytest.raises(TypeError, match=r"settings\['length'\] must be a float, got int32"):
        venv.reset_to_level(key, Level(settings={"length": jnp.ones(4, jnp.int32), "masspole": masspole}), params)
    with pytest.raises(TypeError, match="a level must be a jaxenvs.levels.Level"):
        venv.reset_to_level(key, {"length": jnp.ones(4)}, params)
    good = Level(settings={"length": jnp.array([0.5, 0.5, 1e-3, 2.0], jnp.float32), "masspole": masspole})
    obs, state = venv.reset_to_level(key, good, params)
    assert np.array_equal(state.level.settings["length"], good.settings["length"])


def test_make_vec_without_levels_refuses_per_env_settings_it_would_drop():
    """Without `levels=`, the batch steps every env under the shared params: settings would hold
    for the reset alone (the first episodes of an always-right policy lasted as at the defaults)."""
    plain, params = jaxenvs.make_vec("CartPole-v1", 4)
    lengths = Level(settings={"length": jnp.array([0.2, 0.4, 0.8, 1.6], jnp.float32)})
    with pytest.raises(ValueError, match=r"no per-env settings.*\('length'\).*replay_levels=True.*levels=sample"):
        plain.reset_to_level(jax.random.key(0), lengths, params)
    _, starts = plain.reset(jax.random.key(1), params)
    obs, state = plain.reset_to_level(jax.random.key(0), Level(state=starts), params)  # a start state needs no levels=
    assert same(state, starts)

    # what the error points to: each env's episodes run under its own settings
    replayed, params = jaxenvs.make_vec("CartPole-v1", 4, replay_levels=True)
    _, state = replayed.reset_to_level(jax.random.key(0), lengths, params)
    step = jax.jit(replayed.step)
    lasted, alive = np.zeros(4, int), np.ones(4, bool)
    for t in range(40):
        _, state, _, terminated, truncated, _ = step(jax.random.key(t), state, jnp.ones(4, jnp.int32), params)
        lasted += alive
        alive &= ~np.asarray(terminated | truncated)
    assert not alive.any() and np.all(np.diff(lasted) > 0), lasted  # a longer pole falls later


@pytest.mark.parametrize("batched", [False, True])
def test_a_field_a_level_may_not_set_says_whether_it_exists_and_the_nearest(batched):
    env, params = jaxenvs.make_vec("CartPole-v1", 2, replay_levels=True) if batched else jaxenvs.make("CartPole-v1")
    value = jnp.ones(2) if batched else jnp.float32(1.0)
    valid = "the fields a level may set are gravity, masscart, masspole, length, force_mag, tau"
    cases = {
        "lenght": r"'lenght' is not a field of CartPoleParams \(did you mean 'length'\?\); " + valid,
        "g": r"'g' is not a field of CartPoleParams; " + valid,  # Pendulum's gravity
        "x_threshold": r"'x_threshold' cannot vary per episode \(it is a field of CartPoleParams, one value for "
        r"the whole run: set it with make\(id, x_threshold=\.\.\.\)\); " + valid,
    }
    for name, message in cases.items():
        with pytest.raises(ValueError, match="CartPole: " + message):
            env.reset_to_level(jax.random.key(0), Level(settings={name: value}), params)


@pytest.mark.parametrize("batched", [False, True])
def test_a_level_unlike_the_samplers_is_an_error_at_reset_to_level(batched):
    """The sampler's levels take the given level's place in the state when its episode ends: a
    level of other fields fails there, at the first step, unless reset_to_level refuses it."""
    if batched:
        env, params = jaxenvs.make_vec("CartPole-v1", 2, levels=physics)
        level = Level(settings={"length": jnp.full(2, 0.7, jnp.float32)})
    else:
        env, params = jaxenvs.make("CartPole-v1", levels=physics)
        level = Level(settings={"length": jnp.float32(0.7)})
    with pytest.raises(
        TypeError,
        match=r"level \(settings \{length: \(\)\}, state None\) differs from the sampler's "
        r"\(settings \{length: \(\), masspole: \(\)\}, state None\)",
    ):
        env.reset_to_level(jax.random.key(0), level, params)
    both = jax.tree_util.tree_map(lambda x: jnp.full(jnp.shape(x), 0.7, jnp.float32), physics(jax.random.key(0)))
    if batched:
        both = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), both)
    _, state = env.reset_to_level(jax.random.key(0), both, params)
    env.step(jax.random.key(1), state, jnp.ones(2, jnp.int32) if batched else 1, params)
    replayed, params = jaxenvs.make_vec("CartPole-v1", 2, levels=physics, replay_levels=True)
    replayed.reset_to_level(jax.random.key(0), Level(settings={"length": jnp.full(2, 0.7, jnp.float32)}), params)


def test_checked_guards_sampled_levels_under_other_wrappers():
    def bad(key):
        return Level(settings={"length": jax.random.uniform(key, minval=-1.0, maxval=-0.5)})

    venv, params = jaxenvs.make_vec("CartPole-v1", 4, levels=bad)
    checked = Checked(LogWrapper(NormalizeObservation(venv)))
    with pytest.raises(checkify.JaxRuntimeError, match="outside their declared ranges.*length: a finite real > 0.0"):
        checked.reset(jax.random.key(0), params)
    good, params = jaxenvs.make_vec("CartPole-v1", 4, levels=physics)
    checked = Checked(LogWrapper(good))
    _, state = checked.reset(jax.random.key(0), params)
    checked.step(jax.random.key(1), state, jnp.ones(4, jnp.int32), params)


def test_the_docs_table_of_per_episode_settings_names_registered_ids_and_their_fields():
    text = (Path(__file__).parents[1] / "docs" / "levels.md").read_text()
    table = text.split("## What a level may set")[1].split("\n\n")[2]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    checked = 0
    for ids, fields in rows:
        for env_id in re.findall(r"\b[A-Z]\w*-(?:v\d+|misc)\b", ids):
            params = jaxenvs.make(env_id)[1]  # registered
            named = [f for f in re.findall(r"`(\w+)`", fields)]
            assert set(named) <= set(level_fields(params)), (env_id, named, level_fields(params))
            checked += 1
    assert checked >= 8
    frozen_lake = next(fields for ids, fields in rows if "FrozenLake" in ids)
    assert "moving as chosen" in frozen_lake  # what the env's params say success_rate is


# --- done when: PLR over make_vec with the usual stack --------------------------------------------


def test_plr_over_make_vec_with_log_and_normalize_logs_the_rewards_the_loop_received(monkeypatch):
    """JaxUED's LevelSampler (new levels inserted, replayed ones sampled and rescored) drives
    `LogWrapper(NormalizeObservation(make_vec(..., replay_levels=True)))` on CartPole physics
    levels: each rollout starts from `reset_to_level(..., state=)`, the statistics go on, and
    LogWrapper's returns are the per-env sums of the rewards the loop received."""
    level_sampler_module = pytest.importorskip("jaxued.level_sampler")
    monkeypatch.setattr(jax, "tree_map", jax.tree_util.tree_map, raising=False)  # JaxUED 0.0.1 (docs/levels.md)
    num_envs, num_steps = 8, 40
    venv, params = jaxenvs.make_vec("CartPole-v1", num_envs, replay_levels=True, max_steps_in_episode=25)
    env = LogWrapper(NormalizeObservation(venv))
    level_sampler = level_sampler_module.LevelSampler(capacity=16, replay_prob=0.5, staleness_coeff=0.3)
    placeholder = Level(
        settings={k: v for k, v in default_level(params).settings.items() if k in ("length", "masspole")}
    )
    sampler = level_sampler.initialize(placeholder)

    @jax.jit
    def rollout(key, levels, previous):
        reset_key, step_key = jax.random.split(key)
        obs, state = env.reset_to_level(reset_key, levels, params, state=previous)

        def step(state, key):
            action_key, env_key = jax.random.split(key)
            actions = venv.sample_actions(action_key, params)
            obs, state, reward, terminated, truncated, info = env.step(env_key, state, actions, params)
            return state, (obs, reward, terminated | truncated, info)

        state, (obs, rewards, dones, infos) = jax.lax.scan(step, state, jax.random.split(step_key, num_steps))
        episodes = dones.sum(0)
        scores = jnp.where(episodes > 0, (rewards * dones.cumsum(0)[::-1].astype(bool)[::-1]).sum(0), 0.0)
        return state, rewards, dones, infos, scores / jnp.maximum(episodes, 1)

    state, counted, logged = None, 0, 0
    for it in range(4):
        key = jax.random.fold_in(jax.random.key(9), it)
        if it % 2 == 0:  # on_new: fresh levels, inserted with their scores
            indices, levels = None, jax.vmap(physics)(jax.random.split(key, num_envs))
        else:  # on_replay: levels drawn by score and staleness
            sampler, (indices, levels) = level_sampler.sample_replay_levels(sampler, key, num_envs)
        before = None if state is None else state.env_state.obs_rms.count
        state, rewards, dones, infos, scores = rollout(jax.random.fold_in(key, 1), levels, state)
        if indices is None:
            sampler, _ = level_sampler.insert_batch(sampler, levels, scores)
        else:
            sampler = level_sampler.update_batch(sampler, indices, scores)
        assert same(jax.tree_util.tree_map(lambda x: x[-1], infos["level"]), levels)  # each env replays its level
        rewards, dones = np.asarray(rewards), np.asarray(dones)
        returned = np.asarray(infos["returned_episode"])
        np.testing.assert_array_equal(returned, dones)
        for e in range(num_envs):  # the loop's own sums, episode by episode
            total, length = 0.0, 0
            for t in range(num_steps):
                total, length = total + rewards[t, e], length + 1
                if dones[t, e]:
                    assert float(infos["returned_episode_returns"][t, e]) == total, (it, t, e)
                    assert int(infos["returned_episode_lengths"][t, e]) == length
                    total, length, counted = 0.0, 0, counted + 1
        logged += int(returned.sum())
        count = float(state.env_state.obs_rms.count)
        if before is not None:  # the statistics went on: the first observations and every step's
            assert count == pytest.approx(float(before) + num_envs * (num_steps + 1), rel=1e-6)
        assert int(state.timestep[0]) == num_steps * (it + 1)
    assert counted == logged > 4 * num_envs
    assert int(sampler["size"]) == 2 * num_envs


def test_the_docs_plr_stack_example_runs(monkeypatch):
    pytest.importorskip("jaxued")
    monkeypatch.setattr(jax, "tree_map", jax.tree_util.tree_map, raising=False)  # undone after the test
    text = (Path(__file__).parents[1] / "docs" / "levels.md").read_text()
    example = text.split("## PLR with the usual training stack")[1].split("```python\n")[1].split("```")[0]
    namespace = {}
    exec(compile(example, "docs/levels.md", "exec"), namespace)
    assert int(namespace["sampler"]["size"]) == 2 * namespace["num_envs"]
    assert int(namespace["state"].timestep[0]) == 4 * namespace["num_steps"]
    ended, returns = namespace["logged"]
    assert bool(ended.any()) and float(returns.max()) >= 1.0


def test_the_guard_holds_a_finished_episode_still_under_levels():
    """`make(id, autoreset=False, levels=...)`: `Absorbing` reads a `LevelState`'s end through
    `Levels`' `is_terminal` and `truncation`, under the episode's level."""
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, levels=physics, max_steps_in_episode=3)
    _, state = env.reset(jax.random.key(0), params)
    for t in range(3):
        obs, state, reward, terminated, truncated, _ = env.step(jax.random.key(t), state, 1, params)
    assert bool(truncated)
    again = env.step(jax.random.key(9), state, 1, params)
    assert float(again[2]) == 0.0 and bool(again[4])
    assert np.array_equal(again[0], obs)
    chex.assert_trees_all_equal(again[1], state)
