"""Parity of the gymnax misc set against gymnax itself (`gymnax.environments.misc`).

Gymnax is JAX too, so both sides run vmapped. Per env:

1. transitions by state injection: gymnax's own auto-resetting `step` rolls out a batch of
   envs under uniform random actions; every state met is translated into ours and both take
   the same action (gymnax with its raw `step_env`, which never resets). Next state fields,
   observation, reward and flags are compared: integers and flags exactly, floats to 1e-5.
   Random parts are excluded here and tested by distribution below: FourRooms runs this check
   with `fail_prob = 0`; MetaMaze's and PointRobot's teleport after reaching the goal and the
   bandits' rewards are masked out of the exact comparison.
2. random parts by distribution, from injected states: FourRooms' slips, MetaMaze's teleport
   (with its chance of ending on the goal), PointRobot's respawn, each bandit's pay; every
   outcome must be one gymnax can produce, frequencies by chi-square (discrete) or KS
   (continuous) at the harness's threshold.
3. reset distributions the same way (exactly where the reset is deterministic).
4. episode length and return under uniform random actions within 3 standard errors.

Flags: gymnax >= 1.0's `step_env` returns natural termination only (`is_terminal` no longer
includes the time limit) and its `step` adds `truncated = time >= max_steps_in_episode`, as
our base `step` does. We compare `terminated` with `step_env`'s done, `truncated` with
gymnax's `is_truncated`, and their union ("done", gymnax's pre-1.0 merged flag, on which its
auto-reset acts) with gymnax's union.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.parity.harness import (
    Check,
    ParityResult,
    Timer,
    chi_square_check,
    error_check,
    exact_check,
    jax_episode_statistics,
    ks_check,
    mean_check,
)

ATOL = 1e-5  # float32 state, observation and reward, one step
ATOL_EPISODE = 1e-4  # float32, whole episodes without re-injection
IDS = (
    "FourRooms-misc",
    "MetaMaze-misc",
    "PointRobot-misc",
    "BernoulliBandit-misc",
    "GaussianBandit-misc",
    "Reacher-misc",
    "Swimmer-misc",
    "Pong-misc",
)


# ---------------------------------------------------------------------------------------------
# the two sides


def _make_pair(env_id: str, **overrides: Any):
    """Our raw env and gymnax's, each with its default params plus the same overrides."""
    import gymnax

    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    genv, gparams = gymnax.make(env_id)
    return env, params, genv, gparams.replace(**overrides)


class _GymnaxRaw:
    """gymnax's raw transition in our six-tuple form, for the episode statistics."""

    def __init__(self, genv: Any):
        self.genv = genv

    def reset(self, key, params):
        return self.genv.reset_env(key, params)

    def step(self, key, state, action, params):
        obs, state, reward, done, info = self.genv.step_env(key, state, action, params)
        return obs, state, jnp.asarray(reward, jnp.float32), done, self.genv.is_truncated(state, params), info

    def action_space(self, params):
        return self.genv.action_space(params)


def _int(x):
    return jnp.asarray(x).astype(jnp.int32)


def _f32(x):
    return jnp.asarray(x, jnp.float32)


