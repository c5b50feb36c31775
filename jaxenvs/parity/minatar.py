"""Parity of the five MinAtar games against the `minatar` package, through `MinAtarReference`.

MinAtar's API is its own (`Environment(game).act(action) -> (reward, terminal)`, `state()`),
so this module holds a fourth driver of the reference protocol, `MinAtarReference`. Its game
object (`.env`) keeps plain Python attributes; each game's module (`minatar_<game>.py`) says
how to read them into a dict named like the JAX state's fields (`read_state`), how to write
such a dict back (`write_state`), how to build a JAX state from it (`to_jax`, batched) and
how to read a JAX state the same way (`from_jax`).

Transitions are compared with sticky actions off on both sides (`sticky_action_prob=0`); the
sticky draw is checked apart, with random play (`check_random_play`: episode length and
return compared by a p-value (`mean_check`) under MinAtar's defaults, and the executed action after a
sticky draw, by distribution).

Random draws are recorded and replayed: the game's `random` is replaced by `RecordingRandom`,
a proxy of its numpy `RandomState` that records every call; the game module turns one step's
calls into the explicit draws its JAX `act` takes (`draws_from_calls`), so that steps that
draw are compared exactly too (`check_replayed`). The sticky-action draw goes to the
`Environment`'s own generator, not recorded: it is checked by distribution
(`check_random_play`), with random-policy episode statistics.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxenvs.parity.checks import Check, ParityResult, Timer, rare_events_check, rows  # noqa: F401 (rows: the games')
from jaxenvs.parity.harness import (  # check_resets: the games'
    check_episode_statistics,
    check_episodes,
    check_resets,  # noqa: F401
    check_step_distribution,
    check_transitions,
)
from jaxenvs.parity.reference import Reference, Transitions


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


def game_attrs(env: Any, names: Sequence[str]) -> dict[str, Any]:
    """Deep copies of the game object's attributes `names`."""
    return {k: copy.deepcopy(getattr(env.env, k)) for k in names}


def set_game_attrs(env: Any, values: Mapping[str, Any]) -> None:
    for k, v in values.items():
        setattr(env.env, k, copy.deepcopy(v))


@dataclasses.dataclass(kw_only=True)
class MinAtarReference(Reference):
    """`minatar.Environment(game)` as a reference; `read_state` / `write_state` take it (the
    game object is its `.env`) and the state adds `time` and `last_action`. Actions are
    MinAtar's (0..5); with `action_map`, the agent's indices into it (as the JAX env's action
    space with a minimal action set), drawn uniformly either way."""

    game: str
    sticky_action_prob: float = 0.0
    difficulty_ramping: bool = True
    action_map: Sequence[int] | None = None
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
        return np.asarray(self.env.state(), bool), float(reward), bool(terminal), False, {}

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


def reference(module: Any, **kwargs: Any) -> MinAtarReference:
    """The reference of a game module (`jaxenvs.parity.minatar_<game>`): its translation."""
    return MinAtarReference(
        game=module.GAME,
        read_state=module.read_state,
        write_state=getattr(module, "write_state", None),
        to_jax=module.to_jax,
        from_jax=module.from_jax,
        draws_to_jax=module.draws_from_calls,
        exact_fields="*",  # every field, compared exactly
        name=f"minatar {module.GAME}",
        **kwargs,
    )


def make_reference(game: str, sticky_action_prob: float = 0.0, difficulty_ramping: bool = True, seed: int = 0) -> Any:
    """A seeded `minatar.Environment` whose game draws through a `RecordingRandom`; reset."""
    ref = MinAtarReference(game=game, sticky_action_prob=sticky_action_prob, difficulty_ramping=difficulty_ramping)
    ref.reset(seed)
    ref.take_draws()
    return ref.env


Policy = Callable[[Any, np.random.Generator], int]


def uniform_policy(actions: Sequence[int] = tuple(range(6))) -> Policy:
    actions = tuple(actions)
    return lambda env, rng: actions[int(rng.integers(len(actions)))]


def _on_game(fn: Callable | None) -> Callable | None:
    """A game module's `(minatar env, rng)` hook as a `(reference, rng)` one."""
    return None if fn is None else (lambda ref, rng: fn(ref.env, rng))


