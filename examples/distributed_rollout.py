"""One rollout sharded over several processes (hosts) with `jax.distributed`: JAX's own engine.

On a cluster, start one process per host, each with the same coordinator and its own id:

    python examples/distributed_rollout.py --coordinator HOST0:PORT --num-processes 2 --process-id 0
    python examples/distributed_rollout.py --coordinator HOST0:PORT --num-processes 2 --process-id 1

or try it on one machine, where this script starts the processes itself (a coordinator on
127.0.0.1 at a free port, CPU collectives over gloo):

    python examples/distributed_rollout.py --local 2 --env CartPole-v1 --num-envs 64 --num-steps 100

Each process calls `jax.distributed.initialize`, builds a mesh over `jax.devices()` (every
device of every process) and runs `jaxenvs.rollout` with it: the env batch is split over the
processes, each steps its share, and the result is one global array. Process 0 gathers it
(`multihost_utils.process_allgather`) and prints a summary; with `--out` it saves the
rewards, flags and final observation, which equal those of the same rollout in one process.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="CartPole-v1")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--coordinator", help="HOST:PORT of process 0's coordinator")
    p.add_argument("--num-processes", type=int)
    p.add_argument("--process-id", type=int)
    p.add_argument("--local", type=int, metavar="N", help="start N processes on this machine and wait for them")
    p.add_argument("--out", help="process 0 saves the gathered rollout here (.npz)")
    return p.parse_args(argv)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch_local(args, argv, timeout: float = 300.0) -> int:
    """Start `args.local` copies of this script as processes 0..N-1 of one job; return the
    first non-zero exit code (0 when all succeed)."""
    coordinator = f"127.0.0.1:{free_port()}"
    rest = [a for a in (argv if argv is not None else sys.argv[1:])]
    i = rest.index("--local")
    rest = rest[:i] + rest[i + 2 :]
    env = dict(os.environ)
    # one CPU device per process, whatever the caller forced for itself
    env["XLA_FLAGS"] = " ".join(
        f for f in env.get("XLA_FLAGS", "").split() if not f.startswith("--xla_force_host_platform_device_count")
    )
    procs = [
        subprocess.Popen(
            [sys.executable, __file__, *rest]
            + ["--coordinator", coordinator, "--num-processes", str(args.local), "--process-id", str(rank)],
            env=env,
        )
        for rank in range(args.local)
    ]
    codes = []
    try:
        for p in procs:
            codes.append(p.wait(timeout=timeout))
    finally:
        for p in procs:
            if p.poll() is None:  # a process that hangs (a peer died before the collective)
                p.kill()
                p.wait()
    return next((c for c in codes if c), 0)


def run(args):
    import jax

    # CPU devices of different processes talk over gloo (JAX has no other CPU collectives here)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(
        coordinator_address=args.coordinator, num_processes=args.num_processes, process_id=args.process_id
    )

    import numpy as np
    from jax.experimental import multihost_utils
    from jax.sharding import Mesh

    import jaxenvs

    mesh = Mesh(np.array(jax.devices()), ("envs",))  # every process's devices, in one mesh
    env, params = jaxenvs.make(args.env, autoreset=False)
    out = jaxenvs.rollout(
        env, params, None, jax.random.key(args.seed), num_envs=args.num_envs, num_steps=args.num_steps, mesh=mesh
    )
    local = {d.id for d in out["reward"].addressable_shards[0].data.devices()}
    # each process holds only its shard of the batch; gather the whole batch to report it
    gathered = {
        k: np.asarray(multihost_utils.process_allgather(out[k], tiled=True))
        for k in ("reward", "terminated", "truncated", "obs")
    }
    if jax.process_index() == 0:
        print(
            f"{jax.process_count()} processes, {len(jax.devices())} devices; process 0 stepped "
            f"{out['obs'].addressable_shards[0].data.shape[0]} of {args.num_envs} envs on device(s) {sorted(local)}; "
            f"{int(gathered['terminated'].sum())} episodes ended, mean reward {gathered['reward'].mean():.3f}"
        )
        if args.out:
            np.savez(args.out, **gathered)
    jax.distributed.shutdown()


def main(argv=None) -> int:
    args = parse(argv)
    if args.local:
        return launch_local(args, argv)
    if None in (args.coordinator, args.num_processes, args.process_id):
        raise SystemExit("give --coordinator, --num-processes and --process-id, or --local N")
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
