"""Steps/s of jaxenvs' gymnasium vector env beside gymnasium's own vector CartPole.

    .venv/bin/python benchmarks/gymnasium_vector.py [--num-envs 8 64 1024] [--steps 300]

Both sides are driven the way numpy RL code drives them, in one process: `envs.step(actions)`
with actions drawn by `numpy.random.Generator.integers` each step, numpy arrays back.

- gymnasium: `gymnasium.make_vec("CartPole-v1", num_envs=N, vectorization_mode="vector_entry_point")`
  (`CartPoleVectorEnv`, numpy-vectorised, NEXT_STEP autoreset);
- jaxenvs: `gymnasium.make_vec("jaxenvs/CartPole-v1", num_envs=N)` in its default SAME_STEP mode
  (terminal observations in `info["final_obs"]`) and in NEXT_STEP mode, each step one jitted,
  vmapped XLA call plus the transfers to numpy.

Reported: the median of `--repeats` timed runs of `--steps` steps each (after a warm-up run),
and, for jaxenvs, the one-off compile time (first reset + first step) apart.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

import jaxenvs  # noqa: F401  (registers the jaxenvs/ ids with gymnasium)


def _time_steps(envs, num_envs: int, steps: int, rng: np.random.Generator) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        envs.step(rng.integers(0, 2, size=num_envs))
    return time.perf_counter() - start


def measure(make, num_envs: int, steps: int, repeats: int) -> tuple[float, float]:
    """`(median steps/s, seconds of the first reset + step)`."""
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    envs = make(num_envs)
    envs.reset(seed=0)
    envs.step(rng.integers(0, 2, size=num_envs))
    first = time.perf_counter() - start
    _time_steps(envs, num_envs, steps // 4 + 1, rng)  # warm-up
    rates = [num_envs * steps / _time_steps(envs, num_envs, steps, rng) for _ in range(repeats)]
    envs.close()
    return statistics.median(rates), first


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
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import jax

    print(f"# {platform.processor() or platform.machine()}, jax {jax.__version__} on {jax.default_backend()}, "
          f"gymnasium {gymnasium.__version__}; {args.steps} steps x {args.repeats} repeats, median")
    print()
    print("| num_envs | " + " | ".join(CONTENDERS) + " | jaxenvs / gymnasium | jaxenvs first reset+step (s) |")
    print("|---:|" + "---:|" * len(CONTENDERS) + "---:|---:|")
    for n in args.num_envs:
        results = {name: measure(make, n, args.steps, args.repeats) for name, make in CONTENDERS.items()}
        rates = [f"{results[name][0]:,.0f}" for name in CONTENDERS]
        ratio = results["jaxenvs SAME_STEP"][0] / results["gymnasium CartPoleVectorEnv"][0]
        print(f"| {n} | " + " | ".join(rates) + f" | {ratio:.2f}x | {results['jaxenvs SAME_STEP'][1]:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
