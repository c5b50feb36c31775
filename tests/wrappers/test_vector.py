"""`make_vec` (`VecEnv`) and batched `AutoReset`: resetting only the finished envs changes
nothing about what the envs do.

- Episode statistics (lengths, returns) and reset distributions under random actions of
  `make_vec` (its own key derivation) against independent episodes of the raw env (the parity
  harness's chi-square, KS and mean checks); `jax.vmap(AutoReset(env).step)` with a key per env
  needs no such check: it steps and resets each env exactly as alone (tested below).
- Many envs finishing in one step (more than `reset_capacity`, every env every step): every
  finished env is reset from its own key, `final_observation` is the raw step's observation.
- The vmapped `AutoReset` step (which `make_vec` is) equals stepping each env alone
  (`lax.map`), params batched too, its resets bit for bit, and gradients still go through it.
- `num_envs` beyond what int32 indexes is refused before anything is built.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.parity.collect import jax_episode_statistics
from jaxenvs.parity.stats import chi_square_check, ks_check, mean_check
from jaxenvs.registry import BUILT_IN_FAMILIES, registered_envs
from jaxenvs.wrappers import AutoReset, VecEnv, Wrapper

MAX_STEPS = 60  # CartPole truncated at 60 steps: both ways an episode ends are exercised
NUM_ENVS = 128
HORIZON = 500


def _episodes(batched_step, reset_obs, reset_state, params, num_envs, horizon, key):
    """Run `batched_step(key, state, actions, params)` for `horizon` steps with random actions;
    return (lengths, returns, first observations of the episodes begun by a reset) of the
    episodes that began before `horizon - MAX_STEPS` (all of which end in the window; choosing
    episodes by their start leaves their lengths unbiased)."""

    def body(carry, k):
        state, count, ret = carry
        ka, ks = jax.random.split(k)
        actions = jax.random.bernoulli(ka, 0.5, (num_envs,)).astype(jnp.int32)
        obs, state, reward, terminated, truncated, info = batched_step(ks, state, actions, params)
        done = terminated | truncated
        count, ret = count + 1, ret + reward
        out = (done, count, ret, obs)
        return (state, jnp.where(done, 0, count), jnp.where(done, 0.0, ret)), out

    init = (reset_state, jnp.zeros(num_envs, jnp.int32), jnp.zeros(num_envs, jnp.float32))
    _, (done, count, ret, obs) = jax.jit(lambda k: jax.lax.scan(body, init, jax.random.split(k, horizon)))(key)
    done, count, ret, obs = map(np.asarray, (done, count, ret, obs))
    t = np.arange(horizon)[:, None] + np.zeros((1, num_envs), int)
    start = t - count + 1  # the step each finished episode began
    ended = done & (start < horizon - MAX_STEPS)
    lengths, returns = count[ended], ret[ended]
    # observations right after a reset: where an episode ended, the returned obs is the new one
    first_obs = obs[done & (t < horizon - 1)]
    return lengths, returns, first_obs


@pytest.fixture(scope="module")
def cartpole():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=MAX_STEPS)
    return env, params


@pytest.fixture(scope="module")
def truth(cartpole):
    env, params = cartpole
    lengths, returns = jax_episode_statistics(env, params, num_episodes=3000, seed=7)
    keys = jax.random.split(jax.random.key(8), 3000)
    reset_obs, _ = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    return lengths, returns, np.asarray(reset_obs)


def _assert_same_process(name, lengths, returns, first_obs, truth):
    t_lengths, t_returns, t_reset_obs = truth
    assert len(lengths) > 1500 and len(first_obs) > 1500
    checks = chi_square_check(f"{name} episode length", lengths.tolist(), t_lengths.tolist())
    checks.append(mean_check(f"{name} mean length", lengths, t_lengths))
    checks.append(mean_check(f"{name} mean return", returns, t_returns))
    checks += ks_check(f"{name} reset observation", first_obs, t_reset_obs)
    failed = [c.describe() for c in checks if not c.passed]
    assert not failed, failed


def test_make_vec_episodes_and_resets_match_independent_episodes(cartpole, truth):
    env, params = cartpole
    venv = VecEnv(env, NUM_ENVS)
    assert venv.reset_capacity < NUM_ENVS  # the compacting path, not a reset of everything
    obs, state = venv.reset(jax.random.key(1), params)
    lengths, returns, first_obs = _episodes(venv.step, obs, state, params, NUM_ENVS, HORIZON, jax.random.key(2))
    _assert_same_process("make_vec", lengths, returns, first_obs, truth)


@pytest.mark.parametrize(
    "num_envs,capacity,strategy", [(24, 16, "capacity"), (23, 5, "capacity"), (1, 1, "capacity"), (23, 5, "select")]
)
def test_every_env_finishing_at_once(num_envs, capacity, strategy):
    """`max_steps_in_episode=1`: every env ends every step, more than `reset_capacity` (two
    passes, the second partly padding; one batched reset of everything; a batch of one, its
    own path; every env reset and selected): each is reset from a key of its own."""
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=1)
    venv = VecEnv(env, num_envs, reset_capacity=capacity, reset_strategy=strategy)
    raw_step = jax.vmap(env.step, in_axes=(0, 0, 0, None))  # CartPole's step draws nothing
    step = jax.jit(venv.step)
    obs, state = venv.reset(jax.random.key(0), params)
    seen = [np.asarray(obs)]
    for t in range(6):
        actions = jnp.arange(num_envs) % 2
        raw_obs, *_ = raw_step(jax.random.split(jax.random.key(99), num_envs), state, actions, params)
        obs, state, reward, terminated, truncated, info = step(jax.random.key(t + 1), state, actions, params)
        assert np.all(np.asarray(truncated)) and np.all(np.asarray(state.time) == 0)
        np.testing.assert_allclose(info["final_observation"], raw_obs, rtol=1e-6, atol=1e-7)
        state_obs = np.stack([state.x, state.x_dot, state.theta, state.theta_dot], -1)
        np.testing.assert_allclose(obs, state_obs, rtol=1e-6, atol=1e-8)  # XLA may round the two apart
        assert np.all(np.abs(np.asarray(obs)) <= 0.05)
        seen.append(np.asarray(obs))
    seen = np.concatenate(seen)
    assert len(np.unique(seen[:, 0])) == len(seen)  # no two resets share a key


@pytest.mark.parametrize("strategy", ["capacity", "select"])
def test_some_envs_finishing_only_those_reset(strategy):
    """A mix: envs past their time limit (more than the capacity: two passes) reset, the
    others step on."""
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=5)
    venv = VecEnv(env, 32, reset_capacity=3, reset_strategy=strategy)
    obs, state = venv.reset(jax.random.key(0), params)
    state = state.replace(time=jnp.where(jnp.arange(32) % 7 == 0, 4, 0).astype(jnp.int32))  # 5 envs end now
    raw_obs, raw_state, *_ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
        jax.random.split(jax.random.key(5), 32), state, jnp.ones(32, jnp.int32), params
    )
    obs, new_state, reward, terminated, truncated, info = jax.jit(venv.step)(
        jax.random.key(1), state, jnp.ones(32, jnp.int32), params
    )
    ends = np.arange(32) % 7 == 0
    np.testing.assert_array_equal(np.asarray(truncated), ends & ~np.asarray(terminated))
    np.testing.assert_array_equal(np.asarray(new_state.time), np.where(ends, 0, 1))
    np.testing.assert_allclose(info["final_observation"], raw_obs, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(obs)[~ends], np.asarray(raw_obs)[~ends], rtol=1e-6, atol=1e-7)
    assert not np.allclose(np.asarray(obs)[ends], np.asarray(raw_obs)[ends])
    # the same key gives the same step
    again = jax.jit(venv.step)(jax.random.key(1), state, jnp.ones(32, jnp.int32), params)
    np.testing.assert_array_equal(again[0], obs)


@pytest.mark.parametrize("n,strategy", [(40, "capacity"), (1, "capacity"), (40, "select"), (1, "select")])
def test_vmapped_autoreset_equals_each_env_alone(n, strategy):
    """`jax.vmap(AutoReset(env).step)` (the batching rule: capacity passes, for one env the
    plain `cond`; or every env reset and selected) returns what stepping each env alone
    returns (`lax.map`), params batched too; the resets exactly, observations included, which
    are built from the returned states with `observe`."""
    env, params = jaxenvs.make("CartPole-v1", max_steps_in_episode=4, reset_strategy=strategy)
    # per-env params: a different pole length per env
    batch_params = jax.tree_util.tree_map(lambda x: jnp.full((n,), x), params)
    batch_params = batch_params.replace(length=jnp.linspace(0.3, 0.7, n))
    keys = jax.random.split(jax.random.key(0), n)
    obs, state = jax.vmap(env.reset)(keys, batch_params)
    # 36 envs end together every fourth step (one batched reset), the others on other steps
    # (passes of the default capacity, 16)
    state = state.replace(time=jnp.where(jnp.arange(n) < 36, 3, jnp.arange(n) % 4).astype(jnp.int32))

    def roll(step):
        def body(carry, k):
            _, s = carry
            ks = jax.random.split(k, n)
            actions = jax.random.bits(k, (n,)) % 2
            o, s, r, te, tr, info = step(ks, s, actions, batch_params)
            return (o, s), (o, s.time, te | tr, info["final_observation"])

        return jax.jit(lambda: jax.lax.scan(body, (obs, state), jax.random.split(jax.random.key(1), 12)))()

    batched = roll(jax.vmap(env.step))
    alone = roll(lambda ks, s, a, p: jax.lax.map(lambda x: env.step(*x), (ks, s, a, p)))
    assert int(batched[1][2].sum()) >= 2 * n  # every env ended at least twice
    for a, b in zip(jax.tree_util.tree_leaves(batched), jax.tree_util.tree_leaves(alone)):
        # the dynamics, vmapped over batched params, are compiled apart from the single env's
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)
    # the resets are a single env's (its own key), observations included: bit for bit, except
    # that a single env's "select" step (the reset fused into the select, inside `lax.map`)
    # may round a float draw's last bit apart from the batch's
    done = np.asarray(batched[1][2])
    same = np.testing.assert_array_equal
    if strategy == "select":
        same = functools.partial(np.testing.assert_allclose, rtol=2e-7, atol=4e-9)
    same(np.asarray(batched[1][0])[done], np.asarray(alone[1][0])[done])
    for a, b in zip(jax.tree_util.tree_leaves(batched[1][1]), jax.tree_util.tree_leaves(alone[1][1])):
        same(np.asarray(a)[done], np.asarray(b)[done])


@pytest.mark.parametrize("strategy", ["capacity", "select"])
def test_gradients_through_autoreset_batched_and_alone(strategy):
    env, params = jaxenvs.make("CartPole-v1", reset_strategy=strategy)
    keys = jax.random.split(jax.random.key(0), 6)
    _, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
    x = state.x.at[:3].set(3.0)  # three envs leave the track: reset, no gradient to x

    def batched_loss(x):
        obs, *_ = jax.vmap(env.step, in_axes=(0, 0, None, None))(keys, state.replace(x=x), 1, params)
        return obs[:, 0].sum()

    np.testing.assert_array_equal(jax.jit(jax.grad(batched_loss))(x), [0, 0, 0, 1, 1, 1])

    def alone_loss(x0):
        one = jax.tree_util.tree_map(lambda leaf: leaf[0], state).replace(x=x0)
        obs, *_ = env.step(keys[0], one, 1, params)
        return obs[0]

    assert float(jax.grad(alone_loss)(0.01)) == 1.0 and float(jax.grad(alone_loss)(3.0)) == 0.0


def _reset_uses_key(env, params) -> bool:
    """Whether an output of `env.reset(key, params)` depends on `key`, read off its jaxpr."""
    jaxpr = jax.make_jaxpr(env.reset)(jax.random.key(0), params).jaxpr
    depends = {id(jaxpr.invars[0])}
    for eqn in jaxpr.eqns:
        if any(id(v) in depends for v in eqn.invars if not hasattr(v, "val")):
            depends.update(id(v) for v in eqn.outvars)
    return any(id(v) in depends for v in jaxpr.outvars if not hasattr(v, "val"))


def test_reset_ignores_key_is_declared_where_the_reset_ignores_it(mnist_data_dir):
    """Every built-in env declares `reset_ignores_key` exactly where its reset reads no key
    (a false True would start every episode alike; a missing one only costs speed)."""
    from jaxenvs.registry import spec

    seen = {}
    for env_id in registered_envs():
        s = spec(env_id)
        if s.family not in BUILT_IN_FAMILIES or "/" in env_id or s.notes:
            continue
        env, params = jaxenvs.make(env_id, autoreset=False)
        raw = env.unwrapped
        seen[type(raw).__name__] = (raw.reset_ignores_key, not _reset_uses_key(env, params))
    assert len(seen) >= 30 and sum(declared for declared, _ in seen.values()) == 10
    assert {name: pair for name, pair in seen.items() if pair[0] != pair[1]} == {}


@pytest.mark.parametrize(
    "env_id,strategy", [("DeepSea-bsuite", "capacity"), ("Asterix-MinAtar", "capacity"), ("DeepSea-bsuite", "select")]
)
def test_a_reset_without_randomness_is_selected_where_done(env_id, strategy):
    """An env whose every episode starts alike (its reset ignores the key) takes one reset
    selected where an env finished: `make_vec` and the vmapped `AutoReset` give what stepping
    each env alone gives, the finished envs in the reset state, the others stepped on."""
    n, steps = 24, 40
    env, params = jaxenvs.make(env_id, autoreset=False)
    auto = AutoReset(env, reset_strategy=strategy)
    venv = VecEnv(env, n, reset_strategy=strategy)
    obs0, state0 = venv.reset(jax.random.key(0), params)
    # start the envs at different points of their episodes
    state0 = state0.replace(time=(jnp.arange(n) % 5).astype(jnp.int32))
    if env_id == "DeepSea-bsuite":
        state0 = state0.replace(row=(jnp.arange(n) % 10).astype(jnp.int32))
    first_obs, _ = env.reset(jax.random.key(7), params)

    def roll(step):
        def body(carry, k):
            _, s = carry
            actions = jax.random.bits(k, (n,)) % env.num_actions
            o, s, r, te, tr, info = step(k, s, actions)
            return (o, s), (o, te | tr, r, info["final_observation"])

        return jax.jit(lambda: jax.lax.scan(body, (obs0, state0), jax.random.split(jax.random.key(1), steps)))()

    def alone(k, s, a):  # each env by itself, MinAtar's sticky draws from the same per-env keys
        return jax.lax.map(lambda x: auto.step(*x, params), (jax.random.split(k, n), s, a))

    vmapped = roll(lambda k, s, a: jax.vmap(auto.step, in_axes=(0, 0, 0, None))(jax.random.split(k, n), s, a, params))
    expected = roll(alone)
    for a, b in zip(jax.tree_util.tree_leaves(vmapped), jax.tree_util.tree_leaves(expected)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    obs, done = np.asarray(vmapped[1][0]), np.asarray(vmapped[1][1])
    ended = n * steps // 10 if env_id == "DeepSea-bsuite" else 5  # DeepSea: 10 steps an episode
    assert done.sum() >= ended
    np.testing.assert_array_equal(obs[done], np.broadcast_to(np.asarray(first_obs), obs[done].shape))

    # make_vec: finished envs restart in the reset state, the others show the raw step
    (_, _), (vobs, vdone, _, vfinal) = roll(lambda k, s, a: jax.jit(venv.step)(k, s, a, params))
    vobs, vdone, vfinal = map(np.asarray, (vobs, vdone, vfinal))
    assert vdone.sum() >= ended
    np.testing.assert_array_equal(vobs[vdone], np.broadcast_to(np.asarray(first_obs), vobs[vdone].shape))
    np.testing.assert_array_equal(vobs[~vdone], vfinal[~vdone])


# the envs with `observe` and float observations: check_env (tests/test_conformance.py) already
# compares every integer or boolean observation with `observe` of its state exactly, and floats
# to 1e-5; here floats must be equal too, and under make_vec's batching
OBSERVE = ["Pong-misc", "CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0"]
OBSERVE += ["Pendulum-v1", "Catch-bsuite", "DeepSeaStochastic-bsuite", "MemoryChain-bsuite", "Reacher-misc"]


class Opaque(Wrapper):
    """Changes nothing, but does not declare `keeps_observation`: the batching rule cannot
    rebuild its observations with `observe`, and scatters the reset observations instead."""


@pytest.mark.parametrize("env_id", OBSERVE)
def test_observe_is_the_observation(env_id):
    """`observe` (which `make_vec` trusts to rebuild observations) gives exactly what
    `reset` and `step` return with the state."""
    env, params = jaxenvs.make(env_id, autoreset=False)
    assert env.observe is not None and Opaque(env).observe is None

    observe = jax.vmap(env.unwrapped.observe, in_axes=(0, None))
    venv = VecEnv(Opaque(env), 8)  # the observations the env itself returns

    def run(key):
        obs, state = venv.reset(key, params)

        def body(state, k):
            actions = jax.vmap(env.action_space(params).sample)(jax.random.split(k, 8))
            obs, state, *_ = venv.step(k, state, actions, params)
            return state, jnp.array_equal(observe(state, params), obs)

        _, same = jax.lax.scan(body, state, jax.random.split(key, 40))
        return same.all() & jnp.array_equal(observe(state, params), obs)

    assert bool(jax.jit(run)(jax.random.key(3)))


@pytest.mark.parametrize("env_id", ["Breakout-MinAtar", "Asterix-MinAtar", "CartPole-v1"])
def test_make_vec_observe_changes_nothing(env_id):
    """With `observe` (observation rebuilt once from the returned state) and without it
    (reset observations scattered into the step's), `make_vec` returns the same arrays (bit for
    bit, floats up to XLA's rounding): the random stream and every result are unchanged
    (Breakout's and CartPole's resets draw, Asterix's does not)."""
    n, steps = 64, 120
    env, params = jaxenvs.make(env_id, autoreset=False)
    fast, general = VecEnv(env, n, reset_capacity=16), VecEnv(Opaque(env), n, reset_capacity=16)

    def roll(venv):
        def body(carry, k):
            obs, state = carry
            actions = jax.random.randint(k, (n,), 0, env.num_actions)
            out = venv.step(k, state, actions, params)
            return (out[0], out[1]), out

        init = venv.reset(jax.random.key(0), params)
        return jax.jit(lambda: jax.lax.scan(body, init, jax.random.split(jax.random.key(1), steps)))()

    a, b = roll(fast), roll(general)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        if jnp.issubdtype(x.dtype, jnp.floating):
            # the two programs fuse differently, and XLA may round a float differently in each
            np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-7)
        else:
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    done = np.asarray(a[1][3] | a[1][4])
    assert done.sum() >= 10  # resets happened


def test_a_wrapper_that_changes_observations_keeps_the_general_way():
    from jaxenvs.wrappers.pixel import PixelObservation

    env, _ = jaxenvs.make("Breakout-MinAtar", autoreset=False)
    assert PixelObservation(env).observe is None
    assert env.observe is not None


def test_eager_step_checks_every_action_of_the_batch():
    venv, params = jaxenvs.make_vec("CartPole-v1", 4)
    state = None  # the actions are checked before the state is read
    with pytest.raises(ValueError, match=r"CartPole: invalid action \[ 0,  0,  0, -1\] \(out of range\)"):
        venv.step(jax.random.key(1), state, jnp.array([0, 0, 0, -1]), params)
    with pytest.raises(ValueError, match=r"shape \(3,\), expected \(4,\)"):
        venv.step(jax.random.key(1), state, jnp.array([0, 0, 0]), params)
    pend, params = jaxenvs.make_vec("Pendulum-v1", 2)
    with pytest.raises(ValueError, match=r"Pendulum: invalid action .* \(not finite"):
        pend.step(jax.random.key(1), state, np.array([[0.0], [np.nan]], np.float32), params)


def test_vmap_with_a_batched_key_over_make_vec_is_a_clear_error():
    """`jax.vmap(venv.reset)` would batch the batch ((8, 8, 4) for 8 keys): it raises, eagerly
    and under jit, naming what to do instead."""
    venv, params = jaxenvs.make_vec("CartPole-v1", 8)
    keys = jax.random.split(jax.random.key(0), 8)
    _, state = venv.reset(jax.random.key(0), params)
    needles = r"make_vec already batches \(num_envs=8\).*jaxenvs.make\(id\).*one key.*allow_vmap=True"
    with pytest.raises(ValueError, match=needles):
        jax.vmap(venv.reset, in_axes=(0, None))(keys, params)
    with pytest.raises(ValueError, match=needles):
        jax.jit(jax.vmap(venv.reset, in_axes=(0, None)))(keys, params)
    batched_state = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), state)
    with pytest.raises(ValueError, match="make_vec step with a batched key"):
        jax.vmap(venv.step, in_axes=(0, 0, None, None))(keys[:2], batched_state, jnp.zeros(8, jnp.int32), params)


