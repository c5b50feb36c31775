"""Parity of the gymnax misc set against gymnax itself (`gymnax.environments.misc`), through
`JaxReference`: gymnax's raw `reset_env` / `step_env`, with `truncated` from its
`is_truncated`, as its auto-resetting `step` sees them (gymnax >= 1.0's `step_env` returns
natural termination only, as our `step_env` does). State fields carry gymnax's names, so no
translation is needed. Per env:

1. transitions by state injection along gymnax's own runs under uniform random actions, with
   rare branches made common by rewriting states before a step: the goal next to the agent
   (and the agent heading for it half the time), a start within PointRobot's goal radius, the
   time one step before the limit. Every next-state field, observation, reward and both flags
   are compared: integers and flags exactly, floats to 1e-5. Random parts are left to the
   distribution checks: FourRooms runs this check with `fail_prob = 0`; MetaMaze's and
   PointRobot's teleport after reaching the goal and the bandits' rewards are left out of the
   exact comparison on the steps that draw them.
   Deterministic envs (Reacher, Swimmer, Pong) are also compared over gymnax's whole first
   episodes, ours replaying its actions from the same start with no re-injection (1e-4).
2. random parts by distribution, from injected states: FourRooms' slips, MetaMaze's teleport
   (with its chance of ending on the goal), PointRobot's respawn, each bandit's pay; every
   outcome must lie in gymnax's support, frequencies by chi-square (discrete) or KS
   (continuous) at the harness's threshold.
3. reset distributions the same way (a deterministic reset: its single outcome must agree).
4. first-episode length and return under uniform random actions compared by a p-value (`mean_check`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import jaxenvs
from jaxenvs.parity import harness
from jaxenvs.parity.checks import Check, ParityResult, Sizes, Timer, rows
from jaxenvs.parity.reference import JaxReference

ATOL = 1e-5  # float32 state, observation and reward, one step
ATOL_EPISODE = 1e-4  # float32, whole episodes without re-injection

# Fields compared exactly (the others to ATOL).
EXACT: Mapping[str, tuple[str, ...]] = {
    "FourRooms-misc": ("pos", "goal", "time"),
    "MetaMaze-misc": ("last_action", "pos", "goal", "time"),
    "PointRobot-misc": ("goals_reached", "time"),
    "BernoulliBandit-misc": ("last_action", "last_reward", "time"),
    "GaussianBandit-misc": ("last_action", "time"),
    "Reacher-misc": ("time",),
    "Swimmer-misc": ("time",),
    "Pong-misc": ("paddle_centers", "ball_position", "last_ball_position", "ball_velocity", "time"),
}

# Params under which the compared step has no random part.
DETERMINISTIC_OVERRIDES: Mapping[str, Mapping[str, Any]] = {"FourRooms-misc": {"fail_prob": 0.0}}

# Deterministic envs, compared over whole episodes too.
WHOLE_EPISODES = ("Reacher-misc", "Swimmer-misc", "Pong-misc")


def _reference(env_id: str, **overrides: Any) -> JaxReference:
    """gymnax's env with its default params plus `overrides`, and what its steps draw."""
    import gymnax

    genv, gparams = gymnax.make(env_id)
    gparams = gparams.replace(**overrides)
    random_step, random_step_fields, random_fields = None, (), ()
    if env_id == "MetaMaze-misc":  # only the goal pays `reward`; it teleports the agent
        random_step = lambda s, s2, r: r == float(gparams.reward)  # noqa: E731
        random_step_fields = ("pos", "observation", "terminated")
    elif env_id == "PointRobot-misc":  # within the goal radius: a respawn

        def random_step(s, s2, r):
            return np.linalg.norm(np.asarray(s["goal"]) - np.asarray(s["pos"])) <= float(gparams.goal_radius)

        random_step_fields = ("pos", "observation")
    elif env_id == "BernoulliBandit-misc":
        random_fields = ("last_reward", "observation", "reward")
    elif env_id == "GaussianBandit-misc":  # arm 0 pays a fixed reward, arm 1 a random one
        random_step = lambda s, s2, r: int(s2["last_action"]) != 0  # noqa: E731
        random_step_fields = ("last_reward", "observation", "reward")
    return JaxReference(
        env=genv,
        params=gparams,
        exact_fields=EXACT[env_id],
        random_fields=random_fields,
        random_step=random_step,
        random_step_fields=random_step_fields,
        name=f"gymnax {env_id}",
    )


def _pair(env_id: str, **overrides: Any):
    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    return env, params, _reference(env_id, **overrides)


# ---------------------------------------------------------------------------------------------
# rare branches made common (scrambles and a policy for the transitions)


