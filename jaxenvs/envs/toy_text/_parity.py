"""What the toy-text parity specs share: gymnasium 1.3's `toy_text` envs as references, and the
supports of their random steps.

The references keep their state in plain attributes of the unwrapped env (`s`, Taxi's
`fickle_step`, Blackjack's `player` and `dealer` lists), read and written by assignment.
Every JAX outcome of a random step must be one the reference can produce: read from its
transition table `P` (`table_support`), or found by replaying its step once per branch of its
`np_random.choice` draws (`enumerated_support`).
"""

from collections.abc import Callable, Sequence
from typing import Any
from unittest import mock

import jax.numpy as jnp
import numpy as np

from jaxenvs import parity as p
from jaxenvs.parity import Check, GymnasiumReference, Transitions, check_step_distribution, check_transitions
from jaxenvs.parity.reference import elapsed_steps, set_elapsed_steps
from jaxenvs.parity.stats import rows

# Below this scale (the tests' CI sizes) the random-policy statistics of the option variants
# (rainy and fickle Taxi, Blackjack's natural rules) are left out: each costs a compile of a
# whole-episode scan, and those options are checked transition by transition anyway.
VARIANT_STATISTICS_SCALE = 0.25


def gymnasium_reference(
    env_id: str, read_state, write_state, to_jax, exact_fields, **kwargs: Any
) -> GymnasiumReference:
    """gymnasium's `env_id` made with `kwargs`, as a reference (its env checker off: it warns on
    injected states).

    Args:
        env_id: The gymnasium id.
        read_state: `env -> {field: value}` (`Reference.read_state`).
        write_state: `(env, state)` writes such a dict back (`Reference.write_state`).
        to_jax: `(state, params) -> JAX state` (`Reference.to_jax`).
        exact_fields: The fields compared exactly (`Reference.exact_fields`).
        **kwargs: gymnasium's `make` kwargs (`is_slippery=True`, `map_name="8x8"`, ...).

    Returns:
        The reference.
    """
    import gymnasium

    return GymnasiumReference(
        make=lambda: gymnasium.make(env_id, disable_env_checker=True, **kwargs),
        read_state=read_state,
        write_state=write_state,
        to_jax=to_jax,
        exact_fields=exact_fields,
        name=f"gymnasium {env_id}",
    )


def variant_statistics(
    reference: Callable[..., GymnasiumReference], options: dict, label: str, at_one: int, least: int, **kwargs: Any
) -> p.CheckFn:
    """Random-policy statistics under `options` (params and gymnasium's kwargs alike,
    `spec.variant`), only from scale `VARIANT_STATISTICS_SCALE` up.

    Args:
        reference: `(env_id, **options) -> GymnasiumReference`.
        options: The variant's settings.
        label: The checks' name prefix.
        at_one: Episodes a side at scale 1.
        least: Episodes at the smallest scale.
        **kwargs: Passed to `spec.statistics` (`seed_offset`, `max_steps`, ...).

    Returns:
        A check function.
    """
    statistics = p.on(p.variant(reference, **options), p.statistics(at_one, least, label=label, **kwargs))
    return lambda ctx: statistics(ctx) if ctx.scale >= VARIANT_STATISTICS_SCALE else []


def table_support(ref: GymnasiumReference, outcome: Callable[[tuple], tuple]) -> Callable[[dict, int], set]:
    """The support of a reference with a transition table `P[s][a] = [(p, s', r, t), ...]`.

    Args:
        ref: The reference (built and reset on first use).
        outcome: `(p, s', r, t) -> outcome`, one table entry as the distribution check reads it.

    Returns:
        `(state, action) -> set of outcomes`: the outcomes of the entries of `P[state["s"]][action]`
        with a positive probability.
    """

    def support(state: dict, action: int) -> set:
        if ref.env is None:
            ref.reset(0)
        return {outcome(entry) for entry in ref.env.unwrapped.P[int(state["s"])][int(action)] if entry[0] > 0}

    return support


class _ScriptedRandom:
    """Stands in for a reference's `np_random` so that each of its `choice` draws can be
    forced: `script[i]` picks the i-th call's outcome among the distinct options. `random()`
    answers 0.5, enough for a categorical over one outcome."""

    def __init__(self, script: Sequence[int]):
        self.script = list(script)
        self.calls: list[list[Any]] = []  # the distinct options of each call

    def choice(self, options: Sequence[Any]) -> Any:
        i = len(self.calls)
        self.calls.append(list(dict.fromkeys(options)))
        return self.calls[i][self.script[i] if i < len(self.script) else 0]

    def random(self) -> float:
        return 0.5


