"""Every built-in id's behaviour is pinned: its fixed-key rollout hashes to the committed value."""

import os
import subprocess
import sys

import jax
import pytest

from jaxenvs import fingerprint as fp
from jaxenvs.cli import main
from lab.fingerprints import fingerprint_ids


def test_every_built_in_id_is_pinned():
    assert sorted(fp.pinned()["fingerprints"]) == sorted(fingerprint_ids())


@pytest.mark.slow
@pytest.mark.parametrize("half", [0, 1])  # two processes, one per xdist worker
def test_fingerprints_unchanged_under_xla_defaults(half):
    """`jaxenvs fingerprint` over the pinned ids (every other one), in a process with XLA's
    default flags (the tests compile without LLVM's optimizations, which may round floats
    differently): each prints its pinned hash, or the run says the pins are another jax
    version's."""
    ids = fingerprint_ids()[half::2]
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_ENABLE_X64")}
    proc = subprocess.run(
        [sys.executable, "-m", "jaxenvs.cli", "fingerprint", *ids], env=env, capture_output=True, text=True
    )
    lines = dict(line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line)
    assert sorted(lines) == sorted(ids), proc.stdout + proc.stderr
    if fp.pinned()["jax"] != jax.__version__:
        pytest.skip(f"pinned under jax {fp.pinned()['jax']}, running {jax.__version__}")
    changed = [f"{i}: {lines[i]}" for i in ids if "as pinned" not in lines[i]]
    assert not changed and proc.returncode == 0, "\n".join(changed)
    pinned = fp.pinned()["fingerprints"]
    assert all(lines[i].startswith(pinned[i]) for i in ids)


def test_a_changed_env_changes_its_fingerprint(monkeypatch):
    """The hash sees the rollout: CartPole with another gravity hashes differently."""
    import jaxenvs

    before = fp.fingerprint("CartPole-v1")
    make = jaxenvs.make
    monkeypatch.setattr(jaxenvs, "make", lambda env_id: make(env_id, gravity=9.7))
    assert fp.fingerprint("CartPole-v1") != before


def test_cli_names_an_unknown_id(capsys):
    assert main(["fingerprint", "CartPole-v9"]) == 1
    assert "CartPole-v1" in capsys.readouterr().err
