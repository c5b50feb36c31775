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


def dispatch_floor(steps: int, clock: Callable[[], float] = time.perf_counter) -> Callable[[], float]:
    """A timed loop of the least a JAX env's step can cost from Python: one jitted call on a
    state kept on the device, and a host copy of a CartPole-sized output.

    Args:
        steps: Calls per run.
        clock: The clock runs are timed with.

    Returns:
        `run() -> seconds` for `steps` calls.
    """
    import jax
    import jax.numpy as jnp

    call = jax.jit(lambda x: (x + 1, x[:6]), donate_argnums=0)
    x = jnp.zeros(16, jnp.uint32)
    for _ in range(100):  # warm-up (compiles)
        x, out = call(x)
        np.asarray(out)

    def run() -> float:
        nonlocal x
        t0 = clock()
        for _ in range(steps):
            x, out = call(x)
            np.asarray(out)
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


def measure_all(steps: int, runs: int, num_envs: int = 8, clock: Callable[[], float] = time.perf_counter) -> dict:
    """Both comparisons: one gymnasium env against numpy's CartPole; the SB3 VecEnvs.

    Args:
        steps: Steps (or `step()` calls) per run.
        runs: Runs of each implementation, taking turns.
        num_envs: The SB3 VecEnvs' batch size.
        clock: The clock runs are timed with.

    Returns:
        `{"single": {name: [us per step, run by run]}, "sb3": {...} or the reason it was not
        measured, "num_envs": num_envs, "steps": steps, "runs": runs}`; in each dict jaxenvs'
        entry first, the reference second.
    """
    import gymnasium

    import jaxenvs  # noqa: F401 -- registers the jaxenvs/ ids with gymnasium

    single = {
        "jaxenvs: gymnasium.make('jaxenvs/CartPole-v1')": gymnasium_loop("jaxenvs/CartPole-v1", steps, clock=clock),
        "gymnasium: gymnasium.make('CartPole-v1') (numpy)": gymnasium_loop("CartPole-v1", steps, clock=clock),
        "jax: one trivial jitted call and its host copy (the floor)": dispatch_floor(steps, clock=clock),
    }
    out = {"single": measure(single, steps, runs), "num_envs": num_envs, "steps": steps, "runs": runs}
    try:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from jaxenvs.export.sb3 import JaxSB3VecEnv
    except ImportError as e:
        out["sb3"] = f"SB3 VecEnvs not measured: {e}."
        return out
    n = num_envs
    vec = {
        f"jaxenvs: JaxSB3VecEnv('CartPole-v1', {n})": vec_loop(
            lambda: JaxSB3VecEnv("CartPole-v1", n), n, steps, clock=clock
        ),
        f"SB3: DummyVecEnv of {n} gymnasium CartPole-v1": vec_loop(
            lambda: DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * n), n, steps, clock=clock
        ),
    }
    out["sb3"] = measure(vec, steps, runs)
    return out


def ratios(result: dict) -> tuple[float, float | None]:
    """jaxenvs' median time per step over the reference's: the gymnasium env's, the SB3 VecEnv's (None if not measured).

    Args:
        result: From `measure_all`.

    Returns:
        `(gymnasium ratio, SB3 ratio)`; below 1 means jaxenvs is faster.
    """

    def ratio(times: dict) -> float:
        ours, ref = (statistics.median(t) for t in list(times.values())[:2])
        return ours / ref

    return ratio(result["single"]), ratio(result["sb3"]) if isinstance(result["sb3"], dict) else None


def markdown(result: dict, clock: str) -> list[str]:
    """The two tables.

    Args:
        result: From `measure_all`.
        clock: `wall` or `cpu`, for the caption.

    Returns:
        Lines of markdown.
    """
    runs, steps, n = result["runs"], result["steps"], result["num_envs"]
    lines = [
        f"Per `step()` call, microseconds ({clock} clock), median of {runs} runs of {steps:,} steps"
        " (random actions, resets included), taking turns in one process; the last row is what any JAX"
        " env's step costs at the least from Python.",
        "",
        *_table(result["single"], "us / step", "ratio to numpy"),
    ]
    if not isinstance(result["sb3"], dict):
        return lines + ["", result["sb3"]]
    return lines + [
        "",
        f"SB3 `VecEnv.step()` at {n} envs, microseconds per call (and per env-step), median of {runs} runs "
        f"of {steps:,} calls, taking turns.",
        "",
        *_table(result["sb3"], "us / call", "ratio to DummyVecEnv", per=n),
    ]


def _table(times: dict[str, list[float]], unit: str, ratio: str, per: int | None = None) -> list[str]:
    """Rows of medians and ranges, each over the second row's median (the reference); `per`: a column per env-step."""
    ref = statistics.median(list(times.values())[1])
    extra = " us / env-step |" if per else ""
    lines = [
        f"| implementation | {unit} |{extra} runs (min-max) | {ratio} |",
        "|---|---:|" + "---:|" * (3 if per else 2),
    ]
    for name, t in times.items():
        m = statistics.median(t)
        cells = f" {m / per:.2f} |" if per else ""
        lines.append(f"| {name} | {m:.2f} |{cells} {min(t):.2f}-{max(t):.2f} | {m / ref:.2f}x |")
    return lines


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
    result = measure_all(args.steps, args.runs, args.num_envs, clock)
    print("\n".join(markdown(result, args.clock)))
    print(f"\njaxenvs / numpy CartPole: {ratios(result)[0]:.2f}x per step")


if __name__ == "__main__":
    main()
