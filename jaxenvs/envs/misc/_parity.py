"""The misc family's parity suite, against gymnax itself (`gymnax.environments.misc`), through
`JaxReference`: gymnax's raw `reset_env` / `step_env`, with `truncated` from its
`is_truncated`, as its auto-resetting `step` sees them (gymnax >= 1.0's `step_env` returns
natural termination only, as our `step_env` does). State fields carry gymnax's names, so no
translation is needed. Every spec (`suite`) runs:

1. transitions by state injection along gymnax's own runs under uniform random actions, with
   rare branches made common by rewriting states before a step (`scramble`: the time one or
   two steps before the limit, and an env's own rare branch). Every next-state field,
   observation, reward and both flags are compared: the env's `exact` fields exactly, floats
   to 1e-5. Random parts are switched off by params (`deterministic`) or left out of the exact
   comparison on the steps that draw them (`Gymnax.random_step`, `random_fields`).
   Deterministic envs are also compared over gymnax's whole first episodes, ours replaying
   its actions from the same start with no re-injection (1e-4).
2. random parts by distribution, from injected states (the env's `random` check): every
   outcome must lie in gymnax's support, frequencies by chi-square (discrete) or KS
   (continuous) at the harness's threshold.
3. reset distributions the same way (a deterministic reset: its single outcome must agree).
4. first-episode length and return under uniform random actions compared by a p-value.
"""

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from jaxenvs import parity as p
from jaxenvs.parity import Check, JaxReference, harness

ATOL = 1e-5  # float32 state, observation and reward, one step
ATOL_EPISODE = 1e-4  # float32, whole episodes without re-injection

# what a random-part check is given: the context and the start state of gymnax's run
RandomCheck = Callable[[p.Context, dict], list[Check]]


@dataclasses.dataclass(frozen=True)
class Gymnax:
    """How gymnax's env of an id is compared.

    Attributes:
        exact: The fields compared exactly (the others to `ATOL`).
        random_fields: Fields left out of the exact comparison on every step.
        random_step: `gymnax params -> (state, next_state, reward) -> bool`, the steps that
            draw (their `random_step_fields` are left out of the exact comparison).
        random_step_fields: See `random_step`.
    """

    exact: tuple[str, ...]
    random_fields: tuple[str, ...] = ()
    random_step: Callable[[Any], Callable] | None = None
    random_step_fields: tuple[str, ...] = ()

    def __call__(self, env_id: str, **overrides: Any) -> JaxReference:
        """gymnax's env with its default params plus `overrides`.

        Args:
            env_id: gymnax's id of the env (e.g. "FourRooms-misc").
            **overrides: Params fields replaced in gymnax's default params.

        Returns:
            The `JaxReference` over it.
        """
        import gymnax

        genv, gparams = gymnax.make(env_id)
        gparams = gparams.replace(**overrides)
        return JaxReference(
            env=genv,
            params=gparams,
            exact_fields=self.exact,
            random_fields=self.random_fields,
            random_step=None if self.random_step is None else self.random_step(gparams),
            random_step_fields=self.random_step_fields,
            name=f"gymnax {env_id}",
        )


def size(ctx: p.Context) -> int:
    """The number of samples of a distribution check (random parts and resets).

    Args:
        ctx: The check's context (its scale sets the number).

    Returns:
        4,000 at scale 1, at least 400.
    """
    return ctx.size(4000, 400)


def distribution(ctx: p.Context, cases: list, outcome: Callable, n: int | None = None, **kwargs: Any) -> list[Check]:
    """The outcomes of steps from injected states by distribution (`harness.check_step_distribution`).

    Args:
        ctx: The check's context.
        cases: The `(gymnax state, action)` cases to step from.
        outcome: `Transitions -> [outcome per row]`, what is compared.
        n: Samples a case; None means `size(ctx)`.
        **kwargs: Passed to the harness (`label`, `support`, `continuous`).

    Returns:
        The support and distribution checks.
    """
    n = size(ctx) if n is None else n
    return harness.check_step_distribution(ctx.env, ctx.params, ctx.reference, cases, n, outcome, ctx.seed, **kwargs)