def collect(
    game: str,
    read_state: Callable[[Any], dict[str, np.ndarray]],
    num_steps: int,
    policy: Policy,
    seed: int = 0,
    scramble: Callable[[Any, np.random.Generator], None] | None = None,
    difficulty_ramping: bool = True,
) -> Transitions:
    """`num_steps` reference transitions (sticky actions off) with their recorded draws,
    reset after each episode; with `scramble(env, rng)`, a random state first at every step."""
    ref = MinAtarReference(game=game, read_state=read_state, difficulty_ramping=difficulty_ramping)
    return ref.transitions(num_steps, seed, policy=_on_game(policy), scramble=_on_game(scramble))


def collect_all(module: Any, num_steps: int, seed: int) -> dict[str, tuple[Transitions, bool]]:
    """The reference transitions of a game, each set with the `difficulty_ramping` it ran
    under: a uniform random policy, the game's own `POLICIES` (`{label: (size(num_steps),
    make_policy)}`, reaching its rare events), scrambled states (`module.scramble`), and,
    with `SCRAMBLED_WITHOUT_RAMPING`, scrambled states with ramping off."""
    uniform = uniform_policy()
    plan = [("random policy", num_steps, uniform, None, True)]
    plan += [(label, size(num_steps), make(), None, True) for label, (size, make) in module.POLICIES.items()]
    plan.append(("scrambled states", num_steps, uniform, module.scramble, True))
    if getattr(module, "SCRAMBLED_WITHOUT_RAMPING", False):
        plan.append(("scrambled states, ramping off", num_steps // 2, uniform, module.scramble, False))
    return {
        label: (collect(module.GAME, module.read_state, n, policy, seed + i, scramble, ramping), ramping)
        for i, (label, n, policy, scramble, ramping) in enumerate(plan)
    }


def states(data: Transitions, after: bool = False) -> list[dict[str, Any]]:
    """Each row's state (before the step, or `after` it) as a dict, for rare-event counts."""
    return [data.state_at(i, after) for i in range(len(data))]


def _replay(env: Any) -> Callable:
    return lambda states, actions, draws, params: env.act(states, actions, draws, params)


def check_replayed(
    module: Any,
    env: Any,
    params: Any,
    datasets: Mapping[str, Transitions],
    params_of: Mapping[str, Any] | None = None,
    mask: Callable | None = None,
) -> list[Check]:
    """Every recorded transition replayed by the JAX `act` (the step after the sticky draw)
    from the injected state with the recorded draws, compared exactly; one compiled replay
    for all `datasets`, each compared apart (`params_of[label]`: its own params)."""
    return check_transitions(
        env,
        params,
        reference(module),
        atol=0.0,
        data=datasets,
        replay=_replay(env),
        params_of=params_of,
        canonical=mask,
    )


def check_free_running(module: Any, env: Any, params: Any, data: Transitions, label: str) -> list[Check]:
    """Whole episodes: the JAX `act` from each episode's first state with the reference's
    actions and recorded draws, never re-injected, every step equal to the reference's."""
    return check_episodes(env, params, reference(module), atol=0.0, data=data, label=label, replay=_replay(env))


def random_event_checks(env_id: str, module: Any, seed: int = 0):
    """The raw env (sticky actions off), its reference and a started reference state, for a
    game's random events by distribution (`harness.check_resets`, `check_step_distribution`)."""
    import jaxenvs

    env, params = jaxenvs.make(env_id, autoreset=False, sticky_action_prob=0.0)
    ref = reference(module)
    ref.reset(seed)
    return env, params, ref, ref.state()


def check_rare_events(counts: Mapping[str, int], data: Transitions) -> Check:
    return rare_events_check("rare events reached", counts, len(data))


def check_random_play(
    env_id: str, module: Any, num_episodes: int, seed: int = 0, max_steps: int = 5000, **overrides: Any
) -> list[Check]:
    """Random play as the agent sees it (sticky actions on, MinAtar's defaults; `overrides`
    set params on both sides, e.g. `use_minimal_action_set`): episode length and return
    agreeing (`checks.mean_check`), no episode cut at `max_steps`; and the sticky draw by distribution:
    from a reference state whose previous action differs from the chosen one, the executed
    action must be one of the two, as often as in MinAtar."""
    import jaxenvs

    env, params = jaxenvs.make(env_id, autoreset=False, **overrides)
    actions = env.unwrapped.action_set(params)
    p = float(params.sticky_action_prob)
    ref = reference(
        module,
        sticky_action_prob=p,
        difficulty_ramping=bool(params.difficulty_ramping),
        action_map=actions,
    )
    tag = f"random policy (sticky {p:g}, {len(actions)} actions)"
    checks = check_episode_statistics(
        env, params, ref, num_episodes, seed, max_steps=max_steps, label=tag, require_end=True
    )
    ref.reset(seed)
    start = ref.state()
    chosen = len(actions) - 1  # the agent's action index; its MinAtar action differs from the previous one
    start["last_action"] = np.int32(actions[0] if actions[chosen] != actions[0] else actions[1])
    checks += check_step_distribution(
        env,
        params,
        ref,
        [(start, chosen)],
        max(200, 4 * num_episodes),
        lambda t: t.next_states["last_action"],
        seed,
        label=f"{tag} sticky executed action",
        support=lambda s, a: {int(actions[a]), int(s["last_action"])},
    )
    return checks


# ---------------------------------------------------------------------------------------------
# what a game module declares, and the suite run on it


def read_attrs(env: Any, ints: Sequence[str] = (), bools: Sequence[str] = ()) -> dict[str, Any]:
    """The game object's integer and boolean attributes, as numpy scalars."""
    g = env.env
    return {**{k: np.int32(getattr(g, k)) for k in ints}, **{k: np.bool_(getattr(g, k)) for k in bools}}


def write_attrs(env: Any, state: Mapping[str, Any], ints: Sequence[str] = (), bools: Sequence[str] = ()) -> None:
    for k in ints:
        setattr(env.env, k, int(state[k]))
    for k in bools:
        setattr(env.env, k, bool(state[k]))


def same_names(state_cls: Any) -> tuple[Callable, Callable]:
    """`to_jax` (batched) and `from_jax` of a game whose state dict carries the JAX state's
    field names and dtypes."""
    names = [f.name for f in dataclasses.fields(state_cls)]

    def to_jax(state: Mapping[str, Any], params: Any = None) -> Any:
        return state_cls(**{k: jnp.asarray(state[k]) for k in names})

    def from_jax(state: Any) -> dict[str, np.ndarray]:
        return {k: np.asarray(getattr(state, k)) for k in names}

    return to_jax, from_jax


def no_draws(game: str) -> Callable:
    """`draws_from_calls` of a game whose steps draw nothing (its resets may)."""

    def draws_from_calls(calls: list, state: Any) -> None:
        if calls:
            raise AssertionError(f"{game} drew random numbers during a step: {calls}")

    return draws_from_calls


def reference_module(game: str) -> Any:
    """The module `minatar_<game>`: the game's translation and suite."""
    return importlib.import_module(f"jaxenvs.parity.minatar_{game}")


def _module(env_id: str) -> Any:
    import jaxenvs

    return reference_module(jaxenvs.spec(env_id).peers["loop"][1])  # ("minatar", game): declared with the id


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    """The suite of a game, from what its module `minatar_<game>` declares:

    - the transitions of `collect_all` (its `POLICIES`, `scramble`): every transition replayed
      exactly (`check_replayed`; `mask_empty_slots` if the module has one), the
      `FREE_RUNNING` sets also as whole episodes (`check_free_running`);
    - `rare_events(transitions) -> {event: count}`: each must have happened;
    - `extra_checks(scale, seed)`: the game's random events by distribution;
    - `PLAY`: `(least, at scale 1, max_steps, param overrides)` per random-play check.
    """
    import minatar  # noqa: F401  (a missing reference gives a skipped result)

    import jaxenvs

    module = _module(env_id)
    result = ParityResult(env_id, jaxenvs.spec(env_id).reference or env_id)
    with Timer() as timer:
        env, params = jaxenvs.make(env_id, autoreset=False, sticky_action_prob=0.0)
        sets = collect_all(module, max(300, int(4000 * scale)), seed)
        datasets = {k: data for k, (data, _) in sets.items()}
        params_of = {k: params.replace(difficulty_ramping=ramping) for k, (_, ramping) in sets.items()}
        mask = getattr(module, "mask_empty_slots", None)
        result.checks += check_replayed(module, env.unwrapped, params, datasets, params_of, mask)
        for label in getattr(module, "FREE_RUNNING", ()):
            result.checks += check_free_running(
                module, env.unwrapped, params, datasets[label], f"{label}, whole episodes"
            )
        total = sum(list(datasets.values())[1:], list(datasets.values())[0])
        result.checks.append(check_rare_events(module.rare_events(total), total))
        result.checks += module.extra_checks(scale, seed)
        for i, (least, at_one, max_steps, overrides) in enumerate(module.PLAY):
            n = max(least, int(at_one * scale))
            result.checks += check_random_play(env_id, module, n, seed + i, max_steps, **overrides)
    result.seconds = timer.seconds
    return result