def test_a_batch_of_batches_on_purpose():
    """With one key, vmapping over params is allowed; with `allow_vmap=True` a vmap over keys
    gives each key's batch, exactly as calling the batch with that key alone."""
    venv, params = jaxenvs.make_vec("CartPole-v1", 8)
    many = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), params.replace(gravity=9.8))
    many = many.replace(gravity=jnp.asarray([9.8, 20.0]))
    obs, _ = jax.jit(jax.vmap(venv.reset, in_axes=(None, 0)))(jax.random.key(0), many)
    assert obs.shape == (2, 8, 4)

    nested, params = jaxenvs.make_vec("CartPole-v1", 8, allow_vmap=True, max_steps_in_episode=1)
    keys = jax.random.split(jax.random.key(1), 2)

    def rollout(key):
        obs, state = nested.reset(key, params)
        return nested.step(jax.random.fold_in(key, 1), state, jnp.ones(8, jnp.int32), params)

    batched = jax.jit(jax.vmap(rollout))(keys)
    assert batched[0].shape == (2, 8, 4) and bool(batched[4].all())  # truncated, and reset
    alone = jax.jit(rollout)
    for i in range(2):
        for x, y in zip(jax.tree_util.tree_leaves(batched), jax.tree_util.tree_leaves(alone(keys[i]))):
            np.testing.assert_allclose(np.asarray(x[i]), np.asarray(y), rtol=1e-6, atol=1e-7)
    with pytest.raises(TypeError, match="allow_vmap must be True or False"):
        VecEnv(jaxenvs.make("CartPole-v1", autoreset=False)[0], 4, allow_vmap="yes")


