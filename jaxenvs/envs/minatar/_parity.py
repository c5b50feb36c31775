"""What the five MinAtar games' parity specs share: the reference driver (`MinAtarReference`), a
game's translation between `minatar` and JAX (`Game`) and the checks its spec chains (`spec`)."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from jaxenvs import parity as p
from jaxenvs.parity import Check, Reference, Transitions, harness
from jaxenvs.parity.stats import rare_events_check


class RecordingRandom:
    """A numpy `RandomState` proxy that records `(method, args, kwargs, result)` per call.

    `MinAtarReference` puts one in place of the game object's `random`, so that every draw of
    a step is recorded; the game turns one step's calls into the explicit draws its JAX `act`
    takes (`Game.draws_from_calls`), and steps that draw are compared exactly too
    (`replayed`). The sticky-action draw goes to `minatar.Environment`'s own generator and is
    not recorded: it is checked by distribution (`random_play`).

    Args:
        random_state: The generator it wraps: every attribute is read from it, every call recorded.

    Attributes:
        calls: The calls recorded since the last `take`, oldest first; each result deep-copied.
    """

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
        """The calls recorded since the last `take`, and forget them.

        Returns:
            `[(method name, args, kwargs, result), ...]`, oldest first.
        """
        calls, self.calls = self.calls, []
        return calls


def lookahead(env: Any, actions: Sequence[int]) -> list[tuple[float, bool]]:
    """What the game would do: `actions` played on the game object, which is then put back as
    it was (its attributes, its generator and the draws it recorded).

    Args:
        env: A `minatar.Environment` driven by a `MinAtarReference` (its game object is `env.env`).
        actions: MinAtar actions, played until one ends the game.

    Returns:
        `(reward, terminal)` of each action played.
    """
    game = env.env
    saved = {k: copy.deepcopy(v) for k, v in vars(game).items() if k != "random"}
    generator, calls = game.random._rs.get_state(), list(game.random.calls)
    try:
        out = []
        for a in actions:
            out.append(game.act(a))
            if out[-1][1]:
                break
        return out
    finally:
        vars(game).update(saved)
        game.random._rs.set_state(generator)
        game.random.calls = calls


@dataclasses.dataclass(kw_only=True)
class MinAtarReference(Reference):
    """`minatar.Environment(game)` driven by the reference protocol.

    MinAtar's API is its own (`Environment(game).act(action) -> (reward, terminal)`,
    `state()`). The game object (`minatar.Environment`'s `.env`) keeps plain Python
    attributes: `read_state` / `write_state` take the `minatar.Environment` and read or
    write them as a dict named like the JAX state's fields, and `state()` adds `time` and
    `last_action`. On a seeded `reset`, the game's `random` becomes a `RecordingRandom`
    (seed + 7919) and the sticky draw its own generator (the seed); `take_draws` returns the
    calls recorded since its last call. Actions are MinAtar's (0..5); with `action_map`, the agent's
    indices into it (as the JAX env's action space with a minimal action set), drawn
    uniformly either way.

    Attributes:
        game: MinAtar's name of the game (`minatar.Environment(game)`).
        sticky_action_prob: MinAtar's sticky-action probability (0: transitions are compared
            with the sticky draw off on both sides; `random_play` checks it apart).
        difficulty_ramping: MinAtar's `ramping`.
        action_map: The MinAtar action of each agent action (`step` and `sample_action` then
            take indices into it); None: MinAtar's actions 0..5.
        max_steps_in_episode: The time limit `step` reports as `truncated`; None: none, as
            MinAtar (the id's limit, gymnax's and minatar's gym registration's, is set here).
        batched_to_jax: `to_jax` takes a batch of states at once (True for every MinAtar game).
    """

    game: str
    sticky_action_prob: float = 0.0
    difficulty_ramping: bool = True
    action_map: Sequence[int] | None = None
    max_steps_in_episode: int | None = None
    batched_to_jax: bool = True

    def reset(self, seed: int | None = None) -> Any:
        if self.env is None or seed is not None:
            import minatar

            seed = 0 if seed is None else seed
            self.env = minatar.Environment(
                self.game, sticky_action_prob=self.sticky_action_prob, difficulty_ramping=self.difficulty_ramping
            )
            self.env.random = np.random.RandomState(seed)
            self.env.env.random = RecordingRandom(np.random.RandomState(seed + 7919))
        self.env.reset()
        self._time = 0
        return np.asarray(self.env.state(), bool)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        action = int(action) if self.action_map is None else int(self.action_map[int(action)])
        reward, terminal = self.env.act(action)
        self._time += 1
        truncated = self.max_steps_in_episode is not None and self._time >= self.max_steps_in_episode
        return np.asarray(self.env.state(), bool), float(reward), bool(terminal), truncated, {}

    def state(self) -> dict[str, Any]:
        return dict(self.read_state(self.env), time=np.int32(self._time), last_action=np.int32(self.env.last_action))

    def load(self, state: dict[str, Any]) -> None:
        self.write_state(self.env, state)
        self._time = int(state.get("time", 0))
        self.env.last_action = int(state.get("last_action", 0))

    def sample_action(self, rng: np.random.Generator) -> Any:
        return int(rng.integers(6 if self.action_map is None else len(self.action_map)))

    def take_draws(self) -> Any:
        return self.env.env.random.take() if self.env is not None else None


Policy = Callable[[Any, np.random.Generator], int]


@dataclasses.dataclass(frozen=True)
class Game:
    """A MinAtar game's translation between `minatar` and its JAX env.

    Attributes:
        name: MinAtar's name of the game (`minatar.Environment(name)`).
        read_state: `(minatar env) -> dict` of the JAX state's field names.
        write_state: `(minatar env, dict)`: its inverse.
        scramble: `(minatar env, rng)`: a random mid-game state, written into the game.
        rare_events: `(state, action, next state, reward, terminated, random calls) ->
            {event: happened}`: the rare branches one transition took; each must have
            happened (`count_events`).
        draws_from_calls: `(recorded random calls of a step, state dict) -> the JAX draws`;
            None: the game's steps draw nothing (its resets may), and a step that makes a
            random call fails the replay.
        to_jax: `(dict of batched arrays, params) -> JAX state` (batched); None: `read_state`
            names the JAX state's fields, filled in by the harness (`default_to_jax`).
        from_jax: `JAX state -> dict`, as `read_state` reads it; None: the same field names.
    """

    name: str
    read_state: Callable[[Any], dict[str, np.ndarray]]
    write_state: Callable[[Any, Mapping[str, Any]], None]
    scramble: Callable[[Any, np.random.Generator], None]
    rare_events: Callable[..., dict[str, bool]]
    draws_from_calls: Callable[[list, Any], Any] | None = None
    to_jax: Callable[..., Any] | None = None
    from_jax: Callable[[Any], dict[str, np.ndarray]] | None = None

    def reference(self, **kwargs: Any) -> MinAtarReference:
        """The game's `MinAtarReference`, every field compared exactly.

        Args:
            **kwargs: `MinAtarReference` settings (`sticky_action_prob`, `action_map`, ...).

        Returns:
            A reference, not yet reset.
        """
        return MinAtarReference(
            game=self.name,
            read_state=self.read_state,
            write_state=self.write_state,
            to_jax=self.to_jax,
            from_jax=self.from_jax,
            draws_to_jax=self.draws_from_calls or self._no_draws,
            exact_fields="*",  # every field, compared exactly
            name=f"minatar {self.name}",
            **kwargs,
        )

    def _no_draws(self, calls: list, state: Any) -> None:
        """`draws_from_calls` of a game whose steps draw nothing: fails a step that did."""
        if calls:
            raise AssertionError(f"{self.name} drew random numbers during a step: {calls}")


def with_noise(policy: Policy, epsilon: float) -> Policy:
    """`policy`, or with probability `epsilon` a uniformly random action instead.

    Args:
        policy: `(minatar env, rng) -> MinAtar action`.
        epsilon: The probability of a uniformly random action.

    Returns:
        A `Policy`.
    """
    return lambda env, rng: int(rng.integers(6)) if rng.random() < epsilon else policy(env, rng)


def uniform_policy() -> Policy:
    """A policy drawing uniformly among MinAtar's six actions.

    Returns:
        A `Policy`, `(minatar env, rng) -> action`.
    """
    return lambda env, rng: int(rng.integers(6))


def _on_game(fn: Callable | None) -> Callable | None:
    """A game's `(minatar env, rng)` hook as a `(reference, rng)` one."""
    return None if fn is None else (lambda ref, rng: fn(ref.env, rng))


def collect(
    game: Game,
    num_steps: int,
    policy: Policy,
    seed: int = 0,
    scramble: Callable[[Any, np.random.Generator], None] | None = None,
    difficulty_ramping: bool = True,
) -> Transitions:
    """Reference transitions (sticky actions off) with their recorded draws, reset after each
    episode.

    Args:
        game: The game's translation.
        num_steps: How many transitions.
        policy: `(minatar env, rng) -> MinAtar action`.
        seed: The seed of the reference's first reset and of the policy's generator.
        scramble: `(minatar env, rng)` writing a random state into the game before every
            step; None: play on from the resets.
        difficulty_ramping: MinAtar's `ramping`.

    Returns:
        The `num_steps` transitions, `draws` holding each step's recorded random calls.
    """
    ref = game.reference(difficulty_ramping=difficulty_ramping)
    return ref.transitions(num_steps, seed, policy=_on_game(policy), scramble=_on_game(scramble))


def count_events(events: Callable[..., dict[str, bool]], data: Transitions) -> dict[str, int]:
    """How often each rare branch of the reference's step happened in `data`.

    Args:
        events: `(state, action, next state, reward, terminated, random calls) -> {event:
            happened}`, the game's `rare_events` of one transition.
        data: Reference transitions with their recorded draws.

    Returns:
        `{event: count}`.
    """
    counts: dict[str, int] = {}
    for i in range(len(data)):
        step = (data.state_at(i), data.actions[i], data.state_at(i, True), data.rewards[i], data.terminated[i])
        for event, happened in events(*step, data.draws[i]).items():
            counts[event] = counts.get(event, 0) + int(happened)
    return counts


# ---------------------------------------------------------------------------------------------
# the checks, each `Context -> list[Check]`


def replayed(
    game: Game,
    policies: Mapping[str, tuple[Callable[[int], int], Policy]],
    without_ramping: bool = False,
    free_running: Sequence[str] = (),
    mask: Callable | None = None,
) -> p.CheckFn:
    """Reference transitions replayed exactly, whole episodes, and the rare events reached.

    The reference plays (sticky actions off, its draws recorded) a uniform random policy (4,000
    steps at scale 1, at least 300), the game's `policies`, and scrambled states
    (`game.scramble`), each set from its own seed; with `without_ramping`, also scrambled
    states with difficulty ramping off (half as many).
    Every transition is replayed by the JAX `act` (the step after the sticky draw) from the
    injected state with the recorded draws and compared exactly (one compiled replay for all
    sets; the sets collected with ramping off replay with ramping off, the others at the
    params under test). The `free_running` sets are also replayed as whole episodes from
    each one's first state, never re-injected. `game.rare_events` of all the sets must all
    have happened.

    Args:
        game: The game's translation.
        policies: `{label: (steps from the random policy's steps, policy)}`.
        without_ramping: Add scrambled states with ramping off.
        free_running: The labels of the sets also replayed as whole episodes.
        mask: `canonical` of `check_transitions` (e.g. the rows of empty slots).

    Returns:
        A check function.
    """

    def check(ctx: p.Context) -> list[Check]:
        n = ctx.size(4000, 300)  # the random policy's steps
        uniform = uniform_policy()
        plan = [("random policy", n, uniform, None, True)]
        plan += [(label, size(n), policy, None, True) for label, (size, policy) in policies.items()]
        plan.append(("scrambled states", n, uniform, game.scramble, True))
        if without_ramping:
            plan.append(("scrambled states, ramping off", n // 2, uniform, game.scramble, False))
        datasets, params_of = {}, {}
        for i, (label, steps, policy, scramble, ramping) in enumerate(plan):
            datasets[label] = collect(game, steps, policy, ctx.seed + i, scramble, ramping)
            # the reference ramps as registered: sets collected that way replay at the params given
            same = ramping == ctx.registered.difficulty_ramping
            params_of[label] = ctx.params if same else ctx.params.replace(difficulty_ramping=ramping)
        env = getattr(ctx.env, "unwrapped", ctx.env)
        ref, replay = game.reference(), env.act
        out = harness.check_transitions(
            env,
            ctx.params,
            ref,
            fields=p.FieldPolicy(atol=0.0, canonical=mask),
            collect=p.Collection(data=datasets, replay=replay, params_of=params_of),
        )
        for label in free_running:
            episodes = dict(atol=0.0, data=datasets[label], label=f"{label}, whole episodes", replay=replay)
            out += harness.check_episodes(env, ctx.params, ref, **episodes)
        sets = list(datasets.values())
        total = sum(sets[1:], sets[0])
        out.append(rare_events_check("rare events reached", count_events(game.rare_events, total), len(total)))
        return out

    return check


def time_limit(game: Game) -> p.CheckFn:
    """The registered time limit, from states one and two steps before it (`check_time_limit`):
    60 transitions, each from a reference state set one or two steps before the limit.

    Args:
        game: The game's translation.

    Returns:
        A check function.
    """

    def check(ctx: p.Context) -> list[Check]:
        ref = game.reference(max_steps_in_episode=ctx.limit)
        return harness.check_time_limit(ctx.env, ctx.params, ref, ctx.limit, 60, ctx.seed)

    return check


def no_sticky(ctx: p.Context) -> p.Context:
    """The run with sticky actions off: a game's own random events (its resets, its spawns)
    compared apart from the sticky draw.

    Args:
        ctx: The run's context.

    Returns:
        The context at `sticky_action_prob=0`, against the spec's reference.
    """
    return ctx.with_env(ctx.env, ctx.params.replace(sticky_action_prob=0.0), ctx.reference)


def start_state(ctx: p.Context) -> dict[str, Any]:
    """A reference state to set a case up from: the game just reset (with the run's seed).

    Args:
        ctx: The run's context.

    Returns:
        `{field: numpy value}`, as the reference reads it.
    """
    ctx.reference.reset(ctx.seed)
    return ctx.reference.state()


# the whole reset state, for a game whose reset draws nothing (every reset alike)
RESET_STATE = p.on(no_sticky, p.resets(50, 50, discrete=True, label="reset state"))

# Samples of the sticky draw: enough to tell a sticky probability 20% off (0.12 for 0.1)
STICKY_SAMPLES = 12_000


def random_play(
    game: Game, at_one: int, least: int, max_steps: int, seed_offset: int = 0, **overrides: Any
) -> p.CheckFn:
    """Random play as the agent sees it (sticky actions on), and the sticky draw.

    Episode length and return must agree (`stats.mean_check`), no episode cut at
    `max_steps`; from a reference state whose previous action differs from the chosen one, the
    executed action must be one of the two, as often as in MinAtar. The reference plays at
    the id's registered settings, the env under test at the params under test (`overrides`,
    e.g. `use_minimal_action_set`, set on both sides).

    Args:
        game: The game's translation.
        at_one: Episodes a side at scale 1.
        least: Episodes at the smallest scale.
        max_steps: An episode longer than this fails the check.
        seed_offset: Added to the run's seed.
        **overrides: Params set on both sides.

    Returns:
        A check function.
    """

    def check(ctx: p.Context) -> list[Check]:
        import jaxenvs

        num_episodes, seed = ctx.size(at_one, least), ctx.seed + seed_offset
        params = ctx.params.replace(**overrides)
        builtin, registered = jaxenvs.make(ctx.env_id, autoreset=False, **overrides)
        ref_actions = builtin.unwrapped.action_set(registered)
        prob = float(registered.sticky_action_prob)
        ref = game.reference(
            sticky_action_prob=prob, difficulty_ramping=bool(registered.difficulty_ramping), action_map=ref_actions
        )
        tag = f"random policy (sticky {prob:g}, {len(ref_actions)} actions)"
        checks = harness.check_episode_statistics(
            ctx.env, params, ref, num_episodes, seed, max_steps=max_steps, label=tag, require_end=True
        )
        ref.reset(seed)
        start = ref.state()
        chosen = len(ref_actions) - 1  # the agent's action index; its MinAtar action differs from the previous one
        start["last_action"] = np.int32(ref_actions[0] if ref_actions[chosen] != ref_actions[0] else ref_actions[1])
        n = max(STICKY_SAMPLES if not overrides else 200, 4 * num_episodes)
        executed = lambda t: t.next_states["last_action"]  # noqa: E731
        support = lambda s, a: {int(ref_actions[a]), int(s["last_action"])}  # noqa: E731
        label = f"{tag} sticky executed action"
        return checks + harness.check_step_distribution(
            ctx.env, params, ref, [(start, chosen)], n, executed, seed, label=label, support=support
        )

    return check


def spec(game: Game, *checks: p.CheckFn) -> p.ParitySpec:
    """A game's `ParitySpec`: its `checks` in order, against `minatar`.

    A game's spec chains `replayed` (its policies, scrambled states, whole episodes, rare
    events), `time_limit`, `RESET_STATE` where MinAtar's reset draws nothing, the game's own
    checks of its random events, and `random_play` per setting. Transitions are compared
    with sticky actions off on both sides (the spec's reference is the game with
    `sticky_action_prob=0`); the sticky draw is checked apart, with random play (`random_play`:
    episode length and return compared by a p-value under MinAtar's defaults, and the
    executed action after a sticky draw, by distribution).

    Args:
        game: The game's translation.
        *checks: The check functions, in the order they run.

    Returns:
        The spec (`library="minatar"`).
    """
    return p.ParitySpec(checks=p.chain(*checks), reference=lambda env_id: game.reference(), library="minatar")


# ---------------------------------------------------------------------------------------------
# helpers of the games' translations


def read_attrs(env: Any, ints: Sequence[str] = (), bools: Sequence[str] = ()) -> dict[str, Any]:
    """The game object's integer and boolean attributes, as numpy scalars.

    Args:
        env: A `minatar.Environment` (its game object is `env.env`).
        ints: The attributes read as int32.
        bools: The attributes read as bool.

    Returns:
        `{name: np.int32 or np.bool_}`.
    """
    g = env.env
    return {**{k: np.int32(getattr(g, k)) for k in ints}, **{k: np.bool_(getattr(g, k)) for k in bools}}


def write_attrs(env: Any, state: Mapping[str, Any], ints: Sequence[str] = (), bools: Sequence[str] = ()) -> None:
    """Set the game object's integer and boolean attributes from `state` (`read_attrs`' inverse).

    Args:
        env: A `minatar.Environment` (its game object is `env.env`).
        state: `{name: value}` holding at least `ints` and `bools`.
        ints: The attributes written as Python ints.
        bools: The attributes written as Python bools.
    """
    for k in ints:
        setattr(env.env, k, int(state[k]))
    for k in bools:
        setattr(env.env, k, bool(state[k]))
