"""Policy transfer: a network trained on jaxenvs' env plays the reference's, and the two return
samples are compared by the parity harness's two-sample test.

```bash
python examples/ppo.py --env LunarLander-v3 --save runs/lunarlander.msgpack ...
python -m lab.transfer runs/lunarlander.msgpack --episodes 200 --plot docs/img/lunarlander-transfer.png
```

The greedy policy (`examples/ppo.py`'s `greedy_policy`: the most likely action, or a Gaussian's
mean clipped to the action bounds, on observations normalized as in training under
`--continuous`) plays `--episodes` whole episodes on jaxenvs' env (vmapped, one key each) and as
many on gymnasium's env of the same id (seeds 0, 1, ...), each to its end or the registered
time limit.

```bash
python examples/ppo.py --continuous --env BipedalWalker-v3 --save runs/walker.msgpack ...
python -m lab.transfer runs/walker.msgpack --episodes 200
```

The returns are compared with `jaxenvs.parity.stats.mean_check` (Welch's t where both means
are near normal, else a permutation test) at one env's family-wise level (`ALPHA_ENV`), and the
power of that test to detect a shift of `--shift` in the mean return is stated (normal
approximation, the two samples' own spread).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _ppo():
    """examples/ppo.py as a module (examples/ is no package)."""
    spec = importlib.util.spec_from_file_location("ppo_example", ROOT / "examples" / "ppo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def jax_returns(act, env_id: str, episodes: int, seed: int) -> np.ndarray:
    """Returns of `act`'s (a batch of observations -> their actions) first episode on `episodes`
    vmapped raw jaxenvs envs."""
    import jax
    import jax.numpy as jnp

    import jaxenvs

    env, params = jaxenvs.make(env_id, autoreset=False)
    limit = int(params.max_steps_in_episode)

    def run(key):
        keys = jax.random.split(key, episodes)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

        def body(carry, t):
            obs, state, done, total = carry
            ks = jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, t + 1)
            obs, state, reward, terminated, truncated, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                ks, state, act(obs), params
            )
            total = total + jnp.where(done, 0.0, reward)
            return (obs, state, done | terminated | truncated, total), None

        init = (obs, state, jnp.zeros(episodes, bool), jnp.zeros(episodes))
        (_, _, done, total), _ = jax.lax.scan(body, init, jnp.arange(limit))
        return total, done

    total, done = jax.jit(run)(jax.random.key(seed))
    assert bool(np.all(done)), "an episode outlived the time limit"
    return np.asarray(total, np.float64)


def reference_returns(act, env_id: str, episodes: int, seed: int) -> np.ndarray:
    """Returns of `act` on gymnasium's `env_id`, one episode per seed."""
    import gymnasium
    import jax

    env = gymnasium.make(env_id)
    one = jax.jit(lambda obs: act(obs[None])[0])
    discrete = isinstance(env.action_space, gymnasium.spaces.Discrete)
    policy = (lambda obs: int(one(obs))) if discrete else (lambda obs: np.asarray(one(obs), env.action_space.dtype))
    returns = []
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy(obs))
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    env.close()
    return np.asarray(returns)


def power(a: np.ndarray, b: np.ndarray, shift: float, alpha: float) -> float:
    """The two-sided test's power to detect `shift` in the mean (normal approximation)."""
    from scipy import stats

    se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    z = stats.norm.ppf(1 - alpha / 2)
    return float(stats.norm.cdf(shift / se - z) + stats.norm.cdf(-shift / se - z))


def plot(a: np.ndarray, b: np.ndarray, env_id: str, path: str) -> None:
    """Both return distributions, as histograms on shared bins."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = np.linspace(min(a.min(), b.min()), max(a.max(), b.max()), 30)
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=110)
    ax.hist(b, bins=bins, alpha=0.6, label=f"gymnasium (mean {b.mean():.1f})")
    ax.hist(a, bins=bins, alpha=0.6, label=f"jaxenvs (mean {a.mean():.1f})")
    ax.set_xlabel("episode return (greedy policy trained on jaxenvs)")
    ax.set_ylabel("episodes")
    ax.set_title(f"{env_id}: {len(a)} episodes a side")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("params", help="a network written by examples/ppo.py --save PATH")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shift", type=float, default=20.0, help="the mean shift whose detection power is stated")
    parser.add_argument("--plot", metavar="PNG", help="write both return distributions here")
    args = parser.parse_args(argv)

    import jaxenvs
    from jaxenvs.parity.stats import mean_check
    from jaxenvs.parity.verdict import ALPHA_ENV

    ppo = _ppo()
    network, weights, settings = ppo.load(args.params)
    env_id = settings["env"]
    env, params = jaxenvs.make(env_id)
    act = ppo.greedy_policy(network, weights, settings, env.action_space(params))
    ours = jax_returns(act, env_id, args.episodes, args.seed)
    theirs = reference_returns(act, env_id, args.episodes, args.seed)
    check = mean_check(f"{env_id} greedy-policy return", ours, theirs, args.seed)
    print(f"{env_id}: {args.episodes} episodes a side, trained on jaxenvs")
    print(f"  jaxenvs   mean {ours.mean():.1f}, sd {ours.std(ddof=1):.1f}")
    print(f"  gymnasium mean {theirs.mean():.1f}, sd {theirs.std(ddof=1):.1f}")
    print(f"  two-sample test: p = {check.value:.3g} ({check.detail}); alpha {ALPHA_ENV:g}")
    detect = power(ours, theirs, args.shift, ALPHA_ENV)
    print(f"  power to detect a {args.shift:g}-point shift at that alpha: {detect:.3f}")
    print(f"  {'not rejected' if check.value >= ALPHA_ENV else 'REJECTED'}: the returns are the same distribution's")
    if args.plot:
        plot(ours, theirs, env_id, args.plot)
        print(f"  wrote {args.plot}")
    return 0 if check.value >= ALPHA_ENV else 1


if __name__ == "__main__":
    sys.exit(main())
