"""Levels for the adapted families (docs/levels.md, "Adapted families"): on one small id of each,
a start state given as a level starts exactly the episode `reset` started, `make_vec(id, n,
levels=sample)` starts each episode from its sampled state under both reset strategies,
XLand-MiniGrid's rulesets are its per-episode settings, and a family without settings says so.
brax physics, Playground and Craftax compile for minutes on a CPU: those ids are marked slow."""

from __future__ import annotations

import os
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.levels import Level, apply_level, default_level, level_fields
from jaxenvs.registry import MISSING_EXTRA, availability

SLOW = pytest.mark.slow
# one small id per family; the kwargs are `make` overrides
IDS = [
    pytest.param("navix/Navix-Empty-5x5-v0", {}, id="navix"),
    pytest.param("xminigrid/MiniGrid-Empty-5x5", {}, id="xminigrid"),
    pytest.param("pgx/tic_tac_toe", {}, id="pgx"),
    pytest.param("pgx/tic_tac_toe", {"reward_mode": "opponent"}, id="pgx-opponent"),
    pytest.param("jumanji/Snake-v1", {}, id="jumanji"),
    pytest.param("gymnax/Catch-bsuite", {}, id="gymnax"),
    pytest.param("brax/fast", {}, id="brax-fast"),
    pytest.param("brax/inverted_pendulum", {}, id="brax-physics", marks=SLOW),
    pytest.param("playground/CartpoleBalance", {}, id="playground", marks=SLOW),
    pytest.param("craftax/Craftax-Classic-Symbolic-v1", {}, id="craftax", marks=SLOW),
]


def raw_env(env_id, overrides):
    """The raw env of an id (its library skipped where not installed) and its params."""
    available = availability(env_id)
    if not available.runnable:
        pytest.skip(f"{env_id}: {available.reason}")
    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    return env.unwrapped, params


def leaves_equal(a, b) -> bool:
    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b) and all(
        np.array_equal(x, y) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b))
    )


def leaves_close(a, b) -> bool:
    """Equal, floats to float32 rounding (two programs may fuse a physics step apart: an ulp)."""

    def close(x, y):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind == "f":
            return np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True)
        return np.array_equal(x, y)

    return jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b) and all(
        close(x, y) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b))
    )


def row(tree, i):
    return jax.tree_util.tree_map(lambda x: x[i], tree)


@pytest.mark.parametrize("env_id, overrides", IDS)
def test_a_start_state_starts_exactly_the_episode_reset_started(env_id, overrides):
    """From the state `reset(key)` returned, `reset_to_level(Level(state=s))` returns `reset(key)`'s
    observation and state, a step from it equals the step from `reset`'s, and a state reached by a
    step starts with the observation that step returned (Go-Explore's restart). One compile."""
    raw, params = raw_env(env_id, overrides)
    assert raw.observe is not None or raw.start_observation is not None, env_id
    space = raw.action_space(params)

    @jax.jit
    def run(key):
        k_reset, k_level, k_action, k_step, k_mid = jax.random.split(key, 5)
        obs, state = raw.reset(k_reset, params)
        obs_l, state_l = raw.reset_to_level(k_level, Level(state=state), params)
        both = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b]), state, state_l)
        action = space.sample(k_action)
        stepped = jax.vmap(raw.step, in_axes=(None, 0, None, None))(k_step, both, action, params)
        obs_mid, state_mid = raw.reset_to_level(k_mid, Level(state=row(stepped[1], 0)), params)
        return (obs, state), (obs_l, state_l), stepped, (obs_mid, state_mid)

    (obs, state), (obs_l, state_l), stepped, (obs_mid, state_mid) = run(jax.random.key(1))
    assert leaves_equal(state_l, state), "the start state changed"
    assert leaves_equal(obs_l, obs), "the start observation is not reset's"
    assert leaves_equal(row(stepped, 0), row(stepped, 1)), "the step from the level differs from reset's"
    assert leaves_equal(state_mid, row(stepped[1], 0))
    assert leaves_equal(obs_mid, row(stepped[0], 0)), "a stepped state starts with another observation"


