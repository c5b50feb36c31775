"""`jaxenvs.export.gymnax`: any jaxenvs id as a gymnax 1.x `Environment`, run by the clients'
own installed code (gymnax's wrappers, rejax, Stoa, evosax), not copies of it."""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnax = pytest.importorskip("gymnax")
from gymnax.environments import environment as gymnax_environment  # noqa: E402
from gymnax.environments import spaces as gymnax_spaces  # noqa: E402
from gymnax.wrappers.purerl import FlattenObservationWrapper, LogWrapper  # noqa: E402

import jaxenvs  # noqa: E402
from jaxenvs import spaces  # noqa: E402
from jaxenvs.export import gymnax as jaxenvs_gymnax  # noqa: E402
from jaxenvs.export.gymnax import GymnaxExport, gymnax_space  # noqa: E402
from jaxenvs.registry import BUILT_IN_FAMILIES  # noqa: E402
from jaxenvs.wrappers import LogWrapper as JaxenvsLogWrapper  # noqa: E402
from tests.conftest import run_under_xla_defaults, xla_exact  # noqa: E402

# the built-in ids (bsuite's sweep ids are the base envs with other settings: left out)
BUILT_IN = [
    i for i in jaxenvs.registered_envs() if jaxenvs.spec(i).family in BUILT_IN_FAMILIES and not i.startswith("bsuite/")
]
# compiled and run; the rest are traced (jax.eval_shape), which checks every shape and dtype
RUN = ("CartPole-v1", "Pendulum-v1", "FrozenLake-v1", "Breakout-MinAtar", "Catch-bsuite")
KEY = jax.random.key(0)


def test_bit_for_bit_comparisons_under_xla_defaults():
    run_under_xla_defaults(__file__)


def _random_actions(space, key, n):
    return jax.vmap(space.sample)(jax.random.split(key, n))


# --- what it is -----------------------------------------------------------------------------


def test_make_gives_a_gymnax_environment_with_gymnax_spaces():
    env, params = jaxenvs_gymnax.make("CartPole-v1")
    assert isinstance(env, gymnax_environment.Environment)
    assert env.name == "CartPole-v1" and env.num_actions == 2
    assert params.max_steps_in_episode == 500 and params.replace(max_steps_in_episode=3).max_steps_in_episode == 3
    action, obs = env.action_space(params), env.observation_space(params)
    assert type(action) is gymnax_spaces.Discrete and action.n == 2 and action.dtype == jnp.int32
    assert type(obs) is gymnax_spaces.Box and obs.shape == (4,) and obs.dtype == jnp.float32
    assert np.allclose(obs.high[[0, 2]], [4.8, 2 * 12 * 2 * np.pi / 360]) and np.isinf(obs.high[1])
    pendulum, _ = jaxenvs_gymnax.make("Pendulum-v1")
    box = pendulum.action_space()
    assert type(box) is gymnax_spaces.Box and box.shape == (1,) and float(box.low[0]) == -2.0
    blackjack, _ = jaxenvs_gymnax.make("Blackjack-v1")
    tup = blackjack.observation_space()
    assert type(tup) is gymnax_spaces.Tuple and [s.n for s in tup.spaces] == [32, 11, 2]


def test_space_rules_multidiscrete_to_integer_box_and_shifted_discrete_refused():
    box = gymnax_space(spaces.MultiDiscrete([3, 5]), "some/id")
    assert type(box) is gymnax_spaces.Box and box.dtype == jnp.int32 and box.shape == (2,)
    assert box.low.tolist() == [0, 0] and box.high.tolist() == [2, 4]
    d = gymnax_space(spaces.Dict({"a": spaces.Discrete(3), "b": spaces.Box(0, 1, (2,), jnp.uint8)}))
    assert type(d) is gymnax_spaces.Dict and d.spaces["a"].n == 3 and d.spaces["b"].high.tolist() == [1, 1]
    with pytest.raises(ValueError, match=r"some/id: .*starts at 3.*gymnax's Discrete starts at 0"):
        gymnax_space(spaces.Discrete(4, start=3), "some/id")


