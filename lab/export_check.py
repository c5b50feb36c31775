"""Which ids export cleanly: gymnasium's own `check_env` on each, and a few vector steps.

```bash
python -m lab.export_check                    # every built-in id (one per bsuite sweep)
python -m lab.export_check CartPole-v1 Catch-bsuite
```
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence

BUILT_IN = ("classic", "toy_text", "minatar", "bsuite", "misc")


def default_ids() -> list[str]:
    """The ids checked by default.

    Returns:
        The built-in ids; of bsuite's sweep ids (`bsuite/<experiment>/<n>`) only `/0` of each.
    """
    import jaxenvs

    return [i for family in BUILT_IN for i in jaxenvs.registered_envs(family) if "/" not in i or i.endswith("/0")]


def check_id(env_id: str) -> tuple[str, str]:
    """Check one id through gymnasium.

    `gymnasium.make("jaxenvs/<id>", render_mode="rgb_array")` must pass
    `gymnasium.utils.env_checker.check_env` (render included), and `gymnasium.make_vec` with 4
    envs must reset and take 20 random steps whose observations lie in its space. Warnings are
    reported, except gymnasium's notes on unbounded Box spaces and on making a `-v0` where a
    `-v1` exists.

    Args:
        env_id: A registered jaxenvs id.

    Returns:
        `(verdict, detail)`: verdict "ok", "warn" (passes, with warnings), "norender" (passes
        all but the render check: the env has no `render` yet), "fail" or "skip" (the id's
        `make` failed for missing data or packages).
    """
    import gymnasium
    import numpy as np
    from gymnasium.utils.env_checker import check_env

    from jaxenvs.export.gymnasium import gymnasium_id, register_gymnasium_envs

    gym_id = gymnasium_id(env_id)
    if gym_id not in gymnasium.registry:
        register_gymnasium_envs([env_id])
    if gym_id not in gymnasium.registry:
        # the unversioned twin of versioned ids: gymnasium keeps only the versioned ones
        return "skip", "not in gymnasium's registry (an unversioned id beside versioned ones)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            env = gymnasium.make(gym_id, render_mode="rgb_array")
        except (ImportError, FileNotFoundError, OSError) as e:
            return "skip", f"{type(e).__name__}: {str(e).splitlines()[0]}"
        verdict = "ok"
        try:
            try:
                check_env(env.unwrapped)
            except NotImplementedError as e:  # the env cannot draw itself yet: check the rest
                verdict, render_error = "norender", str(e)
                check_env(gymnasium.make(gym_id).unwrapped, skip_render_check=True)
            envs = gymnasium.make_vec(gym_id, num_envs=4)
            obs, _ = envs.reset(seed=0)
            envs.single_action_space.seed(0)
            for _ in range(20):
                actions = np.stack([envs.single_action_space.sample() for _ in range(4)])
                obs, *_ = envs.step(actions)
                assert envs.observation_space.contains(obs), "vector observation outside its space"
        except Exception as e:  # report every failure, keep checking the others
            return "fail", f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    expected = ("infinity", "is out of date")  # unbounded Box spaces; a -v0 beside a -v1
    notes = sorted({str(w.message).splitlines()[0] for w in caught if not any(e in str(w.message) for e in expected)})
    if verdict == "norender":
        return verdict, " | ".join([render_error, *notes])
    return ("warn", " | ".join(notes)) if notes else ("ok", "")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: check the ids given (the built-in ones by default) and print a line each.

    Args:
        argv: The arguments (`sys.argv[1:]` when None).

    Returns:
        The exit status: 1 if any id failed, else 0.
    """
    parser = argparse.ArgumentParser(prog="python -m lab.export_check", description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*")
    args = parser.parse_args(argv)
    ids = args.ids or default_ids()
    counts: dict[str, int] = {}
    for env_id in ids:
        start = time.perf_counter()
        verdict, detail = check_id(env_id)
        counts[verdict] = counts.get(verdict, 0) + 1
        print(f"{verdict:8} {env_id:32} {time.perf_counter() - start:6.1f}s  {detail}", flush=True)
    print(", ".join(f"{v}: {n}" for v, n in sorted(counts.items())))
    return 1 if counts.get("fail") else 0


if __name__ == "__main__":
    sys.exit(main())
