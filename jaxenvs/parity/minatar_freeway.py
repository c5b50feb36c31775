"""Parity of `Freeway-MinAtar` against `minatar.Environment("freeway")`.

- every transition exact (all state fields, observation, reward, terminal) by injecting the
  reference's state, with the reference's recorded car-speed draws fed to the JAX transition:
  a uniform random policy and an up-heading policy from resets (whole 2,501-step episodes,
  so the time limit is reached), and scrambled states (cars, timers and the chicken anywhere,
  the time limit about to run out) that reach every branch; the run fails if a rare event
  (crossing, collision before and after a car's move, the time limit) never happened;
- car speeds by distribution (chi-square over the 10 signed speeds, every car) at reset and
  at a crossing, the JAX speeds always in the reference's support;
- random play with the defaults (sticky actions 0.1, six actions) and with the minimal action
  set: episode length and return within 3 standard errors, and how often the executed
  action repeats the previous one (against MinAtar and against `p + (1 - p) / K`).

Transitions are compared with sticky actions off on both sides
(`minatar.Environment(game, sticky_action_prob=0.0)`); the sticky draw is checked apart.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.envs.minatar.freeway import FreewayState
from jaxenvs.parity import minatar as m
from jaxenvs.parity.checks import Check, chi_square_check

GAME = "freeway"
INT_FIELDS = ("pos", "move_timer", "terminate_timer")


def read_state(env: Any) -> dict[str, np.ndarray]:
    cars = np.asarray(env.env.cars, np.int32).reshape(8, 4)
    return dict(m.read_attrs(env, INT_FIELDS, ("terminal",)), cars=cars)


def write_state(env: Any, state: dict[str, Any]) -> None:
    m.write_attrs(env, state, INT_FIELDS, ("terminal",))
    env.env.cars = [[int(v) for v in car] for car in np.asarray(state["cars"])]


to_jax, from_jax = m.same_names(FreewayState)


def draws_from_calls(calls: list, state: Any):
    """MinAtar's `_randomize_cars`: `randint(1, 6, 8)` then `rand(8)`; none on most steps."""
    from jaxenvs.envs.minatar.freeway import CarDraws

    if not calls:
        return CarDraws(speeds=np.ones(8, np.int32), directions=np.ones(8, np.int32))
    (name1, args1, _, speeds), (name2, args2, _, u) = calls
    assert (name1, tuple(args1), name2, tuple(args2)) == ("randint", (1, 6, 8), "rand", (8,)), calls
    return CarDraws(speeds=np.asarray(speeds, np.int32), directions=np.sign(np.asarray(u) - 0.5).astype(np.int32))


def head_up(p_up: float = 0.7) -> m.Policy:
    def policy(env: Any, rng: np.random.Generator) -> int:
        return 2 if rng.random() < p_up else int(rng.integers(6))

    return policy


def scramble(env: Any, rng: np.random.Generator) -> None:
    """A random mid-game state: cars anywhere with any speed and timer, the chicken on any
    row below the top, any move timer, and now and then the time limit about to end."""
    speeds = rng.integers(1, 6, 8) * rng.choice([-1, 1], 8)
    timers = np.array([rng.integers(0, abs(s) + 1) for s in speeds])
    cars = np.stack([rng.integers(0, 10, 8), np.arange(1, 9), timers, speeds], axis=1)
    near_end = rng.random() < 0.2
    write_state(
        env,
        dict(
            cars=cars,
            pos=int(rng.integers(1, 10)),
            move_timer=int(rng.integers(0, 4)),
            terminate_timer=int(rng.integers(0, 2)) if near_end else int(rng.integers(2, 2501)),
            terminal=False,
        ),
    )


def rare_events(data: m.Transitions) -> dict[str, int]:
    counts = dict(crossing=0, hit_before_move=0, hit_after_move=0, time_limit=0)
    for s, a, s2, r, t in zip(m.states(data), data.actions, m.states(data, after=True), data.rewards, data.terminated):
        counts["crossing"] += int(r > 0)
        counts["time_limit"] += int(t and not s["terminal"])
        row = int(s["pos"])
        if s["move_timer"] == 0 and a in (2, 4):
            row = max(0, row - 1) if a == 2 else min(9, row + 1)
        if r == 0 and 1 <= row <= 8 and s2["pos"] == 9:
            counts["hit_before_move" if s["cars"][row - 1][0] == 4 else "hit_after_move"] += 1
    return counts


def collect_all(num_steps: int, seed: int) -> dict[str, m.Transitions]:
    return {
        "random policy": (m.collect(GAME, read_state, num_steps, m.uniform_policy(), seed), True),
        "up-heading policy": (m.collect(GAME, read_state, max(3 * num_steps, 2600), head_up(), seed + 1), True),
        "scrambled states": (
            m.collect(GAME, read_state, num_steps, m.uniform_policy(), seed + 2, scramble=scramble),
            True,
        ),
    }


def check_speed_draws(num_samples: int, seed: int) -> list[Check]:
    """Signed car speeds at reset and at a crossing, pooled over the 8 cars."""
    import jaxenvs
    from jaxenvs.envs.minatar import freeway

    ref = m.make_reference(GAME, seed=seed)
    ref_reset, ref_cross = [], []
    crossing = dict(read_state(ref), pos=1, move_timer=0)
    for _ in range(num_samples):
        ref.reset()
        ref_reset += [car[3] for car in ref.env.cars]
        write_state(ref, crossing)
        ref.act(2)
        ref_cross += [car[3] for car in ref.env.cars]
    env, params = jaxenvs.make("Freeway-MinAtar", autoreset=False, sticky_action_prob=0.0)
    keys = jax.random.split(jax.random.key(seed), num_samples)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    start = to_jax(dict(crossing, time=0, last_action=0))
    _, after, reward, _, _, _ = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))(
        jax.random.split(jax.random.key(seed + 1), num_samples), start, 2, params
    )
    assert bool(jnp.all(reward == 1.0)), "the scripted crossing did not cross"
    mine_reset = np.asarray(states.cars[:, :, freeway.SPEED]).ravel().tolist()
    mine_cross = np.asarray(after.cars[:, :, freeway.SPEED]).ravel().tolist()
    return chi_square_check("reset car speeds", mine_reset, ref_reset) + chi_square_check(
        "crossing car speeds", mine_cross, ref_cross
    )


def extra_checks(scale: float, seed: int) -> list[Check]:
    return check_speed_draws(max(200, int(2000 * scale)), seed)


# random play (an episode is 2,501 steps: 1,000 episodes at scale 1 are 2.5M reference steps),
# and with the minimal action set (ids -v1), as minatar's gym wrapper maps it
PLAY = ((30, 1000, 2600, {}), (10, 200, 2600, {"use_minimal_action_set": True}))