def test_bad_input_gives_clear_errors():
    with pytest.raises(ValueError, match=r"CartPole-v1: step_api must be one of 'gymnax1', 'gymnax0'.*'gymnax2'"):
        jaxenvs_gymnax.make("CartPole-v1", step_api="gymnax2")
    with pytest.raises(jaxenvs.UnknownEnvError, match="CartPole-v1"):
        jaxenvs_gymnax.make("CartPol-v1")
    with pytest.raises(TypeError, match="unknown parameter.*'gravityy'.*valid parameters"):
        jaxenvs_gymnax.make("CartPole-v1", gravityy=1.0)
    with pytest.raises(ValueError, match="step_api must be one of"):
        gymnax.make("jaxenvs/CartPole-v1", step_api=1)
    with pytest.raises(ValueError, match="resets itself"):
        GymnaxExport(*jaxenvs.make("CartPole-v1"))


def test_every_id_is_registered_with_gymnax_and_make_passes_keywords_through():
    from jaxenvs.registry import availability

    registered = set(gymnax.registered_envs)
    buildable = {f"jaxenvs/{i}" for i in jaxenvs.registered_envs() if availability(i).runnable}
    assert buildable <= registered and {f"jaxenvs/{i}" for i in BUILT_IN} <= registered
    env, params = gymnax.make("jaxenvs/CartPole-v1", step_api="gymnax0", max_steps_in_episode=7)
    assert isinstance(env, GymnaxExport) and env.step_api == "gymnax0" and params.max_steps_in_episode == 7
    assert jaxenvs_gymnax.register_gymnax_envs(["CartPole-v1"]) == ["jaxenvs/CartPole-v1"]  # again: a no-op


def test_hashable_static_jit_argument_shared_by_equal_exports():
    traces = []

    def rollout(env, key):
        traces.append(1)
        obs, state = env.reset(key)
        return env.step(key, state, 0)[2]

    f = jax.jit(rollout, static_argnums=0)
    a, _ = jaxenvs_gymnax.make("CartPole-v1")
    b, _ = jaxenvs_gymnax.make("CartPole-v1")
    c, _ = jaxenvs_gymnax.make("CartPole-v1", step_api="gymnax0")
    assert a == b and hash(a) == hash(b) and a != c
    assert float(f(a, KEY)) == 1.0 and float(f(b, KEY)) == 1.0
    assert len(traces) == 1
    f(c, KEY)
    assert len(traces) == 2


# --- the step -------------------------------------------------------------------------------


@xla_exact
def test_step_is_gymnax_1x_step_exactly_and_gymnax0_folds_it():
    """The export's step against gymnax's own `Environment.step` run on the export (its
    step_env, reset_env and is_truncated): same outputs, same info keys, same auto-reset."""
    env, params = jaxenvs_gymnax.make("CartPole-v1", max_steps_in_episode=12)
    env0, _ = jaxenvs_gymnax.make("CartPole-v1", step_api="gymnax0", max_steps_in_episode=12)
    gymnax_step = gymnax_environment.Environment.step.__wrapped__

    def run(key):
        def body(carry, x):
            state, state0 = carry
            key, i = x
            # random actions (episodes reach the time limit), then always right (the pole falls)
            a = jnp.where(i < 30, jax.random.bernoulli(key), 1).astype(jnp.int32)
            ours = env.step(key, state, a, params)
            theirs = gymnax_step(env, key, state, a, params)
            folded = env0.step(key, state0, a)
            return (ours[1], folded[1]), (ours, theirs, folded)

        _, state = env.reset(key)
        return jax.lax.scan(body, (state, state), (jax.random.split(key, 60), jnp.arange(60)))[1]

    ours, theirs, folded = jax.jit(run)(KEY)
    assert set(ours[5]) == set(theirs[5]) == {"discount", "terminated", "truncated", "final_observation"}
    for a, b in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        np.testing.assert_array_equal(a, b)
    terminated, truncated = np.asarray(ours[3]), np.asarray(ours[4])
    assert truncated.any() and terminated.any()  # both kinds of episode end were reset
    assert len(folded) == 5
    np.testing.assert_array_equal(folded[3], terminated | truncated)
    np.testing.assert_array_equal(folded[0], ours[0])
    np.testing.assert_array_equal(folded[4]["truncated"], truncated)