def _rollout(venv, params, num_steps, key):
    """`venv` under random actions; per step the observation, `done` and the env states."""

    def run(key):
        k_reset, k_run = jax.random.split(key)
        obs, state = venv.reset(k_reset, params)

        def body(state, k):
            k_act, k_step = jax.random.split(k)
            obs, state, _, terminated, truncated, _ = venv.step(
                k_step, state, venv.sample_actions(k_act, params), params
            )
            return state, (obs, terminated | truncated, state.env_state)

        steps = jax.lax.scan(body, state, jax.random.split(k_run, num_steps))[1]
        return (obs, state.env_state), steps

    return jax.jit(run)(key)


@pytest.mark.parametrize("env_id, overrides", IDS)
def test_make_vec_starts_each_episode_from_its_sampled_state(env_id, overrides):
    """Go-Explore's batch: each episode starts from a state sampled from an archive; under both
    reset strategies every (re)started env holds one of the archive's states and its
    observation, bit for bit, and the two strategies give the same rollout (the physics between
    resets to float32 rounding)."""
    raw, params = raw_env(env_id, overrides)
    archive_obs, archive = jax.jit(jax.vmap(raw.reset, in_axes=(0, None)))(
        jax.random.split(jax.random.key(9), 3), params
    )

    def sample(key):
        return Level(state=row(archive, jax.random.randint(key, (), 0, 3)))

    runs = {}
    for strategy in ("capacity", "select"):
        venv, vparams = jaxenvs.make_vec(
            env_id, 3, levels=sample, reset_strategy=strategy, max_steps_in_episode=3, **overrides
        )
        runs[strategy] = _rollout(venv, vparams, 7, jax.random.key(4))
    (obs0, states0), (obs, done, states) = runs["capacity"]
    assert leaves_close(runs["select"], runs["capacity"]), "the reset strategies disagree"
    done = np.asarray(done)
    assert done.any(axis=0).all(), "every env should restart at least once"

    def from_archive(obs_i, state_i):
        matches = [j for j in range(3) if leaves_equal(state_i, row(archive, j))]
        assert matches, "an episode started from a state that is not the archive's"
        assert leaves_equal(obs_i, row(archive_obs, matches[0]))

    for i in range(3):
        from_archive(row(obs0, i), row(states0, i))
        for t in np.flatnonzero(done[:, i]):
            from_archive(row(row(obs, t), i), row(row(states, t), i))


# --- per-episode settings -------------------------------------------------------------------

XLAND_ID = "xminigrid/XLand-MiniGrid-R1-9x9"


def small_benchmark():
    """Three XLand rulesets (xminigrid's Benchmark, built here: load_benchmark downloads): the goal
    "agent near a ball" of one colour, the ball and a square of another colour on the grid."""
    pytest.importorskip("xminigrid")
    from xminigrid.benchmarks import Benchmark
    from xminigrid.core.constants import TILES_REGISTRY, Colors, Tiles
    from xminigrid.core.goals import AgentNearGoal
    from xminigrid.core.rules import EmptyRule

    colours = (Colors.RED, Colors.GREEN, Colors.BLUE)
    goals = jnp.stack([AgentNearGoal(tile=TILES_REGISTRY[Tiles.BALL, c]).encode() for c in colours])
    rules = jnp.stack([EmptyRule().encode()[None] for _ in colours])
    init_tiles = jnp.stack(
        [jnp.stack([TILES_REGISTRY[Tiles.BALL, c], TILES_REGISTRY[Tiles.SQUARE, Colors.YELLOW]]) for c in colours]
    )
    return Benchmark(goals=goals, rules=rules, init_tiles=init_tiles, num_rules=jnp.ones(3, jnp.int32))


