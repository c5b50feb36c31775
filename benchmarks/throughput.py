"""Side-by-side rollout throughput: jaxenvs (make_vec and the per-env vmap path), gymnax,
gymnasium's vector envs and envpool, in one process, one action-sampling scheme for all.

    python benchmarks/throughput.py                       # the shared envs, all batch sizes
    python benchmarks/throughput.py --ids CartPole-v1 --num-envs 64 1024 --repeats 5

Scheme: per step ONE key (or one numpy generator call) draws the actions of the whole batch
(`randint` for discrete actions, `uniform` for boxes); JAX rollouts are a jitted `lax.scan`
returning the final state (so no work is dead code); compile time is measured apart from the
median of `--repeats` timed runs; numpy/C++ libraries step in a Python loop, as they are used.
Peak memory is the process's peak RSS growth during each run (ru_maxrss), a coarse figure.
Writes a markdown table and a PNG plot (steps/s against batch size, log scale) into --out.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs import spaces

# jaxenvs id -> gymnax id, gymnasium id, envpool id (None where the library lacks it)
SHARED = {
    "CartPole-v1": ("CartPole-v1", "CartPole-v1", "CartPole-v1"),
    "Acrobot-v1": ("Acrobot-v1", "Acrobot-v1", "Acrobot-v1"),
    "MountainCar-v0": ("MountainCar-v0", "MountainCar-v0", "MountainCar-v0"),
    "Pendulum-v1": ("Pendulum-v1", "Pendulum-v1", "Pendulum-v1"),
    "Breakout-MinAtar": ("Breakout-MinAtar", None, None),
    "Asterix-MinAtar": ("Asterix-MinAtar", None, None),
    "Freeway-MinAtar": ("Freeway-MinAtar", None, None),
    "SpaceInvaders-MinAtar": ("SpaceInvaders-MinAtar", None, None),
    "Catch-bsuite": ("Catch-bsuite", None, None),
    "DeepSea-bsuite": ("DeepSea-bsuite", None, None),
    "FourRooms-misc": ("FourRooms-misc", None, None),
}


@dataclasses.dataclass
class Row:
    env_id: str
    library: str
    num_envs: int
    steps_per_second: float
    compile_seconds: float
    peak_rss_mb: float


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _time_jax(fn, repeats):
    rss0 = _peak_rss_mb()
    t0 = time.perf_counter()
    jax.block_until_ready(fn(jax.random.key(0)))
    compile_s = time.perf_counter() - t0
    times = []
    for i in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(jax.random.key(i + 1)))
        times.append(time.perf_counter() - t0)
    return statistics.median(times), compile_s, _peak_rss_mb() - rss0


def _actions(key, space, n):
    if isinstance(space, spaces.Discrete) or hasattr(space, "n"):
        return jax.random.randint(key, (n,), 0, int(space.n))
    low, high = jnp.asarray(space.low, jnp.float32), jnp.asarray(space.high, jnp.float32)
    return jax.random.uniform(key, (n,) + tuple(space.shape), minval=low, maxval=high)


def jaxenvs_vec(env_id, n, steps):
    venv, params = jaxenvs.make_vec(env_id, n)
    space = venv.action_space(params)

    def run(key):
        k0, k1 = jax.random.split(key)
        _, state = venv.reset(k0, params)

        def body(state, k):
            ka, ks = jax.random.split(k)
            _, state, r, *_ = venv.step(ks, state, _actions(ka, space, n), params)
            return state, r.sum()

        state, r = jax.lax.scan(body, state, jax.random.split(k1, steps))
        return state, r.sum()

    return jax.jit(run)


def _vmap_path(env, params, n, steps, num_outputs_first=3):
    space = env.action_space(params)

    def run(key):
        k0, k1 = jax.random.split(key)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k0, n), params)

        def body(state, k):
            ka, ks = jax.random.split(k)
            out = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(ks, n), state, _actions(ka, space, n), params
            )
            return out[1], out[2].sum()

        state, r = jax.lax.scan(body, state, jax.random.split(k1, steps))
        return state, r.sum()

    return jax.jit(run)


def jaxenvs_vmap(env_id, n, steps):
    env, params = jaxenvs.make(env_id)
    return _vmap_path(env, params, n, steps)


def gymnax_vmap(gymnax_id, n, steps):
    import gymnax

    env, params = gymnax.make(gymnax_id)
    return _vmap_path(env, params, n, steps)


def time_gymnasium(gym_id, n, steps, repeats):
    import gymnasium

    try:
        envs = gymnasium.make_vec(gym_id, num_envs=n, vectorization_mode="vector_entry_point")
    except Exception:
        envs = gymnasium.make_vec(gym_id, num_envs=n, vectorization_mode="sync")
    return _time_numpy(envs, n, steps, repeats, seed_kw=True)


def time_envpool(pool_id, n, steps, repeats):
    import envpool

    envs = envpool.make_gymnasium(pool_id, num_envs=n)
    return _time_numpy(envs, n, steps, repeats, seed_kw=False)


def _time_numpy(envs, n, steps, repeats, seed_kw):
    rng = np.random.default_rng(0)
    space = envs.single_action_space
    discrete = hasattr(space, "n")
    rss0 = _peak_rss_mb()
    envs.reset(seed=0) if seed_kw else envs.reset()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            if discrete:
                a = rng.integers(0, int(space.n), size=n)
            else:
                a = rng.uniform(space.low, space.high, size=(n,) + space.shape).astype(np.float32)
            envs.step(a)
        times.append(time.perf_counter() - t0)
    envs.close()
    return statistics.median(times), 0.0, _peak_rss_mb() - rss0


def run(ids, sizes, repeats, steps_for):
    rows = []
    for env_id in ids:
        gymnax_id, gym_id, pool_id = SHARED.get(env_id, (None, None, None))
        for n in sizes:
            steps = steps_for(n)
            candidates = [("jaxenvs make_vec", lambda: jaxenvs_vec(env_id, n, steps)),
                          ("jaxenvs vmap", lambda: jaxenvs_vmap(env_id, n, steps))]
            if gymnax_id:
                candidates.append(("gymnax", lambda: gymnax_vmap(gymnax_id, n, steps)))
            for library, build in candidates:
                try:
                    median, compile_s, mem = _time_jax(build(), repeats)
                except ImportError as e:
                    print(f"skip {library} {env_id}: {e}")
                    continue
                rows.append(Row(env_id, library, n, n * steps / median, compile_s, mem))
                print(rows[-1], flush=True)
            for library, timer, lib_id in (("gymnasium", time_gymnasium, gym_id), ("envpool", time_envpool, pool_id)):
                if lib_id is None:
                    continue
                numpy_steps = max(5, min(steps, 200_000 // n))
                try:
                    median, compile_s, mem = timer(lib_id, n, numpy_steps, repeats)
                except ImportError as e:
                    print(f"skip {library} {env_id}: {e}")
                    continue
                rows.append(Row(env_id, library, n, n * numpy_steps / median, compile_s, mem))
                print(rows[-1], flush=True)
    return rows


def markdown(rows, device):
    out = [
        f"Device: {device}. Steps/s are medians; compile seconds and peak-RSS growth (MB) apart. "
        "Ratio columns: jaxenvs make_vec over each peer, same env and batch size, same run.",
        "",
        "| env | num_envs | jaxenvs make_vec | jaxenvs vmap | gymnax | gymnasium | envpool | vec/gymnax | vmap/gymnax | vec/gymnasium | compile s (vec / gymnax) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    table = {}
    for r in rows:
        table.setdefault((r.env_id, r.num_envs), {})[r.library] = r
    for (env_id, n), libs in table.items():
        def sps(lib):
            return f"{libs[lib].steps_per_second:,.0f}" if lib in libs else "-"

        def ratio(a, b):
            if a in libs and b in libs:
                return f"{libs[a].steps_per_second / libs[b].steps_per_second:.2f}x"
            return "-"

        comp = "-"
        if "jaxenvs make_vec" in libs and "gymnax" in libs:
            comp = f"{libs['jaxenvs make_vec'].compile_seconds:.2f} / {libs['gymnax'].compile_seconds:.2f}"
        out.append(
            f"| {env_id} | {n} | {sps('jaxenvs make_vec')} | {sps('jaxenvs vmap')} | {sps('gymnax')} | "
            f"{sps('gymnasium')} | {sps('envpool')} | {ratio('jaxenvs make_vec', 'gymnax')} | "
            f"{ratio('jaxenvs vmap', 'gymnax')} | {ratio('jaxenvs make_vec', 'gymnasium')} | {comp} |"
        )
    return "\n".join(out)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = sorted({r.env_id for r in rows})
    cols = min(4, len(ids))
    fig, axes = plt.subplots((len(ids) + cols - 1) // cols, cols, figsize=(4 * cols, 3.2 * ((len(ids) + cols - 1) // cols)), squeeze=False)
    for ax, env_id in zip(axes.flat, ids):
        for lib in sorted({r.library for r in rows if r.env_id == env_id}):
            pts = sorted((r.num_envs, r.steps_per_second) for r in rows if r.env_id == env_id and r.library == lib)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=lib)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(env_id, fontsize=9)
        ax.set_xlabel("num_envs")
        ax.set_ylabel("steps/s")
    for ax in list(axes.flat)[len(ids):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ids", nargs="+", default=list(SHARED))
    p.add_argument("--num-envs", nargs="+", type=int, default=[1, 64, 1024, 8192])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", default="docs/benchmarks")
    args = p.parse_args(argv)
    # fewer scan steps for big batches keeps each timed run near a second
    rows = run(args.ids, args.num_envs, args.repeats, steps_for=lambda n: max(20, min(1000, 200_000 // n)))
    device = f"{jax.devices()[0].platform} ({jax.devices()[0].device_kind}), {jax.device_count()} device(s)"
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    md = markdown(rows, device)
    out.with_suffix(".table.md").write_text(md + "\n")
    plot(rows, out.with_suffix(".png"))
    print(md)


if __name__ == "__main__":
    main()
