"""Parity of the gymnax misc set against gymnax itself (`gymnax.environments.misc`).

Gymnax is JAX too, so both sides run vmapped, on PRNG keys drawn by numpy. Per env:

0. one program rolls out both sides under uniform random actions, each env for
   `max_steps_in_episode` steps from its reset (gymnax: `reset_env`, then `step_env` until its
   termination or time limit, which is what its auto-resetting `step` acts on).
1. transitions by state injection: states drawn from gymnax's first episodes (some rewritten
   so that rare branches happen: the goal on the cell the action moves to, a start within
   PointRobot's goal radius, the time one step before the limit) are translated into ours and
   both take the same action with gymnax's raw `step_env`. Next state fields, observation,
   reward and flags are compared: integers and flags exactly, floats to 1e-5. Random parts
   are excluded here and tested by distribution below: FourRooms runs this check with
   `fail_prob = 0`; MetaMaze's and PointRobot's teleport after reaching the goal and the
   bandits' rewards are masked out of the exact comparison.
   Deterministic envs (Reacher, Swimmer, Pong) are also compared over gymnax's whole first
   episodes: ours replays the actions from the same start with no re-injection (1e-4).
2. random parts by distribution, from injected states: FourRooms' slips, MetaMaze's teleport
   (with its chance of ending on the goal), PointRobot's respawn, each bandit's pay; every
   outcome must lie in gymnax's support, frequencies by chi-square (discrete) or KS
   (continuous) at the harness's threshold.
3. reset distributions the same way (exactly where the reset is deterministic).
4. first-episode length and return under uniform random actions within 3 standard errors.

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
            time=_int(g.time),
            last_action=_int(g.last_action),
            last_reward=_f32(g.last_reward),
            pos=_int(g.pos),
            goal=_int(g.goal),
        )
    if env_id == "PointRobot-misc":
        from jaxenvs.envs.misc.point_robot import PointRobotState

        return lambda g: PointRobotState(
            time=_int(g.time),
            last_action=_f32(g.last_action),
            last_reward=_f32(g.last_reward),
            pos=_f32(g.pos),
            goal=_f32(g.goal),
            goals_reached=_int(g.goals_reached),
        )
    if env_id == "BernoulliBandit-misc":
        from jaxenvs.envs.misc.bernoulli_bandit import BernoulliBanditState

        return lambda g: BernoulliBanditState(
            time=_int(g.time),
            last_action=_int(g.last_action),
            last_reward=_f32(g.last_reward),
            exp_reward_best=_f32(g.exp_reward_best),
            reward_probs=_f32(g.reward_probs),
        )
    if env_id == "GaussianBandit-misc":
        from jaxenvs.envs.misc.gaussian_bandit import GaussianBanditState

        return lambda g: GaussianBanditState(
            time=_int(g.time),
            last_action=_int(g.last_action),
            last_reward=_f32(g.last_reward),
            mu=_f32(g.mu),
        )
    if env_id == "Reacher-misc":
        from jaxenvs.envs.misc.reacher import ReacherState

        return lambda g: ReacherState(
            time=_int(g.time),
            angles=_f32(g.angles),
            angle_vels=_f32(g.angle_vels),
            goal_xy=_f32(g.goal_xy),
        )
    if env_id == "Swimmer-misc":
        from jaxenvs.envs.misc.swimmer import SwimmerState

        return lambda g: SwimmerState(
            time=_int(g.time),
            urchin_xys=_f32(g.urchin_xys),
            xy=_f32(g.xy),
            xy_vel=_f32(g.xy_vel),
            goal_xy=_f32(g.goal_xy),
        )
    if env_id == "Pong-misc":
        from jaxenvs.envs.misc.pong import PongState

        return lambda g: PongState(
            time=_int(g.time),
            paddle_centers=_f32(g.paddle_centers),
            ball_position=_f32(g.ball_position),
            last_ball_position=_f32(g.last_ball_position),
            ball_velocity=_int(g.ball_velocity),
        )
    raise KeyError(env_id)


# State fields compared, by gymnax's names (the same as ours): None = exactly, else the atol.
FIELDS: Mapping[str, Mapping[str, float | None]] = {
    "FourRooms-misc": {"pos": None, "goal": None, "time": None},
    "MetaMaze-misc": {"last_action": None, "last_reward": ATOL, "pos": None, "goal": None, "time": None},
    "PointRobot-misc": {
        "last_action": ATOL,
        "last_reward": ATOL,
        "pos": ATOL,
        "goal": ATOL,
        "goals_reached": None,
        "time": None,
    },
    "BernoulliBandit-misc": {
        "last_action": None,
        "last_reward": None,
        "exp_reward_best": ATOL,
        "reward_probs": ATOL,
        "time": None,
    },
    "GaussianBandit-misc": {"last_action": None, "last_reward": ATOL, "mu": ATOL, "time": None},
    "Reacher-misc": {"angles": ATOL, "angle_vels": ATOL, "goal_xy": ATOL, "time": None},
    "Swimmer-misc": {"urchin_xys": ATOL, "xy": ATOL, "xy_vel": ATOL, "goal_xy": ATOL, "time": None},
    "Pong-misc": {
        "paddle_centers": None,
        "ball_position": None,
        "last_ball_position": None,
        "ball_velocity": None,
        "time": None,
    },
}

# Params under which the compared step has no random part.
DETERMINISTIC_OVERRIDES: Mapping[str, Mapping[str, Any]] = {"FourRooms-misc": {"fail_prob": 0.0}}


# ---------------------------------------------------------------------------------------------
# building blocks


def _numpy(tree):
    return jax.tree_util.tree_map(np.asarray, jax.device_get(tree))


def _keys(seed: int, *shape: int) -> jax.Array:
    """PRNG keys drawn by numpy: no `split` to compile into the programs below."""
    data = np.random.default_rng(seed).integers(0, 2**32, size=(*shape, 2), dtype=np.uint32)
    return jax.random.wrap_key_data(data)


def _rollout(env, params, genv, gparams, num_envs: int, seed: int):
    """Random-policy rollouts of both sides, in one program.

    gymnax: its raw `step_env` under uniform random actions, `num_envs` envs for
    `max_steps_in_episode` steps each from `reset_env`, ended by gymnax's termination or time
    limit (what its `step` would auto-reset on), so that every env plays its first episode
    out. Returns (as numpy, `[env, step, ...]`) the state before each step, the action, the
    reward, done, and whether the step belongs to the first episode. Ours: the same for our
    raw env with its own actions and keys; only first-episode lengths and returns are kept.
    """
    steps = int(gparams.max_steps_in_episode)

    def first_episode(reset, step, space, reset_key, keys):
        state = reset(reset_key)

        def body(carry, k):
            state, alive = carry
            action = space.sample(k[0])
            next_state, reward, done = step(k[1], state, action)
            return (next_state, alive & ~done), (state, action, jnp.asarray(reward, jnp.float32), done, alive)

        return jax.lax.scan(body, (state, jnp.asarray(True)), keys)[1]

    def gymnax_side(reset_key, keys):
        def step(k, state, action):
            _, state, reward, terminated, _ = genv.step_env(k, state, action, gparams)
            return state, reward, terminated | genv.is_truncated(state, gparams)

        return first_episode(lambda k: genv.reset_env(k, gparams)[1], step, genv.action_space(gparams), reset_key, keys)

    def our_side(reset_key, keys):
        def step(k, state, action):
            _, state, reward, terminated, truncated, _ = env.step(k, state, action, params)
            return state, reward, terminated | truncated

        _, _, rewards, _, alive = first_episode(
            lambda k: env.reset(k, params)[1], step, env.action_space(params), reset_key, keys
        )
        return jnp.sum(alive), jnp.sum(jnp.where(alive, rewards, 0.0))

    def both(g_reset, g_keys, o_reset, o_keys):
        return jax.vmap(gymnax_side)(g_reset, g_keys), jax.vmap(our_side)(o_reset, o_keys)

    keys = [_keys(seed + i, num_envs, *([steps, 2] if i % 2 else [])) for i in range(4)]
    return _numpy(jax.jit(both)(*keys))


def _first_episodes(rewards: np.ndarray, dones: np.ndarray, alive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Length and return of each env's first episode in a rollout `[env, step]`."""
    return alive.sum(axis=1), np.sum(np.where(alive, rewards, 0.0), axis=1)