def _to_jax(env_id: str) -> Callable[[Any], Any]:
    """gymnax EnvState (possibly batched) -> our state."""
    if env_id == "FourRooms-misc":
        from jaxenvs.envs.misc.four_rooms import FourRoomsState

        return lambda g: FourRoomsState(time=_int(g.time), pos=_int(g.pos), goal=_int(g.goal))
    if env_id == "MetaMaze-misc":
        from jaxenvs.envs.misc.meta_maze import MetaMazeState

        return lambda g: MetaMazeState(
            time=_int(g.time), last_action=_int(g.last_action), last_reward=_f32(g.last_reward),
            pos=_int(g.pos), goal=_int(g.goal),
        )
    if env_id == "PointRobot-misc":
        from jaxenvs.envs.misc.point_robot import PointRobotState

        return lambda g: PointRobotState(
            time=_int(g.time), last_action=_f32(g.last_action), last_reward=_f32(g.last_reward),
            pos=_f32(g.pos), goal=_f32(g.goal), goals_reached=_int(g.goals_reached),
        )
    if env_id == "BernoulliBandit-misc":
        from jaxenvs.envs.misc.bernoulli_bandit import BernoulliBanditState

        return lambda g: BernoulliBanditState(
            time=_int(g.time), last_action=_int(g.last_action), last_reward=_f32(g.last_reward),
            exp_reward_best=_f32(g.exp_reward_best), reward_probs=_f32(g.reward_probs),
        )
    if env_id == "GaussianBandit-misc":
        from jaxenvs.envs.misc.gaussian_bandit import GaussianBanditState

        return lambda g: GaussianBanditState(
            time=_int(g.time), last_action=_int(g.last_action), last_reward=_f32(g.last_reward), mu=_f32(g.mu),
        )
    if env_id == "Reacher-misc":
        from jaxenvs.envs.misc.reacher import ReacherState

        return lambda g: ReacherState(
            time=_int(g.time), angles=_f32(g.angles), angle_vels=_f32(g.angle_vels), goal_xy=_f32(g.goal_xy),
        )
    if env_id == "Swimmer-misc":
        from jaxenvs.envs.misc.swimmer import SwimmerState

        return lambda g: SwimmerState(
            time=_int(g.time), urchin_xys=_f32(g.urchin_xys), xy=_f32(g.xy), xy_vel=_f32(g.xy_vel),
            goal_xy=_f32(g.goal_xy),
        )
    if env_id == "Pong-misc":
        from jaxenvs.envs.misc.pong import PongState

        return lambda g: PongState(
            time=_int(g.time), paddle_centers=_f32(g.paddle_centers), ball_position=_f32(g.ball_position),
            last_ball_position=_f32(g.last_ball_position), ball_velocity=_int(g.ball_velocity),
        )
    raise KeyError(env_id)


# State fields compared, by gymnax's names (the same as ours): None = exactly, else the atol.
FIELDS: Mapping[str, Mapping[str, float | None]] = {
    "FourRooms-misc": {"pos": None, "goal": None, "time": None},
    "MetaMaze-misc": {"last_action": None, "last_reward": ATOL, "pos": None, "goal": None, "time": None},
    "PointRobot-misc": {"last_action": ATOL, "last_reward": ATOL, "pos": ATOL, "goal": ATOL,
                        "goals_reached": None, "time": None},
    "BernoulliBandit-misc": {"last_action": None, "last_reward": None, "exp_reward_best": ATOL,
                             "reward_probs": ATOL, "time": None},
    "GaussianBandit-misc": {"last_action": None, "last_reward": ATOL, "mu": ATOL, "time": None},
    "Reacher-misc": {"angles": ATOL, "angle_vels": ATOL, "goal_xy": ATOL, "time": None},
    "Swimmer-misc": {"urchin_xys": ATOL, "xy": ATOL, "xy_vel": ATOL, "goal_xy": ATOL, "time": None},
    "Pong-misc": {"paddle_centers": None, "ball_position": None, "last_ball_position": None,
                  "ball_velocity": None, "time": None},
}

# Params under which gymnax's rollout visits more kinds of states (goals, starts) than the
# defaults do; the injected states are valid states of the default env as well.
ROLLOUT_OVERRIDES: Mapping[str, Mapping[str, Any]] = {
    "FourRooms-misc": {"resample_init_pos": True, "resample_goal_pos": True},
}

# Params under which the compared step has no random part.
DETERMINISTIC_OVERRIDES: Mapping[str, Mapping[str, Any]] = {"FourRooms-misc": {"fail_prob": 0.0}}


# ---------------------------------------------------------------------------------------------
# building blocks