def test_num_envs_is_limited_to_what_int32_indexes():
    """A step of 2**30 envs traces without an int32 overflow (traced only: nothing is
    allocated); more envs (2**31 - 1 overflowed) are refused before anything is built, naming
    num_envs, the value and the range; so is a capacity that would overflow with them."""
    from jaxenvs.wrappers.vector import MAX_NUM_ENVS

    assert MAX_NUM_ENVS == 2**30
    for bad in (MAX_NUM_ENVS + 1, 2**31 - 1):
        with pytest.raises(
            ValueError, match=rf"CartPole-v1: num_envs must be an int in \[1, {MAX_NUM_ENVS}\].*got {bad}"
        ):
            jaxenvs.make_vec("CartPole-v1", bad)
    venv, params = jaxenvs.make_vec("CartPole-v1", MAX_NUM_ENVS)
    key = jax.random.key(0)
    _, state = jax.eval_shape(venv.reset, key, params)
    obs, *_ = jax.eval_shape(venv.step, key, state, jax.ShapeDtypeStruct((MAX_NUM_ENVS,), jnp.int32), params)
    assert obs.shape == (MAX_NUM_ENVS, 4)
    with pytest.raises(
        ValueError, match=rf"reset_capacity must be an int in \[1, {MAX_NUM_ENVS - 1}\], got {MAX_NUM_ENVS}"
    ):
        VecEnv(venv.env, MAX_NUM_ENVS, reset_capacity=MAX_NUM_ENVS)
