"""`run_parity(env_id, scale, seed, env=, params=)`: an id's reference and checks pointed at
another env (a user's modified copy) or other params; the reference never follows them."""

from __future__ import annotations

import inspect

import jax.numpy as jnp
import pytest

import jaxenvs
from jaxenvs.envs.bsuite.catch import Catch, board, move_paddle
from jaxenvs.parity import run_parity
from tests.parity.test_parity import SCALES

pytest.importorskip("bsuite")


class MyCatch(Catch):
    """A user's copy of Catch with its step rewritten (correctly)."""

    def step_env(self, key, state, action, params):
        paddle_x = move_paddle(state.paddle_x, action, self.columns)
        state = state.replace(paddle_x=paddle_x, ball_y=state.ball_y + 1, time=state.time + 1)
        terminated = state.ball_y == state.paddle_y
        reward = jnp.where(terminated, jnp.where(paddle_x == state.ball_x, 1.0, -1.0), 0.0)
        return board(state, self.rows, self.columns), state, reward, terminated, {}


class MyCatchOffByOne(MyCatch):
    """The same copy with the paddle stopping one column short of the right wall."""

    def step_env(self, key, state, action, params):
        state = state.replace(paddle_x=jnp.minimum(state.paddle_x, self.columns - 2))
        return super().step_env(key, state, action, params)


def test_signature_is_kept():
    names = list(inspect.signature(run_parity).parameters)
    assert names == ["env_id", "scale", "seed", "env", "params"]
    assert "Args:" in run_parity.__doc__ and "Returns:" in run_parity.__doc__


def test_a_users_correct_copy_passes_and_a_wrong_one_fails():
    kwargs = jaxenvs.spec("Catch-bsuite").env_kwargs
    good = run_parity("Catch-bsuite", scale=SCALES["bsuite"], env=MyCatch(**kwargs))
    assert good.passed, good.summary()
    bad = run_parity("Catch-bsuite", scale=SCALES["bsuite"], env=MyCatchOffByOne(**kwargs))
    assert not bad.passed
    assert any("paddle_x" in c.name for c in bad.failures()), bad.summary()


def test_wrong_params_are_checked_not_mirrored_into_the_reference():
    env, params = jaxenvs.make("DeepSea-bsuite", autoreset=False, unscaled_move_cost=0.02)
    result = run_parity("DeepSea-bsuite", scale=SCALES["bsuite"], env=env, params=params)
    assert not result.passed
    assert any(c.name == "step reward" for c in result.failures()), result.summary()
    # the params alone, on the built-in env
    assert not run_parity("DeepSea-bsuite", scale=SCALES["bsuite"], params=params).passed


def test_bad_input_is_named():
    _, catch_params = jaxenvs.make("Catch-bsuite", autoreset=False)
    with pytest.raises(TypeError, match=r"reset\(key, params\).*object has no reset or step"):
        run_parity("Catch-bsuite", env=object())
    with pytest.raises(TypeError, match="params must be a CatchParams .* got DeepSeaParams"):
        run_parity("Catch-bsuite", env=Catch(), params=jaxenvs.make("DeepSea-bsuite")[1])
    with pytest.raises(TypeError, match="params must be a DeepSeaParams .* got CatchParams"):
        run_parity("DeepSea-bsuite", scale=SCALES["bsuite"], params=catch_params)
    with pytest.raises(jaxenvs.UnknownEnvError):
        run_parity("NoSuch-v0", env=Catch())


def test_a_parity_that_is_neither_a_spec_nor_a_reference_is_named(monkeypatch):
    """A suite function `run(env_id, scale, seed)` (the old protocol) is no longer read by
    sniffing its signature: the error names what a registered parity must be."""
    from jaxenvs import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    jaxenvs.register("user/OldSuite-v0", Catch, parity=f"{__name__}:old_suite", reference="bsuite catch")
    with pytest.raises(TypeError, match="expected a jaxenvs.parity.ParitySpec or Reference"):
        run_parity("user/OldSuite-v0")


def old_suite(env_id="", scale=1.0, seed=0):
    """A user's suite in the old protocol: called with no arguments it returns a result, not a
    Reference or a ParitySpec."""
    return jaxenvs.parity.ParityResult(env_id, "bsuite catch", skipped="a stand-in")