def _rollout_states(genv, gparams, num: int, seed: int):
    """`num` states met by gymnax's auto-resetting `step` under uniform random actions (a few
    envs side by side, each long enough to see episodes end), and the action taken in each."""
    num_envs = int(np.clip(num // 200, 1, 16))
    steps = -(-num // num_envs)
    space = genv.action_space(gparams)

    def one_env(key):
        k_reset, k_run = jax.random.split(key)
        _, state = genv.reset(k_reset, gparams)

        def body(state, k):
            k_act, k_step = jax.random.split(k)
            action = space.sample(k_act)
            _, next_state, *_ = genv.step(k_step, state, action, gparams)
            return next_state, (state, action)

        _, out = jax.lax.scan(body, state, jax.random.split(k_run, steps))
        return out

    states, actions = jax.jit(jax.vmap(one_env))(jax.random.split(jax.random.key(seed), num_envs))
    states, actions = jax.tree_util.tree_map(
        lambda x: x.reshape(num_envs * steps, *x.shape[2:])[:num], (states, actions)
    )
    # every 8th state one step before the time limit, so that truncation is compared too
    near_limit = (jnp.arange(num) % 8) == 7
    time = jnp.where(near_limit, gparams.max_steps_in_episode - 1, states.time).astype(states.time.dtype)
    return states.replace(time=time), actions


def _goal_in_reach(genv, gstates, actions):
    """Grid mazes: every 4th state gets its goal on the cell its action moves to (when open),
    so that reaching the goal, rare under random actions, is compared too (gymnax's map)."""
    target = gstates.pos + genv.directions[actions]
    is_open = genv.env_map[target[:, 0], target[:, 1]]
    pick = ((jnp.arange(len(actions)) % 4) == 1) & is_open
    return gstates.replace(goal=jnp.where(pick[:, None], target, gstates.goal).astype(gstates.goal.dtype))


def _near_goal(genv, gstates, actions):
    """PointRobot: every 4th state starts within the goal radius (the respawn branch)."""
    pick = (jnp.arange(len(actions)) % 4) == 1
    near = gstates.goal + jnp.asarray([0.07, -0.07], gstates.pos.dtype)
    return gstates.replace(pos=jnp.where(pick[:, None], near, gstates.pos))


# Rewrites of the injected states that make rare branches common.
ENRICH: Mapping[str, Callable] = {
    "FourRooms-misc": _goal_in_reach,
    "MetaMaze-misc": _goal_in_reach,
    "PointRobot-misc": _near_goal,
}


def _step_both(env, params, genv, gparams, to_jax, gstates, actions, seed: int):
    keys = jax.random.split(jax.random.key(seed), len(actions))
    ours = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))(keys, to_jax(gstates), actions, params)

    def gstep(key, state, action):
        obs, state, reward, done, _ = genv.step_env(key, state, action, gparams)
        return obs, state, reward, done, genv.is_truncated(state, gparams)

    theirs = jax.jit(jax.vmap(gstep))(keys, gstates, actions)
    return ours, theirs


def _compare(label, fields, ours, theirs, mask=None, skip=()) -> list[Check]:
    """Next state fields, observation, reward and flags of both steps, on the rows of `mask`."""
    obs, state, reward, terminated, truncated, _ = ours
    g_obs, g_state, g_reward, g_done, g_truncated = theirs
    n = len(np.asarray(reward))
    rows = np.ones(n, bool) if mask is None else np.asarray(mask)

    def pick(x):
        return np.asarray(x)[rows]

    checks = []
    for name, atol in fields.items():
        if name in skip:
            continue
        a, b = pick(getattr(state, name)), pick(getattr(g_state, name))
        if atol is None:
            checks.append(exact_check(f"{label} {name}", a.astype(np.int64), b.astype(np.int64)))
        else:
            checks.append(error_check(f"{label} {name}", a, b, atol))
    if "obs" not in skip:
        a = pick(obs).reshape(rows.sum(), -1)
        b = pick(g_obs).reshape(rows.sum(), -1)
        checks.append(error_check(f"{label} observation", a, b, ATOL))
    if "reward" not in skip:
        checks.append(error_check(f"{label} reward", pick(reward), pick(g_reward).astype(np.float32), ATOL))
    if "terminated" not in skip:
        checks.append(_flag_check(f"{label} terminated", pick(terminated), pick(g_done)))
        checks.append(_flag_check(f"{label} done (terminated or truncated)", pick(terminated | truncated),
                                  pick(np.asarray(g_done) | np.asarray(g_truncated))))
    checks.append(_flag_check(f"{label} truncated", pick(truncated), pick(g_truncated)))
    return checks


def _flag_check(name, ours, theirs) -> Check:
    check = exact_check(name, ours, theirs)
    check.detail = f"{int(np.sum(theirs))} true in the reference"
    return check


def _sample_steps(env, params, genv, gparams, to_jax, gstates, actions, num: int, seed: int):
    """`num` draws of the next step of each of a batch of injected states, from each side
    with independent keys; outputs are `[state, draw, ...]`."""
    count = len(np.asarray(actions))
    keys = jax.random.split(jax.random.key(seed), 2 * count * num).reshape(2, count, num)

    def ours_one(ks, state, action):
        return jax.vmap(env.step, in_axes=(0, None, None, None))(ks, state, action, params)

    def theirs_one(ks, gstate, action):
        return jax.vmap(lambda k: genv.step_env(k, gstate, action, gparams)[:4])(ks)

    ours = jax.jit(jax.vmap(ours_one))(keys[0], to_jax(gstates), actions)
    theirs = jax.jit(jax.vmap(theirs_one))(keys[1], gstates, actions)
    return ours, theirs


def _sample_resets(env, params, genv, gparams, num: int, seed: int):
    keys = jax.random.split(jax.random.key(seed), 2 * num)
    _, ours = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys[:num], params)
    _, theirs = jax.jit(jax.vmap(lambda k: genv.reset_env(k, gparams)))(keys[num:])
    return ours, theirs


