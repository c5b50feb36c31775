"""Shared parity machinery for the MinAtar games (reference: the `minatar` package).

The reference is `minatar.Environment(game, sticky_action_prob=...)`. Its game object (`.env`)
keeps plain Python attributes; each game's parity module (`minatar_<game>.py`) says how to
read them into a dict of numpy arrays named like the JAX state's fields (`read_state`), how
to write such a dict back (`write_state`), how to build a JAX state from it (`to_jax`) and
how to read a JAX state the same way (`from_jax`).

Random numbers: the game's `random` is replaced by `RecordingRandom`, a proxy of its numpy
`RandomState` that records every call (method, arguments, result); the game module turns a
step's calls into the explicit draws its JAX `transition` takes (`draws_from_calls`), so a
step that draws is compared exactly too. The sticky-action draw goes to the `Environment`'s
own generator, which is not recorded.

Blocks:
- `collect(...)`: reference transitions under a policy, optionally from scrambled states
  (`scramble(env, rng)` writes a random state first, to reach rare events);
- `check_injected(...)`: every recorded transition replayed by the JAX `act` from the injected
  state with the recorded draws; exact comparison of every field, observation, reward, flag;
- `check_sticky_actions(...)`: how often the executed action repeats the previous one;
- `check_random_episodes(...)`: episode length and return under a uniform random policy.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.parity.harness import Check, exact_check, max_error, mean_check

GAMES = ("asterix", "breakout", "freeway", "seaquest", "space_invaders")


class RecordingRandom:
    """A numpy `RandomState` proxy that records `(method, args, kwargs, result)` per call."""

    def __init__(self, random_state: np.random.RandomState):
        self._rs = random_state
        self.calls: list[tuple[str, tuple, dict, Any]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._rs, name)
        if not callable(attr):
            return attr

        def recorded(*args, **kwargs):
            result = attr(*args, **kwargs)
            self.calls.append((name, args, kwargs, copy.deepcopy(result)))
            return result

        return recorded

    def take(self) -> list[tuple[str, tuple, dict, Any]]:
        """The calls recorded since the last `take`, and forget them."""
        calls, self.calls = self.calls, []
        return calls


def make_reference(game: str, sticky_action_prob: float = 0.0, difficulty_ramping: bool = True, seed: int = 0) -> Any:
    """A seeded `minatar.Environment` whose game draws through a `RecordingRandom`; reset."""
    import minatar

    env = minatar.Environment(game, sticky_action_prob=sticky_action_prob, difficulty_ramping=difficulty_ramping)
    env.random = np.random.RandomState(seed)
    env.env.random = RecordingRandom(np.random.RandomState(seed + 7919))
    env.reset()
    env.env.random.take()
    return env


def game_attrs(env: Any, names: Sequence[str]) -> dict[str, Any]:
    """Deep copies of the game object's attributes `names`."""
    return {k: copy.deepcopy(getattr(env.env, k)) for k in names}


def set_game_attrs(env: Any, values: Mapping[str, Any]) -> None:
    for k, v in values.items():
        setattr(env.env, k, copy.deepcopy(v))


@dataclasses.dataclass
class Transitions:
    """Reference transitions; states are dicts of numpy arrays named like the JAX fields."""

    states: list[dict[str, np.ndarray]]
    actions: np.ndarray  # MinAtar actions 0..5 (as executed: sticky off)
    calls: list[list]  # the game's random calls during each step
    next_states: list[dict[str, np.ndarray]]
    obs: np.ndarray  # bool[n, 10, 10, C], the observation after each step
    rewards: np.ndarray
    terminals: np.ndarray

    def __len__(self) -> int:
        return len(self.actions)

    def __add__(self, other: Transitions) -> Transitions:
        return Transitions(
            self.states + other.states,
            np.concatenate([self.actions, other.actions]),
            self.calls + other.calls,
            self.next_states + other.next_states,
            np.concatenate([self.obs, other.obs]),
            np.concatenate([self.rewards, other.rewards]),
            np.concatenate([self.terminals, other.terminals]),
        )


Policy = Callable[[Any, np.random.Generator], int]


def uniform_policy(actions: Sequence[int] = tuple(range(6))) -> Policy:
    actions = tuple(actions)
    return lambda env, rng: actions[int(rng.integers(len(actions)))]