# ---------------------------------------------------------------------------------------------
# rare branches made common (scrambles and a policy for the transitions)


def _scramble(ref: JaxReference, rare: Callable | None) -> Callable:
    """Every 8 steps, the time two and then one step before the limit (truncation is compared
    too); every 4 steps, `rare(state, gymnax env, rng)` rewrites the state in place."""
    limit = int(ref.params.max_steps_in_episode)
    count = {"steps": 0}

    def scramble(r: JaxReference, rng: np.random.Generator) -> None:
        count["steps"] += 1
        state = r.state()
        if count["steps"] % 8 in (3, 7):
            before = 2 if count["steps"] % 8 == 3 else 1
            state["time"] = np.asarray(limit - before, state["time"].dtype)
        if count["steps"] % 4 == 1 and rare is not None:
            rare(state, ref.env, rng)
        r.load(state)

    return scramble


def goal_next_to_agent(state: dict, genv: Any, rng: np.random.Generator) -> None:
    """Grid mazes: the goal moved onto a random open neighbour of the agent (a `rare` branch).

    Where the neighbour drawn is a wall, the state is left as it is.

    Args:
        state: gymnax's state as a dict of numpy arrays, rewritten in place.
        genv: gymnax's env (its `directions` and `env_map`).
        rng: The numpy generator that picks the neighbour.
    """
    target = state["pos"] + np.asarray(genv.directions)[int(rng.integers(4))]
    if np.asarray(genv.env_map)[target[0], target[1]]:
        state["goal"] = target.astype(state["goal"].dtype)


def toward_goal(r: JaxReference, rng: np.random.Generator) -> Any:
    """Grid mazes: half the time, the move onto a goal next to the agent (rare by chance).

    Args:
        r: The reference, at the state the action is for.
        rng: The numpy generator of the policy.

    Returns:
        The action onto the goal (int32) when the goal is next to the agent and a coin says so;
        else a uniformly random action.
    """
    state = r.state()
    step = np.asarray(state["goal"]) - np.asarray(state["pos"])
    hit = np.flatnonzero(np.all(np.asarray(r.env.directions) == step, axis=1))
    if len(hit) and rng.random() < 0.5:
        return np.int32(hit[0])
    return r.sample_action(rng)


# ---------------------------------------------------------------------------------------------
# supports and outcomes


def cells(genv) -> set:
    """A grid maze's open cells.

    Args:
        genv: gymnax's env (its `coords`).

    Returns:
        The set of `(row, col)` tuples.
    """
    return {tuple(c) for c in np.asarray(genv.coords).tolist()}


def within(low, high, eps=1e-6):
    """A support predicate: every coordinate within [low, high].

    Args:
        low: The lower bound, a scalar or one per coordinate.
        high: The upper bound, a scalar or one per coordinate.
        eps: The slack on both bounds.

    Returns:
        `x -> bool[rows]` for outcomes `x` of shape `[rows, coordinates]`.
    """
    return lambda x: np.all((x >= np.asarray(low) - eps) & (x <= np.asarray(high) + eps), axis=1)


def half_disc(radius: float, on_circle: bool = False, eps=1e-5):
    """A support predicate: the upper half disc of `radius` around the origin.

    Args:
        radius: The disc's radius.
        on_circle: Only the rim (the half circle), not the whole half disc.
        eps: The slack on the bounds.

    Returns:
        `x -> bool[rows]` for outcomes `x` of shape `[rows, coordinates]`, its first two
        coordinates the point.
    """

    def inside(x):
        r = np.linalg.norm(x[:, :2], axis=1)
        ok = (x[:, 1] >= -eps) & (r <= radius + eps)
        return ok & (np.abs(r - radius) <= eps) if on_circle else ok

    return inside


