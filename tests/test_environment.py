"""The base class's checks: actions exactly and eagerly, action shapes at trace time, keys."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.registry import BUILT_IN_FAMILIES


def test_integer_actions_are_checked_exactly_eagerly():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    with pytest.raises(ValueError, match=r"CartPole: invalid action np.int64\(4294967297\) \(out of range\)"):
        env.step(jax.random.key(1), state, np.int64(2**32 + 1), params)  # int32 would read 1
    with pytest.raises(ValueError, match="valid actions are an integer in \\[0, 1\\]$"):
        env.step(jax.random.key(1), state, 2**31, params)  # not an OverflowError
    env.step(jax.random.key(1), state, np.int64(1), params)


@pytest.mark.parametrize("env_id", ["Taxi-v4", "Blackjack-v1", "FrozenLake-v1", "CartPole-v1"])
def test_a_wrong_action_shape_under_jit_raises_naming_the_action(env_id):
    env, params = jaxenvs.make(env_id)
    _, state = env.reset(jax.random.key(0), params)
    with pytest.raises(ValueError, match=r"invalid action of shape \(2,\)"):
        jax.jit(env.step)(jax.random.key(1), state, jnp.array([0, 1]), params)


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "MountainCarContinuous-v0", "Reacher-misc", "PointRobot-misc"])
def test_non_finite_and_huge_continuous_actions_give_finite_output_under_jit(env_id):
    env, params = jaxenvs.make(env_id, autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    step = jax.jit(env.step)
    shape = env.action_space(params).shape
    for value in (jnp.nan, jnp.inf, -jnp.inf, 3e38, -1e30):
        obs, _, reward, *_ = step(jax.random.key(1), state, jnp.full(shape, value, jnp.float32), params)
        assert bool(jnp.all(jnp.isfinite(obs))) and bool(jnp.isfinite(reward)), value
        assert bool(env.observation_space(params).contains(obs)), value


@pytest.mark.parametrize("env_id", ["CartPole-v1", "DeepSea-bsuite"])
def test_a_key_that_is_no_key_is_a_clear_error(env_id):
    env, params = jaxenvs.make(env_id)
    for key in (None, 0, np.zeros(3, np.uint32)):
        with pytest.raises(TypeError, match="key must be one JAX PRNG key"):
            env.reset(key, params)
    env.reset(jax.random.PRNGKey(0), params)  # a raw uint32[2] key is one


@pytest.mark.parametrize("env_id", ["pgx/tic_tac_toe", "jumanji/Snake-v1", "brax/fast"])
def test_an_int_or_none_key_into_an_adapter_is_a_clear_error(env_id):
    pytest.importorskip(env_id.split("/")[0])
    env, params = jaxenvs.make(env_id)
    for key in (None, 0):
        with pytest.raises(TypeError, match=f"{env_id}: key must be one JAX PRNG key"):
            env.reset(key, params)


def _run_past_the_end(env_id, extra_steps=3, action=0, **overrides):
    """Steps of the raw env from reset until the episode ends, then `extra_steps` more, in
    one jitted scan: the per-step outputs and the index of the ending step."""
    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    space = env.action_space(params)
    act = jnp.zeros(space.shape, space.dtype) + action

    def run(key):
        _, state = env.reset(key, params)

        def body(state, k):
            obs, state, reward, terminated, truncated, info = env.step(k, state, act, params)
            return state, (obs, state, reward, terminated, truncated, info["discount"])

        return jax.lax.scan(body, state, jax.random.split(key, 40))[1]

    out = jax.tree_util.tree_map(np.asarray, jax.jit(run)(jax.random.key(0)))
    done = out[3] | out[4]
    assert done.any(), f"{env_id}: the episode did not end within 40 steps"
    end = int(np.argmax(done))
    assert end + extra_steps < 40
    return out, end


@pytest.mark.parametrize(
    "env_id, overrides, ended_by",
    [
        ("CartPole-v1", {}, "terminated"),  # pushed left only, the pole falls within 40 steps
        ("Pendulum-v1", {"max_steps_in_episode": 5}, "truncated"),
        ("Breakout-MinAtar", {"max_steps_in_episode": 7}, "truncated"),
    ],
)
def test_the_raw_env_is_absorbing_past_the_end_of_an_episode(env_id, overrides, ended_by):
    """After `terminated` or `truncated`, a raw step returns the same state and observation,
    reward 0, and the same flags (CartPole used to pay reward 1 forever)."""
    (obs, state, reward, terminated, truncated, discount), end = _run_past_the_end(env_id, **overrides)
    flags = terminated if ended_by == "terminated" else truncated
    assert flags[end] and flags[end:].all()
    np.testing.assert_array_equal(terminated[end:], terminated[end])
    np.testing.assert_array_equal(truncated[end:], truncated[end])
    np.testing.assert_array_equal(discount[end:], discount[end])
    assert (reward[end + 1 :] == 0).all()
    assert reward[end] != 0 or env_id != "CartPole-v1"  # the ending step itself still pays
    for leaf in jax.tree_util.tree_leaves((obs, state)):
        np.testing.assert_array_equal(leaf[end + 1 :], np.broadcast_to(leaf[end], leaf[end + 1 :].shape))
    assert not (obs[end] == obs[end - 1]).all()  # before the end the env moved


def test_checked_turns_a_step_past_the_end_into_an_error():
    from jax.experimental import checkify

    from jaxenvs.wrappers import Checked

    env, params = jaxenvs.make("Pendulum-v1", autoreset=False, max_steps_in_episode=2)
    checked = Checked(env)
    _, state = checked.reset(jax.random.key(0), params)
    action = jnp.zeros((1,), jnp.float32)
    for t in range(2):
        _, state = checked.step(jax.random.key(t), state, action, params)[:2]
    with pytest.raises(checkify.JaxRuntimeError, match=r"episode has ended .* at time 2.*reset it first"):
        checked.step(jax.random.key(9), state, action, params)


def test_is_terminal_is_the_terminated_flag_and_wrappers_do_not_expose_it():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    raw = env.unwrapped
    _, state = raw.reset(jax.random.key(0), params)
    assert not bool(raw.is_terminal(state, params))
    assert bool(raw.is_terminal(state.replace(theta=jnp.float32(0.5)), params))
    # a layer that keeps states (the guard) answers with the raw env's; auto-reset, whose
    # returned state starts the next episode where the flags ended one, and a layer that changes
    # observations declare none
    assert bool(env.is_terminal(state.replace(theta=jnp.float32(0.5)), params))
    auto, _ = jaxenvs.make("CartPole-v1")
    assert auto.is_terminal is None and auto.truncation is None and auto.observe is None
    pixels = jaxenvs.wrappers.PixelObservation(env)
    assert pixels.is_terminal is None and pixels.observe is None and pixels.truncation is None


def test_the_auto_reset_env_never_absorbs():
    """Under auto-reset a finished episode starts again in the same step, as before."""
    env, params = jaxenvs.make("Pendulum-v1", max_steps_in_episode=3)
    _, state = env.reset(jax.random.key(0), params)
    step = jax.jit(env.step)
    for t in range(7):
        _, state, reward, _, truncated, _ = step(jax.random.key(t), state, jnp.zeros((1,), jnp.float32), params)
        assert bool(truncated) == (t % 3 == 2) and float(reward) != 0.0


def test_overriding_observe_changes_every_observation():
    """`observe` is the one method to override: reset, step, the absorbing step and
    make_vec (which rebuilds observations from states with it) all return the new one."""
    from jaxenvs import spaces
    from jaxenvs.envs.classic.cartpole import CartPole
    from jaxenvs.wrappers import VecEnv

    class PositionsOnly(CartPole):
        def observe(self, state, params):
            return jnp.stack([state.x, state.theta]).astype(jnp.float32)

        def observation_space(self, params=None):
            return spaces.Box(-jnp.inf, jnp.inf, (2,), jnp.float32)

    env = PositionsOnly()
    params = env.default_params.replace(max_steps_in_episode=4)
    obs, state = env.reset(jax.random.key(0), params)
    np.testing.assert_array_equal(obs, [state.x, state.theta])
    for t in range(5):  # the last step is past the end (absorbing)
        obs, state, *_ = env.step(jax.random.key(t), state, 1, params)
        np.testing.assert_array_equal(obs, [state.x, state.theta])
    venv = VecEnv(env, 16)
    assert venv.env.observe is not None  # the fast path, observations rebuilt with `observe`

    def rollout(key):
        obs, state = venv.reset(key, params)

        def body(state, k):
            obs, state, _, _, truncated, info = venv.step(k, state, jnp.ones(16, jnp.int32), params)
            return state, (obs, state, truncated, info["final_observation"])

        return obs, state, jax.lax.scan(body, state, jax.random.split(key, 6))[1]

    obs, state, (b_obs, b_state, truncated, final) = jax.jit(rollout)(jax.random.key(1))
    assert obs.shape == (16, 2) and b_obs.shape == final.shape == (6, 16, 2) and bool(truncated.any())
    np.testing.assert_array_equal(obs, jnp.stack([state.x, state.theta], -1))
    np.testing.assert_array_equal(b_obs, jnp.stack([b_state.x, b_state.theta], -1))


def test_the_guard_is_the_absorbing_layer_and_the_raw_step_is_the_transition():
    """`make(id, autoreset=False)` absorbs past the end (its `Absorbing` layer); the raw
    env's own `step`, and `AutoReset` and `make_vec` (which drop that layer), run the
    transition as `step_env` says."""
    from jaxenvs.wrappers import Absorbing, AutoReset, VecEnv

    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    assert isinstance(env, Absorbing)
    _, state = env.reset(jax.random.key(0), params)
    fallen = state.replace(theta=jnp.float32(0.5))
    absorbed = env.step(jax.random.key(1), fallen, 1, params)
    assert float(absorbed[2]) == 0.0 and float(absorbed[1].theta) == 0.5
    moved = env.unwrapped.step(jax.random.key(1), fallen, 1, params)
    assert float(moved[2]) == 1.0 and float(moved[1].theta) != 0.5 and bool(moved[3])
    assert not isinstance(AutoReset(env).env, Absorbing) and not isinstance(VecEnv(env, 2).env, Absorbing)


def test_default_params_defaults_to_the_declared_params_class():
    """`default_params` is `Params()` of `Environment[State, Params]`, also in a subclass of a
    subclass; a class that names no params class raises `NotImplementedError` as before."""
    from flax import struct

    from jaxenvs.environment import Environment, EnvParams, EnvState

    @struct.dataclass
    class SomeState(EnvState):
        x: jax.Array

    @struct.dataclass
    class SomeParams(EnvParams):
        speed: float = 2.5

    class Declared(Environment[SomeState, SomeParams]):
        pass

    class Derived(Declared):
        pass

    class Overridden(Derived):
        @property
        def default_params(self):
            return SomeParams(speed=1.0)

    class Undeclared(Environment):
        pass

    assert Declared().default_params == SomeParams() and type(Declared().default_params) is SomeParams
    assert Derived().default_params == SomeParams()
    assert Overridden().default_params == SomeParams(speed=1.0)
    for env in (Undeclared(), Environment()):
        with pytest.raises(NotImplementedError):
            _ = env.default_params


@pytest.mark.parametrize("env_id", [i for f in BUILT_IN_FAMILIES for i in jaxenvs.registered_envs(f)])
def test_params_none_is_the_defaults_on_the_spaces(env_id):
    """`params=None` (or left out) is `default_params` on the spaces, raw and wrapped, by the one
    rule (`environment.resolve_params`)."""
    available = jaxenvs.registry.availability(env_id)
    if not available.runnable:
        pytest.skip(available.reason)
    for autoreset in (False, True):
        try:
            env, params = jaxenvs.make(env_id, autoreset=autoreset)
        except (ImportError, FileNotFoundError, OSError) as e:  # MNIST's data, not here
            pytest.skip(f"{env_id}: {type(e).__name__}")
        for layer in (env, env.unwrapped):
            for space in ("observation_space", "action_space"):
                given = getattr(layer, space)(layer.default_params)
                assert repr(getattr(layer, space)()) == repr(given), (env_id, layer, space)
                assert repr(getattr(layer, space)(None)) == repr(given), (env_id, layer, space)
        assert repr(env.observation_space()) == repr(env.observation_space(params))


def test_another_envs_params_or_state_is_a_type_error_naming_both():
    cartpole, cp_params = jaxenvs.make("CartPole-v1", autoreset=False)
    pendulum, pd_params = jaxenvs.make("Pendulum-v1", autoreset=False)
    key = jax.random.key(0)
    _, cp_state = cartpole.reset(key, cp_params)
    _, pd_state = pendulum.reset(key, pd_params)
    for call in (
        lambda: cartpole.reset(key, pd_params),
        lambda: cartpole.step(key, cp_state, 1, pd_params),
        lambda: jax.jit(cartpole.step)(key, cp_state, 1, pd_params),
    ):
        with pytest.raises(TypeError, match="params must be a CartPoleParams .*got a PendulumParams"):
            call()
    for env in (cartpole, cartpole.unwrapped, jaxenvs.make("CartPole-v1")[0]):
        with pytest.raises(TypeError, match="state must be a CartPoleState .*got a PendulumState"):
            env.step(key, pd_state, 1, cp_params)

    # a subclass of the env's params stays accepted
    from flax import struct

    from jaxenvs.envs.classic.cartpole.env import CartPoleParams

    @struct.dataclass
    class Longer(CartPoleParams):
        note: int = 0

    params = Longer(length=0.75)
    obs, state = cartpole.reset(key, params)
    assert cartpole.step(key, state, 1, params)[0].shape == (4,)


def test_replace_with_unknown_names_lists_the_valid_ones():
    _, params = jaxenvs.make("CartPole-v1")
    with pytest.raises(
        TypeError, match=r"unknown field\(s\) 'lenght' \(did you mean 'length'.*valid fields are: .*length"
    ):
        params.replace(lenght=1.0)
    assert params.replace(length=1.0).length == 1.0


def test_the_builder_orders_the_layers_in_one_place():
    """`make`, `make_vec` and the gymnax export go through `registry.build`; the layers come
    from `registry.apply_layers`, in its order (levels, end of episode, batch)."""
    from jaxenvs.registry import apply_layers, build
    from jaxenvs.wrappers import Absorbing, AutoReset, Levels, RegisteredDefaults, VecEnv

    env, params = build("CartPole-v1", max_steps_in_episode=9)
    assert isinstance(env, RegisteredDefaults) and env.default_params.max_steps_in_episode == 9
    sample = lambda key: jaxenvs.levels.Level()  # noqa: E731
    single = apply_layers(env, levels=sample)
    assert isinstance(single, AutoReset) and isinstance(single.env, Levels) and single.env.env is env
    assert isinstance(apply_layers(env, autoreset=False), Absorbing)
    batch = apply_layers(env, num_envs=3, levels=sample)
    assert isinstance(batch, VecEnv) and isinstance(batch.env, Levels) and batch.env.env is env
    made, _ = jaxenvs.make_vec("CartPole-v1", 3, max_steps_in_episode=9)
    assert isinstance(made, VecEnv) and isinstance(made.env, RegisteredDefaults)  # nothing added, then unwrapped
    assert repr(jaxenvs.make("CartPole-v1", max_steps_in_episode=9)[0]) == repr(apply_layers(env))


def test_a_batch_native_env_declares_reset_rows_and_gets_no_batch_layer():
    """A family whose raw env is already a batch declares `reset_rows`: the builder adds the
    auto-reset layer alone, and the one auto-reset step resets its rows with that hook."""
    from jaxenvs.registry import apply_layers
    from jaxenvs.wrappers import AutoReset, VecEnv

    inner, params = jaxenvs.make_vec("CartPole-v1", 4, max_steps_in_episode=3)
    calls = []

    class Batch(jaxenvs.wrappers.Wrapper):
        """A batch (here a VecEnv's, its own auto-reset bypassed) that resets rows itself."""

        def step(self, key, state, action, params=None):
            return jax.vmap(self.env.env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(key, 4), state, action, self.env.default_params if params is None else params
            )

        def reset_rows(self, done, key, obs, state, params):
            calls.append(done.shape)
            new_obs, new_state = self.env.reset(key, params)
            keep = lambda new, old: jnp.where(done.reshape(done.shape + (1,) * (old.ndim - 1)), new, old)  # noqa: E731
            return jax.tree_util.tree_map(keep, (new_obs, new_state), (obs, state))

    batch = Batch(inner)
    env = apply_layers(batch, num_envs=4)
    assert isinstance(env, AutoReset) and not isinstance(env, VecEnv)
    _, state = env.reset(jax.random.key(0), params)
    for t in range(3):
        _, state, _, _, truncated, info = env.step(jax.random.key(t + 1), state, jnp.ones(4, jnp.int32), params)
    assert bool(truncated.all()) and calls and calls[-1] == (4,)
    assert np.all(np.asarray(state.time) == 0)  # every row reset by the hook
    assert info["final_observation"].shape == (4, 4)
