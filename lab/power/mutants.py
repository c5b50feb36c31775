"""Deliberate mutants of the built-in envs: one realistic bug each, to measure what the parity
checks catch (their power).

A mutant is the built-in env of an id with one thing wrong: a params field (built through
`jaxenvs.make(id, **overrides)`, run on the built-in env object, so the checks reuse its
compiled functions), or else a small subclass of the env's class. `run_parity(mutant.env_id,
env=..., params=...)` checks it with the id's own reference and checks; a verdict of pass is a
miss. Each mutant must change something observable (`observable_change`): a params field
that another setting overrides, or a subclass that changes nothing, is not a mutant.

`make power` (`python -m lab.power`) measures the catch rate; `tests/parity/test_mutants.py`
asserts every mutant fails at the tests' sizes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.environment import float_dtype
from jaxenvs.envs.box2d.bipedal_walker import env as bipedal_walker
from jaxenvs.envs.box2d.bipedal_walker import terrain as walker_terrain
from jaxenvs.envs.box2d.bipedal_walker.env import BipedalWalker
from jaxenvs.envs.box2d.lunar_lander import env as lunar_lander
from jaxenvs.envs.box2d.lunar_lander.env import LunarLander
from jaxenvs.envs.bsuite.catch import Catch
from jaxenvs.envs.classic.cartpole import CartPole, CartPoleState
from jaxenvs.envs.minatar.asterix import Asterix

# ---------------------------------------------------------------------------------------------
# bugs no params field can express: small subclasses


class CartPoleWideReset(CartPole):
    """CartPole whose reset draws from [-0.055, 0.055]^4: a range 10% wider than gymnasium's."""

    def reset_env(self, key, params):
        x, x_dot, theta, theta_dot = jax.random.uniform(key, (4,), dtype=float_dtype(), minval=-0.055, maxval=0.055)
        state = CartPoleState(time=jnp.zeros((), jnp.int32), x=x, x_dot=x_dot, theta=theta, theta_dot=theta_dot)
        return self.observe(state, params), state


class CatchJudgedBeforeMove(Catch):
    """Catch that judges the catch on the paddle's column before this step's move (the
    reference judges it after the move): a reward computed from stale state."""

    def step_env(self, key, state, action, params):
        obs, after, _, terminated, info = super().step_env(key, state, action, params)
        reward = jnp.where(terminated, jnp.where(state.paddle_x == after.ball_x, 1.0, -1.0), 0.0)
        return obs, after, reward, terminated, info


class AsterixFastSpawns(Asterix):
    """Asterix spawning every 9 steps at the start instead of every 10: a spawn rate 11% high."""

    def reset_env(self, key, params):
        _, state = super().reset_env(key, params)
        state = state.replace(spawn_speed=jnp.int32(9), spawn_timer=jnp.int32(9))
        return self.observe(state, params), state


def _lander(name: str, doc: str, **constants: float) -> type:
    """A LunarLander whose dynamics' constants (`lunar_lander.Constants`) are `constants`."""
    wrong = dataclasses.replace(lunar_lander.REFERENCE, **constants)
    return type(name, (LunarLander,), {"constants": wrong, "__doc__": doc, "__module__": __name__})


LanderMainEngine = _lander(
    "LanderMainEngine", "LunarLander whose main engine is 1% strong (13.13).", main_engine_power=13.13
)
LanderSideEngine = _lander(
    "LanderSideEngine", "LunarLander whose side engines are 5% strong (0.63).", side_engine_power=0.63
)
LanderLegSpring = _lander(
    "LanderLegSpring", "LunarLander whose legs' motor torque is 10% high (44).", leg_spring_torque=44.0
)
LanderDensity = _lander("LanderDensity", "LunarLander whose body is 1% dense (5.05).", lander_density=5.05)
LanderPush = _lander("LanderPush", "LunarLander whose initial push is 10% strong (1100).", initial_random=1100.0)


def _walker(name: str, doc: str, **constants: Any) -> type:
    """A BipedalWalker whose dynamics' constants (`bipedal_walker.Constants`) are `constants`."""
    wrong = dataclasses.replace(bipedal_walker.REFERENCE, **constants)
    return type(name, (BipedalWalker,), {"constants": wrong, "__doc__": doc, "__module__": __name__})