def collect(
    game: str,
    read_state: Callable[[Any], dict[str, np.ndarray]],
    num_steps: int,
    policy: Policy,
    seed: int = 0,
    scramble: Callable[[Any, np.random.Generator], None] | None = None,
    difficulty_ramping: bool = True,
) -> Transitions:
    """Run the reference (sticky actions off) for `num_steps`, resetting after each episode.

    `read_state(env)` gives the game's state (without `time` / `last_action`, added here).
    With `scramble`, a random state is written into the game before every step."""
    env = make_reference(game, 0.0, difficulty_ramping, seed)
    rng = np.random.default_rng(seed)
    time = 0
    states, actions, calls, next_states, obs, rewards, terminals = [], [], [], [], [], [], []
    for _ in range(num_steps):
        if scramble is not None:
            scramble(env, rng)
        state = dict(read_state(env), time=np.int32(time), last_action=np.int32(env.last_action))
        action = int(policy(env, rng))
        env.env.random.take()
        reward, terminal = env.act(action)
        calls.append(env.env.random.take())
        time += 1
        states.append(state)
        actions.append(action)
        next_states.append(dict(read_state(env), time=np.int32(time), last_action=np.int32(env.last_action)))
        obs.append(np.asarray(env.state(), bool))
        rewards.append(float(reward))
        terminals.append(bool(terminal))
        if terminal:
            env.reset()
            env.env.random.take()
            time = 0
    return Transitions(
        states,
        np.asarray(actions, np.int32),
        calls,
        next_states,
        np.stack(obs),
        np.asarray(rewards),
        np.asarray(terminals),
    )


def _stack(trees: Sequence[Any]) -> Any:
    """Stack pytrees of numpy values along a new leading axis (in numpy: fast)."""
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *trees)


def check_injected(
    env: Any,
    params: Any,
    data: Transitions,
    *,
    to_jax: Callable[[Mapping[str, np.ndarray], Any], Any],
    from_jax: Callable[[Any], Mapping[str, np.ndarray]],
    draws_from_calls: Callable[[list, Mapping[str, np.ndarray]], Any],
    label: str,
    mask: Callable[[str, np.ndarray, np.ndarray, Mapping[str, np.ndarray]], tuple[np.ndarray, np.ndarray]]
    | None = None,
) -> list[Check]:
    """Replay every reference transition in JAX from the injected state, with the recorded
    draws, through `env.act` (the step after the sticky draw); compare exactly.

    `to_jax(states, params)` gets the reference states stacked along a leading axis (a dict
    of numpy arrays) and returns the batched JAX state; `draws_from_calls(calls, state)`
    returns one step's draws as a pytree of numpy values (stacked here).
    `mask(field, jax_values, ref_values, ref_next_states)` may canonicalize a field before
    the comparison (e.g. zero the entries of empty slots, which the reference lacks)."""
    return check_injected_sets(
        env, params, {label: data}, to_jax=to_jax, from_jax=from_jax, draws_from_calls=draws_from_calls, mask=mask
    )


# ---------------------------------------------------------------------------------------------
# sticky actions


def reference_sticky_repeats(
    game: str, num_steps: int, sticky_action_prob: float, actions: Sequence[int], seed: int = 0
) -> tuple[np.ndarray, int]:
    """Indicators `executed == previous executed` under uniform random choices from `actions`,
    and how many executed actions were neither the choice nor the previous one."""
    import minatar

    env = minatar.Environment(game, sticky_action_prob=sticky_action_prob)
    env.seed(seed)
    env.reset()
    rng = np.random.default_rng(seed)
    repeats, impossible = [], 0
    for _ in range(num_steps):
        previous = env.last_action
        chosen = actions[int(rng.integers(len(actions)))]
        _, terminal = env.act(chosen)
        repeats.append(env.last_action == previous)
        impossible += int(env.last_action not in (chosen, previous))
        if terminal:
            env.reset()
    return np.asarray(repeats, np.float64), impossible


def jax_sticky_repeats(env_id: str, num_envs: int, num_steps: int, seed: int = 0, **overrides: Any):
    """The same indicators from the raw `jaxenvs.make(env_id)`, reset by hand after each
    episode (a reset sets the previous action to no-op), `num_envs` in parallel."""
    import jaxenvs

    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    act_space = env.action_space(params)
    actions = jnp.asarray(env.unwrapped.action_set(params), jnp.int32)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        _, state = env.reset(k_reset, params)

        def body(state, k):
            ka, ks, kr = jax.random.split(k, 3)
            a = act_space.sample(ka)
            previous = state.last_action
            _, next_state, _, te, tr, _ = env.step(ks, state, a, params)
            executed = next_state.last_action
            _, fresh = env.reset(kr, params)
            next_state = jax.tree_util.tree_map(lambda f, n: jnp.where(te | tr, f, n), fresh, next_state)
            return next_state, (executed == previous, (executed != actions[a]) & (executed != previous))

        _, (rep, imp) = jax.lax.scan(body, state, jax.random.split(k_run, num_steps))
        return rep, imp

    rep, imp = jax.jit(jax.vmap(run))(jax.random.split(jax.random.key(seed), num_envs))
    return np.asarray(rep, np.float64).ravel(), int(np.sum(imp))


