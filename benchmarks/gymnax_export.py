"""What the gymnax export costs: `jax.vmap` of the step of `jaxenvs.export.gymnax.make(id)` beside
`jaxenvs.make(id)`'s at the same settings (gymnax's, given as overrides) with its observation
cast to gymnax's dtype and shape, the work the export does at its boundary. Same process, the
two taking turns; the ratio of each pair of runs, and their median, is reported.

    python benchmarks/gymnax_export.py
    python benchmarks/gymnax_export.py --ids CartPole-v1 --num-envs 64 1024 --pairs 15
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \\
        python benchmarks/gymnax_export.py --clock cpu     # steps per CPU-second, one core (a busy machine)

Prints one row per id and batch size: steps/s of each (the medians), and the median of the
paired ratios export / `jaxenvs.make` (the issue's budget: at least 0.95) with its range.
Ids whose gymnax task needs constructor arguments (DeepSea's size, UmbrellaChain's
distractors, MNIST's data) cannot be built by `jaxenvs.make` overrides and are refused.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import jax

import jaxenvs
from jaxenvs.bench import vmap_rollout
from jaxenvs.export import gymnax as jaxenvs_gymnax
from jaxenvs.export.gymnax import GYMNAX_TASKS

DEFAULT_IDS = ("CartPole-v1", "Breakout-MinAtar", "Catch-bsuite")


class CastObservation:
    """`jaxenvs.make`'s env with its observations cast and reshaped as gymnax's task has them."""

    def __init__(self, env, task):
        self.env, self.task = env, task

    def _obs(self, obs):
        if self.task.obs_dtype is not None:
            obs = obs.astype(self.task.obs_dtype)
        return obs if self.task.obs_shape is None else obs.reshape(self.task.obs_shape)

    def reset(self, key, params):
        obs, state = self.env.reset(key, params)
        return self._obs(obs), state

    def step(self, key, state, action, params):
        obs, *rest = self.env.step(key, state, action, params)
        return (self._obs(obs), *rest)

    def action_space(self, params):
        return self.env.action_space(params)


def builds(env_id: str, num_envs: int, num_steps: int) -> dict:
    """The two compiled rollouts of `env_id`: `jaxenvs.make` at gymnax's settings with the cast,
    and the export."""
    task = GYMNAX_TASKS.get(env_id)
    if task is None:
        raise SystemExit(f"{env_id}: not an id gymnax defines (one of {', '.join(GYMNAX_TASKS)})")
    if task.env_kwargs or task.data is not None:
        raise SystemExit(f"{env_id}: gymnax's task sets constructor arguments, which jaxenvs.make cannot")
    env, params = jaxenvs.make(task.jaxenvs_id, **task.params)
    export, export_params = jaxenvs_gymnax.make(env_id)
    key = jax.random.key(0)
    out = {}
    for name, (e, p) in {"make": (CastObservation(env, task), params), "export": (export, export_params)}.items():
        compiled = jax.jit(vmap_rollout(e, p, num_envs, num_steps)).lower(key).compile()
        jax.block_until_ready(compiled(key))  # warm-up
        out[name] = compiled
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="+", default=list(DEFAULT_IDS))
    parser.add_argument("--num-envs", nargs="+", type=int, default=[1024])
    parser.add_argument("--num-steps", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=11)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args(argv)
    clock = time.perf_counter
    if args.clock == "cpu":  # as benchmarks/throughput.py does it
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from throughput import pin_to_one_core

        clock = time.process_time
        if hasattr(os, "sched_setaffinity"):
            pin_to_one_core()
    platform = jax.devices()[0].platform
    print(f"jax {jax.__version__}, {platform}, {args.pairs} pairs of {args.num_steps} steps, {args.clock} clock")
    print("| id | envs | jaxenvs.make + cast (steps/s) | export (steps/s) | export / make, median of pairs | range |")
    print("|---|---|---|---|---|---|")
    for env_id in args.ids:
        for n in args.num_envs:
            runs = builds(env_id, n, args.num_steps)
            times = {name: [] for name in runs}
            for i in range(args.pairs):
                order = list(runs) if i % 2 == 0 else list(runs)[::-1]  # neither always goes first
                for name in order:
                    t0 = clock()
                    jax.block_until_ready(runs[name](jax.random.key(i + 1)))
                    times[name].append(clock() - t0)
            ratios = [m / e for m, e in zip(times["make"], times["export"])]
            sps = {name: n * args.num_steps / statistics.median(t) for name, t in times.items()}
            print(
                f"| {env_id} | {n} | {sps['make']:,.0f} | {sps['export']:,.0f} | {statistics.median(ratios):.3f} "
                f"| {min(ratios):.3f}-{max(ratios):.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
