"""Rollout throughput of Breakout-, Freeway- and Asterix-MinAtar: jaxenvs beside gymnax, one process.

    python benchmarks/minatar_vs_gymnax.py [--num-envs 1024] [--steps 200] [--repeats 5] [--ids ...]
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
        python benchmarks/minatar_vs_gymnax.py --clock cpu        # steps per CPU-second, one core

Scheme, the same for every row: a jitted `lax.scan` of `--steps` steps over `--num-envs`
envs; per step one `randint` draws the whole batch's actions (uniform over the env's own
action set) and one key is split into per-env keys; the final state and the reward sum are
returned so that no work is dead code. Compile time is measured apart; the figure is the
median of `--repeats` timed runs, the rows of one game taking turns run by run (so that a
change in the machine's load hits them alike).

Rows:
- `gymnax`: `jax.vmap(env.step)` (gymnax's step resets every env at every step); its defaults
  (minimal action set, no sticky actions);
- `jaxenvs vmap`: `jax.vmap` of `jaxenvs.make(id)`'s auto-reset step, the same per-env path,
  with jaxenvs' defaults (six actions, sticky actions 0.1: strictly more work than gymnax);
- `jaxenvs vec`: `jaxenvs.make_vec(id, num_envs)`, the batched env that resets only the envs
  that finished (the fast path).
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax

import jaxenvs

GAMES = ("Breakout-MinAtar", "Freeway-MinAtar", "Asterix-MinAtar")


def vmap_rollout(env, params, num_envs: int, num_steps: int):
    num_actions = int(env.action_space(params).n)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k_reset, num_envs), params)

        def body(state, k):
            k_act, k_step = jax.random.split(k)
            actions = jax.random.randint(k_act, (num_envs,), 0, num_actions)
            out = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(k_step, num_envs), state, actions, params
            )
            return out[1], out[2].sum()

        state, rewards = jax.lax.scan(body, state, jax.random.split(k_run, num_steps))
        return state, rewards.sum()

    return jax.jit(run)


def vec_rollout(venv, params, num_steps: int):
    num_actions = int(venv.action_space(params).n)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        _, state = venv.reset(k_reset, params)

        def body(state, k):
            k_act, k_step = jax.random.split(k)
            actions = jax.random.randint(k_act, (venv.num_envs,), 0, num_actions)
            out = venv.step(k_step, state, actions, params)
            return out[1], out[2].sum()

        state, rewards = jax.lax.scan(body, state, jax.random.split(k_run, num_steps))
        return state, rewards.sum()

    return jax.jit(run)


def time_interleaved(fns: dict, repeats: int, clock=time.perf_counter) -> dict[str, tuple[float, float]]:
    """{name: (median seconds of a run, compile seconds)}; the timed runs of the rows take
    turns, so that a change in the machine's load hits every row alike."""
    compile_seconds, times = {}, {name: [] for name in fns}
    for name, fn in fns.items():
        t0 = time.perf_counter()
        jax.block_until_ready(fn(jax.random.key(0)))
        compile_seconds[name] = time.perf_counter() - t0
    for i in range(repeats):
        for name, fn in fns.items():
            t0 = clock()
            jax.block_until_ready(fn(jax.random.key(i + 1)))
            times[name].append(clock() - t0)
    return {name: (statistics.median(times[name]), compile_seconds[name]) for name in fns}


def rollouts(env_id: str, num_envs: int, num_steps: int):
    import gymnax

    g_env, g_params = gymnax.make(env_id)
    yield "gymnax", vmap_rollout(g_env, g_params, num_envs, num_steps)
    env, params = jaxenvs.make(env_id)
    yield "jaxenvs vmap", vmap_rollout(env, params, num_envs, num_steps)
    venv, params = jaxenvs.make_vec(env_id, num_envs)
    yield "jaxenvs vec", vec_rollout(venv, params, num_steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ids", nargs="*", default=list(GAMES))
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: this process's CPU time (steadier on a shared machine; run with XLA on one "
        "thread for a per-core figure)",
    )
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    print(
        f"{jax.devices()[0].platform}, {args.num_envs} envs x {args.steps} steps, median of {args.repeats}, "
        f"{args.clock} clock"
    )
    print(f"{'env':20} {'library':14} {'steps/s':>14} {'compile s':>10} {'vs gymnax':>10}")
    for env_id in args.ids:
        results = time_interleaved(dict(rollouts(env_id, args.num_envs, args.steps)), args.repeats, clock)
        baseline = None
        for library, (seconds, compile_seconds) in results.items():
            rate = args.num_envs * args.steps / seconds
            baseline = rate if baseline is None else baseline
            print(f"{env_id:20} {library:14} {rate:14,.0f} {compile_seconds:10.2f} {rate / baseline:9.2f}x", flush=True)


if __name__ == "__main__":
    main()