WalkerTorque = _walker("WalkerTorque", "BipedalWalker whose motors are 5% strong (84 N m).", motors_torque=84.0)
WalkerHipSpeed = _walker("WalkerHipSpeed", "BipedalWalker whose hips turn 5% fast (4.2 rad/s).", speed_hip=4.2)
WalkerKneeSpeed = _walker("WalkerKneeSpeed", "BipedalWalker whose knees turn 5% fast (6.3 rad/s).", speed_knee=6.3)
WalkerLidar = _walker(
    "WalkerLidar", "BipedalWalker whose lidar reaches 5% far (168 / SCALE).", lidar_range=168 / bipedal_walker.SCALE
)
WalkerDensity = _walker("WalkerDensity", "BipedalWalker whose hull is 2% dense (5.1).", hull_density=5.1)
WalkerTerrainStep = _walker(
    "WalkerTerrainStep",
    "BipedalWalker whose terrain steps are 2% long (14.28 / SCALE): the course, its stumps and stairs.",
    terrain=dataclasses.replace(walker_terrain.REFERENCE, terrain_step=14.28 / walker_terrain.SCALE),
)


# ---------------------------------------------------------------------------------------------
# the mutants


@dataclasses.dataclass(frozen=True)
class Mutant:
    """One deliberate bug in the built-in env of `env_id`.

    Attributes:
        name: The mutant's name, its key in `MUTANTS` (e.g. "cartpole-gravity").
        env_id: The id whose env it breaks, and whose parity suite checks it.
        bug: The bug in words, for the power table.
        overrides: Params fields set wrong (through `jaxenvs.make(env_id, **overrides)`).
        env_class: A subclass of the id's env class with the bug, built with the id's
            settings; None for a params-only mutant.
        needs: For a deviation too small for the report's and the tests' sizes, the size that
            catches it (such a mutant is measured, not required to fail); "" otherwise.
        seen_with: Params fields under which the bug shows (set on both sides by
            `observable_change`), for a bug in a setting the id leaves off (LunarLander's wind
            power, checked by its spec's wind variant).
        in_tests: Required to fail in `tests/parity/test_mutants.py`; False: measured by
            `make power` only, where another mutant of the id takes the same path through its
            checks (each LunarLander mutant compiles the physics step's programs anew, 40 s to
            minutes on a CPU: `make power` runs them all).
    """

    name: str
    env_id: str
    bug: str
    overrides: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    env_class: Callable[..., Any] | None = None
    needs: str = ""
    seen_with: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    in_tests: bool = True

    def build(self) -> tuple[Any, Any]:
        """The mutant's `(env, params)`: the built-in raw env object (shared, so its compiled
        functions are reused) at the wrong params, or the subclass at the id's params.

        Returns:
            `(env, params)` for `run_parity(self.env_id, env=env, params=params)`.
        """
        import jaxenvs
        from jaxenvs.parity import builtin_env

        _, params = jaxenvs.make(self.env_id, autoreset=False, **self.overrides)
        if self.env_class is None:
            return builtin_env(self.env_id)[0], params
        return self.env_class(**jaxenvs.spec(self.env_id).env_kwargs), params


def _time_limit(name: str, env_id: str, limit: int, late: bool) -> Mutant:
    """A time limit one step off (`limit`, the registered one plus or minus one)."""
    bug = f"time limit one step {'late' if late else 'early'} ({limit})"
    return Mutant(name, env_id, bug, {"max_steps_in_episode": limit})


