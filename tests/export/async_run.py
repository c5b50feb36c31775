"""Run gymnasium's `AsyncVectorEnv` over a jaxenvs id in a fresh interpreter (for
tests/export/test_pickle_and_processes.py, which runs this file with a timeout).

    python tests/export/async_run.py CONTEXT RUNS
    python tests/export/async_run.py fork-step 1

Each run makes `gymnasium.make_vec("jaxenvs/CartPole-v1", 2, vectorization_mode="async",
vector_kwargs={"context": CONTEXT})`, resets it with seed 0, steps it 5 times, checks every value
against the same steps of the one-process `JaxVectorEnv`, and closes it; it prints "run i ok" per
run, or "parent error: <type>: <message>" when the vector env raised. `fork-step` resets a
`JaxEnv`, forks, and steps it in the child ("child: <type>: <message>") and in the parent.
"""

import os
import sys

import numpy as np


def main(context: str, runs: int) -> None:
    import gymnasium

    import jaxenvs  # noqa: F401  (registers the ids with gymnasium)

    actions = [np.array([0, 1]), np.array([1, 1]), np.array([0, 0]), np.array([1, 0]), np.array([1, 1])]
    for i in range(runs):
        try:
            envs = gymnasium.make_vec(
                "jaxenvs/CartPole-v1", 2, vectorization_mode="async", vector_kwargs={"context": context}
            )
        except Exception as e:
            print(f"parent error: {type(e).__name__}: {e}", flush=True)
            return
        one = gymnasium.make_vec("jaxenvs/CartPole-v1", 2, vectorization_mode="sync")
        obs, _ = envs.reset(seed=[0, 1])
        ref, _ = one.reset(seed=[0, 1])
        np.testing.assert_array_equal(obs, ref)
        for a in actions:
            ours, theirs = envs.step(a), one.step(a)
            for x, y in zip(ours[:4], theirs[:4]):
                np.testing.assert_array_equal(x, y)
        envs.close()
        print(f"run {i} ok", flush=True)


def fork_step() -> None:
    from jaxenvs.export.gymnasium import JaxEnv

    env = JaxEnv("CartPole-v1")
    env.reset(seed=0)
    pid = os.fork()
    if pid == 0:  # the child: refused before JAX runs
        try:
            env.step(0)
            print("child stepped", flush=True)
        except Exception as e:
            print(f"child: {type(e).__name__}: {e}", flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
    env.step(1)
    print("parent steps on", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "fork-step":
        fork_step()
    else:
        main(sys.argv[1], int(sys.argv[2]))
