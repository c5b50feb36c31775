"""`jaxenvs.export.gymnax.make(id)` of an id gymnax defines is gymnax's task: its settings, state
layout, gradients and registry behaviour, compared with gymnax's own env (through the
`gymnax/<id>` adapter or gymnax's classes directly). The reference's task stays `jaxenvs.make`'s."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnax = pytest.importorskip("gymnax")
from gymnax.environments.classic_control import acrobot as gymnax_acrobot  # noqa: E402
from gymnax.environments.classic_control import cartpole as gymnax_cartpole  # noqa: E402
from gymnax.environments.minatar import breakout as gymnax_breakout  # noqa: E402

import jaxenvs  # noqa: E402
from jaxenvs.export import gymnax as jaxenvs_gymnax  # noqa: E402
from jaxenvs.export.gymnax import GYMNAX_TASKS  # noqa: E402

# MNIST's gymnax env downloads its data when built
IDS = [i for i in GYMNAX_TASKS if i != "MNISTBandit-bsuite"]
KEY = jax.random.key(0)


@pytest.mark.parametrize("env_id", IDS)
def test_the_export_has_the_settings_of_gymnax_own_env(env_id):
    """Step limit, every params field gymnax shares, action space and observation space (shape and
    dtype) equal those of gymnax's env of the same id (the `gymnax/<id>` adapter)."""
    export, params = jaxenvs_gymnax.make(env_id)
    adapter, adapter_params = jaxenvs.make(f"gymnax/{env_id}", autoreset=False)
    g_env, g_params = gymnax.make(env_id)
    assert export.num_actions == adapter.num_actions
    assert tuple(export.observation_space(params).shape) == tuple(adapter.observation_space(adapter_params).shape)
    assert params.max_steps_in_episode == g_params.max_steps_in_episode
    for name in g_params.__dataclass_fields__:
        if hasattr(params, name):
            assert np.allclose(np.asarray(getattr(params, name)), np.asarray(getattr(g_params, name))), name
    ours_a, g_a = export.action_space(params), g_env.action_space(g_params)
    assert type(ours_a).__name__ == type(g_a).__name__ and ours_a.shape == g_a.shape
    assert getattr(ours_a, "n", None) == getattr(g_a, "n", None)
    ours_o, g_o = export.observation_space(params), g_env.observation_space(g_params)
    assert tuple(ours_o.shape) == tuple(g_o.shape)
    obs, _ = jax.eval_shape(lambda k: export.reset(k, params), KEY)
    g_obs, _ = jax.eval_shape(lambda k: g_env.reset(k, g_params), KEY)
    assert obs.shape == g_obs.shape and obs.dtype == g_obs.dtype
    assert env_id in repr(export) and "settings='gymnax'" in repr(export)


def test_the_reference_task_is_jaxenvs_make_and_stays_the_default_of_jaxenvs_make():
    ours, params = jaxenvs_gymnax.make("Breakout-MinAtar", settings="reference")
    _, reference = jaxenvs.make("Breakout-MinAtar")
    assert ours.num_actions == 6 and params.max_steps_in_episode == reference.max_steps_in_episode == 10_000
    assert params.sticky_action_prob == reference.sticky_action_prob == 0.1
    gym_task, gym_params = jaxenvs_gymnax.make("Breakout-MinAtar")
    assert gym_task.num_actions == 3 and gym_params.sticky_action_prob == 0.0
    assert gym_task != ours and "settings" not in repr(ours)
    lake, _ = jaxenvs_gymnax.make("FrozenLake-misc", settings="reference")
    assert lake.jax_env.unwrapped.name == jaxenvs.make("FrozenLake-v1")[0].unwrapped.name
    with pytest.raises(ValueError, match="settings must be one of"):
        jaxenvs_gymnax.make("CartPole-v1", settings="gymnasium")


