"""make_vec with a level sampler against make_vec without one, in one process.

CartPole-v1 with physics levels (pole half-length and mass uniform per episode) and
FourRooms-misc with start/goal levels (a start state: agent and goal uniform over the open cells,
apart), at 1,024 and 8,192 envs. Prints env-steps per second (median of repeats, compile apart)
and the ratio; docs/levels.md quotes it.

    python benchmarks/levels.py [--steps 200] [--repeats 5] [--sizes 1024 8192]
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp

import jaxenvs
from jaxenvs.levels import Level


def cartpole_physics(key):
    """CartPole: half-length in [0.25, 1.0] m, pole mass in [0.05, 0.5] kg."""
    length, masspole = jax.random.uniform(key, (2,), minval=jnp.array([0.25, 0.05]), maxval=jnp.array([1.0, 0.5]))
    return Level(settings={"length": length, "masspole": masspole})


def four_rooms_start_goal(env):
    """FourRooms: a start state, the agent and the goal on two different open cells."""
    raw = env.unwrapped
    coords = jnp.asarray(raw.coords)
    n = coords.shape[0]
    state_type = type(raw.reset(jax.random.key(0), raw.default_params)[1])

    def sample(key):
        goal_index, start_offset = jax.random.randint(key, (2,), 0, jnp.array([n, n - 1]))
        start_index = jnp.where(start_offset >= goal_index, start_offset + 1, start_offset)
        state = state_type(time=jnp.zeros((), jnp.int32), pos=coords[start_index], goal=coords[goal_index])
        return Level(state=state)

    return sample


def throughput(venv, params, steps, repeats):
    """Env-steps per second of a jitted `steps`-step rollout (median), and its compile seconds."""

    def run(key):
        _, state = venv.reset(key, params)

        def body(state, k):
            ka, ks = jax.random.split(k)
            out = venv.step(ks, state, venv.sample_actions(ka, params), params)
            # read the observations and rewards, so that XLA cannot drop the physics
            return out[1], out[0].sum() + out[2].sum()

        return jax.lax.scan(body, state, jax.random.split(key, steps))[1].sum()

    start = time.perf_counter()
    compiled = jax.jit(run).lower(jax.random.key(0)).compile()
    compile_s = time.perf_counter() - start
    times = []
    for r in range(repeats):
        start = time.perf_counter()
        compiled(jax.random.key(r + 1)).block_until_ready()
        times.append(time.perf_counter() - start)
    return venv.num_envs * steps / statistics.median(times), compile_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 8192])
    args = parser.parse_args()
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; {args.steps} steps, median of {args.repeats}")
    print(f"{'env':<16}{'levels':<12}{'num_envs':>9}{'steps/s plain':>16}{'steps/s levels':>16}{'ratio':>8}")
    for env_id in ("CartPole-v1", "FourRooms-misc"):
        for n in args.sizes:
            venv, params = jaxenvs.make_vec(env_id, n)
            sampler = cartpole_physics if env_id == "CartPole-v1" else four_rooms_start_goal(venv)
            kind = "physics" if env_id == "CartPole-v1" else "start/goal"
            leveled, _ = jaxenvs.make_vec(env_id, n, levels=sampler)
            plain, _ = throughput(venv, params, args.steps, args.repeats)
            with_levels, _ = throughput(leveled, params, args.steps, args.repeats)
            print(f"{env_id:<16}{kind:<12}{n:>9}{plain:>16,.0f}{with_levels:>16,.0f}{plain / with_levels:>8.2f}x")


if __name__ == "__main__":
    main()