def test_xland_rulesets_are_its_levels():
    """An XLand id's level sets `ruleset_id`: the episode plays that ruleset of `params.benchmark`
    (its goal in the state, its objects on the grid); out of range is an error naming the range."""
    raw, params = raw_env(XLAND_ID, {})
    assert level_fields(params) == ("ruleset_id",)
    benchmark = small_benchmark()
    params = params.replace(benchmark=benchmark)
    key = jax.random.key(0)
    reset_to_level = jax.jit(raw.reset_to_level)
    obs, state = jax.jit(raw.reset)(key, params)
    assert leaves_equal(reset_to_level(key, default_level(params), params), (obs, state))
    for i in range(3):
        _, state = reset_to_level(key, Level(settings={"ruleset_id": jnp.int32(i)}), params)
        assert np.array_equal(state.timestep.state.goal_encoding, benchmark.goals[i])
        tiles = np.asarray(state.timestep.state.grid).reshape(-1, 2).tolist()
        assert np.asarray(benchmark.init_tiles[i]).tolist()[0] in tiles  # the ruleset's ball
    with pytest.raises(ValueError, match=r"ruleset_id'\]=.*3.* is not valid; valid values: an integer in \[0, 3\)"):
        raw.reset_to_level(key, Level(settings={"ruleset_id": jnp.int32(3)}), params)
    with pytest.raises(ValueError, match="this xminigrid env has no per-episode settings"):
        raw_env("xminigrid/MiniGrid-Empty-5x5", {})[0].reset_to_level(key, Level(settings={"ruleset_id": jnp.int32(0)}))


@pytest.mark.parametrize("strategy", ["capacity", "select"])
def test_make_vec_samples_a_ruleset_per_episode(strategy):
    """xminigrid's meta-RL loop (a ruleset per episode) as levels: every episode, the first and
    each after an auto-reset, plays the ruleset its level names."""
    benchmark = small_benchmark()

    def sample(key):
        return Level(settings={"ruleset_id": jax.random.randint(key, (), 0, 3)})

    venv, params = jaxenvs.make_vec(XLAND_ID, 4, levels=sample, reset_strategy=strategy, max_steps_in_episode=2)
    params = params.replace(benchmark=benchmark)

    def run(key):
        _, state = venv.reset(key, params)

        def body(state, k):
            _, state, _, terminated, truncated, _ = venv.step(k, state, venv.sample_actions(k, params), params)
            return state, (terminated | truncated, state.level.settings["ruleset_id"], state.env_state)

        return state, jax.lax.scan(body, state, jax.random.split(key, 5))[1]

    state0, (done, ruleset_id, states) = jax.jit(run)(jax.random.key(2))
    goals = np.asarray(benchmark.goals)
    played = np.asarray(states.timestep.state.goal_encoding)
    assert np.array_equal(
        np.asarray(state0.env_state.timestep.state.goal_encoding), goals[state0.level.settings["ruleset_id"]]
    )
    assert np.array_equal(played, goals[np.asarray(ruleset_id)])
    assert np.asarray(done).sum() >= 4 and len(np.unique(np.asarray(ruleset_id))) > 1


PHYSICS = [
    pytest.param("brax/inverted_pendulum", id="brax"),
    pytest.param("playground/CartpoleBalance", id="playground"),
]
PHYSICS_FIELDS = ("friction_scale", "mass_scale", "gravity_scale")


def physics_model(raw):
    """The physics model an adapter scales: brax's `sys`, or Playground's MJX model."""
    return raw.brax_env().sys if raw.family == "brax" else raw.playground_env.mjx_model


