"""Steps/s of jaxenvs' gymnasium vector env beside gymnasium's own vector CartPole.

    .venv/bin/python benchmarks/gymnasium_vector.py [--num-envs 8 64 1024] [--steps 300]

Both sides are driven the way numpy RL code drives them, in one process: `envs.step(actions)`
with actions drawn by `numpy.random.Generator.integers` each step, numpy arrays back.

- gymnasium: `gymnasium.make_vec("CartPole-v1", num_envs=N, vectorization_mode="vector_entry_point")`
  (`CartPoleVectorEnv`, numpy-vectorised, NEXT_STEP autoreset);
- jaxenvs: `gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=N)` in its default SAME_STEP mode
  (terminal observations in `info["final_obs"]`) and in NEXT_STEP mode, each step one jitted,
  vmapped XLA call plus the transfers to numpy.

Reported per batch size and contender: the median and the best of `--repeats` timed runs of
`--steps` steps each (after a warm-up run), steps per CPU-second of this process (the steadier
figure on a shared, loaded machine: time spent waiting for a core is not counted; XLA's CPU
work for these small arrays runs on the calling thread), and the first reset + step apart
(for jaxenvs: the compile).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

import jaxenvs  # noqa: F401  (registers the jaxenvs/ ids with gymnasium)


def _time_steps(envs, num_envs: int, steps: int, rng: np.random.Generator) -> tuple[float, float]:
    """`(wall seconds, CPU seconds of this process)` for `steps` steps."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        envs.step(rng.integers(0, 2, size=num_envs))
    return time.perf_counter() - wall, time.process_time() - cpu


def measure_all(makers: dict, num_envs: int, steps: int, repeats: int) -> dict[str, dict[str, float]]:
    """Per contender: median and best wall-clock steps/s, steps per CPU-second, and the first
    reset + step's seconds (for jaxenvs: the compile). The contenders' timed runs interleave,
    so a change in the machine's load hits all of them alike."""
    rng = np.random.default_rng(0)
    envs, first = {}, {}
    for name, make in makers.items():
        start = time.perf_counter()
        envs[name] = make(num_envs)
        envs[name].reset(seed=0)
        envs[name].step(rng.integers(0, 2, size=num_envs))
        first[name] = time.perf_counter() - start
        _time_steps(envs[name], num_envs, steps // 4 + 1, rng)  # warm-up
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in makers}
    for _ in range(repeats):
        for name in makers:
            runs[name].append(_time_steps(envs[name], num_envs, steps, rng))
    results = {}
    for name in makers:
        envs[name].close()
        rates = [num_envs * steps / wall for wall, _ in runs[name]]
        cpu_rate = num_envs * steps * repeats / sum(cpu for _, cpu in runs[name])
        results[name] = {"median": statistics.median(rates), "best": max(rates), "cpu": cpu_rate, "first": first[name]}
    return results


CONTENDERS = {
    "gymnasium CartPoleVectorEnv": lambda n: gymnasium.make_vec(
        "CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point"
    ),
    "jaxenvs SAME_STEP": lambda n: gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=n),
    "jaxenvs NEXT_STEP": lambda n: gymnasium.make_vec(
        "jaxenvs/CartPole-v1", num_envs=n, autoreset_mode=AutoresetMode.NEXT_STEP
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[8, 64, 1024])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    import jax

    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}; jax {jax.__version__} on {jax.default_backend()}, gymnasium "
        f"{gymnasium.__version__}; {args.steps} steps x {args.repeats} repeats: median (best) steps/s"
    )
    print()
    print("| num_envs | contender | steps/s (median) | steps/s (best) | steps per CPU-second | first reset+step (s) |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in args.num_envs:
        for name, r in measure_all(CONTENDERS, n, args.steps, args.repeats).items():
            print(
                f"| {n} | {name} | {r['median']:,.0f} | {r['best']:,.0f} | {r['cpu']:,.0f} | {r['first']:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