def _rows(*arrays) -> list[tuple]:
    """Per-row tuples of the given arrays (for chi-square outcomes)."""
    flat = [np.asarray(a).reshape(len(np.asarray(a)), -1) for a in arrays]
    return [tuple(v.item() for v in row) for row in np.concatenate(flat, axis=1)]


def _index(tree, i):
    return jax.tree_util.tree_map(lambda x: x[i], tree)


def _episode_checks(env, params, genv, gparams, num: int, seed: int) -> list[Check]:
    """Random-policy episode length and return, ours against gymnax's raw step."""
    len_a, ret_a = jax_episode_statistics(env, params, num, seed)
    len_b, ret_b = jax_episode_statistics(_GymnaxRaw(genv), gparams, num, seed + 1)
    return [
        mean_check("random-policy episode length", len_a, len_b),
        mean_check("random-policy episode return", ret_a, ret_b),
    ]


def _trajectory_checks(env, params, genv, gparams, to_jax, fields, num_episodes: int, seed: int) -> list[Check]:
    """Whole episodes of the deterministic envs: both start from gymnax's reset state and take
    the same random actions, with no re-injection; the worst difference of every field, the
    observation, the reward and the flags over all steps until gymnax's episode ends."""
    space = genv.action_space(gparams)
    names = list(fields)

    def episode(key):
        k_reset, k_run = jax.random.split(key)
        _, gstate = genv.reset_env(k_reset, gparams)

        def body(carry, k):
            gstate, state, alive, worst = carry
            k_act, k_step = jax.random.split(k)
            action = space.sample(k_act)
            g_obs, g_next, g_reward, g_done, _ = genv.step_env(k_step, gstate, action, gparams)
            g_trunc = genv.is_truncated(g_next, gparams)
            obs, nxt, reward, terminated, truncated, _ = env.step(k_step, state, action, params)

            def gap(a, b):
                return jnp.max(jnp.abs(jnp.asarray(a, jnp.float32) - jnp.asarray(b, jnp.float32)))

            gaps = [gap(getattr(nxt, f), getattr(g_next, f)) for f in names]
            gaps += [gap(obs, g_obs), gap(reward, g_reward), gap(terminated, g_done), gap(truncated, g_trunc)]
            worst = jnp.maximum(worst, jnp.where(alive, jnp.stack(gaps), 0.0))
            return (g_next, nxt, alive & ~(g_done | g_trunc), worst), alive

        init = (gstate, to_jax(gstate), jnp.asarray(True), jnp.zeros(len(names) + 4))
        steps = int(params.max_steps_in_episode)
        (_, _, _, worst), alive = jax.lax.scan(body, init, jax.random.split(k_run, steps))
        return worst, jnp.sum(alive)

    worst, lengths = jax.jit(jax.vmap(episode))(jax.random.split(jax.random.key(seed), num_episodes))
    worst = np.asarray(worst).max(axis=0)
    total = int(np.sum(lengths))
    labels = names + ["observation", "reward", "terminated", "truncated"]
    checks = []
    for i, name in enumerate(labels):
        exact = name in ("terminated", "truncated") or fields.get(name, ATOL) is None
        tol = 0.0 if exact else ATOL_EPISODE
        checks.append(Check(f"episode {name}", total, float(worst[i]), tol, bool(worst[i] <= tol),
                            detail=f"{num_episodes} whole episodes"))
    return checks


