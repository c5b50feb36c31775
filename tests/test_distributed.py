"""More than one host, for real: two processes on this machine joined by `jax.distributed`
(coordinator on 127.0.0.1, CPU collectives over gloo) shard one `jaxenvs.rollout`, and the
gathered result equals the same rollout in this single process. It runs the README's recipe,
`examples/distributed_rollout.py`."""

import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

import jaxenvs

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_two_process_rollout_equals_single_process(tmp_path):
    out = tmp_path / "rollout.npz"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, str(ROOT / "examples" / "distributed_rollout.py"), "--local", "2"]
    cmd += ["--env", "CartPole-v1", "--num-envs", "64", "--num-steps", "60", "--seed", "7", "--out", str(out)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert "2 processes, 2 devices; process 0 stepped 32 of 64 envs" in proc.stdout, proc.stdout

    sharded = np.load(out)
    env_, params = jaxenvs.make("CartPole-v1", autoreset=False)
    plain = jaxenvs.rollout(env_, params, None, jax.random.key(7), num_envs=64, num_steps=60)
    assert sharded["reward"].shape == (60, 64)
    for name in ("reward", "terminated", "truncated", "obs"):
        np.testing.assert_array_equal(sharded[name], np.asarray(plain[name]), err_msg=name)
    # episodes ended and were reset in both halves of the batch, so the comparison covers resets
    assert sharded["terminated"][:, :32].any() and sharded["terminated"][:, 32:].any()