def test_a_gymnax_state_steps_as_in_gymnax_and_the_state_has_gymnax_names():
    """gymnax's own EnvState objects go into the export's step; the returned state reads and
    replaces by gymnax's field names; the transition equals gymnax's own from the same state."""
    g_env, g_params = gymnax.make("Acrobot-v1")
    export, params = jaxenvs_gymnax.make("Acrobot-v1")
    _, g_state = g_env.reset(KEY, g_params)
    assert isinstance(g_state, gymnax_acrobot.EnvState)
    step = jax.jit(export.step_env)
    g_obs, g_next, g_reward, g_term, _ = jax.jit(g_env.step_env)(KEY, g_state, 1, g_params)
    obs, state, reward, term, _ = step(KEY, g_state, 1, params)
    assert isinstance(state, gymnax_acrobot.EnvState)
    np.testing.assert_allclose(obs, g_obs, atol=1e-5)
    np.testing.assert_allclose(state.joint_angle1, g_next.joint_angle1, atol=1e-5)
    assert float(reward) == float(g_reward) and bool(term) == bool(g_term)
    moved = state.replace(velocity_1=jnp.float32(1.0))
    assert float(export.get_obs(moved)[4]) == 1.0

    g_env, g_params = gymnax.make("Breakout-MinAtar")
    export, params = jaxenvs_gymnax.make("Breakout-MinAtar")
    _, g_state = g_env.reset(KEY, g_params)
    assert isinstance(g_state, gymnax_breakout.EnvState)
    for action in (0, 1, 2):  # gymnax's minimal set: no-op, left, right
        g_obs, g_next, g_reward, *_ = g_env.step_env(KEY, g_state, action, g_params)
        obs, state, reward, *_ = jax.jit(export.step_env)(KEY, g_state, action, params)
        assert obs.dtype == jnp.float32
        np.testing.assert_array_equal(obs, g_obs)
        assert int(state.pos) == int(g_next.pos) and float(reward) == float(g_reward)

    g_state = gymnax_cartpole.EnvState(x=0.0, x_dot=0.0, theta=0.3, theta_dot=0.0, time=0)
    export, params = jaxenvs_gymnax.make("CartPole-v1")
    _, _, _, terminated, truncated, _ = export.step(KEY, g_state, 0, params)
    assert bool(terminated) and not bool(truncated)
    with pytest.raises(TypeError, match="none of the fields"):
        export.env_state(gymnax_acrobot.EnvState(0.0, 0.0, 0.0, 0.0, 0))


def test_gymnax_info_keys_and_time_limits():
    export, params = jaxenvs_gymnax.make("FrozenLake-misc")
    g_env, g_params = gymnax.make("FrozenLake-misc")
    _, state = export.reset(KEY, params)
    _, g_state = g_env.reset(KEY, g_params)
    info = export.step(KEY, state, 0, params)[5]
    g_info = g_env.step(KEY, g_state, 0, g_params)[5]
    assert set(info) == set(g_info)
    assert state.position.shape == g_state.position.shape and state.position.dtype == g_state.position.dtype


def test_gradients_stopped_by_default_and_as_gymnax_with_transition_gradients():
    export, params = jaxenvs_gymnax.make("Pendulum-v1")
    g_env, g_params = gymnax.make("Pendulum-v1")
    _, state = g_env.reset(KEY, g_params)
    assert export.supports_transition_gradients and not export.transition_gradients_enabled

    def jac(env):
        return jax.jacrev(lambda a: env.step(KEY, state, a, params)[0])(jnp.array([0.3]))

    assert np.all(np.asarray(jac(export)) == 0)
    opted = export.with_transition_gradients()
    assert opted != export and hash(opted) != hash(export)
    ours, theirs = (
        jac(opted),
        jax.jacrev(lambda a: g_env.with_transition_gradients().step(KEY, state, a, g_params)[0])(jnp.array([0.3])),
    )
    assert np.any(np.abs(np.asarray(ours)) > 1e-6)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    for env_id in ("CartPole-v1", "Breakout-MinAtar", "FrozenLake-misc"):
        with pytest.raises(ValueError, match="does not support transition gradients"):
            jaxenvs_gymnax.make(env_id)[0].with_transition_gradients()
    # an id gymnax lacks: a continuous action is differentiable, a discrete one is not
    assert jaxenvs_gymnax.make("MountainCarContinuous-v0", settings="reference")[0].supports_transition_gradients
    assert not jaxenvs_gymnax.make("Blackjack-v1")[0].supports_transition_gradients