_ALL = (
    # classic control
    Mutant("cartpole-gravity", "CartPole-v1", "gravity 1% high (9.898)", {"gravity": 9.898}),
    Mutant(
        "cartpole-angle-threshold",
        "CartPole-v1",
        "pole falls at 11.5 degrees, not 12",
        {"theta_threshold_radians": math.radians(11.5)},
    ),
    _time_limit("cartpole-time-limit-late", "CartPole-v1", 501, late=True),
    _time_limit("cartpole-v0-time-limit-early", "CartPole-v0", 199, late=False),
    Mutant("cartpole-wide-reset", "CartPole-v1", "reset range 10% wider (+-0.055)", env_class=CartPoleWideReset),
    Mutant("acrobot-link-mass", "Acrobot-v1", "second link's mass 1% high", {"link_mass_2": 1.01}),
    Mutant("mountaincar-force", "MountainCar-v0", "engine force 10% high", {"force": 0.0011}),
    Mutant("mountaincar-gravity", "MountainCar-v0", "gravity 1% high", {"gravity": 0.002525}),
    Mutant("mountaincarcontinuous-power", "MountainCarContinuous-v0", "engine power 1% high", {"power": 0.001515}),
    Mutant("pendulum-gravity", "Pendulum-v1", "gravity 9.81 (gymnasium's is 10)", {"g": 9.81}),
    _time_limit("pendulum-time-limit-early", "Pendulum-v1", 199, late=False),
    # toy text
    Mutant("frozenlake-slip", "FrozenLake-v1", "success rate 10% low (0.3 for 1/3)", {"success_rate": 0.3}),
    _time_limit("frozenlake8x8-time-limit-early", "FrozenLake8x8-v1", 199, late=False),
    _time_limit("frozenlake-time-limit-late", "FrozenLake-v1", 101, late=True),
    _time_limit("taxi-time-limit-early", "Taxi-v4", 199, late=False),
    # MinAtar
    Mutant(
        "breakout-sticky", "Breakout-MinAtar", "sticky actions 20% too frequent (0.12)", {"sticky_action_prob": 0.12}
    ),
    Mutant("seaquest-sticky", "Seaquest-MinAtar", "sticky actions 20% too rare (0.08)", {"sticky_action_prob": 0.08}),
    Mutant("asterix-no-ramping", "Asterix-MinAtar", "difficulty ramping off", {"difficulty_ramping": False}),
    Mutant(
        "asterix-fast-spawns", "Asterix-MinAtar", "spawn rate 11% high (every 9 steps)", env_class=AsterixFastSpawns
    ),
    _time_limit("asterix-time-limit-late", "Asterix-MinAtar", 10001, late=True),
    _time_limit("freeway-time-limit-early", "Freeway-MinAtar", 9999, late=False),
    Mutant(
        "breakout-minimal-actions",
        "Breakout-MinAtar",
        "the minimal action set where the full one is registered",
        {"use_minimal_action_set": True},
    ),
    # bsuite
    Mutant("cartpole-bsuite-gravity", "CartPole-bsuite", "gravity 1% high (9.898)", {"gravity": 9.898}),
    Mutant("cartpole-bsuite-wide-reset", "CartPole-bsuite", "reset range 10% wider (0.055)", {"init_range": 0.055}),
    Mutant("cartpoleswingup-move-cost", "CartPoleSwingup-bsuite", "move cost 10% high (0.11)", {"move_cost": 0.11}),
    Mutant("mountaincar-bsuite-max-steps", "MountainCar-bsuite", "episode one step short (999)", {"max_steps": 999}),
    Mutant("mountaincar-bsuite-force", "MountainCar-bsuite", "engine force 10% high", {"force": 0.0011}),
    Mutant("deepsea-move-cost", "DeepSea-bsuite", "move cost 10% high (0.011)", {"unscaled_move_cost": 0.011}),
    Mutant(
        "catch-stale-paddle",
        "Catch-bsuite",
        "catch judged before the paddle moves",
        env_class=CatchJudgedBeforeMove,
        # about one last step in four tells: the tests' 50 transitions miss it about one time in five
        needs="300 transitions (scale 0.15)",
    ),
    # gymnax misc
    Mutant("fourrooms-slip", "FourRooms-misc", "slip probability 10% low (0.3 for 1/3)", {"fail_prob": 0.3}),
    _time_limit("fourrooms-time-limit-early", "FourRooms-misc", 499, late=False),
    _time_limit("metamaze-time-limit-late", "MetaMaze-misc", 201, late=True),
    Mutant("pointrobot-circle", "PointRobot-misc", "goal circle 10% wider (radius 1.1)", {"circle_radius": 1.1}),
    Mutant("bernoulli-reward-prob", "BernoulliBandit-misc", "arm probability 10% high (0.11)", {"reward_prob": 0.11}),
    Mutant("reacher-dt", "Reacher-misc", "time step 1% long", {"dt": 0.0505}),
    Mutant("swimmer-dt", "Swimmer-misc", "time step 1% long", {"dt": 0.0505}),
    # Box2D
    # caught at the tests' size, but it compiles the whole physics step anew (two minutes of
    # the suite)
    Mutant(
        "lunarlander-main-engine",
        "LunarLander-v3",
        "main engine 1% strong",
        env_class=LanderMainEngine,
        in_tests=False,
    ),
    Mutant(
        "lunarlander-side-engine",
        "LunarLander-v3",
        "side engines 5% strong",
        env_class=LanderSideEngine,
        in_tests=False,
    ),
    Mutant(
        "lunarlander-leg-spring",
        "LunarLander-v3",
        "legs' motor torque 10% high",
        env_class=LanderLegSpring,
        in_tests=False,
    ),
    Mutant("lunarlander-density", "LunarLander-v3", "lander 1% dense", env_class=LanderDensity, in_tests=False),
    # caught by a p-value (the resets'), so its run goes to the end: minutes of compiles in the tests
    Mutant("lunarlander-push", "LunarLander-v3", "initial push 10% strong", env_class=LanderPush, in_tests=False),
    Mutant(
        "lunarlander-wind",
        "LunarLander-v3",
        "wind 10% strong (16.5)",
        {"wind_power": 16.5},
        seen_with={"enable_wind": True},
        in_tests=False,
    ),
    # BipedalWalker: each compiles the physics step anew, minutes on a CPU (`make power`)
    Mutant("walker-torque", "BipedalWalker-v3", "motors 5% strong (84)", env_class=WalkerTorque, in_tests=False),
    Mutant("walker-hip-speed", "BipedalWalker-v3", "hips 5% fast (4.2)", env_class=WalkerHipSpeed, in_tests=False),
    Mutant("walker-knee-speed", "BipedalWalker-v3", "knees 5% fast (6.3)", env_class=WalkerKneeSpeed, in_tests=False),
    Mutant("walker-lidar", "BipedalWalker-v3", "lidar 5% long", env_class=WalkerLidar, in_tests=False),
    Mutant("walker-density", "BipedalWalker-v3", "hull 2% dense (5.1)", env_class=WalkerDensity, in_tests=False),
    Mutant(
        "walkerhardcore-terrain-step",
        "BipedalWalkerHardcore-v3",
        "terrain steps 2% long (stumps, stairs, pits)",
        env_class=WalkerTerrainStep,
        in_tests=False,
    ),
    Mutant(
        "lunarlandercontinuous-turbulence",
        "LunarLanderContinuous-v3",
        "turbulence 10% strong (1.65)",
        {"turbulence_power": 1.65},
        seen_with={"enable_wind": True},
        in_tests=False,
    ),
)
MUTANTS: dict[str, Mutant] = {m.name: m for m in _ALL}