def _injection_states(states, actions, alive, num: int, seed: int, max_steps: int):
    """`num` (state, action) pairs drawn from the rollout's first episodes; every 8th state
    one step before the time limit, so that truncation is compared too."""
    flat = jax.tree_util.tree_map(lambda x: x.reshape(-1, *x.shape[2:]), (states, actions))
    candidates = np.flatnonzero(alive.reshape(-1))
    rows = np.random.default_rng(seed).choice(candidates, size=min(num, len(candidates)), replace=False)
    gstates, actions = jax.tree_util.tree_map(lambda x: x[rows], flat)
    near_limit = (np.arange(len(rows)) % 8) == 7
    time = np.where(near_limit, max_steps - 1, gstates.time).astype(gstates.time.dtype)
    return gstates.replace(time=time), actions


def _goal_in_reach(genv, gstates, actions):
    """Grid mazes: every 4th state gets its goal on the cell its action moves to (when open),
    so that reaching the goal, rare under random actions, is compared too (gymnax's map)."""
    target = gstates.pos + np.asarray(genv.directions)[actions]
    is_open = np.asarray(genv.env_map)[target[:, 0], target[:, 1]]
    pick = ((np.arange(len(actions)) % 4) == 1) & is_open
    return gstates.replace(goal=np.where(pick[:, None], target, gstates.goal).astype(gstates.goal.dtype))


