"""Every built-in id's behaviour is pinned: its fixed-key rollout hashes to the committed value."""

import jax
import pytest

from jaxenvs import fingerprint as fp
from jaxenvs.cli import main


def test_every_built_in_id_is_pinned():
    assert sorted(fp.pinned()["fingerprints"]) == sorted(fp.fingerprint_ids())


@pytest.mark.parametrize("env_id", fp.fingerprint_ids())
def test_fingerprint_unchanged(env_id):
    same, text = fp.compare(env_id)
    if same is None:
        pytest.skip(text)  # pinned under another jax version: says so instead of failing
    assert same, text


def test_a_changed_env_changes_its_fingerprint(monkeypatch):
    """The hash sees the rollout: CartPole with another gravity hashes differently."""
    import jaxenvs

    before = fp.fingerprint("CartPole-v1")
    make = jaxenvs.make
    monkeypatch.setattr(jaxenvs, "make", lambda env_id: make(env_id, gravity=9.7))
    assert fp.fingerprint("CartPole-v1") != before


def test_cli_prints_and_compares(capsys):
    assert main(["fingerprint", "CartPole-v1"]) == 0
    out = capsys.readouterr().out
    assert fp.pinned()["fingerprints"]["CartPole-v1"] in out
    assert ("as pinned" in out) == (fp.pinned()["jax"] == jax.__version__)


def test_cli_names_an_unknown_id(capsys):
    assert main(["fingerprint", "CartPole-v9"]) == 1
    assert "CartPole-v1" in capsys.readouterr().err