# Deterministic envs compared over whole episodes too (FourRooms with fail_prob = 0).
WHOLE_EPISODES = ("FourRooms-misc", "Reacher-misc", "Swimmer-misc", "Pong-misc")


# ---------------------------------------------------------------------------------------------
# per env: random parts and resets


def _four_rooms_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    """Slips: outcomes (state, next cell) from 8 injected states, each sampled `n` times."""
    picks = np.linspace(0, len(np.asarray(gstates.time)) - 1, 8).astype(int)
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, _index(gstates, picks),
                                 jnp.arange(8, dtype=jnp.int32) % 4, n, seed)
    cases = np.repeat(np.arange(8), n)
    return chi_square_check("slip: (state, next cell)", _rows(cases, np.asarray(ours[1].pos).reshape(-1, 2)),
                            _rows(cases, np.asarray(theirs[1].pos).reshape(-1, 2)))


def _chi_square(name: str, ours: list, theirs: list, support: set | None = None) -> list[Check]:
    """The harness's chi-square test; where gymnax defines the support (its open cells), that
    set replaces the support seen in the reference's sample, which misses rare outcomes."""
    checks = chi_square_check(name, ours, theirs)
    if support is None:
        return checks
    outside = [x for x in ours if x not in support]
    outside_ref = [x for x in theirs if x not in support]
    checks[0] = Check(f"{name} support", len(ours), float(len(outside)), 0.0, not outside and not outside_ref,
                      kind="mismatches", detail=f"reference {len(outside_ref)} outside"
                      + (f"; outside: {sorted(set(outside))[:3]}" if outside else ""))
    return checks


def _cells(genv) -> set:
    return {tuple(c) for c in np.asarray(genv.coords).tolist()}


def _four_rooms_resets(env, params, genv, gparams, n, seed) -> list[Check]:
    ours, theirs = _sample_resets(env, params, genv, gparams, n, seed)
    checks = [exact_check("reset (fixed start and goal)", _rows(ours.pos, ours.goal), _rows(theirs.pos, theirs.goal))]
    env2, params2, genv2, gparams2 = _make_pair("FourRooms-misc", resample_init_pos=True, resample_goal_pos=True)
    ours, theirs = _sample_resets(env2, params2, genv2, gparams2, n, seed + 1)
    checks += _chi_square("resampled reset: goal", _rows(ours.goal), _rows(theirs.goal), _cells(genv2))
    checks += _chi_square("resampled reset: start", _rows(ours.pos), _rows(theirs.pos), _cells(genv2))
    same = np.sum(np.all(np.asarray(ours.pos) == np.asarray(ours.goal), axis=1))
    same_ref = np.sum(np.all(np.asarray(theirs.pos) == np.asarray(theirs.goal), axis=1))
    checks.append(Check("resampled reset: start on goal", n, float(same), 0.0, same == same_ref == 0,
                        kind="mismatches", detail=f"reference {same_ref}"))
    return checks


def _meta_maze_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    """The teleport after reaching the goal: (cell, terminated) outcomes."""
    gstate = _index(gstates, np.array([0])).replace(pos=jnp.array([[5, 5]]), goal=jnp.array([[5, 6]]))
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, jnp.ones(1, jnp.int32), n, seed)
    support = {(*c, c == (5, 6)) for c in _cells(genv)}  # terminated exactly when landing on the goal
    return _chi_square("teleport: (cell, terminated)", _rows(np.asarray(ours[1].pos)[0], ours[3][0]),
                       _rows(np.asarray(theirs[1].pos)[0], theirs[3][0]), support)


def _meta_maze_resets(env, params, genv, gparams, n, seed) -> list[Check]:
    ours, theirs = _sample_resets(env, params, genv, gparams, n, seed)
    return [exact_check("reset start", _rows(ours.pos), _rows(theirs.pos))] + _chi_square(
        "reset goal", _rows(ours.goal), _rows(theirs.goal), _cells(genv)
    )


def _point_robot_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    """The respawn after a step that starts within the goal radius."""
    gstate = _index(gstates, np.array([0]))
    gstate = gstate.replace(pos=gstate.goal + jnp.array([0.05, -0.05], jnp.float32))
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, jnp.zeros((1, 2), jnp.float32), n, seed)
    return _ks("respawn position", np.asarray(ours[1].pos)[0], np.asarray(theirs[1].pos)[0], _half_disc(1.0))


