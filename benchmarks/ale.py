"""Real Atari three ways, in one run: jaxenvs' jitted `lax.scan` over `make_vec("ale/<Game>-v5", n)`,
the same `ale_py.AtariVectorEnv` driven from Python, and envpool's XLA interface.

The same game and settings for all three (84x84 grayscale, 4 frames stacked and max-pooled,
frame skip 4, sticky actions 0.25, up to 30 no-ops and FIRE at reset, clipped rewards), uniform
random actions, at each batch size:

- `jaxenvs scan`: a jitted `lax.scan` of `--steps` steps of make_vec's step (jaxenvs' auto-reset:
  finished rows reset in the step that ends them, `info["final_observation"]` kept), the actions
  drawn inside the scan; compiled once before timing.
- `scan unchecked`: the same with `check_state=False` (no host callback a step: no check that
  the state is the batch's current one).
- `ale-py python`: `AtariVectorEnv.step` in a Python loop (its own NEXT_STEP auto-reset: the
  cheapest way to drive it from Python), actions drawn by numpy beforehand.
- `envpool xla`: envpool's `xla()` step in a jitted `lax.scan` (its own auto-reset), envpool's
  defaults otherwise. It runs in a child process under a timeout (`--envpool-timeout`): with jax
  0.10 its jitted loop sometimes never returns, and the row then says so.

Each repeat runs the first three back to back, in alternating order (paired: load on a shared
machine falls on all), and the script prints the median steps/s (env steps: batch x steps) of each
and the medians of the per-repeat ratios scan / python. docs/ale.md quotes it.

    python benchmarks/ale.py [--game Pong] [--sizes 8 32 128] [--steps 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import jax
import numpy as np

import jaxenvs
from jaxenvs.adapters.ale import TRAINING_SETTINGS, AleParams

# what all three run with: ale-py's AtariVectorEnv defaults (the usual training frames) and v5's
# sticky actions, no episodic lives (envpool's and ale-py's would differ in what follows a lost life)
SETTINGS = dict(TRAINING_SETTINGS, episodic_life=False, frameskip=4, repeat_action_probability=0.25)


def jaxenvs_scan(game: str, num_envs: int, steps: int, check_state: bool = True):
    """A function that runs one timed scan of `steps` steps and returns its seconds (compiled first)."""
    venv, params = jaxenvs.make_vec(f"ale/{game}-v5", num_envs, check_state=check_state, **SETTINGS)

    @jax.jit
    def run(state, key):
        def body(state, k):
            action = venv.sample_actions(jax.random.fold_in(k, 1), params)
            obs, state, reward, terminated, truncated, info = venv.step(k, state, action, params)
            return state, reward.sum()

        state, rewards = jax.lax.scan(body, state, jax.random.split(key, steps))
        return state, rewards.sum()

    _, state = venv.reset(jax.random.key(0), params)
    holder = {"state": jax.block_until_ready(run(state, jax.random.key(1)))[0], "i": 1}

    def timed() -> float:
        holder["i"] += 1
        start = time.perf_counter()
        holder["state"] = jax.block_until_ready(run(holder["state"], jax.random.key(holder["i"])))[0]
        return time.perf_counter() - start

    return timed


def ale_python(game: str, num_envs: int, steps: int):
    """A function that runs `steps` Python-driven steps of AtariVectorEnv and returns its seconds."""
    import ale_py

    rom = jaxenvs.spec(f"ale/{game}-v5").env_kwargs["game"]
    defaults = {k: getattr(AleParams(), k) for k in ("max_num_frames_per_episode", "full_action_space")}
    env = ale_py.AtariVectorEnv(rom, num_envs, **SETTINGS, **defaults)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    n_actions = env.single_action_space.n

    def timed() -> float:
        actions = rng.integers(0, n_actions, (steps, num_envs)).astype(np.int32)
        start = time.perf_counter()
        for t in range(steps):
            env.step(actions[t])
        return time.perf_counter() - start

    return timed


ENVPOOL_CHILD = r"""
import json, sys, time
import envpool, jax
job = json.loads(sys.argv[1])
game, num_envs, steps, repeats, settings = (job[k] for k in ("game", "num_envs", "steps", "repeats", "settings"))
env = envpool.make(f"{game}-v5", env_type="gymnasium", num_envs=num_envs, batch_size=num_envs, seed=0,
                   img_height=settings["img_height"], img_width=settings["img_width"], stack_num=settings["stack_num"],
                   frame_skip=settings["frameskip"], noop_max=settings["noop_max"],
                   episodic_life=settings["episodic_life"], reward_clip=settings["reward_clipping"],
                   use_fire_reset=settings["use_fire_reset"],
                   repeat_action_probability=settings["repeat_action_probability"])
