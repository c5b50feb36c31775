"""Every bsuite sweep id builds what `bsuite.load_from_id` builds."""

import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import mnist_data
from jaxenvs.registry import spec
from jaxenvs.testing import check_env

sweep = pytest.importorskip("bsuite.sweep")

# our env's class name -> bsuite's, and the settings each keeps (ours: (where, name); bsuite's attribute)
CLASSES = {
    "SimpleBandit": "SimpleBandit",
    "Catch": "Catch",
    "DeepSea": "DeepSea",
    "DiscountingChain": "DiscountingChain",
    "MemoryChain": "MemoryChain",
    "UmbrellaChain": "UmbrellaChain",
    "MNISTBandit": "MNISTBandit",
    "CartPole": "Cartpole",
    "CartPoleSwingup": "CartpoleSwingup",
    "MountainCar": "MountainCar",
}
SETTINGS = {
    "SimpleBandit": [("params", "rewards", "_rewards")],
    "Catch": [("env", "rows", "_rows"), ("env", "columns", "_columns")],
    "DeepSea": [
        ("env", "size", "_size"),
        ("params", "action_mapping", "_action_mapping"),
        ("params", "deterministic", "_deterministic"),
        ("params", "unscaled_move_cost", "_unscaled_move_cost"),
    ],
    "DiscountingChain": [("params", "rewards", "_rewards"), ("params", "episode_len", "_episode_len")],
    "MemoryChain": [("params", "memory_length", "_memory_length"), ("env", "num_bits", "_num_bits")],
    "UmbrellaChain": [("params", "chain_length", "_chain_length"), ("env", "n_distractor", "_n_distractor")],
    "MNISTBandit": [("params", "images", "_images"), ("params", "labels", "_labels")],
    "CartPole": [("params", k, "_" + k) for k in ("height_threshold", "x_threshold", "timescale", "max_time")],
    "CartPoleSwingup": [
        ("params", k, "_" + k)
        for k in (
            "height_threshold",
            "theta_dot_threshold",
            "x_reward_threshold",
            "move_cost",
            "x_threshold",
            "timescale",
            "max_time",
        )
    ],
    "MountainCar": [("params", "max_steps", "_max_steps")],
}


@pytest.fixture
def tiny_mnist(tmp_path, monkeypatch):
    """The same small data set for both: idx files for jaxenvs, bsuite's loader patched."""
    from bsuite.utils import datasets

    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(20, 28, 28), dtype=np.uint8)
    labels = (np.arange(20) % 10).astype(np.uint8)
    mnist_data.write_idx(tmp_path / mnist_data.IMAGES, images)
    mnist_data.write_idx(tmp_path / mnist_data.LABELS, labels)
    monkeypatch.setenv(mnist_data.ENV_VAR, str(tmp_path))
    monkeypatch.setattr(datasets, "load_mnist", lambda *a, **k: ((images, labels), (None, None)))


def test_every_sweep_id_is_registered_with_bsuites_settings():
    ours = [i for i in jaxenvs.registered_envs("bsuite") if i.startswith("bsuite/")]
    assert ours == [f"bsuite/{i}" for i in sweep.SWEEP]
    for bsuite_id in sweep.SWEEP:
        s = spec(f"bsuite/{bsuite_id}")
        assert dict(s.env_kwargs) == {"experiment": bsuite_id.split("/")[0], **sweep.SETTINGS[bsuite_id]}
        assert s.params["bsuite_num_episodes"] == sweep.EPISODES[bsuite_id]


def _compare(bsuite_id: str, load_from_id) -> None:
    env, params = jaxenvs.make(f"bsuite/{bsuite_id}", autoreset=False)
    ref = load_from_id(bsuite_id)
    raw = ref.raw_env if hasattr(ref, "raw_env") else ref
    where = f"bsuite/{bsuite_id}"
    assert params.bsuite_num_episodes == ref.bsuite_num_episodes, where
    assert getattr(env, "noise_scale", None) == getattr(ref, "_noise_scale", None), where
    assert getattr(env, "reward_scale", None) == getattr(ref, "_reward_scale", None), where
    name = env.unwrapped.name
    assert CLASSES[name] == type(raw).__name__, where
    for holder, ours, theirs in SETTINGS[name]:
        mine = getattr(params if holder == "params" else env.unwrapped, ours)
        np.testing.assert_allclose(
            np.asarray(mine, np.float64),
            np.asarray(getattr(raw, theirs), np.float64),
            atol=1e-7,
            err_msg=f"{where}: {ours}",
        )
    if name in ("CartPole", "CartPoleSwingup"):  # cartpole's physics constants
        config = raw._cartpole_config
        assert (params.mass_cart, params.mass_pole, params.length, params.force_mag, params.gravity) == (
            config.mass_cart,
            config.mass_pole,
            config.length,
            config.force_mag,
            config.gravity,
        ), where
    assert env.action_space(params).n == ref.action_spec().num_values, where
    assert env.observation_space(params).shape == ref.observation_spec().shape, where


def test_every_sweep_id_builds_what_bsuite_builds(tiny_mnist, capsys):
    from bsuite import bsuite as bsuite_loader

    for bsuite_id in sweep.SWEEP:
        _compare(bsuite_id, bsuite_loader.load_from_id)


@pytest.mark.parametrize(
    "bsuite_id", ["deep_sea_stochastic/20", "memory_size/16", "umbrella_distract/22", "cartpole_noise/5"]
)
def test_sampled_sweep_ids_pass_check_env(bsuite_id):
    env, params = jaxenvs.make(f"bsuite/{bsuite_id}")
    check_env(env, params, num_steps=30)
