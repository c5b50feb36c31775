"""Record an env to a GIF (pillow) or MP4 (imageio + imageio-ffmpeg): `jaxenvs render <id> --out run.gif`.

The whole rollout, rendering included, is one jitted `lax.scan` over the auto-resetting env.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.extras import install_line
from jaxenvs.wrappers.pixel import resize

Policy = Callable[[jax.Array, Any], Any]


def rollout_frames(
    env_id: str,
    steps: int = 200,
    seed: int = 0,
    policy: Policy | None = None,
    scale: float = 1.0,
    **overrides: Any,
) -> np.ndarray:
    """The frames of a rollout, rendered inside one jitted `lax.scan` (across episode ends).

    Args:
        env_id: A registered id.
        steps: The number of steps.
        seed: The seed of the rollout's key.
        policy: A JAX-traceable `policy(key, obs) -> action`; samples the action space when None.
        scale: Shrink every frame by this factor (`jax.image.resize`, inside the jitted call).
        **overrides: Params fields.

    Returns:
        `uint8[steps + 1, H, W, 3]`: the first state and the state after each step.
    """
    from jaxenvs.registry import make

    env, params = make(env_id, **overrides)
    action_space = env.action_space(params)
    if policy is None:

        def policy(key, obs):
            return action_space.sample(key)

    def frame(state):
        image = env.render(state, params)
        if scale != 1.0:
            h, w = image.shape[:2]
            image = resize(image, (max(1, round(h * scale)), max(1, round(w * scale))))
        return image

    @jax.jit
    def run(key):
        key, k = jax.random.split(key)
        obs, state = env.reset(k, params)

        def body(carry, _):
            key, obs, state = carry
            key, k_act, k_step = jax.random.split(key, 3)
            action = policy(k_act, obs)
            obs, state, *_ = env.step(k_step, state, action, params)
            return (key, obs, state), frame(state)

        _, frames = jax.lax.scan(body, (key, obs, state), None, length=steps)
        return jnp.concatenate([frame(state)[None], frames])

    return np.asarray(run(jax.random.key(seed)))


def _require_ffmpeg() -> None:
    missing = []
    for module in ("imageio", "imageio_ffmpeg"):
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    if not missing:
        import imageio_ffmpeg

        try:
            imageio_ffmpeg.get_ffmpeg_exe()
        except RuntimeError as e:  # a platform without a bundled binary, and none on PATH
            raise ImportError(
                "writing an MP4 needs an ffmpeg binary, and imageio-ffmpeg found none: install "
                "ffmpeg or set IMAGEIO_FFMPEG_EXE to one, or write a .gif"
            ) from e
    if missing:
        raise ImportError(
            f"writing an MP4 needs imageio with its ffmpeg backend ({', '.join(missing)} missing): "
            f"{install_line('video')} (imageio, imageio-ffmpeg), or write a .gif"
        )


def _require_pillow() -> None:
    try:
        importlib.import_module("PIL")
    except ImportError as e:
        raise ImportError(f"writing a GIF needs pillow: {install_line('export')}") from e


def check_writable(out: str | Path) -> None:
    """Raise what writing a video to `out` would, before any rollout.

    Args:
        out: The video's path.

    Raises:
        ValueError: For a format other than .gif / .mp4.
        FileNotFoundError: For a missing directory.
        ImportError: Naming the package to install.
    """
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ValueError(f"unknown video format {out.suffix!r}: use .gif or .mp4")
    if not out.parent.is_dir():
        raise FileNotFoundError(f"no directory {str(out.parent)!r} to write {out.name!r} in")
    (_require_ffmpeg if suffix == ".mp4" else _require_pillow)()


def write(frames: np.ndarray, out: str | Path, fps: int = 30) -> Path:
    """Write frames as a GIF (pillow) or MP4 (imageio with ffmpeg).

    The video goes to a temporary file beside `out`, renamed onto `out` once complete: a failure
    leaves neither a partial video nor a changed `out`.

    Args:
        frames: `uint8[T, H, W, 3]` frames.
        out: The path; its suffix (.gif or .mp4) picks the format.
        fps: Frames per second.

    Returns:
        `out`, as a `Path`.

    Raises:
        ValueError: If `frames` is not `[T, H, W, 3]` or the format is unknown.
        FileNotFoundError: If `out`'s directory does not exist.
        ImportError: If the format's package is missing.
    """
    out = Path(out)
    frames = np.asarray(frames, dtype=np.uint8)
    if frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(f"frames must be uint8[T, H, W, 3], got {frames.shape}")
    check_writable(out)
    suffix = out.suffix.lower()
    # the suffix stays last: ffmpeg picks the container from it
    partial = out.with_name(f".{out.stem}.{os.getpid()}.partial{suffix}")
    try:
        if suffix == ".gif":
            from PIL import Image

            images = [Image.fromarray(f) for f in frames]
            images[0].save(
                partial,
                format="GIF",
                save_all=True,
                append_images=images[1:],
                duration=max(1, round(1000 / fps)),
                loop=0,
                optimize=True,
            )
        else:
            import imageio.v2 as imageio

            with imageio.get_writer(partial, format="FFMPEG", fps=fps, macro_block_size=2) as writer:
                for f in frames:
                    writer.append_data(f)
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return out


def record(
    env_id: str,
    steps: int = 200,
    out: str | Path = "run.gif",
    seed: int = 0,
    fps: int = 30,
    policy: Policy | None = None,
    scale: float = 1.0,
    **overrides: Any,
) -> Path:
    """Roll out `policy` for `steps` steps and write the video to `out`.

        record("CartPole-v1", steps=200, out="cartpole.gif")  # a random policy

    Args:
        env_id: A registered id.
        steps: The number of steps.
        out: The path; .gif or .mp4.
        seed: The seed of the rollout's key.
        fps: Frames per second.
        policy: A JAX-traceable `policy(key, obs) -> action`; random when None.
        scale: Shrink every frame by this factor.
        **overrides: Params fields.

    Returns:
        `out`, as a `Path`.

    Raises:
        ValueError: For an unknown format.
        FileNotFoundError: For a missing directory.
        ImportError: For a missing package (checked before the rollout).
    """
    check_writable(out)  # before the rollout, which a missing package would waste
    frames = rollout_frames(env_id, steps=steps, seed=seed, policy=policy, scale=scale, **overrides)
    return write(frames, out, fps=fps)
