"""Rollout throughput of Seaquest-MinAtar and SpaceInvaders-MinAtar beside gymnax, one process.

    python benchmarks/minatar_seaquest_space_invaders.py [--num-envs 1024] [--steps 200] [--repeats 5]

Every rollout is a jitted `lax.scan` of `jax.vmap(env.step)` over `--num-envs` envs with
auto-reset (jaxenvs' `make` default, gymnax's step always resets), random actions drawn by
one `randint` per step for the whole batch, per-env keys split from one key per step; the
final state is returned so no work is dead code. Compile time is reported apart; the figure
is the median of `--repeats` timed runs (wall clock; `--cpu-time` times the process's CPU
instead, steadier on a shared machine). Seaquest is set against gymnax's own
`Seaquest-MinAtar` (gymnax 1.0.1; not checked against MinAtar here) and against the cost of
the other MinAtar games in both libraries.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax

import jaxenvs

GAMES = ("SpaceInvaders-MinAtar", "Seaquest-MinAtar", "Breakout-MinAtar", "Asterix-MinAtar", "Freeway-MinAtar")


def vmapped_rollout(env, params, num_envs: int, num_steps: int):
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


def time_rollout(fn, repeats: int, clock=time.perf_counter) -> tuple[float, float]:
    """(median seconds of a run, compile seconds)."""
    t0 = clock()
    jax.block_until_ready(fn(jax.random.key(0)))
    compile_seconds = clock() - t0
    times = []
    for i in range(repeats):
        t0 = clock()
        jax.block_until_ready(fn(jax.random.key(i + 1)))
        times.append(clock() - t0)
    return statistics.median(times), compile_seconds


def build(library: str, env_id: str):
    if library == "jaxenvs":
        return jaxenvs.make(env_id)
    import gymnax

    if env_id not in gymnax.registered_envs:
        return None
    return gymnax.make(env_id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ids", nargs="*", default=list(GAMES))
    parser.add_argument("--cpu-time", action="store_true", help="time the process's CPU, not the wall clock")
    args = parser.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    print(
        f"{jax.devices()[0].platform}, {args.num_envs} envs x {args.steps} steps, median of {args.repeats}"
        f" ({'CPU' if args.cpu_time else 'wall'} time)"
    )
    print(f"{'env':24} {'library':8} {'steps/s':>12} {'compile s':>10}")
    for env_id in args.ids:
        for library in ("jaxenvs", "gymnax"):
            try:
                made = build(library, env_id)
            except (ImportError, KeyError, ValueError) as e:
                made = None
                print(f"{env_id:24} {library:8} skipped: {e}")
            if made is None:
                print(f"{env_id:24} {library:8} {'-':>12} (not in {library})")
                continue
            env, params = made
            median, compile_seconds = time_rollout(
                vmapped_rollout(env, params, args.num_envs, args.steps), args.repeats, clock
            )
            rate = args.num_envs * args.steps / median
            print(f"{env_id:24} {library:8} {rate:12,.0f} {compile_seconds:10.1f}", flush=True)


if __name__ == "__main__":
    main()
