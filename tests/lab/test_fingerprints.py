"""lab/fingerprints.py: re-pinning writes the pins, keeping or dropping the others as asked."""

import json

import pytest

from lab import fingerprints


@pytest.fixture
def pins(tmp_path, monkeypatch):
    path = tmp_path / "fingerprints.json"
    path.write_text(json.dumps({"jax": "0.0", "fingerprints": {"Old-v0": "aa", "CartPole-v1": "bb"}}))
    monkeypatch.setattr(fingerprints, "PINNED_PATH", path)
    monkeypatch.setattr(fingerprints, "pinned", lambda: json.loads(path.read_text()))
    monkeypatch.setattr(fingerprints, "fingerprint", lambda env_id: f"hash of {env_id}")
    return path


def test_pinning_one_id_keeps_the_others(pins):
    import jax

    fingerprints.main(["--pin", "CartPole-v1"])
    data = json.loads(pins.read_text())
    assert data == {"jax": jax.__version__, "fingerprints": {"CartPole-v1": "hash of CartPole-v1", "Old-v0": "aa"}}


def test_pinning_all_drops_ids_no_longer_pinned(pins, monkeypatch):
    monkeypatch.setattr(fingerprints, "fingerprint_ids", lambda: ["Acrobot-v1", "CartPole-v1"])
    fingerprints.pin()
    assert json.loads(pins.read_text())["fingerprints"] == {
        "Acrobot-v1": "hash of Acrobot-v1",
        "CartPole-v1": "hash of CartPole-v1",
    }


def test_pinned_ids_are_the_built_in_ones():
    ids = fingerprints.fingerprint_ids()
    assert "CartPole-v1" in ids and "MNISTBandit-bsuite" not in ids
    assert not any(i.startswith("bsuite/") or i.startswith("brax/") for i in ids)


def test_nothing_to_do_is_a_usage_error():
    with pytest.raises(SystemExit) as e:
        fingerprints.main([])
    assert e.value.code == 2