def check_sticky_actions(
    env_id: str,
    game: str,
    num_steps: int,
    seed: int = 0,
    sticky_action_prob: float = 0.1,
    use_minimal_action_set: bool = False,
) -> list[Check]:
    """Frequency of `executed == previous executed` in both, against each other (3 SE) and
    against the analytic `p + (1 - p) / K` (K actions chosen uniformly)."""
    import jaxenvs

    _, params = jaxenvs.make(
        env_id, sticky_action_prob=sticky_action_prob, use_minimal_action_set=use_minimal_action_set
    )
    actions = jaxenvs.make(env_id, autoreset=False)[0].unwrapped.action_set(params)
    ref, ref_impossible = reference_sticky_repeats(game, num_steps, sticky_action_prob, actions, seed)
    num_envs = 64
    mine, impossible = jax_sticky_repeats(
        env_id,
        num_envs,
        max(1, num_steps // num_envs),
        seed,
        sticky_action_prob=sticky_action_prob,
        use_minimal_action_set=use_minimal_action_set,
    )
    expected = sticky_action_prob + (1 - sticky_action_prob) / len(actions)
    se = math.sqrt(expected * (1 - expected) / len(mine))
    z = abs(mine.mean() - expected) / se
    return [
        mean_check(f"sticky repeat frequency (p={sticky_action_prob}, {len(actions)} actions)", mine, ref),
        Check(
            f"sticky repeat frequency vs p + (1-p)/K = {expected:.4f}",
            len(mine),
            z,
            3.0,
            z <= 3.0,
            kind="|z|",
            detail=f"jax {mine.mean():.4f}, reference {ref.mean():.4f}",
        ),
        Check(
            "sticky executed action is the choice or the previous one",
            len(mine) + len(ref),
            float(impossible + ref_impossible),
            0.0,
            impossible + ref_impossible == 0,
            kind="mismatches",
        ),
    ]


# ---------------------------------------------------------------------------------------------
# whole episodes


def reference_random_episodes(
    game: str,
    num_episodes: int,
    actions: Sequence[int],
    seed: int = 0,
    sticky_action_prob: float = 0.1,
    difficulty_ramping: bool = True,
    max_steps: int = 100_000,
) -> tuple[np.ndarray, np.ndarray]:
    """Lengths and returns of reference episodes under uniform random choices from `actions`."""
    import minatar

    env = minatar.Environment(game, sticky_action_prob=sticky_action_prob, difficulty_ramping=difficulty_ramping)
    env.seed(seed)
    rng = np.random.default_rng(seed)
    lengths, returns = [], []
    for _ in range(num_episodes):
        env.reset()
        length, ret, terminal = 0, 0.0, False
        choices = rng.integers(len(actions), size=max_steps)
        while not terminal and length < max_steps:
            reward, terminal = env.act(actions[choices[length]])
            length += 1
            ret += reward
        lengths.append(length)
        returns.append(ret)
    return np.asarray(lengths), np.asarray(returns, np.float64)


def check_random_episodes(
    env_id: str, game: str, num_episodes: int, seed: int = 0, max_steps: int = 5000, **overrides: Any
) -> list[Check]:
    """Episode length and return under a uniform random policy, within 3 standard errors;
    `overrides` set params on both sides (sticky_action_prob, difficulty_ramping,
    use_minimal_action_set)."""
    import jaxenvs
    from jaxenvs.parity.harness import jax_episode_statistics

    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    actions = env.unwrapped.action_set(params)
    ref_len, ref_ret = reference_random_episodes(
        game,
        num_episodes,
        actions,
        seed,
        float(params.sticky_action_prob),
        bool(params.difficulty_ramping),
        max_steps,
    )
    lengths, returns = jax_episode_statistics(env, params, num_episodes, seed, max_steps)
    cut = int(np.sum(lengths >= max_steps) + np.sum(ref_len >= max_steps))
    tag = f"random-policy (sticky {float(params.sticky_action_prob):g})"
    return [
        mean_check(f"{tag} episode length", lengths, ref_len),
        mean_check(f"{tag} episode return", returns, ref_ret),
        Check(
            f"{tag} episodes cut at {max_steps} steps",
            len(lengths) + len(ref_len),
            float(cut),
            0.0,
            cut == 0,
            kind="mismatches",
        ),
    ]


def check_injected_sets(
    env: Any,
    params: Any,
    datasets: Mapping[str, Transitions],
    params_of: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> list[Check]:
    """`check_injected` over several labelled datasets with one compiled replay: the rows are
    concatenated, replayed once, and compared per dataset. `params_of[label]` gives a dataset
    its own params (same static fields; e.g. `difficulty_ramping=False` for a dataset collected
    with ramping off), vmapped along with the rows."""
    labels = list(datasets)
    if params_of:
        per_row = [params_of.get(k, params) for k in labels for _ in range(len(datasets[k]))]
        params = _stack([jax.tree_util.tree_map(np.asarray, p) for p in per_row])
        kwargs["batched_params"] = True
    total = datasets[labels[0]]
    for label in labels[1:]:
        total = total + datasets[label]
    bounds = np.cumsum([0] + [len(datasets[k]) for k in labels])
    rows: dict[str, slice] = {k: slice(bounds[i], bounds[i + 1]) for i, k in enumerate(labels)}
    replayed = _replay(
        env,
        params,
        total,
        kwargs["to_jax"],
        kwargs["from_jax"],
        kwargs["draws_from_calls"],
        kwargs.get("batched_params", False),
    )
    checks = []
    for label in labels:
        checks += _compare(replayed, total, rows[label], label, kwargs.get("mask"))
    return checks


def _replay(env, params, data, to_jax, from_jax, draws_from_calls, batched_params=False):
    states = to_jax(_stack(data.states), params)
    draws = _stack([draws_from_calls(c, s) for c, s in zip(data.calls, data.states)])
    act = jax.jit(jax.vmap(env.act, in_axes=(0, 0, 0, 0 if batched_params else None)))
    obs, next_state, reward, terminal = act(states, jnp.asarray(data.actions, jnp.int32), draws, params)
    mine = {k: np.asarray(v) for k, v in from_jax(next_state).items()}
    ref = {k: np.stack([np.asarray(s[k]) for s in data.next_states]) for k in data.next_states[0]}
    return dict(mine=mine, ref=ref, obs=np.asarray(obs), reward=np.asarray(reward), terminal=np.asarray(terminal))


def _compare(replayed, data, rows: slice, label: str, mask=None) -> list[Check]:
    """Per field an exact check (mismatching transitions), and one summary "error" check per
    dataset: the worst absolute difference of any compared value, over its transitions."""
    pairs = {}
    ref_rows = {k: v[rows] for k, v in replayed["ref"].items()}
    for k, b in ref_rows.items():
        a = replayed["mine"][k][rows]
        if mask is not None:
            a, b = mask(k, a, b, ref_rows)
        pairs[k] = (a, b)
    pairs["observation"] = (replayed["obs"][rows], data.obs[rows])
    pairs["reward"] = (replayed["reward"][rows], data.rewards[rows].astype(np.float32))
    pairs["terminated flag"] = (replayed["terminal"][rows], data.terminals[rows])
    n = len(data.actions[rows])
    worst = max(max_error(a, b) for a, b in pairs.values())
    checks = [
        Check(
            f"{label}: every field, observation, reward, flag",
            n,
            worst,
            0.0,
            worst <= 0.0,
            detail="worst absolute difference",
        )
    ]
    checks += [exact_check(f"{label} {k}", a, b) for k, (a, b) in pairs.items()]
    return checks


# ---------------------------------------------------------------------------------------------
# random play: episode statistics and sticky actions from one run on each side


def reference_random_play(
    game: str,
    num_episodes: int,
    actions: Sequence[int],
    seed: int = 0,
    sticky_action_prob: float = 0.1,
    difficulty_ramping: bool = True,
    max_steps: int = 100_000,
) -> dict[str, Any]:
    """Reference episodes under uniform random choices from `actions`: lengths, returns, and
    per step whether the executed action repeated the previous one (and how often it was
    neither the choice nor the previous action)."""
    import minatar

    env = minatar.Environment(game, sticky_action_prob=sticky_action_prob, difficulty_ramping=difficulty_ramping)
    env.seed(seed)
    rng = np.random.default_rng(seed)
    lengths, returns, repeats, impossible = [], [], [], 0
    for _ in range(num_episodes):
        env.reset()
        length, ret, terminal = 0, 0.0, False
        choices = rng.integers(len(actions), size=max_steps)
        while not terminal and length < max_steps:
            previous, chosen = env.last_action, actions[choices[length]]
            reward, terminal = env.act(chosen)
            repeats.append(env.last_action == previous)
            impossible += int(env.last_action not in (chosen, previous))
            length += 1
            ret += reward
        lengths.append(length)
        returns.append(ret)
    return dict(
        lengths=np.asarray(lengths),
        returns=np.asarray(returns, np.float64),
        repeats=np.asarray(repeats, np.float64),
        impossible=impossible,
    )


def jax_random_play(env: Any, params: Any, num_episodes: int, seed: int = 0, max_steps: int = 100_000):
    """The same from the raw JAX env: the first episode of each of `num_episodes` vmapped envs."""
    act_space = env.action_space(params)
    actions = jnp.asarray(env.unwrapped.action_set(params), jnp.int32)

    def episode(key):
        k_reset, k_run = jax.random.split(key)
        _, state = env.reset(k_reset, params)

        def body(carry, k):
            state, done, length, ret, reps, imp = carry
            ka, ks = jax.random.split(k)
            a = act_space.sample(ka)
            _, nstate, r, te, tr, _ = env.step(ks, state, a, params)
            alive = ~done
            executed, previous = nstate.last_action, state.last_action
            reps = reps + (alive & (executed == previous))
            imp = imp + (alive & (executed != actions[a]) & (executed != previous))
            state = jax.tree_util.tree_map(lambda n, o: jnp.where(alive, n, o), nstate, state)
            return (state, done | te, length + alive, ret + jnp.where(alive, r, 0.0), reps, imp), None

        zero = jnp.zeros((), jnp.int32)
        init = (state, jnp.asarray(False), zero, jnp.zeros((), jnp.float32), zero, zero)
        (_, _, length, ret, reps, imp), _ = jax.lax.scan(body, init, jax.random.split(k_run, max_steps))
        return length, ret, reps, imp

    keys = jax.random.split(jax.random.key(seed), num_episodes)
    lengths, returns, reps, imp = (np.asarray(x) for x in jax.jit(jax.vmap(episode))(keys))
    repeats = np.concatenate([np.r_[np.ones(r), np.zeros(n - r)] for r, n in zip(reps, lengths)])
    return dict(lengths=lengths, returns=returns.astype(np.float64), repeats=repeats, impossible=int(imp.sum()))


def check_random_play(
    env_id: str, game: str, num_episodes: int, seed: int = 0, max_steps: int = 5000, **overrides: Any
) -> list[Check]:
    """Random-policy episode length and return within 3 standard errors, and the sticky-action
    repeat frequency (against each other and against `p + (1 - p) / K`), from one run on each
    side. `overrides` set params on both sides (sticky_action_prob, difficulty_ramping,
    use_minimal_action_set). Episodes end on `terminated` only (the time limit is not used)."""
    import jaxenvs

    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    actions = env.unwrapped.action_set(params)
    p = float(params.sticky_action_prob)
    ref = reference_random_play(game, num_episodes, actions, seed, p, bool(params.difficulty_ramping), max_steps)
    mine = jax_random_play(env, params, num_episodes, seed, max_steps)
    cut = int(np.sum(mine["lengths"] >= max_steps) + np.sum(ref["lengths"] >= max_steps))
    tag = f"random policy (sticky {p:g}, {len(actions)} actions)"
    expected = p + (1 - p) / len(actions)
    reps = mine["repeats"]
    z = abs(reps.mean() - expected) / math.sqrt(expected * (1 - expected) / len(reps))
    impossible = mine["impossible"] + ref["impossible"]
    return [
        mean_check(f"{tag} episode length", mine["lengths"], ref["lengths"]),
        mean_check(f"{tag} episode return", mine["returns"], ref["returns"]),
        Check(
            f"{tag} episodes cut at {max_steps} steps", 2 * num_episodes, float(cut), 0.0, cut == 0, kind="mismatches"
        ),
        mean_check(f"{tag} sticky repeat frequency", reps, ref["repeats"]),
        Check(
            f"{tag} sticky repeat frequency vs p + (1-p)/K = {expected:.4f}",
            len(reps),
            z,
            3.0,
            z <= 3.0,
            kind="|z|",
            detail=f"jax {reps.mean():.4f}, reference {ref['repeats'].mean():.4f}",
        ),
        Check(
            f"{tag} executed action is the choice or the previous one",
            len(reps) + len(ref["repeats"]),
            float(impossible),
            0.0,
            impossible == 0,
            kind="mismatches",
        ),
    ]