def enumerated_support(ref: GymnasiumReference, outcome: Callable[[Transitions], list]):
    """The support of a reference step whose randomness is `np_random.choice` draws.

    The step is replayed once per sequence of picks (depth-first), by the reference's own
    code, with its `np_random` replaced by a scripted one for the replay.

    Args:
        ref: The reference (built and reset on first use).
        outcome: `Transitions -> [outcome per row]`, as the distribution check reads them.

    Returns:
        `(state, action) -> set of outcomes` the reference can produce from that case.
    """

    def support(state: dict, action: int) -> set:
        if ref.env is None:
            ref.reset(0)
        found = set()
        stack: list[list[int]] = [[]]
        while stack:
            script = stack.pop()
            rng = _ScriptedRandom(script)
            with mock.patch.object(ref.env.unwrapped, "_np_random", rng):
                out = ref.step_cases([(state, action)])
            if len(rng.calls) > len(script):  # an unforced draw: branch on it
                stack += [script + [k] for k in range(len(rng.calls[len(script)]))]
            else:
                found.add(outcome(out)[0])
        return found

    return support


def obs_reward_terminated(t: Transitions) -> list[tuple]:
    """The outcome of each step as the distribution checks compare it.

    Args:
        t: Transitions of either side.

    Returns:
        One `(obs, reward, terminated)` tuple per row.
    """
    return rows(t.obs, t.rewards, t.terminated)


# ---------------------------------------------------------------------------------------------
# FrozenLake and CliffWalking: one integer cell `s`


def cell_reference(env_id: str, state_cls: Any, timed: bool, **kwargs: Any) -> GymnasiumReference:
    """The reference of a grid env whose state is the cell `s` (and the time, where gymnasium
    has a time limit).

    Args:
        env_id: The gymnasium id.
        state_cls: The JAX state class (`FrozenLakeState`, `CliffWalkingState`).
        timed: Whether gymnasium wraps the env in a `TimeLimit` (FrozenLake yes, CliffWalking
            no): only then is the time read from it.
        **kwargs: gymnasium's `make` kwargs.

    Returns:
        The reference, `s` and `time` compared exactly.
    """

    def read_state(env: Any) -> dict[str, Any]:
        out = {"s": np.int32(env.unwrapped.s)}
        if timed:  # CliffWalking has no TimeLimit: its JAX time is compared against nothing
            out["time"] = np.int32(elapsed_steps(env))
        return out

    def write_state(env: Any, state: dict[str, Any]) -> None:
        env.unwrapped.s = int(state["s"])
        set_elapsed_steps(env, int(state.get("time", 0)))

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        return state_cls(time=jnp.asarray(state.get("time", 0), jnp.int32), s=jnp.asarray(state["s"], jnp.int32))

    return gymnasium_reference(env_id, read_state, write_state, to_jax, ("s", "time"), **kwargs)


def every_cell(label: str, ctx: p.Context) -> list[Check]:
    """Every (cell, action) of a deterministic grid, stepped in both.

    Args:
        label: The checks' name prefix.
        ctx: The run: the raw JAX env, its params and the reference (`cell_reference`).

    Returns:
        The checks of `check_transitions`, `info["prob"]` compared too.
    """
    ref = ctx.reference
    ref.reset(0)  # the cells are the reference's, whatever the env under test declares
    cases = [({"s": np.int32(s)}, a) for s in range(ref.env.observation_space.n) for a in range(4)]
    fields, collect = p.FieldPolicy(info_fields=("prob",)), p.Collection(data=ref.step_cases(cases))
    return check_transitions(ctx.env, ctx.params, ref, label=label, fields=fields, collect=collect)


def cell_outcomes(ref: GymnasiumReference) -> Callable[[dict, int], set]:
    """The `(cell, reward, terminated)` outcomes of a grid's (cell, action), from its table.

    Args:
        ref: The reference (`cell_reference`), whose unwrapped env has gymnasium's table `P`.

    Returns:
        `(state, action) -> set of outcomes` (`table_support`).
    """
    return table_support(ref, lambda entry: (int(entry[1]), float(entry[2]), bool(entry[3])))


def cell_distribution(
    label: str, env: Any, params: Any, ref: GymnasiumReference, cells: Sequence[int], n_per: int, seed: int
) -> list[Check]:
    """Slippery moves by distribution: every action from each of `cells`, `n_per` samples each.

    Args:
        label: The checks' name prefix.
        env: The raw JAX env.
        params: Its params (slippery).
        ref: The reference (`cell_reference`, slippery too).
        cells: The cells to step from.
        n_per: Samples per (cell, action), on each side.
        seed: The seed of both sides' draws.

    Returns:
        The checks of `check_step_distribution`, the support read from gymnasium's table.
    """
    cases = [({"s": np.int32(s)}, a) for s in cells for a in range(4)]
    outcome, support = obs_reward_terminated, cell_outcomes(ref)
    return check_step_distribution(env, params, ref, cases, n_per, outcome, seed, label=label, support=support)
