import gzip
import struct

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.bsuite import mnist_data
from jaxenvs.envs.bsuite.mnist import MNISTBandit
from jaxenvs.envs.bsuite.mnist_data import DataNotFoundError, read_idx, write_idx
from jaxenvs.levels import Level
from jaxenvs.testing import check_env
from tests.envs.bsuite.bsuite_test_helpers import play


def _idx_bytes(code: int, array: np.ndarray) -> bytes:
    """An idx file written by hand: magic (0, 0, type, ndim), big-endian dims, data."""
    return struct.pack(">BBBB", 0, 0, code, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape) + array.tobytes()


@pytest.fixture
def mnist_dir(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(12, 28, 28), dtype=np.uint8)
    labels = (np.arange(12) % 10).astype(np.uint8)
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(_idx_bytes(0x08, images)))
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(_idx_bytes(0x08, labels))
    return tmp_path, images, labels


@pytest.fixture
def no_data(tmp_path, monkeypatch):
    """No data dir, an empty cache, and a network that fails (as here)."""
    monkeypatch.delenv(mnist_data.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def offline(url, target):
        raise OSError("network unreachable (test)")

    monkeypatch.setattr(mnist_data, "_fetch", offline)


def test_read_idx_parses_hand_written_files(tmp_path, mnist_dir):
    directory, images, labels = mnist_dir
    np.testing.assert_array_equal(read_idx(directory / "train-images-idx3-ubyte.gz"), images)
    np.testing.assert_array_equal(read_idx(directory / "train-labels-idx1-ubyte"), labels)
    big = np.arange(6, dtype=">i4").reshape(2, 3)
    (tmp_path / "ints").write_bytes(_idx_bytes(0x0C, big))
    np.testing.assert_array_equal(read_idx(tmp_path / "ints"), np.arange(6).reshape(2, 3))
    floats = np.linspace(-1, 1, 5, dtype=np.float32)
    np.testing.assert_array_equal(read_idx(write_idx(tmp_path / "f.gz", floats)), floats)


def test_read_idx_rejects_bad_files(tmp_path):
    (tmp_path / "bad").write_bytes(b"\x01\x02\x08\x01\x00\x00\x00\x02ab")
    with pytest.raises(ValueError, match="not an idx file"):
        read_idx(tmp_path / "bad")
    (tmp_path / "short").write_bytes(_idx_bytes(0x08, np.zeros(4, np.uint8))[:-1])
    with pytest.raises(ValueError, match="holds 3"):
        read_idx(tmp_path / "short")


def test_env_from_data_dir(mnist_dir):
    directory, images, labels = mnist_dir
    env = MNISTBandit(data_dir=directory)
    params = env.default_params
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
    assert obs.shape == (28, 28) and obs.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(obs), images[int(state.image_index)].astype(np.float32) / 255)
    label = int(state.correct_label)
    assert label == labels[int(state.image_index)]
    right = play(env, params, [label], state=state)
    assert right["reward"] == [1.0] and right["terminated"] == [True] and right["obs"][0].sum() == 0
    assert play(env, params, [(label + 1) % 10], state=state)["reward"] == [-1.0]
    assert MNISTBandit(data_dir=directory, fraction=0.5).default_params.images.shape == (6, 28, 28)


def test_int8_pixels_reproduce_bsuites_wrapped_values(mnist_dir):
    directory, images, _ = mnist_dir
    env = MNISTBandit(data_dir=directory, int8_pixels=True)
    obs, state = env.reset(jax.random.key(1), env.default_params)
    want = images[int(state.image_index)].astype(np.int8).astype(np.float32) / 255
    np.testing.assert_array_equal(np.asarray(obs), want)
    assert float(obs.min()) < 0


def test_make_and_sweep_ids_read_the_env_var(mnist_dir, monkeypatch):
    directory, images, _ = mnist_dir
    monkeypatch.setenv(mnist_data.ENV_VAR, str(directory))
    env, params = jaxenvs.make("MNISTBandit-bsuite")
    assert params.images.shape == images.shape
    env, params = jaxenvs.make("bsuite/mnist_noise/9")
    assert env.unwrapped.name == "MNISTBandit" and params.bsuite_num_episodes == 10_000
    check_env(env, params, num_steps=16)


def test_missing_data_says_how_to_provide_it(no_data):
    with pytest.raises(DataNotFoundError) as info:
        jaxenvs.make("MNISTBandit-bsuite")
    message = str(info.value)
    for needed in ("train-images-idx3-ubyte", "data_dir=", "JAXENVS_MNIST_DIR", "jaxenvs", "downloading failed"):
        assert needed in message
    assert isinstance(info.value, FileNotFoundError)
    with pytest.raises(DataNotFoundError, match="does not hold both files"):
        MNISTBandit(data_dir="/nonexistent/mnist")
    with pytest.raises(DataNotFoundError, match="download=False"):
        MNISTBandit(download=False)


def test_cache_is_filled_by_download(tmp_path, monkeypatch, mnist_dir):
    directory, images, _ = mnist_dir
    monkeypatch.delenv(mnist_data.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fetched = []

    def fake_fetch(url, target):  # serve the generated files as if from the mirror
        fetched.append(url)
        name = target.name[: -len(".gz")]
        source = directory / name if (directory / name).exists() else directory / (name + ".gz")
        data = source.read_bytes()
        target.write_bytes(data if source.suffix == ".gz" else gzip.compress(data))

    monkeypatch.setattr(mnist_data, "_fetch", fake_fetch)
    env = MNISTBandit()
    assert env.default_params.images.shape == images.shape
    assert len(fetched) == 2 and fetched[0].startswith(mnist_data.MIRRORS[0])
    assert (tmp_path / "cache" / "jaxenvs" / "mnist" / "train-labels-idx1-ubyte.gz").exists()
    MNISTBandit()  # the cache now serves it
    assert len(fetched) == 2


def test_report_lists_missing_data_without_failing(no_data, capsys):
    from jaxenvs.cli import main

    assert main(["report", "MNISTBandit-bsuite", "--no-parity", "--num-envs", "2", "--num-steps", "2"]) == 0
    assert "no data" in capsys.readouterr().out


def test_an_episode_starts_from_a_state_given_as_its_level(mnist_dir):
    """`observe` is what reset and step return (the image, then zeros), and a level's state starts there."""
    _, images, _ = mnist_dir
    env = MNISTBandit(data=(images, np.arange(12) % 10))
    params = env.default_params
    obs, state = env.reset(jax.random.key(3), params)
    np.testing.assert_array_equal(np.asarray(env.observe(state, params)), np.asarray(obs))
    assert not bool(env.is_terminal(state, params))
    end_obs, end, _, terminated, *_ = env.step(jax.random.key(4), state, 0, params)
    np.testing.assert_array_equal(np.asarray(env.observe(end, params)), np.asarray(end_obs))
    assert bool(env.is_terminal(end, params)) and bool(terminated)
    chosen = state.replace(image_index=jnp.int32(7), correct_label=jnp.int32(7))
    obs, start = env.reset_to_level(jax.random.key(5), Level(state=chosen), params)
    np.testing.assert_array_equal(np.asarray(obs), images[7].astype(np.float32) / 255)
    assert int(start.image_index) == 7
    check_env(env, params, num_steps=4, num_envs=0)
