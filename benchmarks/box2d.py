"""Steps/s of jaxenvs' LunarLander beside gymnasium's Box2D LunarLander, in one run.

    .venv/bin/python benchmarks/box2d.py [--num-envs 1 64 1024] [--steps 200] [--repeats 3]
        [--ids LunarLander-v3 LunarLanderContinuous-v3]

- gymnasium: `gymnasium.make_vec(id, num_envs=N, vectorization_mode="sync")` (Box2D in C++, one
  env after another), stepped from Python with numpy random actions, as numpy RL code drives it;
- jaxenvs: `jaxenvs.make_vec(id, N)` in one jitted `lax.scan` of `--steps` steps with random
  actions drawn inside, its observations and rewards summed into the result (what training
  consumes, so XLA keeps the work).

Per batch size and id: the median and best of `--repeats` timed runs (the contenders
interleaved, so a change of the machine's load hits both), and the first call apart (for
jaxenvs: the compile).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def gymnasium_runner(env_id: str, num_envs: int, steps: int):
    """`(first call seconds, run)`: `run()` steps gymnasium's sync vector env `steps` times."""
    import gymnasium

    start = time.perf_counter()
    envs = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync")
    envs.reset(seed=0)
    envs.action_space.seed(0)
    envs.step(envs.action_space.sample())
    first = time.perf_counter() - start

    def run() -> float:
        total = 0.0
        for _ in range(steps):
            obs, reward, *_ = envs.step(envs.action_space.sample())
            total += float(reward.sum())
        return total

    return first, run


def jaxenvs_runner(env_id: str, num_envs: int, steps: int):
    """`(compile seconds, run)`: `run()` is one jitted scan of `steps` batched steps."""
    import jax
    import jax.numpy as jnp

    import jaxenvs
    from jaxenvs.bench import random_actions

    venv, params = jaxenvs.make_vec(env_id, num_envs)
    space = venv.action_space(params)  # one env's

    def rollout(key):
        _, state = venv.reset(key, params)

        def body(carry, k):
            state, total = carry
            actions = random_actions(jax.random.fold_in(k, 1), space, num_envs)
            obs, state, reward, *_ = venv.step(k, state, actions, params)
            return (state, total + obs.sum() + reward.sum()), None

        (_, total), _ = jax.lax.scan(body, (state, jnp.float32(0)), jax.random.split(key, steps))
        return total

    start = time.perf_counter()
    compiled = jax.jit(rollout).lower(jax.random.key(0)).compile()
    first = time.perf_counter() - start
    keys = iter(range(1, 10**6))
    return first, lambda: float(compiled(jax.random.key(next(keys))))


def measure(env_id: str, num_envs: int, steps: int, repeats: int) -> dict[str, dict[str, float]]:
    """Per contender: median and best steps/s, and its first call's seconds."""
    runners = {
        "gymnasium (sync vector, Box2D)": gymnasium_runner(env_id, num_envs, steps),
        "jaxenvs make_vec (jit scan)": jaxenvs_runner(env_id, num_envs, steps),
    }
    for _, run in runners.values():
        run()  # warm-up
    rates: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(repeats):
        for name, (_, run) in runners.items():
            start = time.perf_counter()
            run()
            rates[name].append(num_envs * steps / (time.perf_counter() - start))
    return {
        name: {"median": statistics.median(r), "best": max(r), "first": runners[name][0]} for name, r in rates.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="+", default=["LunarLander-v3"])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 64, 1024])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import gymnasium
    import jax

    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}; jax {jax.__version__} on {jax.default_backend()}, gymnasium "
        f"{gymnasium.__version__}; {args.steps} steps x {args.repeats} repeats"
    )
    print()
    print("| id | num_envs | contender | steps/s (median) | steps/s (best) | first call (s) | jaxenvs / gymnasium |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for env_id in args.ids:
        for n in args.num_envs:
            results = measure(env_id, n, args.steps, args.repeats)
            base = next(iter(results.values()))["median"]
            for name, r in results.items():
                ratio = f"{r['median'] / base:.2f}x" if name.startswith("jaxenvs") else ""
                print(
                    f"| {env_id} | {n} | {name} | {r['median']:,.0f} | {r['best']:,.0f} | {r['first']:.1f} | {ratio} |",
                    flush=True,
                )


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