handle, recv, send, step = env.xla()
env.async_reset()
n_actions = env.action_space.n

@jax.jit
def run(handle, key):
    def body(handle, k):
        action = jax.random.randint(k, (num_envs,), 0, n_actions)
        handle, (obs, reward, terminated, truncated, info) = step(handle, action)
        return handle, reward.sum()
    handle, rewards = jax.lax.scan(body, handle, jax.random.split(key, steps))
    return handle, rewards.sum()

handle = jax.block_until_ready(run(handle, jax.random.key(0)))[0]
for i in range(repeats):
    start = time.perf_counter()
    handle = jax.block_until_ready(run(handle, jax.random.key(i + 1)))[0]
    print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)
"""


def envpool_xla(game: str, num_envs: int, steps: int, repeats: int, timeout: float) -> tuple[list[float], str]:
    """envpool's XLA step in a jitted scan, in a child process: the seconds of each repeat, and
    what went wrong ('' when nothing did)."""
    job = dict(game=game, num_envs=num_envs, steps=steps, repeats=repeats, settings=SETTINGS)
    args = [sys.executable, "-c", ENVPOOL_CHILD, json.dumps(job)]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        seconds = [json.loads(line)["seconds"] for line in out.splitlines() if line.startswith("{")]
        return seconds, f"hung: no return within {timeout:.0f} s after {len(seconds)} of {repeats} repeats"
    seconds = [json.loads(line)["seconds"] for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0:
        return seconds, f"failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:]}"
    return seconds, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="Pong", help="the game's gymnasium name (Pong, Breakout, ...)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 32, 128], help="batch sizes")
    parser.add_argument("--steps", type=int, default=200, help="steps per timed rollout")
    parser.add_argument("--repeats", type=int, default=3, help="timed rollouts per size and library")
    parser.add_argument(
        "--envpool-timeout", type=float, default=120.0, help="seconds before envpool's run is abandoned"
    )
    parser.add_argument("--no-envpool", action="store_true", help="skip envpool's XLA interface")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)

    print(
        f"ale/{args.game}-v5 on {jax.devices()[0].platform}, jax {jax.__version__}, {args.steps} steps x {args.repeats}"
    )
    names = ("jaxenvs scan", "scan unchecked", "ale-py python")
    header = "".join(f"{name:>16}" for name in names)
    print(f"{'envs':>5}{header}{'scan/python':>13}{'unchecked/py':>14}  envpool xla")
    rows = []
    for n in args.sizes:
        runs = {
            "jaxenvs scan": jaxenvs_scan(args.game, n, args.steps),
            "scan unchecked": jaxenvs_scan(args.game, n, args.steps, check_state=False),
            "ale-py python": ale_python(args.game, n, args.steps),
        }
        seconds = {name: [] for name in runs}
        for r in range(args.repeats):
            for name in names if r % 2 == 0 else names[::-1]:  # paired: the order alternates
                seconds[name].append(runs[name]())
        steps = n * args.steps
        row = {"num_envs": n}
        row.update({name: steps / statistics.median(seconds[name]) for name in names})
        for name, key in (("jaxenvs scan", "scan_over_python"), ("scan unchecked", "unchecked_over_python")):
            row[key] = statistics.median(p / s for p, s in zip(seconds["ale-py python"], seconds[name]))
        envpool_text = "skipped"
        if not args.no_envpool:
            envpool_s, why = envpool_xla(args.game, n, args.steps, args.repeats, args.envpool_timeout)
            row["envpool xla"] = steps / statistics.median(envpool_s) if envpool_s else None
            row["envpool_note"] = why
            envpool_text = f"{row['envpool xla']:,.0f}" if envpool_s else "-"
            envpool_text += f" ({why})" if why else ""
        rows.append(row)
        cells = "".join(f"{row[name]:>16,.0f}" for name in names)
        print(
            f"{n:>5}{cells}{row['scan_over_python']:>13.2f}{row['unchecked_over_python']:>14.2f}  {envpool_text}",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"game": args.game, "steps": args.steps, "repeats": args.repeats, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