def finite(x):
    """A support predicate: every coordinate finite.

    Args:
        x: Outcomes, `[rows, coordinates]`.

    Returns:
        `bool[rows]`.
    """
    return np.isfinite(x).all(axis=1)


def fields(*names: str) -> Callable:
    """A reset outcome: the state's fields `names`, flattened side by side.

    Args:
        *names: The state's field names.

    Returns:
        `(states, observations) -> float64[rows, coordinates]`.
    """
    return lambda s, o: np.concatenate([np.asarray(s[k], np.float64).reshape(len(s[k]), -1) for k in names], axis=1)


def resets(at_one: int = 4000, least: int = 400, **kwargs: Any) -> p.CheckFn:
    """The family's reset check (`spec.resets`), seeded apart from the transitions.

    Args:
        at_one: Resets a side at scale 1.
        least: Resets at the smallest scale.
        **kwargs: Passed to `check_resets` (`outcome`, `discrete`, `support`, `label`).

    Returns:
        The check, `Context -> list[Check]`.
    """
    return p.resets(at_one, least, seed_offset=101, **kwargs)


def continuous_resets(names: tuple[str, ...], support: Callable) -> p.CheckFn:
    """The reset distribution of the state's fields `names`, by KS per coordinate.

    Args:
        names: The state's field names.
        support: A support predicate every reset must satisfy (`within`, `half_disc`, ...).

    Returns:
        The check, `Context -> list[Check]`: 4,000 resets a side at scale 1 (at least 400).
    """
    return resets(outcome=fields(*names), support=support)


def deterministic_resets(names: tuple[str, ...], label: str = "reset") -> p.CheckFn:
    """A deterministic reset: its single outcome of the state's fields `names` must agree.

    Args:
        names: The state's field names.
        label: The check's name.

    Returns:
        The check, `Context -> list[Check]`: 400 resets a side at scale 1 (at least 40).
    """
    return resets(400, 40, outcome=fields(*names), discrete=True, label=label)


# ---------------------------------------------------------------------------------------------
# the suite


def suite(
    gymnax: Gymnax,
    resets: p.CheckFn,
    random: RandomCheck | None = None,
    deterministic: dict[str, Any] | None = None,
    rare: Callable | None = None,
    policy: Callable | None = None,
    whole_episodes: bool = False,
) -> p.ParitySpec:
    """A misc env's `ParitySpec`.

    Args:
        gymnax: How gymnax's env is compared (its reference).
        resets: The reset check (`continuous_resets`, `deterministic_resets` or the env's own).
        random: The random parts' check, given the start state of gymnax's run; None for a
            deterministic env.
        deterministic: Params (on top of those checked) under which the compared step has no
            random part.
        rare: The env's rare branch made common before a step (see `_scramble`).
        policy: gymnax's policy along its run (default uniform random actions).
        whole_episodes: Also compare whole episodes (deterministic envs).

    Returns:
        The spec: transitions (and the random parts), whole episodes, resets, statistics.
    """
    overrides = dict(deterministic or {})

    def transitions(ctx: p.Context) -> list[Check]:
        ref = gymnax(ctx.env_id, **overrides)
        data = ref.transitions(ctx.size(4000, 256), ctx.seed, policy=policy, scramble=_scramble(ref, rare))
        fields, collected = p.FieldPolicy(atol=ATOL, reward_atol=ATOL), p.Collection(data=data)
        checks = harness.check_transitions(
            ctx.env, ctx.params.replace(**overrides), ref, seed=ctx.seed, fields=fields, collect=collected
        )
        if whole_episodes:
            checks += p.episodes("atol", ATOL_EPISODE, at_one=500, least=64)(ctx)
        if random is not None:
            checks += random(ctx, data.state_at(0))
        return checks

    return p.ParitySpec(
        reference=gymnax,
        library="gymnax",
        checks=p.chain(transitions, resets, p.statistics(at_one=500, least=64)),
    )