def test_gymnax_methods_answer_from_the_state():
    env, params = jaxenvs_gymnax.make("CartPole-v1")
    obs, state = env.reset(KEY)
    np.testing.assert_array_equal(env.get_obs(state), obs)
    assert not bool(env.is_terminal(state, params)) and float(env.discount(state, params)) == 1.0
    assert int(state.time) == 0 and not bool(env.is_truncated(state, params))
    # push the cart until the pole falls: the raw transition (no reset) ends terminated
    step_env = jax.jit(env.step_env)
    for _ in range(100):
        obs, state, reward, terminated, info = step_env(KEY, state, 1, params)
        if terminated:
            break
    assert bool(terminated) and bool(env.is_terminal(state, params)) and float(env.discount(state, params)) == 0.0
    np.testing.assert_array_equal(env.get_obs(state), obs)
    space = env.state_space(params)
    assert type(space) is gymnax_spaces.Dict and set(space.spaces) >= {"x", "theta", "time"}


@xla_exact
def test_get_obs_of_an_env_whose_observation_a_wrapper_changes_is_the_one_kept():
    raw, params = jaxenvs.make("CartPole-v1", autoreset=False)
    doubled = jaxenvs.wrappers.TransformObservation(raw, lambda obs: 2 * obs)
    env = GymnaxExport(doubled, params)
    obs, state = env.reset(KEY)
    assert state.obs is not None  # CartPole's own observe would give the undoubled one
    np.testing.assert_array_equal(env.get_obs(state), obs)
    np.testing.assert_array_equal(obs, 2 * jaxenvs_gymnax.make("CartPole-v1")[0].reset(KEY)[0])


@xla_exact
def test_episode_statistics_equal_jaxenvs_make_under_the_same_keys():
    for env_id in ("CartPole-v1", "Catch-bsuite"):
        export, params = jaxenvs_gymnax.make(env_id)
        ours, _ = jaxenvs.make(env_id)
        theirs = LogWrapper(export)
        mine = JaxenvsLogWrapper(ours)
        space = ours.action_space(params)

        def run(key, theirs=theirs, mine=mine, space=space, params=params):
            keys = jax.random.split(key, 200)
            actions = _random_actions(space, key, 200)

            def body(carry, x):
                s1, s2 = carry
                k, a = x
                o1, s1, r1, t1, tr1, i1 = theirs.step(k, s1, a, params)
                o2, s2, r2, t2, tr2, i2 = mine.step(k, s2, a, params)
                return (s1, s2), (o1, o2, r1, r2, t1 | tr1, t2 | tr2, i1, i2)

            _, s1 = theirs.reset(key, params)
            _, s2 = mine.reset(key, params)
            return jax.lax.scan(body, (s1, s2), (keys, actions))[1]

        o1, o2, r1, r2, d1, d2, i1, i2 = jax.jit(run)(KEY)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
        ended = np.asarray(d1)
        assert ended.sum() >= 3, env_id
        for key in ("returned_episode_returns", "returned_episode_lengths"):
            np.testing.assert_array_equal(np.asarray(i1[key])[ended], np.asarray(i2[key])[ended])


# --- gymnax's own wrappers over every built-in id ---------------------------------------------


def _wrapped_rollout(env, params, flatten, steps=3):
    wrapped = LogWrapper(FlattenObservationWrapper(env) if flatten else env)
    space = env.action_space(params)

    def run(key):
        obs, state = wrapped.reset(key, params)

        def body(state, key):
            obs, state, reward, terminated, truncated, info = wrapped.step(key, state, space.sample(key), params)
            return state, (obs, reward, terminated, truncated, info["returned_episode_returns"])

        return obs, jax.lax.scan(body, state, jax.random.split(key, steps))

    return run


