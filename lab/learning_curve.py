"""A learning curve from examples/ppo.py's progress lines, beside a random-play baseline's.

```bash
python examples/ppo.py --env ale/Breakout-v5 --ale-training-settings ... > runs/ppo.log
python examples/ppo.py --env ale/Breakout-v5 --ale-training-settings ... --random-policy > runs/random.log
python -m lab.learning_curve runs/ppo.log --baseline runs/random.log --plot docs/img/ale-breakout-ppo.png
```

Each `update i/N ... return(seed 0)=R` line is one update (`R` the mean return of the
episodes that finished in it, `nan` where none did); the summary line (`env=... steps=...
wall_s=...`) gives the env steps and wall time. Printed: per run, its steps, wall seconds, the
last update's return and the mean over the last `--window` updates (the episodes of one
update are few, so that mean is the steadier figure).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

UPDATE = re.compile(r"update (\d+)/(\d+) .*return\(seed 0\)=(\S+)")
SUMMARY = re.compile(r"env=(\S+) .*steps=(\d+) updates=(\d+) wall_s=([\d.]+)")


def read_log(path: str | Path) -> dict:
    """`{"returns": float[updates], "steps": int, "updates": int, "wall_s": float, "env": str}`."""
    returns, summary = [], None
    for line in Path(path).read_text().splitlines():
        if m := UPDATE.search(line):
            returns.append(float(m.group(3)))
        elif m := SUMMARY.search(line):
            summary = m
    if summary is None:
        raise ValueError(f"{path}: no summary line (env=... steps=... wall_s=...): did the run finish?")
    return dict(
        returns=np.asarray(returns),
        env=summary.group(1),
        steps=int(summary.group(2)),
        updates=int(summary.group(3)),
        wall_s=float(summary.group(4)),
    )


def trailing_mean(returns: np.ndarray, window: int) -> np.ndarray:
    """The mean of each update's last `window` finite returns (nan before the first)."""
    out = np.full(len(returns), np.nan)
    for i in range(len(returns)):
        recent = returns[max(0, i + 1 - window) : i + 1]
        if np.isfinite(recent).any():
            out[i] = np.nanmean(recent)
    return out


def describe(name: str, run: dict, window: int) -> str:
    """One line of a run's figures."""
    r = run["returns"]
    finite = r[np.isfinite(r)]
    last = finite[-1] if len(finite) else np.nan
    return (
        f"{name}: env={run['env']} steps={run['steps']} updates={run['updates']} wall_s={run['wall_s']:.0f} "
        f"last_update_return={last:.2f} mean_last_{window}={trailing_mean(r, window)[-1]:.2f}"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log", help="examples/ppo.py's output (without --quiet)")
    parser.add_argument("--baseline", help="the same command's output with --random-policy")
    parser.add_argument("--window", type=int, default=10, help="updates in the trailing mean")
    parser.add_argument("--plot", help="write the curve to this PNG")
    args = parser.parse_args(argv)
    runs = {"PPO": read_log(args.log)}
    if args.baseline:
        runs["random play"] = read_log(args.baseline)
    for name, run in runs.items():
        print(describe(name, run, args.window))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        for (name, run), color in zip(runs.items(), ("tab:blue", "tab:gray")):
            r = run["returns"]
            steps = np.arange(1, len(r) + 1) * run["steps"] / max(run["updates"], 1)
            ax.plot(steps, r, ".", color=color, alpha=0.3, markersize=3)
            ax.plot(steps, trailing_mean(r, args.window), color=color, label=f"{name} (mean of {args.window} updates)")
        env = runs["PPO"]["env"]
        ax.set_xlabel("env steps")
        ax.set_ylabel("episode return (clipped rewards)")
        ax.set_title(f"examples/ppo.py on {env}, {runs['PPO']['wall_s'] / 60:.0f} min on 2 CPU cores")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