def _scramble(env_id: str, ref: JaxReference) -> Callable:
    limit = int(ref.params.max_steps_in_episode)
    count = {"steps": 0}
    genv = ref.env

    def scramble(r: JaxReference, rng: np.random.Generator) -> None:
        count["steps"] += 1
        state = r.state()
        if count["steps"] % 8 == 7:  # one step before the limit: truncation is compared too
            state["time"] = np.asarray(limit - 1, state["time"].dtype)
        if count["steps"] % 4 == 1 and env_id in ("FourRooms-misc", "MetaMaze-misc"):
            target = state["pos"] + np.asarray(genv.directions)[int(rng.integers(4))]
            if np.asarray(genv.env_map)[target[0], target[1]]:
                state["goal"] = target.astype(state["goal"].dtype)
        if count["steps"] % 4 == 1 and env_id == "PointRobot-misc":
            state["pos"] = (state["goal"] + np.asarray([0.07, -0.07])).astype(state["pos"].dtype)
        r.load(state)

    return scramble


def _toward_goal(r: JaxReference, rng: np.random.Generator) -> Any:
    """Grid mazes: half the time, the move onto a goal next to the agent (rare by chance)."""
    state = r.state()
    step = np.asarray(state["goal"]) - np.asarray(state["pos"])
    directions = np.asarray(r.env.directions)
    hit = np.flatnonzero(np.all(directions == step, axis=1))
    if len(hit) and rng.random() < 0.5:
        return np.int32(hit[0])
    return r.sample_action(rng)


# ---------------------------------------------------------------------------------------------
# random parts and resets, per env


def _cells(genv) -> set:
    return {tuple(c) for c in np.asarray(genv.coords).tolist()}


def _within(low, high, eps=1e-6):
    """Support predicate: every coordinate within [low, high] (broadcast per coordinate)."""
    return lambda x: np.all((x >= np.asarray(low) - eps) & (x <= np.asarray(high) + eps), axis=1)


def _half_disc(radius: float, on_circle: bool = False, eps=1e-5):
    def inside(x):
        r = np.linalg.norm(x[:, :2], axis=1)
        ok = (x[:, 1] >= -eps) & (r <= radius + eps)
        return ok & (np.abs(r - radius) <= eps) if on_circle else ok

    return inside


def _finite(x):
    return np.isfinite(x).all(axis=1)


def _fields(*names: str) -> Callable:
    return lambda s, o: np.concatenate([np.asarray(s[k], np.float64).reshape(len(s[k]), -1) for k in names], axis=1)


def _four_rooms_random(env, params, ref, start, n, seed) -> list[Check]:
    """Slips: the next cell from 8 injected states (one action each), stratified by state."""
    cases = []
    for i in range(8):
        state = dict(start)
        state["pos"] = np.asarray(sorted(_cells(ref.env))[i * 11], start["pos"].dtype)
        cases.append((state, np.int32(i % 4)))
    return harness.check_step_distribution(
        env, params, ref, cases, n, lambda t: rows(t.next_states["pos"]), seed, label="slip: next cell"
    )