@pytest.mark.parametrize("env_id", BUILT_IN)
def test_gymnax_wrappers_run_over_every_built_in_id(env_id, request):
    if env_id.startswith("MNISTBandit"):
        request.getfixturevalue("mnist_data_dir")
    env, params = jaxenvs_gymnax.make(env_id)
    obs_space = env.observation_space(params)
    # gymnax's FlattenObservationWrapper takes one array (it asserts a Box space; Blackjack's
    # observation is a Tuple): LogWrapper alone there
    flatten = not isinstance(obs_space, (gymnax_spaces.Tuple, gymnax_spaces.Dict))
    run = _wrapped_rollout(env, params, flatten)
    obs, (state, (obs_t, reward, terminated, truncated, returns)) = (
        run(KEY) if env_id in RUN else jax.eval_shape(run, KEY)
    )
    if flatten:
        flat = int(np.prod(obs_space.shape))
        assert obs.shape == (flat,) and obs_t.shape == (3, flat)
        if type(obs_space) is gymnax_spaces.Box:
            assert FlattenObservationWrapper(env).observation_space(params).shape == (flat,)
    else:
        with pytest.raises(AssertionError, match="Only Box spaces"):
            FlattenObservationWrapper(env).observation_space(params)
    assert reward.shape == terminated.shape == truncated.shape == returns.shape == (3,)
    assert terminated.dtype == truncated.dtype == jnp.bool_
    if env_id in RUN:
        assert np.isfinite(np.asarray(returns)).all()


def test_adapted_ids_export_too():
    env, params = jaxenvs_gymnax.make("gymnax/CartPole-v1", step_api="gymnax0")
    obs, state = env.reset(KEY)
    out = jax.eval_shape(lambda s: env.step(KEY, s, 0), state)
    assert len(out) == 5 and out[0].shape == (4,)
    if importlib.util.find_spec("pgx") is not None:
        env, params = jaxenvs_gymnax.make("pgx/tic_tac_toe")
        _, state = jax.eval_shape(env.reset, KEY)
        info = jax.eval_shape(lambda s: env.step(KEY, s, 0), state)[5]
        assert info["action_mask"].shape == (9,) and type(env.action_space()) is gymnax_spaces.Discrete


# --- the clients ----------------------------------------------------------------------------


@pytest.mark.slow
def test_rejax_ppo_and_dqn_train_on_the_gymnax0_export():
    rejax = pytest.importorskip("rejax")
    env, params = jaxenvs_gymnax.make("CartPole-v1", step_api="gymnax0")
    small = {"hidden_layer_sizes": (8,)}
    ppo = rejax.PPO.create(
        env=env, env_params=params, num_envs=2, num_steps=8, num_epochs=1, num_minibatches=1,
        total_timesteps=64, eval_freq=64, agent_kwargs=small, skip_initial_evaluation=True,
    )  # fmt: skip
    _, (lengths, returns) = jax.jit(ppo.train)(KEY)
    assert returns.shape[-1] == 128 and (np.asarray(lengths) >= 1).all()
    dqn = rejax.DQN.create(
        env=env, env_params=params, num_envs=2, buffer_size=64, fill_buffer=16, batch_size=8,
        total_timesteps=64, eval_freq=64, agent_kwargs={"activation": "relu"}, skip_initial_evaluation=True,
    )  # fmt: skip
    _, (lengths, returns) = jax.jit(dqn.train)(KEY)
    assert returns.shape[-1] == 128 and (np.asarray(returns) >= 1).all()