def _ks(name: str, ours: Any, theirs: Any, support: Callable[[np.ndarray], np.ndarray]) -> list[Check]:
    """KS per coordinate (the harness's), with the support stated as a predicate on an outcome
    (gymnax's definition of it) that both sides' samples must satisfy: the harness's empirical
    range test would fail by chance for unbounded or thin-tailed outcomes."""
    a = np.asarray(ours, np.float64).reshape(len(ours), -1)
    b = np.asarray(theirs, np.float64).reshape(len(theirs), -1)
    outside, outside_ref = int(np.sum(~support(a))), int(np.sum(~support(b)))
    check = Check(f"{name} support", len(a), float(outside), 0.0, outside == 0 and outside_ref == 0,
                  kind="mismatches", detail=f"reference {outside_ref} outside")
    return [check] + [c for c in ks_check(name, a, b) if not c.name.endswith("support")]


def _within(low, high, eps=1e-6):
    """Support predicate: every coordinate within [low, high] (broadcast per coordinate)."""
    return lambda x: np.all((x >= np.asarray(low) - eps) & (x <= np.asarray(high) + eps), axis=1)


def _half_disc(radius: float, on_circle: bool = False, eps=1e-5):
    def inside(x):
        r = np.linalg.norm(x[:, :2], axis=1)
        ok = (x[:, 1] >= -eps) & (r <= radius + eps)
        return ok & (np.abs(r - radius) <= eps) if on_circle else ok

    return inside


def _continuous_resets(fields, support):
    def check(env, params, genv, gparams, n, seed) -> list[Check]:
        ours, theirs = _sample_resets(env, params, genv, gparams, n, seed)
        a = np.concatenate([np.asarray(getattr(ours, f), np.float64).reshape(n, -1) for f in fields], axis=1)
        b = np.concatenate([np.asarray(getattr(theirs, f), np.float64).reshape(n, -1) for f in fields], axis=1)
        return _ks("reset", a, b, support)

    return check


def _point_robot_reset_support(x):
    return _half_disc(1.0)(x[:, :2]) & _half_disc(1.0, on_circle=True)(x[:, 2:])


def _bernoulli_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    """Pay of each arm under both arm orders: (case, reward) outcomes."""
    p = float(gparams.reward_prob)
    probs = jnp.asarray([[p, 1 - p], [p, 1 - p], [1 - p, p], [1 - p, p]], jnp.float32)
    gstate = _index(gstates, np.zeros(4, int)).replace(reward_probs=probs)
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, jnp.asarray([0, 1, 0, 1]), n, seed)
    cases = np.repeat(np.arange(4), n)
    return chi_square_check("arm pay: (case, reward)", _rows(cases, np.asarray(ours[2]).reshape(-1)),
                            _rows(cases, np.asarray(theirs[2], np.float32).reshape(-1)))


def _bernoulli_resets(env, params, genv, gparams, n, seed) -> list[Check]:
    ours, theirs = _sample_resets(env, params, genv, gparams, n, seed)
    # probabilities as float32 round them: compare them rounded to 6 decimals
    return chi_square_check(
        "reset arm probabilities",
        _rows(np.round(np.asarray(ours.reward_probs, np.float64), 6)),
        _rows(np.round(np.asarray(theirs.reward_probs, np.float64), 6)),
    )


def _gaussian_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    gstate = _index(gstates, np.array([0])).replace(mu=jnp.asarray([-1.3], jnp.float32))
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, jnp.ones(1, jnp.int32), n, seed)
    return _ks("arm 1 pay", np.asarray(ours[2])[0], np.asarray(theirs[2])[0], lambda x: np.isfinite(x).all(axis=1))