def _near_goal(genv, gstates, actions):
    """PointRobot: every 4th state starts within the goal radius (the respawn branch)."""
    pick = (np.arange(len(actions)) % 4) == 1
    near = gstates.goal + np.asarray([0.07, -0.07], gstates.pos.dtype)
    return gstates.replace(pos=np.where(pick[:, None], near, gstates.pos))


# Rewrites of the injected states that make rare branches common.
ENRICH: Mapping[str, Callable] = {
    "FourRooms-misc": _goal_in_reach,
    "MetaMaze-misc": _goal_in_reach,
    "PointRobot-misc": _near_goal,
}


def _step_both(env, params, genv, gparams, to_jax, gstates, actions, seed: int):
    """Both sides' step of every injected state, with the same keys (one compiled program)."""

    def gstep(key, state, action):
        obs, state, reward, done, _ = genv.step_env(key, state, action, gparams)
        return obs, state, reward, done, genv.is_truncated(state, gparams)

    def both(keys, gstates, actions):
        ours = jax.vmap(env.step, in_axes=(0, 0, 0, None))(keys, to_jax(gstates), actions, params)
        return ours, jax.vmap(gstep)(keys, gstates, actions)

    return _numpy(jax.jit(both)(_keys(seed, len(actions)), gstates, actions))


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
        checks.append(
            _flag_check(
                f"{label} done (terminated or truncated)",
                pick(terminated | truncated),
                pick(np.asarray(g_done) | np.asarray(g_truncated)),
            )
        )
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

    def ours_one(ks, state, action):
        return jax.vmap(env.step, in_axes=(0, None, None, None))(ks, state, action, params)

    def theirs_one(ks, gstate, action):
        return jax.vmap(lambda k: genv.step_env(k, gstate, action, gparams)[:4])(ks)

    def both(keys, gstates, actions):
        ours = jax.vmap(ours_one)(keys[0], to_jax(gstates), actions)
        return ours, jax.vmap(theirs_one)(keys[1], gstates, actions)

    return _numpy(jax.jit(both)(_keys(seed, 2, count, num), gstates, actions))


