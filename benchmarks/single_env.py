"""Per-step cost of the single-env ways out: `gymnasium.make("jaxenvs/CartPole-v1")` beside
gymnasium's numpy CartPole, and (if stable_baselines3 is installed) the SB3 VecEnv at 8 envs
beside SB3's `DummyVecEnv` over gymnasium's CartPole.

    python benchmarks/single_env.py                    # prints a markdown table
    python benchmarks/single_env.py --steps 20000 --runs 9 --clock cpu

Each run steps an env `--steps` times with random actions (drawn before the clock starts),
resetting it when an episode ends, as a user's loop does; the implementations take turns run by
run in one process, and each figure is the median over `--runs` runs of the run's microseconds
per step (per `step()` call; for the vector envs also per env-step). `--clock wall` (default)
or `cpu` (this process's CPU time, the process pinned to one core: steadier on a shared machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np


def gymnasium_loop(
    env_id: str, steps: int, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> Callable[[], float]:
    """A timed loop of one `gymnasium.make(env_id)` env.

    Args:
        env_id: A gymnasium id.
        steps: Steps per run.
        seed: The seed of the first reset and of the actions.
        clock: The clock runs are timed with.

    Returns:
        `run() -> seconds` for `steps` steps (with the resets that episode ends ask for).
    """
    import gymnasium

    env = gymnasium.make(env_id)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(steps)]
    for a in actions[:100]:  # warm-up (compiles a JAX env's functions)
        if any(env.step(a)[2:4]):
            env.reset()
    env.reset()

    def run() -> float:
        step, reset = env.step, env.reset
        t0 = clock()
        for a in actions:
            _, _, terminated, truncated, _ = step(a)
            if terminated or truncated:
                reset()
        return clock() - t0

    return run


def vec_loop(
    make: Callable[[], object], num_envs: int, steps: int, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> Callable[[], float]:
    """A timed loop of an SB3 `VecEnv` (which resets finished envs itself).

    Args:
        make: Builds the VecEnv.
        num_envs: Its batch size.
        steps: `step()` calls per run.
        seed: The seed of the actions.
        clock: The clock runs are timed with.

    Returns:
        `run() -> seconds` for `steps` calls.
    """
    venv = make()
    venv.seed(seed)
    venv.reset()
    rng = np.random.default_rng(seed)
    actions = [rng.integers(0, 2, num_envs) for _ in range(steps)]
    for a in actions[:100]:  # warm-up
        venv.step(a)

    def run() -> float:
        step = venv.step
        t0 = clock()
        for a in actions:
            step(a)
        return clock() - t0

    return run


def measure(loops: dict[str, Callable[[], float]], steps: int, runs: int) -> dict[str, list[float]]:
    """Microseconds per step of each loop, run by run, the loops taking turns.

    Args:
        loops: Name to `run() -> seconds`.
        steps: Steps of one run.
        runs: Runs of each loop.

    Returns:
        Name to the per-step microseconds of each run.
    """
    out: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(runs):
        for name, run in loops.items():
            out[name].append(run() / steps * 1e6)
    return out


def main(argv=None) -> None:
    """Measure and print the tables.

    Args:
        argv: Command-line arguments (`sys.argv[1:]` when None).
    """
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=5000, help="steps per run")
    p.add_argument("--runs", type=int, default=7, help="runs per implementation; the median is reported")
    p.add_argument("--num-envs", type=int, default=8, help="the SB3 VecEnvs' batch size")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = p.parse_args(argv)
    clock = time.perf_counter
    if args.clock == "cpu":
        clock = time.process_time
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})

    import jaxenvs  # noqa: F401 -- registers the jaxenvs/ ids with gymnasium

    single = {
        "jaxenvs: gymnasium.make('jaxenvs/CartPole-v1')": gymnasium_loop(
            "jaxenvs/CartPole-v1", args.steps, clock=clock
        ),
        "gymnasium: gymnasium.make('CartPole-v1') (numpy)": gymnasium_loop("CartPole-v1", args.steps, clock=clock),
    }
    times = measure(single, args.steps, args.runs)
    ours, ref = (statistics.median(t) for t in times.values())
    lines = [
        f"Per `step()` call, microseconds ({args.clock} clock), median of {args.runs} runs of {args.steps:,} steps"
        " (random actions, resets included), the two taking turns in one process.",
        "",
        "| implementation | us / step | runs (min-max) | ratio to numpy |",
        "|---|---:|---:|---:|",
    ]
    for name, t in times.items():
        lines.append(
            f"| {name} | {statistics.median(t):.2f} | {min(t):.2f}-{max(t):.2f} | {statistics.median(t) / ref:.2f}x |"
        )
    try:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from jaxenvs.export.sb3 import JaxSB3VecEnv
    except ImportError as e:
        lines += ["", f"SB3 VecEnvs not measured: {e}."]
    else:
        import gymnasium

        n = args.num_envs
        vec = {
            f"jaxenvs: JaxSB3VecEnv('CartPole-v1', {n})": vec_loop(
                lambda: JaxSB3VecEnv("CartPole-v1", n), n, args.steps, clock=clock
            ),
            f"SB3: DummyVecEnv of {n} gymnasium CartPole-v1": vec_loop(
                lambda: DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * n), n, args.steps, clock=clock
            ),
        }
        vtimes = measure(vec, args.steps, args.runs)
        vref = statistics.median(list(vtimes.values())[1])
        lines += [
            "",
            f"SB3 `VecEnv.step()` at {n} envs, microseconds per call (and per env-step), median of {args.runs} runs "
            f"of {args.steps:,} calls, taking turns.",
            "",
            "| implementation | us / call | us / env-step | runs (min-max) | ratio to DummyVecEnv |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, t in vtimes.items():
            m = statistics.median(t)
            lines.append(f"| {name} | {m:.2f} | {m / n:.2f} | {min(t):.2f}-{max(t):.2f} | {m / vref:.2f}x |")
    print("\n".join(lines))
    print(f"\njaxenvs / numpy CartPole: {ours / ref:.2f}x per step")


if __name__ == "__main__":
    main()
