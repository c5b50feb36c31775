import importlib.util

import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.cli import main as cli_main
from jaxenvs.export.video import record, rollout_frames

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402


def test_frames_follow_the_policy():
    left = rollout_frames("CartPole-v1", steps=12, seed=0, policy=lambda key, obs: jnp.int32(0), scale=0.1)
    right = rollout_frames("CartPole-v1", steps=12, seed=0, policy=lambda key, obs: jnp.int32(1), scale=0.1)
    assert left.shape == (13, 40, 60, 3) and left.dtype == np.uint8
    np.testing.assert_array_equal(left[0], right[0])  # same seed, same first state
    assert (left[-1] != right[-1]).any()


def test_cli_writes_a_gif(tmp_path):
    out = tmp_path / "run.gif"
    assert cli_main(["render", "CartPole-v1", "--steps", "6", "--out", str(out), "--fps", "20"]) == 0
    image = Image.open(out)
    assert image.n_frames == 7 and image.size == (600, 400)
    assert image.info["duration"] == 50


def test_bad_formats_say_what_to_do(tmp_path):
    with pytest.raises(ValueError, match=".gif or .mp4"):
        record("CartPole-v1", steps=2, out=tmp_path / "run.avi")
    if importlib.util.find_spec("imageio_ffmpeg") is None:
        with pytest.raises(ImportError, match="imageio-ffmpeg"):
            record("CartPole-v1", steps=2, out=tmp_path / "run.mp4")