def test_registration_keeps_gymnax_order_and_registers_only_what_builds_here():
    from gymnax import registration

    from jaxenvs.registry import availability

    own = list(
        registration.registered_envs[: registration.registered_envs.index("jaxenvs/" + jaxenvs.registered_envs()[0])]
    )
    assert own[:3] == ["CartPole-v1", "Pendulum-v1", "Acrobot-v1"] and own[-1] == "FrozenLake-misc"
    ours = [i.removeprefix("jaxenvs/") for i in registration.registered_envs if i.startswith("jaxenvs/")]
    assert "FrozenLake-misc" in ours
    for env_id in ours:
        target = GYMNAX_TASKS[env_id].jaxenvs_id if env_id in GYMNAX_TASKS else env_id
        assert availability(target).runnable, env_id
    env, params = gymnax.make("jaxenvs/Breakout-MinAtar", step_api="gymnax0")
    assert env.num_actions == 3 and env.step_api == "gymnax0" and params.max_steps_in_episode == 1000


def test_pendulum_state_has_gymnax_last_u():
    """gymnax's Pendulum state keeps the clipped torque of the last step (`last_u`, 0 at reset):
    the export's state is gymnax's class and holds the same value as gymnax's own step."""
    from gymnax.environments.classic_control import pendulum as gymnax_pendulum

    export, params = jaxenvs_gymnax.make("Pendulum-v1")
    g_env, g_params = gymnax.make("Pendulum-v1")
    _, state = export.reset(KEY, params)
    _, g_state = g_env.reset(KEY, g_params)
    assert isinstance(state, gymnax_pendulum.EnvState) and float(state.last_u) == 0.0
    for action in (jnp.array([3.0]), jnp.array([-0.5])):  # clipped to max_torque = 2, then kept
        _, state, *_ = jax.jit(export.step)(KEY, g_state, action, params)
        _, g_next, *_ = g_env.step(KEY, g_state, action, g_params)
        assert float(state.last_u) == float(g_next.last_u)
        np.testing.assert_allclose(state.theta, g_next.theta, atol=1e-6)


def test_discounting_chain_ends_truncated_only_at_the_limit_as_gymnax():
    """gymnax's DiscountingChain never terminates: its episode ends truncated at the time limit,
    where `jaxenvs.make`'s (bsuite's) ends terminated as well."""
    export, params = jaxenvs_gymnax.make("DiscountingChain-bsuite")
    g_env, g_params = gymnax.make("DiscountingChain-bsuite")
    _, state = export.reset(KEY, params)
    _, g_state = g_env.reset(KEY, g_params)
    step, g_step = jax.jit(export.step), jax.jit(g_env.step)
    for t in range(params.max_steps_in_episode):
        key = jax.random.key(t)
        _, state, _, term, trunc, info = step(key, state, 1, params)
        _, g_state, _, g_term, g_trunc, g_info = g_step(key, g_state, 1, g_params)
        assert (bool(term), bool(trunc)) == (bool(g_term), bool(g_trunc)), t
        assert float(info["discount"]) == float(g_info["discount"])
    assert bool(trunc) and not bool(term) and int(state.time) == 0
    assert not bool(export.is_terminated(state, params))
    _, raw_params = jaxenvs.make("DiscountingChain-bsuite", autoreset=False)
    assert raw_params.episode_len == params.max_steps_in_episode  # bsuite's end, reported terminated there