# ---------------------------------------------------------------------------------------------
# is it a mutant?


def _differs(a: Any, b: Any) -> bool:
    """Whether two trees differ: a leaf's shape, a float leaf beyond rounding, another leaf at all."""
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        x, y = np.asarray(x), np.asarray(y)
        rtol = 1e-6 if np.issubdtype(x.dtype, np.floating) else 0.0  # integers and flags: exactly
        if x.shape != y.shape or not np.allclose(x, y, rtol=rtol, atol=rtol / 10, equal_nan=True):
            return True
    return False


def observable_change(mutant: Mutant, num_envs: int = 32, num_steps: int = 200, seed: int = 0) -> str | None:
    """Where the mutant differs from the correct env, or None if nowhere that was looked.

    Both envs are reset with the same keys, then stepped with the same keys and actions from
    the same states, along the correct env's own random-action runs (and from its reset
    states one and two steps before the registered time limit).

    Args:
        mutant: the mutant.
        num_envs: runs side by side.
        num_steps: steps of each run.
        seed: the keys' and actions' seed.

    Returns:
        A sentence naming the first difference ("reset", "step 12", "at the time limit"), or None.
    """
    from jaxenvs.parity import builtin_env
    from jaxenvs.parity.collect import compiled

    env0, params0 = builtin_env(mutant.env_id)
    env1, params1 = mutant.build()
    params0, params1 = params0.replace(**mutant.seen_with), params1.replace(**mutant.seen_with)
    reset = [compiled(e, "reset", lambda e=e: jax.jit(jax.vmap(e.reset, in_axes=(0, None)))) for e in (env0, env1)]
    axes = (0, 0, 0, None)
    step = [compiled(e, f"step{axes}", lambda e=e: jax.jit(jax.vmap(e.step, in_axes=axes))) for e in (env0, env1)]
    sample = jax.vmap(env0.action_space(params0).sample)
    # keys of the reset, then of each step (the first from near the time limit): the env's, the action's
    keys = jax.random.split(jax.random.key(seed), (num_steps + 2, 2, num_envs))
    out0 = reset[0](keys[0, 0], params0)
    if _differs(out0, reset[1](keys[0, 0], params1)):
        return "reset"
    state = out0[1]
    limit = int(params0.max_steps_in_episode)
    near_limit = state.replace(time=jnp.asarray(limit - 1 - np.arange(num_envs) % 2, state.time.dtype))
    for t in range(-1, num_steps):  # t = -1: from states one and two steps before the time limit
        step_keys, action_keys = keys[t + 2]
        actions = sample(action_keys)
        start = near_limit if t < 0 else state
        a = step[0](step_keys, start, actions, params0)
        if _differs(a, step[1](step_keys, start, actions, params1)):
            return "at the time limit" if t < 0 else f"step {t}"
        if t >= 0:
            state = a[1]
    return None