def _sample_resets(env, params, genv, gparams, num: int, seed: int):
    def both(keys):
        _, ours = jax.vmap(env.reset, in_axes=(0, None))(keys[0], params)
        _, theirs = jax.vmap(lambda k: genv.reset_env(k, gparams))(keys[1])
        return ours, theirs

    return _numpy(jax.jit(both)(_keys(seed, 2, num)))


def _rows(*arrays) -> list[tuple]:
    """Per-row tuples of the given arrays (for chi-square outcomes)."""
    flat = [np.asarray(a).reshape(len(np.asarray(a)), -1) for a in arrays]
    return [tuple(v.item() for v in row) for row in np.concatenate(flat, axis=1)]


def _index(tree, i):
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[i], tree)


def _episode_checks(ours, gymnax_lengths, gymnax_returns) -> list[Check]:
    """Random-policy episode length and return, within 3 standard errors."""
    lengths, returns = ours
    return [
        mean_check("random-policy episode length", lengths, gymnax_lengths),
        mean_check("random-policy episode return", returns, gymnax_returns),
    ]


def _trajectory_checks(env, params, to_jax, fields, states, actions, rewards, dones, alive) -> list[Check]:
    """Whole episodes of the deterministic envs: ours starts from the first state of each
    env of gymnax's rollout and replays its actions with no re-injection; every state field,
    the reward and the done flag are compared with gymnax's over the whole first episode."""
    first = jax.tree_util.tree_map(lambda x: x[:, 0], states)

    def episode(gstate, episode_actions):
        def body(state, action):
            _, nxt, reward, terminated, truncated, _ = env.step(jax.random.key(0), state, action, params)
            return nxt, (nxt, reward, terminated | truncated)

        return jax.lax.scan(body, to_jax(gstate), episode_actions)[1]

    ours, our_rewards, our_dones = _numpy(jax.jit(jax.vmap(episode))(first, actions))
    lengths = alive.sum(axis=1)
    steps = np.arange(dones.shape[1])[None, :]
    in_episode = alive
    # the rollout records the state before each step: step t's successor is state t + 1
    has_successor = steps < (lengths - 1)[:, None]
    detail = f"{len(lengths)} whole episodes"
    checks = []
    for name, atol in fields.items():
        a = getattr(ours, name)[:, :-1][has_successor[:, :-1]]
        b = getattr(states, name)[:, 1:][has_successor[:, :-1]]
        if atol is None:
            check = exact_check(f"episode {name}", a.astype(np.int64), b.astype(np.int64))
        else:
            check = error_check(f"episode {name}", a, b, ATOL_EPISODE)
        check.detail = detail
        checks.append(check)
    checks.append(error_check("episode reward", our_rewards[in_episode], rewards[in_episode], ATOL_EPISODE))
    checks.append(exact_check("episode done", our_dones[in_episode], dones[in_episode]))
    checks[-1].detail = checks[-2].detail = detail
    return checks


# Deterministic envs, compared over whole episodes too.
WHOLE_EPISODES = ("Reacher-misc", "Swimmer-misc", "Pong-misc")


# ---------------------------------------------------------------------------------------------
# per env: random parts and resets


def _four_rooms_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    """Slips: outcomes (state, next cell) from 8 injected states, each sampled `n` times."""
    picks = np.linspace(0, len(np.asarray(gstates.time)) - 1, 8).astype(int)
    ours, theirs = _sample_steps(
        env, params, genv, gparams, to_jax, _index(gstates, picks), np.arange(8, dtype=np.int32) % 4, n, seed
    )
    cases = np.repeat(np.arange(8), n)
    return chi_square_check(
        "slip: (state, next cell)",
        _rows(cases, np.asarray(ours[1].pos).reshape(-1, 2)),
        _rows(cases, np.asarray(theirs[1].pos).reshape(-1, 2)),
    )


