"""Is a refactor free? The compiled XLA programs of this checkout against another one's.

A change that only moves code (the one auto-reset step, the builder, the runtime interface)
should leave the program XLA compiles exactly as it was; then throughput is unchanged by
construction, which a timing on a shared machine can only suggest. For each id this compiles,
in a fresh interpreter per checkout, a `make_vec` rollout (200 steps, observations and rewards
consumed) and `make(id)`'s jitted step, drops what only names source lines (metadata, stack
frames), and compares the rest.

    git worktree add /tmp/before <commit>
    python benchmarks/same_program.py /tmp/before [--ids CartPole-v1 Breakout-MinAtar]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

IDS = ("CartPole-v1", "Acrobot-v1", "Pendulum-v1", "Breakout-MinAtar", "FourRooms-misc", "DeepSea-bsuite", "Taxi-v4")


def _normal(hlo: str) -> str:
    """The program without what names source lines."""
    hlo = re.sub(r"metadata=\{[^}]*\}", "", hlo)
    kept = [line for line in hlo.splitlines() if not re.match(r'^\s*\d+ ("|\{)', line)]
    return re.sub(r",? ?stack_frame_id=\d+", "", "\n".join(kept))


def _programs(ids: list[str], num_envs: int) -> dict[str, list[str]]:
    """`{id: [rollout hash, step hash]}` of the jaxenvs on the path."""
    import jax
    import jax.numpy as jnp

    import jaxenvs

    def digest(compiled) -> str:
        return hashlib.sha256(_normal(compiled.as_text()).encode()).hexdigest()[:16]

    out = {}
    for env_id in ids:
        venv, params = jaxenvs.make_vec(env_id, num_envs)

        def rollout(key, venv=venv, params=params):
            _, state = venv.reset(key, params)

            def body(carry, k):
                state, total = carry
                k_act, k_step = jax.random.split(k)
                obs, state, reward, *_ = venv.step(k_step, state, venv.sample_actions(k_act, params), params)
                return (state, total + jnp.sum(obs) + jnp.sum(reward)), None

            return jax.lax.scan(body, (state, jnp.float32(0)), jax.random.split(key, 200))[0]

        env, params = jaxenvs.make(env_id)
        key = jax.random.key(0)
        state = env.reset(key, params)[1]
        action = env.action_space(params).sample(jax.random.key(1))
        out[env_id] = [
            digest(jax.jit(rollout).lower(key).compile()),
            digest(jax.jit(env.step).lower(key, state, action, params).compile()),
        ]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", nargs="?", help="another checkout's root (a git worktree)")
    parser.add_argument("--ids", nargs="+", default=list(IDS))
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one checkout's, for the parent
    args = parser.parse_args()
    if args.json:
        print(json.dumps(_programs(args.ids, args.num_envs)))
        return 0
    if args.other is None:
        parser.error("give the other checkout's root")
    here = Path(__file__).resolve().parents[1]
    runs = {}
    for name, root in (("this", here), ("other", Path(args.other).resolve())):
        env = {**os.environ, "PYTHONPATH": str(root)}
        command = [sys.executable, str(Path(__file__).resolve()), "--json", "--ids", *args.ids]
        command += ["--num-envs", str(args.num_envs)]
        done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, check=True)
        runs[name] = json.loads(done.stdout.strip().splitlines()[-1])
    same = 0
    for env_id in args.ids:
        a, b = runs["this"][env_id], runs["other"][env_id]
        verdict = ["same" if x == y else "DIFFERENT" for x, y in zip(a, b)]
        same += verdict == ["same", "same"]
        print(f"{env_id:<20} make_vec rollout: {verdict[0]:<9}  make step: {verdict[1]}")
    print(f"{same} of {len(args.ids)} ids compile to the same programs in both checkouts")
    return 0 if same == len(args.ids) else 1


if __name__ == "__main__":
    sys.exit(main())