def test_make_stands_in_for_gymnax_make_for_ids_only_gymnax_registers(monkeypatch):
    """An id a user registered with gymnax is gymnax's own make of it; an id neither knows
    raises gymnax's ValueError, which is also jaxenvs' UnknownEnvError."""
    from gymnax import registration

    from jaxenvs.export.gymnax import UnknownGymnaxEnvError

    monkeypatch.setattr(registration, "_registry", dict(registration._registry))
    monkeypatch.setattr(registration, "registered_envs", list(registration.registered_envs))
    gymnax_cartpole_env = gymnax_cartpole.CartPole
    gymnax.register("MyCartPole-v0", lambda **kw: gymnax_cartpole_env(**kw))
    env, params = jaxenvs_gymnax.make("MyCartPole-v0")
    assert type(env) is gymnax_cartpole.CartPole and params.max_steps_in_episode == 500
    with pytest.raises(ValueError, match="not in registered gymnax environments") as caught:
        jaxenvs_gymnax.make("CartPole-v9")
    assert isinstance(caught.value, (UnknownGymnaxEnvError, jaxenvs.UnknownEnvError))
    assert "CartPole-v1" in caught.value.closest


def test_mnist_data_comes_from_gymnax_loader_without_downloading(monkeypatch):
    """gymnax's MNIST task reads the images gymnax's loader gives (here a test's loader, as
    gymnax's own suite installs one), int8 pixels wrapping as in gymnax; nothing is downloaded."""
    from gymnax.environments.bsuite import mnist as gymnax_mnist
    from gymnax.utils import load_mnist

    from jaxenvs.envs.bsuite import mnist_data

    images = np.arange(3 * 28 * 28).reshape(3, 28, 28).astype(np.int8)  # negative values included
    labels = np.array([4, 7, 1], np.uint8)
    monkeypatch.setattr(load_mnist, "load_mnist", lambda: ((images, labels), (images, labels)))
    monkeypatch.delenv(mnist_data.ENV_VAR, raising=False)
    monkeypatch.setattr(mnist_data, "_download", lambda *a: pytest.fail("downloaded"))
    export, params = jaxenvs_gymnax.make("MNISTBandit-bsuite")
    g_env = gymnax_mnist.MNISTBandit()
    for seed in range(3):
        obs, state = export.reset(jax.random.key(seed), params)
        g_obs, g_state = g_env.reset(jax.random.key(seed), g_env.default_params)
        # ours is the correctly rounded quotient pixel / 255, XLA's division may be 1 ulp off
        np.testing.assert_allclose(obs, g_obs, rtol=2e-7, atol=0)
        assert obs.min() < 0 and int(state.correct_label) == int(g_state.correct_label)


def test_a_batch_of_exports_resets_each_env_as_alone():
    """Under `jax.vmap`, the envs that finish get the reset each would get stepped alone (the
    batch observes the states it resets, as AutoReset does)."""
    export, params = jaxenvs_gymnax.make("Breakout-MinAtar", max_steps_in_episode=2)
    keys = jax.random.split(KEY, 4)
    _, state = jax.vmap(export.reset, (0, None))(keys, params)
    state = state.replace(time=jnp.array([0, 1, 1, 0], jnp.int32))  # two envs hit the limit
    actions = jnp.array([0, 1, 2, 1])
    batch = jax.jit(jax.vmap(export.step, (0, 0, 0, None)))(keys, state, actions, params)
    for i in range(4):
        alone = export.step(keys[i], jax.tree_util.tree_map(lambda x, i=i: x[i], state), actions[i], params)
        for got, want in zip(jax.tree_util.tree_leaves(batch[:5]), jax.tree_util.tree_leaves(alone[:5])):
            np.testing.assert_array_equal(got[i], want)
    assert batch[4].tolist() == [False, True, True, False]