@pytest.mark.slow  # importing stoa imports brax
def test_stoa_gymnax_to_stoa_runs_the_export():
    stoa_gymnax = pytest.importorskip("stoa.env_adapters.gymnax")
    env, params = jaxenvs_gymnax.make("CartPole-v1", step_api="gymnax0", max_steps_in_episode=5)
    stoa_env = stoa_gymnax.GymnaxToStoa(env, params)
    assert stoa_env.action_space().num_values == 2

    def run(key):
        state, timestep = stoa_env.reset(key)

        def body(state, _):
            state, timestep = stoa_env.step(state, jnp.int32(0))
            return state, (timestep.reward, timestep.discount, timestep.observation)

        return jax.lax.scan(body, state, None, 6)[1]

    reward, discount, obs = jax.jit(run)(KEY)
    assert obs.shape == (6, 4) and np.asarray(reward).tolist() == [1.0] * 6
    # Stoa reads gymnax 0.x's `done` as a termination: the time limit at step 5 gives discount 0
    assert np.asarray(discount).tolist() == [1.0] * 4 + [0.0, 1.0]


@pytest.mark.slow
def test_evosax_gymnax_problem_by_name():
    problems = pytest.importorskip("evosax.problems")
    from evosax.algorithms import SNES
    from evosax.problems.networks import MLP

    problem = problems.GymnaxProblem("jaxenvs/CartPole-v1", policy=MLP(layer_sizes=(4, 2)), episode_length=20)
    assert isinstance(problem.env, GymnaxExport)
    key = jax.random.key(1)
    solution = problem.sample(key)
    es = SNES(population_size=4, solution=solution)
    state, pstate = es.init(key, solution, es.default_params), problem.init(key)
    for _ in range(2):  # the second generation reuses every compiled function
        key, k1, k2, k3 = jax.random.split(key, 4)
        population, state = es.ask(k1, state, es.default_params)
        fitness, pstate, _ = problem.eval(k2, population, pstate)
        state, _ = es.tell(k3, population, -fitness, state, es.default_params)
    assert fitness.shape == (4,) and ((np.asarray(fitness) >= 1) & (np.asarray(fitness) <= 20)).all()


def test_gymnax_constructor_arguments_are_accepted():
    """`gymnax.make(id, **kwargs)` passes its arguments to the env's constructor: the export takes
    a constructor argument of the env (FrozenLake's `map_name`) beside the params fields."""
    from jaxenvs.export import gymnax as jaxenvs_gymnax

    env, params = jaxenvs_gymnax.make("FrozenLake-misc", map_name="8x8")
    assert int(env.observation_space(params).n) == 64
    assert params.max_steps_in_episode == 200  # the 8x8 map's own limit, as gymnax's constructor sets it
    assert jaxenvs_gymnax.make("FrozenLake-misc")[1].max_steps_in_episode == 100
    env, params = jaxenvs_gymnax.make("FrozenLake-v1", map_name="8x8", is_slippery=False)
    assert int(env.observation_space(params).n) == 64 and not params.is_slippery
    with pytest.raises(TypeError, match="unknown parameter.*'map_nam'"):
        jaxenvs_gymnax.make("FrozenLake-misc", map_nam="8x8")


def test_gymnax_visualizer_reads_the_envs_attributes(tmp_path):
    """gymnax's public visualizer reads an env's own attributes (Catch's `rows` and `columns`,
    MinAtar's `obs_shape`): the export answers with the jaxenvs env's."""
    pytest.importorskip("matplotlib")
    from gymnax.visualize import Visualizer

    for env_id in ("Catch-bsuite", "Breakout-MinAtar"):
        env, params = jaxenvs_gymnax.make(env_id)
        assert env.obs_shape == tuple(env.observation_space(params).shape)
        obs, state = env.reset(jax.random.key(0), params)
        states = [state]
        for t in range(3):
            obs, state, *_ = env.step(jax.random.key(t + 1), state, 0, params)
            states.append(state)
        Visualizer(env, params, states).animate(str(tmp_path / f"{env_id}.gif"))
        assert (tmp_path / f"{env_id}.gif").stat().st_size > 0
    env, _ = jaxenvs_gymnax.make("Catch-bsuite")
    assert (env.rows, env.columns) == (10, 5)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_field'"):
        env.no_such_field  # noqa: B018