def _chi_square(name: str, ours: list, theirs: list, support: set | None = None) -> list[Check]:
    """The harness's chi-square test; where gymnax defines the support (its open cells), that
    set replaces the support seen in the reference's sample, which misses rare outcomes."""
    checks = chi_square_check(name, ours, theirs)
    if support is None:
        return checks
    outside = [x for x in ours if x not in support]
    outside_ref = [x for x in theirs if x not in support]
    checks[0] = Check(
        f"{name} support",
        len(ours),
        float(len(outside)),
        0.0,
        not outside and not outside_ref,
        kind="mismatches",
        detail=f"reference {len(outside_ref)} outside" + (f"; outside: {sorted(set(outside))[:3]}" if outside else ""),
    )
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
    checks.append(
        Check(
            "resampled reset: start on goal",
            n,
            float(same),
            0.0,
            same == same_ref == 0,
            kind="mismatches",
            detail=f"reference {same_ref}",
        )
    )
    return checks


def _meta_maze_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    """The teleport after reaching the goal: (cell, terminated) outcomes."""
    gstate = _index(gstates, np.array([0])).replace(pos=np.array([[5, 5]], np.int32), goal=np.array([[5, 6]], np.int32))
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, np.ones(1, np.int32), n, seed)
    support = {(*c, c == (5, 6)) for c in _cells(genv)}  # terminated exactly when landing on the goal
    return _chi_square(
        "teleport: (cell, terminated)",
        _rows(np.asarray(ours[1].pos)[0], ours[3][0]),
        _rows(np.asarray(theirs[1].pos)[0], theirs[3][0]),
        support,
    )


def _meta_maze_resets(env, params, genv, gparams, n, seed) -> list[Check]:
    ours, theirs = _sample_resets(env, params, genv, gparams, n, seed)
    return [exact_check("reset start", _rows(ours.pos), _rows(theirs.pos))] + _chi_square(
        "reset goal", _rows(ours.goal), _rows(theirs.goal), _cells(genv)
    )


def _point_robot_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    """The respawn after a step that starts within the goal radius."""
    gstate = _index(gstates, np.array([0]))
    gstate = gstate.replace(pos=gstate.goal + np.array([0.05, -0.05], np.float32))
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, np.zeros((1, 2), np.float32), n, seed)
    return _ks("respawn position", np.asarray(ours[1].pos)[0], np.asarray(theirs[1].pos)[0], _half_disc(1.0))


def _ks(name: str, ours: Any, theirs: Any, support: Callable[[np.ndarray], np.ndarray]) -> list[Check]:
    """KS per coordinate (the harness's), with the support stated as a predicate on an outcome
    (gymnax's definition of it) that both sides' samples must satisfy: the harness's empirical
    range test would fail by chance for unbounded or thin-tailed outcomes."""
    a = np.asarray(ours, np.float64).reshape(len(ours), -1)
    b = np.asarray(theirs, np.float64).reshape(len(theirs), -1)
    outside, outside_ref = int(np.sum(~support(a))), int(np.sum(~support(b)))
    check = Check(
        f"{name} support",
        len(a),
        float(outside),
        0.0,
        outside == 0 and outside_ref == 0,
        kind="mismatches",
        detail=f"reference {outside_ref} outside",
    )
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
    probs = np.asarray([[p, 1 - p], [p, 1 - p], [1 - p, p], [1 - p, p]], np.float32)
    gstate = _index(gstates, np.zeros(4, int)).replace(reward_probs=probs)
    actions = np.asarray([0, 1, 0, 1], np.int32)
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, actions, n, seed)
    cases = np.repeat(np.arange(4), n)
    return chi_square_check(
        "arm pay: (case, reward)",
        _rows(cases, np.asarray(ours[2]).reshape(-1)),
        _rows(cases, np.asarray(theirs[2], np.float32).reshape(-1)),
    )