@pytest.mark.parametrize("env_id", PHYSICS)
def test_physics_scales_of_one_are_the_librarys_own_model(env_id):
    from jaxenvs.adapters._common import scale_physics

    raw, params = raw_env(env_id, {})
    assert level_fields(params) == PHYSICS_FIELDS
    model = physics_model(raw)
    assert leaves_equal(scale_physics(model, 1.0, 1.0, 1.0), model)
    heavy = scale_physics(model, 0.5, 2.0, 3.0)
    np.testing.assert_array_equal(heavy.body_mass, 2.0 * np.asarray(model.body_mass))
    np.testing.assert_array_equal(heavy.opt.gravity, 3.0 * np.asarray(model.opt.gravity))
    np.testing.assert_array_equal(heavy.geom_friction[:, 0], 0.5 * np.asarray(model.geom_friction)[:, 0])
    np.testing.assert_array_equal(heavy.geom_friction[:, 1:], np.asarray(model.geom_friction)[:, 1:])


def physics_levels(key):
    """Domain randomisation: masses and gravity drawn per episode."""
    mass, gravity = jax.random.uniform(key, (2,), minval=0.5, maxval=2.0)
    return Level(settings={"mass_scale": mass, "gravity_scale": gravity})


@SLOW
@pytest.mark.parametrize("env_id", PHYSICS)
def test_make_vec_samples_physics_per_episode(env_id):
    """brax's and Playground's physics as levels: a level's scales change the step (at the
    defaults it is the step without levels), and `make_vec(levels=...)` runs them under both
    reset strategies alike, each episode under its own level."""
    raw, params = raw_env(env_id, {})

    @jax.jit
    def one_step(key):
        _, state = raw.reset(key, params)
        action = raw.action_space(params).sample(key)
        under = lambda level: raw.step(key, state, action, apply_level(params, level))[1]  # noqa: E731
        return raw.step(key, state, action, params)[1], under(default_level(params)), under(physics_levels(key))

    plain, at_defaults, other = one_step(jax.random.key(0))
    assert leaves_equal(plain, at_defaults)
    assert not leaves_close(plain, other), "the level's physics changed nothing"

    runs = {}
    for strategy in ("capacity", "select"):
        venv, vparams = jaxenvs.make_vec(
            env_id, 2, levels=physics_levels, reset_strategy=strategy, max_steps_in_episode=3
        )

        def run(key, venv=venv, vparams=vparams):
            _, state = venv.reset(key, vparams)

            def body(state, k):
                obs, state, _, terminated, truncated, info = venv.step(
                    k, state, venv.sample_actions(k, vparams), vparams
                )
                return state, (obs, terminated | truncated, info["level"], state.level)

            return jax.lax.scan(body, state, jax.random.split(key, 6))[1]

        runs[strategy] = jax.jit(run)(jax.random.key(3))
    assert leaves_close(runs["select"], runs["capacity"]), "the reset strategies disagree"
    _, done, ran_under, next_level = runs["capacity"]
    masses = np.asarray(ran_under.settings["mass_scale"])
    assert np.asarray(done).any(axis=0).all() and len(np.unique(masses)) > 2  # new levels after resets
    # an episode runs under one level until it ends
    same = np.asarray(next_level.settings["mass_scale"])[:-1] == masses[1:]
    assert same[~np.asarray(done)[:-1]].all()


NO_SETTINGS = [
    pytest.param("navix/Navix-Empty-5x5-v0", "navix", id="navix"),
    pytest.param("pgx/tic_tac_toe", "pgx", id="pgx"),
    pytest.param("jumanji/Snake-v1", "jumanji", id="jumanji"),
    pytest.param("gymnax/Catch-bsuite", "gymnax", id="gymnax"),
    pytest.param("brax/fast", "brax", id="brax"),
]


@pytest.mark.parametrize("env_id, family", NO_SETTINGS)
def test_a_level_with_settings_on_a_family_without_them_is_a_clear_error(env_id, family):
    raw, params = raw_env(env_id, {})
    assert level_fields(params) == ()
    message = f"{env_id}: this {family} env has no per-episode settings .*'friction'.*Level\\(state=s\\)"
    with pytest.raises(ValueError, match=message):
        raw.reset_to_level(jax.random.key(0), Level(settings={"friction": 1.0}), params)