def _four_rooms_resets(env, params, ref, n, seed) -> list[Check]:
    checks = harness.check_resets(
        env, params, ref, max(n // 10, 10), seed, outcome=_fields("pos", "goal"), discrete=True, label="reset (fixed)"
    )
    env2, params2, ref2 = _pair("FourRooms-misc", resample_init_pos=True, resample_goal_pos=True)
    cells = _cells(ref2.env)
    for field in ("goal", "pos"):
        checks += harness.check_resets(
            env2,
            params2,
            ref2,
            n,
            seed + 1,
            outcome=lambda s, o, f=field: rows(s[f]),
            discrete=True,
            support=cells,
            label=f"resampled reset: {'start' if field == 'pos' else field}",
        )
    mine, _ = harness.sample_jax_resets(env2, params2, ref2, n, seed + 1)
    theirs, _ = ref2.sample_resets(n, seed + 1)
    same = int(np.sum(np.all(mine["pos"] == mine["goal"], axis=1)))
    same_ref = int(np.sum(np.all(theirs["pos"] == theirs["goal"], axis=1)))
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


def _meta_maze_random(env, params, ref, start, n, seed) -> list[Check]:
    """The teleport after reaching the goal: (cell, terminated) outcomes."""
    state = dict(start, pos=np.asarray([5, 5], start["pos"].dtype), goal=np.asarray([5, 6], start["goal"].dtype))
    return harness.check_step_distribution(
        env,
        params,
        ref,
        [(state, np.int32(1))],
        n,
        lambda t: rows(t.next_states["pos"], t.terminated),
        seed,
        label="teleport: (cell, terminated)",
        # terminated exactly when landing on the goal
        support=lambda s, a: {(*c, c == (5, 6)) for c in _cells(ref.env)},
    )


def _meta_maze_resets(env, params, ref, n, seed) -> list[Check]:
    checks = harness.check_resets(env, params, ref, n, seed, outcome=_fields("pos"), discrete=True, label="reset start")
    return checks + harness.check_resets(
        env,
        params,
        ref,
        n,
        seed,
        outcome=lambda s, o: rows(s["goal"]),
        discrete=True,
        support=_cells(ref.env),
        label="reset goal",
    )


def _point_robot_random(env, params, ref, start, n, seed) -> list[Check]:
    """The respawn after a step that starts within the goal radius."""
    state = dict(start, pos=(start["goal"] + np.asarray([0.05, -0.05])).astype(start["pos"].dtype))
    return harness.check_step_distribution(
        env,
        params,
        ref,
        [(state, np.zeros(2, np.float32))],
        n,
        lambda t: t.next_states["pos"],
        seed,
        label="respawn position",
        continuous=_half_disc(1.0),
    )


def _point_robot_reset_support(x):
    return _half_disc(1.0)(x[:, :2]) & _half_disc(1.0, on_circle=True)(x[:, 2:])


def _bernoulli_random(env, params, ref, start, n, seed) -> list[Check]:
    """Pay of each arm under both arm orders, stratified by case."""
    p = float(ref.params.reward_prob)
    cases = [
        (dict(start, reward_probs=np.asarray(probs, np.float32)), np.int32(a))
        for probs, a in (([p, 1 - p], 0), ([p, 1 - p], 1), ([1 - p, p], 0), ([1 - p, p], 1))
    ]
    return harness.check_step_distribution(
        env, params, ref, cases, n, lambda t: t.rewards.astype(np.float32), seed, label="arm pay"
    )


def _bernoulli_resets(env, params, ref, n, seed) -> list[Check]:
    # probabilities as float32 round them: compared rounded to 6 decimals
    return harness.check_resets(
        env,
        params,
        ref,
        n,
        seed,
        outcome=lambda s, o: np.round(np.asarray(s["reward_probs"], np.float64), 6),
        discrete=True,
        label="reset arm probabilities",
    )


def _gaussian_random(env, params, ref, start, n, seed) -> list[Check]:
    state = dict(start, mu=np.asarray(-1.3, np.float32))
    return harness.check_step_distribution(
        env, params, ref, [(state, np.int32(1))], n, lambda t: t.rewards, seed, label="arm 1 pay", continuous=_finite
    )


def _continuous_resets(fields, support):
    def check(env, params, ref, n, seed) -> list[Check]:
        return harness.check_resets(env, params, ref, n, seed, outcome=_fields(*fields), support=support)

    return check


def _deterministic_resets(fields):
    def check(env, params, ref, n, seed) -> list[Check]:
        return harness.check_resets(env, params, ref, max(n // 10, 10), seed, outcome=_fields(*fields), discrete=True)

    return check


# Reacher's reset: angles in [-pi, pi], velocities in [-1, 1], goal in [-2, 2]^2 (2 joints).
_REACHER_RESET = _within([-np.pi] * 2 + [-1.0] * 2 + [-2.0] * 2, [np.pi] * 2 + [1.0] * 2 + [2.0] * 2)

# env -> (random-part check, reset check)
SPECIAL: Mapping[str, tuple] = {
    "FourRooms-misc": (_four_rooms_random, _four_rooms_resets),
    "MetaMaze-misc": (_meta_maze_random, _meta_maze_resets),
    "PointRobot-misc": (_point_robot_random, _continuous_resets(("pos", "goal"), _point_robot_reset_support)),
    "BernoulliBandit-misc": (_bernoulli_random, _bernoulli_resets),
    "GaussianBandit-misc": (_gaussian_random, _continuous_resets(("mu",), _finite)),
    "Reacher-misc": (None, _continuous_resets(("angles", "angle_vels", "goal_xy"), _REACHER_RESET)),
    "Swimmer-misc": (None, _continuous_resets(("urchin_xys", "xy", "goal_xy"), _within(-1.0, 1.0))),
    "Pong-misc": (
        None,
        _deterministic_resets(("paddle_centers", "ball_position", "last_ball_position", "ball_velocity")),
    ),
}


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    import gymnax  # noqa: F401  (a missing reference gives a skipped result)

    result = ParityResult(env_id, jaxenvs.spec(env_id).reference or env_id)
    sizes = Sizes(max(256, int(4000 * scale)), max(400, int(4000 * scale)), max(64, int(500 * scale)))
    random_check, reset_check = SPECIAL[env_id]
    with Timer() as timer:
        # 1. transitions, random parts switched off or left out
        env, params, ref = _pair(env_id, **DETERMINISTIC_OVERRIDES.get(env_id, {}))
        policy = _toward_goal if env_id in ("FourRooms-misc", "MetaMaze-misc") else None
        data = ref.transitions(sizes.steps, seed, policy=policy, scramble=_scramble(env_id, ref))
        result.checks += harness.check_transitions(env, params, ref, atol=ATOL, seed=seed, data=data, reward_atol=ATOL)
        env, params, ref = _pair(env_id)
        if env_id in WHOLE_EPISODES:
            result.checks += harness.check_episodes(
                env, params, ref, num_episodes=sizes.episodes, atol=ATOL_EPISODE, seed=seed
            )
        # 2. random parts by distribution, 3. resets, 4. episode statistics (default params)
        if random_check is not None:
            result.checks += random_check(env, params, ref, data.state_at(0), sizes.samples, seed)
        result.checks += reset_check(env, params, ref, sizes.samples, seed + 101)
        result.checks += harness.check_episode_statistics(env, params, ref, sizes.episodes, seed)
    result.seconds = timer.seconds
    return result
