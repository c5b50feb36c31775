"""Taxi against gymnasium's: every (state, action) of the dry taxi exactly (next state,
observation, reward, terminated, `prob`, `action_mask`), random-policy steps, the time limit;
rain (every move from random states) and the fickle passenger by distribution; the 300 starts
and the fickle draw at reset; random-policy statistics (the rainy fickle taxi's too, from
scale 0.25 up)."""

from typing import Any

import jax.numpy as jnp
import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.toy_text import _parity as tt
from jaxenvs.envs.toy_text.taxi.env import Taxi, TaxiState, decode
from jaxenvs.parity import Check, GymnasiumReference, Transitions, check_transitions
from jaxenvs.parity.reference import elapsed_steps, set_elapsed_steps
from jaxenvs.parity.stats import rows

# the cells where the passenger is aboard (`pass_loc` 4), every taxi position and destination
ABOARD = [((row * 5 + col) * 5 + 4) * 4 + dest for row in range(5) for col in range(5) for dest in range(4)]


def _read_state(env: Any) -> dict[str, Any]:
    u = env.unwrapped
    return {"s": np.int32(u.s), "fickle_step": np.bool_(u.fickle_step), "time": np.int32(elapsed_steps(env))}


def _write_state(env: Any, state: dict[str, Any]) -> None:
    env.unwrapped.s, env.unwrapped.fickle_step = int(state["s"]), bool(state["fickle_step"])
    set_elapsed_steps(env, int(state["time"]))


def _to_jax(state: dict[str, Any], params: Any) -> TaxiState:
    row, col, pass_loc, dest = decode(jnp.asarray(state["s"], jnp.int32))
    return TaxiState(
        time=jnp.asarray(state["time"], jnp.int32),
        taxi_row=row,
        taxi_col=col,
        pass_loc=pass_loc,
        dest_idx=dest,
        fickle_step=jnp.asarray(state["fickle_step"], bool),
    )


def _reference(env_id: str = "Taxi-v4", **kwargs: Any) -> GymnasiumReference:
    ref = tt.gymnasium_reference(env_id, _read_state, _write_state, _to_jax, ("s", "fickle_step", "time"), **kwargs)
    ref.from_jax = lambda state: {"s": Taxi.get_obs(state), "fickle_step": state.fickle_step, "time": state.time}
    return ref


def _state(s: int, fickle_step: bool = False) -> dict[str, Any]:
    return {"s": np.int32(s), "fickle_step": np.bool_(fickle_step), "time": np.int32(0)}


def _every_state(ctx: p.Context) -> list[Check]:
    """Every (state, action) of the dry taxi, with the action mask."""
    data = ctx.reference.step_cases([(_state(s), a) for s in range(500) for a in range(6)])
    fields, collect = p.FieldPolicy(info_fields=("prob", "action_mask")), p.Collection(data=data)
    return check_transitions(ctx.env, ctx.params, ctx.reference, label="step", fields=fields, collect=collect)


def _rain_outcome(t: Transitions) -> list[tuple]:
    return rows(t.obs, t.rewards, np.round(t.info["prob"].astype(np.float64), 6))


def _fickle_outcome(t: Transitions) -> list[tuple]:
    return rows(t.obs, t.rewards, t.next_states["fickle_step"])


_RAINY = p.variant(_reference, is_rainy=True)
_FICKLE = p.variant(_reference, fickle_passenger=True)


def _rain_and_fickle(ctx: p.Context) -> list[Check]:
    """Rain: every move from random states; the fickle passenger: aboard, not yet changed their
    mind, the taxi moves (or not). Both states drawn from one generator, in that order."""
    rng = np.random.default_rng(ctx.seed)
    rainy, fickle = _RAINY(ctx), _FICKLE(ctx)
    moves = [(_state(int(s)), a) for s in rng.choice(500, size=ctx.size(250, 25), replace=False) for a in range(4)]
    table = tt.table_support(rainy.reference, lambda entry: (int(entry[1]), float(entry[2]), round(float(entry[0]), 6)))
    rain = p.step_distribution(moves, _rain_outcome, 60, 40, seed_offset=1, label="rainy step", support=table)
    picked = rng.choice(ABOARD, size=ctx.size(100, 20), replace=False)
    aboard = [(_state(int(s), True), a) for s in picked for a in range(6)]
    drawn = tt.enumerated_support(fickle.reference, _fickle_outcome)
    fickle_steps = p.step_distribution(
        aboard, _fickle_outcome, 40, 20, seed_offset=2, label="fickle step", support=drawn
    )
    return rain(rainy) + fickle_steps(fickle)


SPEC = p.ParitySpec(
    reference=_reference,
    checks=p.chain(
        _every_state,
        p.transitions("atol", atol=0.0, at_one=2000, least=200, label="random-policy step"),
        p.time_limit(at_one=60, least=60),
        _rain_and_fickle,
        p.resets(at_one=6000, least=1500, discrete=True),
        # whether the passenger is fickle, at reset
        p.on(_FICKLE, p.resets(2000, 1000, outcome=lambda s, o: s["fickle_step"], discrete=True, label="fickle reset")),
        p.statistics(at_one=300, least=50),
        tt.variant_statistics(
            _reference, dict(is_rainy=True, fickle_passenger=True), "rainy fickle random-policy", 300, 50
        ),
    ),
)
