"""A user's own env, checked against a reference through each of the three drivers.

`Line` (written here, not one of ours) is a walk on 10 cells: action 1 moves right, 0 left;
cell 5 is a conveyor that carries a right move one cell further; the ends terminate (+1 at
the right end, -1 at the left), every step costs 0.1, the start is drawn from cells 3..6, the
time limit is 20 steps. The same game is written as a gymnasium env, a dm_env env and a
second JAX env (gymnax's raw API); `Line` must match each (`assert_parity`, and
`jaxenvs parity <id>` once registered), and `BrokenLine`, which forgets the conveyor, must
fail with a message naming the field and the step.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct

import jaxenvs
from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvParams, EnvState
from jaxenvs.parity import DmEnvReference, GymnasiumReference, JaxReference, Sizes, assert_parity, check

CELLS, CONVEYOR, LIMIT = 10, 5, 20
SIZES = Sizes(steps=100, samples=200, episodes=40)


@struct.dataclass
class LineState(EnvState):
    pos: jax.Array  # int32: the cell


@struct.dataclass
class LineParams(EnvParams):
    max_steps_in_episode: int = LIMIT


class Line(Environment):
    conveyor = True

    @property
    def default_params(self):
        return LineParams()

    def reset_env(self, key, params):
        state = LineState(time=jnp.int32(0), pos=jax.random.randint(key, (), 3, 7, jnp.int32))
        return self.obs(state), state

    def step_env(self, key, state, action, params):
        move = jnp.where(action == 1, 1, -1)
        if self.conveyor:
            move = move + ((state.pos == CONVEYOR) & (action == 1))
        pos = jnp.clip(state.pos + move, 0, CELLS - 1).astype(jnp.int32)
        terminated = (pos == 0) | (pos == CELLS - 1)
        reward = -0.1 + jnp.where(pos == CELLS - 1, 1.0, 0.0) - jnp.where(pos == 0, 1.0, 0.0)
        state = state.replace(pos=pos, time=state.time + 1)
        return self.obs(state), state, reward, terminated, {}

    @staticmethod
    def obs(state):
        return (state.pos / (CELLS - 1)).astype(jnp.float32)[None]

    def observation_space(self, params=None):
        return spaces.Box(0.0, 1.0, (1,), jnp.float32)

    def action_space(self, params=None):
        return spaces.Discrete(2)


class BrokenLine(Line):
    conveyor = False


def _rules(pos: int, action: int) -> tuple[int, float, bool]:
    """The game in plain Python, shared by the numpy references."""
    pos = min(max(pos + (1 if action == 1 else -1) + (pos == CONVEYOR and action == 1), 0), CELLS - 1)
    reward = -0.1 + (pos == CELLS - 1) - (pos == 0)
    return pos, reward, pos in (0, CELLS - 1)


# --- a gymnasium reference -------------------------------------------------------------------


def gymnasium_reference() -> GymnasiumReference:
    gymnasium = pytest.importorskip("gymnasium")

    class GymLine(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0.0, 1.0, (1,), np.float32)
        action_space = gymnasium.spaces.Discrete(2)

        def reset(self, seed=None, options=None):
            super().reset(seed=seed)
            self.pos, self.t = int(self.np_random.integers(3, 7)), 0
            return np.array([self.pos / (CELLS - 1)], np.float32), {}

        def step(self, action):
            self.pos, reward, terminated = _rules(self.pos, int(action))
            self.t += 1
            return np.array([self.pos / (CELLS - 1)], np.float32), reward, terminated, self.t >= LIMIT, {}

    def write_state(env, state):
        env.pos, env.t = int(state["pos"]), int(state["time"])

    return GymnasiumReference(
        make=GymLine,
        read_state=lambda env: {"pos": env.pos, "time": env.t},
        write_state=write_state,
        exact_fields=("pos", "time"),
        name="GymLine",
    )


# --- a dm_env reference ----------------------------------------------------------------------


def dm_env_reference() -> DmEnvReference:
    dm_env = pytest.importorskip("dm_env")
    from dm_env import specs

    class DmLine(dm_env.Environment):
        def __init__(self, seed):
            self.rng = np.random.RandomState(seed)

        def reset(self):
            self.pos, self.t = int(self.rng.randint(3, 7)), 0
            return dm_env.restart(np.array([self.pos / (CELLS - 1)], np.float32))

        def step(self, action):
            self.pos, reward, terminated = _rules(self.pos, int(action))
            self.t += 1
            obs = np.array([self.pos / (CELLS - 1)], np.float32)
            if terminated:
                return dm_env.termination(reward, obs)
            if self.t >= LIMIT:  # dm_env's time limit: last, with a positive discount
                return dm_env.truncation(reward, obs)
            return dm_env.transition(reward, obs)

        def observation_spec(self):
            return specs.Array((1,), np.float32)

        def action_spec(self):
            return specs.DiscreteArray(2)

    def write_state(env, state):
        env.pos, env.t = int(state["pos"]), int(state["time"])

    return DmEnvReference(
        make=DmLine,
        read_state=lambda env: {"pos": env.pos, "time": env.t},
        write_state=write_state,
        exact_fields=("pos", "time"),
        name="DmLine",
    )


# --- a JAX reference (gymnax's raw API: reset_env / step_env / is_truncated) -----------------


class GymnaxStyleLine:
    """The game as a gymnax env would write it: `step_env` returns `done`, the time limit is
    its `is_truncated`."""

    default_params = LineParams()

    def reset_env(self, key, params):
        pos = jax.random.randint(key, (), 3, 7, jnp.int32)
        return Line.obs(LineState(time=0, pos=pos)), LineState(time=jnp.int32(0), pos=pos)

    def step_env(self, key, state, action, params):
        step = jax.lax.select(action == 1, 1, -1) + jnp.int32((state.pos == CONVEYOR) & (action == 1))
        pos = jnp.minimum(jnp.maximum(state.pos + step, 0), CELLS - 1)
        reward = jnp.select([pos == CELLS - 1, pos == 0], [0.9, -1.1], -0.1)
        state = LineState(time=state.time + 1, pos=pos)
        return Line.obs(state), state, reward, (pos == 0) | (pos == CELLS - 1), {}

    def is_truncated(self, state, params):
        return state.time >= params.max_steps_in_episode

    def action_space(self, params=None):
        return spaces.Discrete(2)


def jax_reference() -> JaxReference:
    return JaxReference(env=GymnaxStyleLine(), exact_fields=("pos", "time"), name="GymnaxStyleLine")


DRIVERS = {"gymnasium": gymnasium_reference, "dm_env": dm_env_reference, "jax": jax_reference}


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_user_env_passes_against_each_driver(driver):
    env = Line()
    result = assert_parity(env, env.default_params, DRIVERS[driver](), sizes=SIZES, discrete_resets=True)
    assert result.passed and result.transitions >= SIZES.steps
    names = {c.name for c in result.checks}
    assert {"step pos", "step reward", "step truncated", "reset frequencies"} <= names
    assert "random-policy episode length" in names


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_broken_user_env_fails_naming_field_and_step(driver):
    env = BrokenLine()
    with pytest.raises(AssertionError) as failure:
        assert_parity(env, env.default_params, DRIVERS[driver](), sizes=SIZES, resets=False, statistics=False)
    message = str(failure.value)
    assert "first mismatch" in message and "field 'pos'" in message
    assert "step " in message and "'pos': '5'" in message  # the conveyor cell it came from
    assert "jax 6 vs reference 7" in message  # both values


def test_check_returns_a_readable_result():
    env = BrokenLine()
    result = check(env, env.default_params, jax_reference(), sizes=SIZES, resets=False, statistics=False)
    assert not result.passed
    failed = [c.name for c in result.failures()]
    assert "step pos" in failed and "step observation" in failed and "step time" not in failed
    assert "first mismatch of step pos" in result.summary()


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_registered_user_env_is_checked_by_the_cli(driver, monkeypatch, capsys):
    from jaxenvs import cli, registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    reference = DRIVERS[driver]()
    jaxenvs.register("user/Line-v0", Line, reference=reference)
    assert jaxenvs.spec("user/Line-v0").reference == reference.name
    assert "user/Line-v0" in jaxenvs.parity.parity_ids()
    assert cli.main(["parity", "user/Line-v0", "--scale", "0.05"]) == 0
    assert "pass" in capsys.readouterr().out


def test_registered_broken_env_fails_in_the_cli(monkeypatch, capsys):
    from jaxenvs import cli, registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    jaxenvs.register("user/BrokenLine-v0", BrokenLine, reference=dm_env_reference())
    assert cli.main(["parity", "user/BrokenLine-v0", "--scale", "0.05"]) == 1
    out = " ".join(capsys.readouterr().out.split())  # the details wrap at the terminal's width
    assert "FAIL" in out and "field 'pos'" in out and "jax 6 vs reference 7" in out


def test_reference_declared_as_a_lazy_string(monkeypatch):
    """A registered `Reference` is decided by `check`'s two stages alone: never a second
    two-stage decision around (or inside) each of its stages."""
    from jaxenvs import registry
    from jaxenvs.parity import api, verdict

    decisions = []

    def counted(run, seed=0):
        decisions.append(seed)
        return verdict.two_stage(run, seed)

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(api, "two_stage", counted)
    jaxenvs.register("user/LineLazy-v0", Line, reference=f"{__name__}:dm_env_reference")
    assert jaxenvs.spec("user/LineLazy-v0").parity == f"{__name__}:dm_env_reference"
    result = jaxenvs.parity.run_parity("user/LineLazy-v0", scale=0.05)
    assert result.passed, result.summary()
    assert decisions == [0] and result.stages


def test_a_user_declares_checks_as_a_parity_spec(monkeypatch):
    """A user's id with a `ParitySpec`: standard checks chained with one of the user's own."""
    from jaxenvs import registry
    from jaxenvs.parity import Check, ParitySpec, chain, statistics, transitions

    def starts_off_the_ends(ctx):  # the user's own rule, as a check: no episode starts finished
        keys = jax.random.split(jax.random.key(ctx.seed), ctx.size(400, 50))
        _, states = jax.vmap(ctx.env.reset, in_axes=(0, None))(keys, ctx.params)
        outside = int(np.sum((states.pos <= 0) | (states.pos >= CELLS - 1)))
        return [Check("start", len(keys), float(outside), 0.0, outside == 0)]

    spec = ParitySpec(
        reference=lambda env_id: dm_env_reference(),
        library="dm_env",
        checks=chain(transitions("atol", at_one=400), statistics(), starts_off_the_ends),
    )
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    jaxenvs.register("user/LineSpec-v0", Line, parity=spec)
    result = jaxenvs.parity.run_parity("user/LineSpec-v0", scale=0.25)
    assert result.passed, result.summary()
    assert {"start", "step pos"} <= {c.name for c in result.checks}
    broken = jaxenvs.parity.run_parity("user/LineSpec-v0", scale=0.25, env=BrokenLine())
    assert not broken.passed and "step pos" in {c.name for c in broken.failures()}