def _bernoulli_resets(env, params, genv, gparams, n, seed) -> list[Check]:
    ours, theirs = _sample_resets(env, params, genv, gparams, n, seed)
    # probabilities as float32 round them: compare them rounded to 6 decimals
    return chi_square_check(
        "reset arm probabilities",
        _rows(np.round(np.asarray(ours.reward_probs, np.float64), 6)),
        _rows(np.round(np.asarray(theirs.reward_probs, np.float64), 6)),
    )


def _gaussian_random(env, params, genv, gparams, to_jax, gstates, n, seed) -> list[Check]:
    gstate = _index(gstates, np.array([0])).replace(mu=np.asarray([-1.3], np.float32))
    ours, theirs = _sample_steps(env, params, genv, gparams, to_jax, gstate, np.ones(1, np.int32), n, seed)
    return _ks("arm 1 pay", np.asarray(ours[2])[0], np.asarray(theirs[2])[0], _finite)


def _deterministic_resets(fields):
    def check(env, params, genv, gparams, n, seed) -> list[Check]:
        ours, theirs = _sample_resets(env, params, genv, gparams, max(n // 10, 10), seed)
        return [
            exact_check(
                f"reset {f}",
                np.asarray(getattr(ours, f)),
                np.asarray(getattr(theirs, f)).astype(np.asarray(getattr(ours, f)).dtype),
            )
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


def _finite(x):
    return np.isfinite(x).all(axis=1)


# Reacher's reset: angles in [-pi, pi], velocities in [-1, 1], goal in [-2, 2]^2 (2 joints).
_REACHER_RESET = _within([-np.pi] * 2 + [-1.0] * 2 + [-2.0] * 2, [np.pi] * 2 + [1.0] * 2 + [2.0] * 2)
_PAY_FIELDS = ("last_reward", "obs", "reward")

# env -> (random-part check, reset check, rows with a random part, their random fields)
SPECIAL: Mapping[str, tuple] = {
    "FourRooms-misc": (_four_rooms_random, _four_rooms_resets, None, ()),
    "MetaMaze-misc": (_meta_maze_random, _meta_maze_resets, _teleported, ("pos", "obs", "terminated")),
    "PointRobot-misc": (
        _point_robot_random,
        _continuous_resets(("pos", "goal"), _point_robot_reset_support),
        _respawned,
        ("pos", "obs"),
    ),
    "BernoulliBandit-misc": (_bernoulli_random, _bernoulli_resets, _every_row, _PAY_FIELDS),
    "GaussianBandit-misc": (_gaussian_random, _continuous_resets(("mu",), _finite), _risky_arm, _PAY_FIELDS),
    "Reacher-misc": (None, _continuous_resets(("angles", "angle_vels", "goal_xy"), _REACHER_RESET), None, ()),
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
    to_jax = _to_jax(env_id)
    fields = FIELDS[env_id]
    random_check, reset_check, random_rows, random_fields = SPECIAL[env_id]
    with Timer() as timer:
        env, params, genv, gparams = _make_pair(env_id)
        (states, all_actions, rewards, dones, alive), our_episodes = _rollout(
            env, params, genv, gparams, n_episodes, seed
        )
        gymnax_lengths, gymnax_returns = _first_episodes(rewards, dones, alive)
        gstates, actions = _injection_states(
            states, all_actions, alive, n_steps, seed, int(gparams.max_steps_in_episode)
        )
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
            result.checks += _compare(
                "step with a random part", fields, ours, theirs, mask=randomized, skip=random_fields
            )

        if env_id in WHOLE_EPISODES:
            result.checks += _trajectory_checks(env, params, to_jax, fields, states, all_actions, rewards, dones, alive)

        # 2. random parts by distribution, 3. resets, 4. episodes (default params)
        env, params, genv, gparams = _make_pair(env_id)
        if random_check is not None:
            result.checks += random_check(env, params, genv, gparams, to_jax, gstates, n_samples, seed)
        result.checks += reset_check(env, params, genv, gparams, n_samples, seed + 101)
        result.checks += _episode_checks(our_episodes, gymnax_lengths, gymnax_returns)
    result.seconds = timer.seconds
    return result