def test_a_sampled_level_with_settings_is_the_same_error():
    venv, params = jaxenvs.make_vec(
        "navix/Navix-Empty-5x5-v0", 2, levels=lambda key: Level(settings={"friction": jnp.float32(1.0)})
    )
    with pytest.raises(ValueError, match="this navix env has no per-episode settings"):
        venv.reset(jax.random.key(0), params)


# --- docs/levels.md's table of the adapted families -----------------------------------------

LEVELS_MD = Path(__file__).resolve().parents[2] / "docs" / "levels.md"
TABLE_START = "<!-- adapted families: generated from the adapters' declarations by"
TABLE_END = "<!-- end of adapted families -->"


def _ids_cell(group: list[str], built: list[str]) -> str:
    """The ids of a row in words: every id, every id but a few, a few, or a prefix and a count."""
    if group == built:
        return "every id"
    rest = [name for name in built if name not in group]
    if len(rest) <= 3:
        return "every id but " + ", ".join(f"`{name}`" for name in rest)
    if len(group) <= 3:
        return ", ".join(f"`{name}`" for name in group)
    return f"`{os.path.commonprefix(group)}*` ({len(group)} ids)"


def levels_table() -> str:
    """docs/levels.md's table of what a level may set on each adapted family, read off the
    declarations of every id that can be built here (`level_fields` of its params, and whether
    it has `observe` or `start_observation`); the ids that cannot are named below it."""
    from jaxenvs.adapters.registration import FAMILIES

    lines = ["| family | ids | a level may set (per-episode settings) | a level may give a start state |"]
    lines.append("|---|---|---|---|")
    not_built: dict[tuple[str, str], list[str]] = {}
    for family, (_, _, _, names) in FAMILIES.items():
        groups: dict[tuple, list[str]] = {}
        built = []
        for name in names:
            available = availability(f"{family}/{name}")
            if not available.runnable:
                not_built.setdefault((family, available.reason), []).append(name)
                continue
            env, params = jaxenvs.make(f"{family}/{name}", autoreset=False)
            env = env.unwrapped
            starts = env.observe is not None or env.start_observation is not None
            groups.setdefault((level_fields(params), starts), []).append(name)
            built.append(name)
        for (fields, starts), group in groups.items():
            settings = ", ".join(f"`{f}`" for f in fields) or "nothing (a clear error)"
            lines.append(f"| `{family}/` | {_ids_cell(group, built)} | {settings} | {'yes' if starts else 'no'} |")
    lines.append("")
    missing = [
        f"`{family}/` {', '.join(f'`{n}`' for n in names) if len(names) <= 3 else f'{len(names)} ids'} ({reason})"
        for (family, reason), names in not_built.items()
    ]
    lines.append(
        f"Not built for this table: {'; '.join(missing) or 'none'}. Each runs its family's adapter and params."
    )
    return "\n".join(lines)


def _documented_table() -> str:
    text = LEVELS_MD.read_text()
    start, end = text.index(TABLE_START), text.index(TABLE_END)
    return text[text.index("-->", start) + 3 : end].strip()


@pytest.mark.slow  # builds every id of every family (Craftax's and MJX's models among them)
def test_docs_table_of_the_adapted_families_is_read_off_their_declarations():
    from jaxenvs.adapters.registration import FAMILIES

    missing = {
        family for family, entry in FAMILIES.items() if availability(f"{family}/{entry[3][0]}").kind == MISSING_EXTRA
    }
    if missing:
        pytest.skip(f"the table is read off every family; not installed here: {', '.join(sorted(missing))}")
    fresh = levels_table()
    assert _documented_table() == fresh, (
        f"docs/levels.md's table of the adapted families is out of date; between its markers put:\n\n{fresh}"
    )
