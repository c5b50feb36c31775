"""An out-of-range Box action: one behaviour, eagerly and under `jit`, and it is the reference's.

gymnasium's Pendulum and MountainCarContinuous clip the action (MountainCarContinuous's
reward charges it unclipped); gymnax's PointRobot clips the move and reports the action as
given; gymnax's Reacher and Swimmer apply it as given. NaN and inf stay eager errors, and
`wrappers.Checked` flags an out-of-range action for debugging runs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify

import jaxenvs
from jaxenvs import spaces
from jaxenvs.wrappers import Checked

# every built-in id with a float Box action, and its reference
BOX_IDS = ["Pendulum-v1", "MountainCarContinuous-v0", "PointRobot-misc", "Reacher-misc", "Swimmer-misc"]
OUT = 102.0  # gymnasium's tests/envs/test_action_dim_check.py steps with the bound + 100


def _out_of_range(space: spaces.Box, sign: float) -> np.ndarray:
    return np.full(space.shape, sign * OUT, np.float32)


@pytest.mark.parametrize("env_id", BOX_IDS)
def test_an_out_of_range_box_action_steps_the_same_eagerly_and_under_jit(env_id):
    env, params = jaxenvs.make(env_id, autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    step = jax.jit(env.step)
    space = env.action_space(params)
    for sign in (1.0, -1.0):
        action = _out_of_range(space, sign)
        spaces.check_action(space, action, env.name)  # not an error: the reference takes it
        eager = env.step(jax.random.key(1), state, action, params)
        jitted = step(jax.random.key(1), state, jnp.asarray(action), params)
        for a, b in zip(jax.tree_util.tree_leaves(eager), jax.tree_util.tree_leaves(jitted)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-6)
    # the batch (`make_vec`) takes it too
    venv, vparams = jaxenvs.make_vec(env_id, 2)
    _, vstate = venv.reset(jax.random.key(0), vparams)
    venv.step(jax.random.key(1), vstate, np.stack([_out_of_range(space, 1.0)] * 2), vparams)


@pytest.mark.parametrize("env_id", BOX_IDS)
def test_nan_and_inf_stay_eager_errors_and_checked_flags_out_of_range(env_id):
    env, params = jaxenvs.make(env_id, autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    space = env.action_space(params)
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match=rf"{env.name}: invalid action .* \(not finite"):
            env.step(jax.random.key(1), state, np.full(space.shape, bad, np.float32), params)
    with pytest.raises(ValueError, match=rf"{env.name}: invalid action .*shape"):
        env.step(jax.random.key(1), state, np.zeros(space.shape + (2,), np.float32), params)
    with pytest.raises(checkify.JaxRuntimeError, match=rf"{env.name}: invalid action .* \(out of range\)"):
        Checked(env).step(jax.random.key(1), state, _out_of_range(space, 1.0), params)


def test_a_discrete_action_out_of_range_stays_an_error():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    with pytest.raises(ValueError, match=r"CartPole: invalid action 2 \(out of range\)"):
        env.step(jax.random.key(1), state, 2, params)


# --- parity: the reference's own result at the same state ----------------------------------------


@pytest.mark.parametrize(
    "env_id, fields", [("Pendulum-v1", ("theta", "theta_dot")), ("MountainCarContinuous-v0", ("position", "velocity"))]
)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_out_of_range_action_gives_gymnasiums_result(env_id, fields, sign):
    gymnasium = pytest.importorskip("gymnasium")
    env, params = jaxenvs.make(env_id, autoreset=False)
    reference = gymnasium.make(env_id).unwrapped
    reference.reset(seed=0)
    for seed in range(3):
        _, state = env.reset(jax.random.key(seed), params)
        reference.state = np.array([float(getattr(state, f)) for f in fields])
        action = np.array([sign * OUT], np.float32)
        theirs = reference.step(action)
        ours = env.step(jax.random.key(0), state, action, params)
        np.testing.assert_allclose(np.asarray(ours[0]), theirs[0], rtol=1e-5, atol=1e-5)
        assert float(ours[2]) == pytest.approx(float(theirs[1]), rel=1e-5, abs=1e-5)
        assert bool(ours[3]) == theirs[2]


@pytest.mark.parametrize("env_id", ["PointRobot-misc", "Reacher-misc", "Swimmer-misc"])
def test_an_out_of_range_action_gives_gymnaxs_result(env_id):
    gymnax = pytest.importorskip("gymnax")
    env, params = jaxenvs.make(env_id, autoreset=False)
    genv, gparams = gymnax.make(env_id)
    _, template = genv.reset_env(jax.random.key(0), gparams)
    space = env.action_space(params)
    for seed in range(3):
        _, state = env.reset(jax.random.key(seed), params)
        # gymnax's state fields carry the same names (jaxenvs/envs/misc/_parity.py)
        gstate = template.replace(
            **{f: jnp.asarray(getattr(state, f), jnp.asarray(getattr(template, f)).dtype) for f in vars(template)}
        )
        action = np.where(np.arange(space.shape[0]) % 2 == 0, OUT, -OUT).astype(np.float32)
        theirs = genv.step_env(jax.random.key(1), gstate, jnp.asarray(action), gparams)
        ours = env.step(jax.random.key(1), state, action, params)
        np.testing.assert_allclose(np.asarray(ours[0]), np.asarray(theirs[0]), rtol=1e-5, atol=1e-5)
        assert float(ours[2]) == pytest.approx(float(theirs[2]), rel=1e-5, abs=1e-5)