def _deterministic_resets(fields):
    def check(env, params, genv, gparams, n, seed) -> list[Check]:
        ours, theirs = _sample_resets(env, params, genv, gparams, max(n // 10, 10), seed)
        return [
            exact_check(f"reset {f}", np.asarray(getattr(ours, f)), np.asarray(getattr(theirs, f)).astype(
                np.asarray(getattr(ours, f)).dtype))
            for f in fields
        ]

    return check


# Transitions with a random part, from (injected gymnax states, actions, gymnax's step outputs,
# gymnax params): their random fields are left out of the exact comparison.
def _teleported(gstates, actions, theirs, gparams):
    return np.asarray(theirs[2]) == float(gparams.reward)  # only the goal pays `reward`


def _respawned(gstates, actions, theirs, gparams):
    dist = np.linalg.norm(np.asarray(gstates.goal) - np.asarray(gstates.pos), axis=1)
    return dist <= float(gparams.goal_radius)


def _every_row(gstates, actions, theirs, gparams):
    return np.ones(len(np.asarray(actions)), bool)


def _risky_arm(gstates, actions, theirs, gparams):
    return np.asarray(actions) != 0


# env -> (random-part check, reset check, rows with a random part, their random fields)
SPECIAL: Mapping[str, tuple] = {
    "FourRooms-misc": (_four_rooms_random, _four_rooms_resets, None, ()),
    "MetaMaze-misc": (_meta_maze_random, _meta_maze_resets, _teleported, ("pos", "obs", "terminated")),
    "PointRobot-misc": (_point_robot_random, _continuous_resets(("pos", "goal"), _point_robot_reset_support), _respawned, ("pos", "obs")),
    "BernoulliBandit-misc": (_bernoulli_random, _bernoulli_resets, _every_row, ("last_reward", "obs", "reward")),
    "GaussianBandit-misc": (
        _gaussian_random, _continuous_resets(("mu",), lambda x: np.isfinite(x).all(axis=1)), _risky_arm, ("last_reward", "obs", "reward"),
    ),
    "Reacher-misc": (None, _continuous_resets(
        ("angles", "angle_vels", "goal_xy"), _within([-np.pi] * 2 + [-1.0] * 2 + [-2.0] * 2, [np.pi] * 2 + [1.0] * 2 + [2.0] * 2)
    ), None, ()),
    "Swimmer-misc": (None, _continuous_resets(("urchin_xys", "xy", "goal_xy"), _within(-1.0, 1.0)), None, ()),
    "Pong-misc": (
        None,
        _deterministic_resets(("paddle_centers", "ball_position", "last_ball_position", "ball_velocity")),
        None,
        (),
    ),
}


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    import gymnax  # noqa: F401  (a missing reference gives a skipped result)

    result = ParityResult(env_id, f"gymnax {env_id}")
    n_steps = max(256, int(4000 * scale))
    n_samples = max(400, int(4000 * scale))
    n_episodes = max(64, int(500 * scale))
    n_trajectories = max(4, int(40 * scale))
    to_jax = _to_jax(env_id)
    fields = FIELDS[env_id]
    random_check, reset_check, random_rows, random_fields = SPECIAL[env_id]
    with Timer() as timer:
        _, _, genv, g_roll = _make_pair(env_id, **ROLLOUT_OVERRIDES.get(env_id, {}))
        gstates, actions = _rollout_states(genv, g_roll, n_steps, seed)
        if env_id in ENRICH:
            gstates = ENRICH[env_id](genv, gstates, actions)

        # 1. transitions, random parts switched off or masked out
        env, params, genv, gparams = _make_pair(env_id, **DETERMINISTIC_OVERRIDES.get(env_id, {}))
        ours, theirs = _step_both(env, params, genv, gparams, to_jax, gstates, actions, seed)
        if random_rows is None:
            randomized = np.zeros(len(np.asarray(actions)), bool)
        else:
            randomized = np.asarray(random_rows(gstates, actions, theirs, gparams))
        if (~randomized).any():
            result.checks += _compare("step", fields, ours, theirs, mask=~randomized)
        if randomized.any():
            result.checks += _compare("step with a random part", fields, ours, theirs, mask=randomized,
                                      skip=random_fields)

        if env_id in WHOLE_EPISODES:
            result.checks += _trajectory_checks(env, params, genv, gparams, to_jax, fields, n_trajectories, seed)

        # 2. random parts by distribution, 3. resets, 4. episodes (default params)
        env, params, genv, gparams = _make_pair(env_id)
        if random_check is not None:
            result.checks += random_check(env, params, genv, gparams, to_jax, gstates, n_samples, seed)
        result.checks += reset_check(env, params, genv, gparams, n_samples, seed + 101)
        result.checks += _episode_checks(env, params, genv, gparams, n_episodes, seed)
    result.seconds = timer.seconds
    return result
