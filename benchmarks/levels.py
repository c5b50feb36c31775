"""make_vec with a level sampler against make_vec without one, in one process, paired.

CartPole-v1 with physics levels (pole half-length and mass uniform per episode) and
FourRooms-misc with start/goal levels (a start state: agent and goal uniform over the open cells,
apart), at 1,024 and 8,192 envs. Both rollouts take their params as jit arguments (closed-over
params would let XLA fold CartPole's constants only without levels). Each repeat is a pair: the
two compiled rollouts run back to back, in alternating order, and the ratio is taken within the
pair, so load that comes and goes on a shared machine falls on both; the script prints the
median steps/s of each and the median of the per-pair ratios, in wall time and in CPU time
(this process's, all threads). docs/levels.md quotes it.

    python benchmarks/levels.py [--steps 200] [--repeats 9] [--sizes 1024 8192]
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \\
        python benchmarks/levels.py --one-core      # as docs/benchmarks.md measures: one core
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

import jaxenvs
from jaxenvs.levels import Level


def cartpole_physics(key):
    """CartPole: half-length in [0.25, 1.0] m, pole mass in [0.05, 0.5] kg."""
    length, masspole = jax.random.uniform(key, (2,), minval=jnp.array([0.25, 0.05]), maxval=jnp.array([1.0, 0.5]))
    return Level(settings={"length": length, "masspole": masspole})


def cartpole_constant(key):
    """CartPole at its default length and pole mass every episode: a level carried, never drawn
    (`--parts`: what carrying a level costs without the sampler's random numbers)."""
    del key
    return Level(settings={"length": jnp.float32(0.5), "masspole": jnp.float32(0.1)})


def four_rooms_start_goal(env):
    """FourRooms: a start state, the agent and the goal on two different open cells."""
    raw = env.unwrapped
    coords = jnp.asarray(raw.coords)
    n = coords.shape[0]
    state_type = type(raw.reset(jax.random.key(0), raw.default_params)[1])

    def sample(key):
        goal_index, start_offset = jax.random.randint(key, (2,), 0, jnp.array([n, n - 1]))
        start_index = jnp.where(start_offset >= goal_index, start_offset + 1, start_offset)
        state = state_type(time=jnp.zeros((), jnp.int32), pos=coords[start_index], goal=coords[goal_index])
        return Level(state=state)

    return sample


def rollout(venv, params, steps):
    """`(compiled, compile_s)`: a jitted `steps`-step rollout taking `(key, params)`."""

    def run(key, params):
        _, state = venv.reset(key, params)

        def body(state, k):
            ka, ks = jax.random.split(k)
            out = venv.step(ks, state, venv.sample_actions(ka, params), params)
            # read the observations and rewards, so that XLA cannot drop the physics
            return out[1], out[0].sum() + out[2].sum()

        return jax.lax.scan(body, state, jax.random.split(key, steps))[1].sum()

    start = time.perf_counter()
    compiled = jax.jit(run).lower(jax.random.key(0), params).compile()
    return compiled, time.perf_counter() - start


def timed(compiled, key, params):
    """`(wall_s, cpu_s)` of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    compiled(key, params).block_until_ready()
    return time.perf_counter() - wall, time.process_time() - cpu


def paired(plain, leveled, params, repeats):
    """Per-pair `(plain, levels)` times, each `(wall_s, cpu_s)`, in alternating order."""
    for f in (plain, leveled):  # warm up: the first call of each pays for allocation
        timed(f, jax.random.key(0), params)
    pairs = []
    for r in range(repeats):
        key = jax.random.key(r + 1)
        if r % 2:
            lv = timed(leveled, key, params)
            pl = timed(plain, key, params)
        else:
            pl = timed(plain, key, params)
            lv = timed(leveled, key, params)
        pairs.append((pl, lv))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 8192])
    parser.add_argument("--envs", nargs="+", default=["CartPole-v1", "FourRooms-misc"])
    parser.add_argument("--parts", action="store_true", help="also CartPole at a constant level (carried, not drawn)")
    parser.add_argument("--one-core", action="store_true", help="pin every thread to one core (as throughput.py)")
    args = parser.parse_args()
    where = ""
    if args.one_core and hasattr(os, "sched_setaffinity"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from throughput import pin_to_one_core

        where = f", pinned to core {pin_to_one_core()}"
    flags = os.environ.get("XLA_FLAGS", "")
    print(
        f"jax {jax.__version__} on {jax.devices()[0].platform}{where}; {args.steps} steps, {args.repeats} pairs"
        + (f"; XLA_FLAGS={flags}" if flags else "")
    )
    print(
        f"{'env':<16}{'levels':<12}{'num_envs':>9}{'steps/s plain':>15}{'steps/s levels':>16}"
        f"{'ratio wall':>12}{'ratio cpu':>11}{'cpu/wall':>10}"
    )
    for env_id in args.envs:
        for n in args.sizes:
            venv, params = jaxenvs.make_vec(env_id, n)
            if env_id == "CartPole-v1":
                samplers = [("physics", cartpole_physics)] + ([("constant", cartpole_constant)] if args.parts else [])
            else:
                samplers = [("start/goal", four_rooms_start_goal(venv))]
            plain_fn, _ = rollout(venv, params, args.steps)
            for kind, sampler in samplers:
                leveled, _ = jaxenvs.make_vec(env_id, n, levels=sampler)
                level_fn, _ = rollout(leveled, params, args.steps)
                report(env_id, kind, n, args, paired(plain_fn, level_fn, params, args.repeats))


def report(env_id, kind, n, args, pairs):
    """Print one row: the medians of the pairs' steps/s and ratios."""
    work = n * args.steps
    plain = work / statistics.median(pl[0] for pl, _ in pairs)
    with_levels = work / statistics.median(lv[0] for _, lv in pairs)
    ratio_wall = statistics.median(lv[0] / pl[0] for pl, lv in pairs)
    ratio_cpu = statistics.median(lv[1] / pl[1] for pl, lv in pairs)
    load = statistics.median(pl[1] / pl[0] for pl, _ in pairs)
    print(
        f"{env_id:<16}{kind:<12}{n:>9}{plain:>15,.0f}{with_levels:>16,.0f}"
        f"{ratio_wall:>11.2f}x{ratio_cpu:>10.2f}x{load:>10.2f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
