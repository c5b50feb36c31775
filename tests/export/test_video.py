import importlib.util
import sys
import types

import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.cli import main as cli_main
from jaxenvs.export.video import record, rollout_frames, write

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
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left beside it


def test_bad_formats_say_what_to_do(tmp_path):
    with pytest.raises(ValueError, match=".gif or .mp4"):
        record("CartPole-v1", steps=2, out=tmp_path / "run.avi")
    if importlib.util.find_spec("imageio_ffmpeg") is None:
        with pytest.raises(ImportError, match="imageio-ffmpeg"):
            record("CartPole-v1", steps=2, out=tmp_path / "run.mp4")


def _only_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_cli_mp4_without_ffmpeg_is_one_clear_error(tmp_path, monkeypatch, capsys):
    from jaxenvs.export import video

    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # `import imageio_ffmpeg` fails

    def no_rollout(*args, **kwargs):
        raise AssertionError("rolled out before finding that the MP4 cannot be written")

    monkeypatch.setattr(video, "rollout_frames", no_rollout)
    out = tmp_path / "run.mp4"
    out.write_bytes(b"an earlier video")
    assert cli_main(["render", "CartPole-v1", "--steps", "2", "--out", str(out)]) == 1
    line = _only_line(capsys.readouterr().err)
    assert line.startswith("error:") and "pip install" in line and "imageio-ffmpeg" in line
    assert out.read_bytes() == b"an earlier video" and list(tmp_path.iterdir()) == [out]


def test_cli_unknown_format_or_missing_directory_is_one_line(tmp_path, capsys):
    assert cli_main(["render", "CartPole-v1", "--steps", "2", "--out", str(tmp_path / "run.avi")]) == 2
    assert ".gif or .mp4" in _only_line(capsys.readouterr().err)
    assert cli_main(["render", "CartPole-v1", "--steps", "2", "--out", str(tmp_path / "no" / "run.gif")]) == 2
    assert "no directory" in _only_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


def test_a_write_failing_midway_leaves_no_partial_file(tmp_path, monkeypatch):
    imageio = pytest.importorskip("imageio.v2")
    fake_ffmpeg = types.ModuleType("imageio_ffmpeg")
    fake_ffmpeg.get_ffmpeg_exe = lambda: "ffmpeg"
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", fake_ffmpeg)

    class BreaksOnTheSecondFrame:
        def __init__(self, path, **kwargs):
            self.path, self.frames = path, 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def append_data(self, frame):
            self.frames += 1
            with open(self.path, "ab") as f:
                f.write(frame.tobytes())
            if self.frames == 2:
                raise RuntimeError("ffmpeg died")

    monkeypatch.setattr(imageio, "get_writer", BreaksOnTheSecondFrame)
    out = tmp_path / "run.mp4"
    out.write_bytes(b"an earlier video")
    with pytest.raises(RuntimeError, match="ffmpeg died"):
        write(np.zeros((3, 4, 4, 3), np.uint8), out)
    assert out.read_bytes() == b"an earlier video" and list(tmp_path.iterdir()) == [out]


def test_cli_writes_an_mp4(tmp_path):
    pytest.importorskip("imageio.v2")
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
    out = tmp_path / "run.mp4"
    assert cli_main(["render", "CartPole-v1", "--steps", "5", "--out", str(out)]) == 0
    reader = imageio_ffmpeg.read_frames(str(out))
    meta = next(reader)
    assert tuple(meta["size"]) == (600, 400)  # not resized to a multiple of 16
    assert len(list(reader)) == 6
    assert list(tmp_path.iterdir()) == [out]
