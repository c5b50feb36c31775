"""MNISTBandit: classify an MNIST digit in one guess; +1 if right, -1 if wrong.

Reference: bsuite `environments/mnist.py` (experiments `mnist`, `mnist_noise`, `mnist_scale`;
10,000 episodes). Each episode shows one image of the training set drawn uniformly at random
(float32 `(28, 28)`, pixels / 255); the single action (0..9) is the guess, and the episode
ends with the all-zero observation. `fraction` keeps the first `fraction * 60,000` images.

Data: nothing is bundled or fetched silently at run time. The idx files are read from
`data_dir`, the environment variable `JAXENVS_MNIST_DIR`, or the cache
`~/.cache/jaxenvs/mnist` (filled by downloading when the network allows); with none,
construction raises `DataNotFoundError` saying how to provide them (see `mnist_data`). The
images and labels live in `params` (`images` uint8[N, 28, 28], `labels` int32[N]), so they
are arguments of the jitted step rather than constants baked into it.

Differs: bsuite parses the pixels as int8, so on its path pixels above 127 wrap to negative
values (a bug in its `datasets.load_mnist`); here pixels are uint8, observations in [0, 1].
`int8_pixels=True` reproduces bsuite's wrapped values. bsuite's `total_regret` logging is not
kept. Invalid action under jit: never equals a label, so it earns -1.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params
from jaxenvs.envs.bsuite._common import BsuiteParams
from jaxenvs.envs.bsuite.mnist_data import DataNotFoundError, load_mnist  # noqa: F401  (re-exported)
from jaxenvs.params import array, flag

NUM_EPISODES = 10_000  # bsuite experiments/mnist/sweep.py (and mnist_noise, mnist_scale)
NUM_CLASSES = 10


@struct.dataclass
class MNISTBanditState(EnvState):
    """The state of MNISTBandit.

    Attributes:
        image_index: The index in `params.images` of the image shown this episode (int32
            scalar).
        correct_label: Its label, the rewarded action (int32 scalar, 0..9; bsuite's
            `_correct_label`).
    """

    image_index: jax.Array
    correct_label: jax.Array


@struct.dataclass
class MNISTBanditParams(BsuiteParams):
    """MNISTBandit's params: the data set, and how its pixels are read.

    Attributes:
        images: The images drawn from, `uint8[N, rows, cols]` (28 x 28 for MNIST).
        labels: Their labels, `int32[N]` in 0..9.
        int8_pixels: Read pixels as bsuite does, as int8 (values above 127 wrap to negative);
            static.
    """

    images: jax.Array | None = array(shape=(None, None, None), dtype="integer", low=0, high=255)
    labels: jax.Array | None = array(shape=(None,), dtype="integer", low=0, high=9)
    int8_pixels: bool = flag(False, static=True)


# pixel value -> observation, divided in numpy so every value is the correctly rounded
# float32 quotient bsuite computes (XLA may turn a division by 255 into a multiplication)
_PIXELS = np.arange(256, dtype=np.float32) / np.float32(255)
_INT8_PIXELS = np.arange(256).astype(np.uint8).astype(np.int8).astype(np.float32) / np.float32(255)


def pixels(image: jax.Array, int8_pixels: bool) -> jax.Array:
    """An image as the agent sees it: uint8 / 255, or bsuite's int8 reading / 255.

    Args:
        image: The image, `uint8[rows, cols]`.
        int8_pixels: Read the pixels as int8, as bsuite does (values above 127 wrap to
            negative).

    Returns:
        A `float32[rows, cols]` array, in [0, 1] (or [-128/255, 127/255] with `int8_pixels`),
        each value the correctly rounded float32 quotient.
    """
    table = _INT8_PIXELS if int8_pixels else _PIXELS
    return jnp.asarray(table)[image.astype(jnp.int32)]


class MNISTBandit(Environment[MNISTBanditState, MNISTBanditParams]):
    """bsuite's MNISTBandit (see the module docstring); building it reads the MNIST files.

    Args:
        fraction: The share of the training set kept, its first `fraction * 60,000` images
            (bsuite's `fraction`).
        data_dir: The directory holding the idx files; None looks in `$JAXENVS_MNIST_DIR`,
            then in the cache (see `mnist_data`).
        download: Whether to download the files into the empty cache when none is given.
        int8_pixels: Reproduce bsuite's int8 pixels (values above 127 wrap to negative).
        data: `(images, labels)` themselves (`uint8[N, rows, cols]` and `int[N]`, as a loader
            returns them), used instead of reading files: then `data_dir` and `download` are
            unused.

    Raises:
        DataNotFoundError: If the files are not found (the message says how to provide them).
        ValueError: If `fraction` keeps no image, or the files do not hold MNIST's shapes.
    """

    def __init__(
        self,
        fraction: float = 1.0,
        data_dir: str | os.PathLike | None = None,
        download: bool = True,
        int8_pixels: bool = False,
        data: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        if data is None:
            images, labels = load_mnist(data_dir, download)
        else:
            images, labels = (np.asarray(a) for a in data)
            if images.dtype != np.uint8 or images.ndim != 3 or labels.shape != images.shape[:1]:
                raise ValueError(
                    f"MNISTBandit: data must be (uint8[N, rows, cols] images, int[N] labels), got images "
                    f"{images.dtype}{list(images.shape)} and labels {labels.dtype}{list(labels.shape)}"
                )
        num_data = int(fraction * len(labels))
        if num_data < 1:
            raise ValueError(f"MNISTBandit: fraction={fraction} keeps no image of {len(labels)}")
        self._images = images[:num_data]
        self._labels = labels[:num_data].astype(np.int32)
        self.image_shape = tuple(self._images.shape[1:])
        self._int8_pixels = bool(int8_pixels)

    @property
    def default_params(self) -> MNISTBanditParams:
        return MNISTBanditParams(
            images=jnp.asarray(self._images),
            labels=jnp.asarray(self._labels),
            int8_pixels=self._int8_pixels,
            bsuite_num_episodes=NUM_EPISODES,
        )

    def observe(self, state, params):
        """The image's `pixels` before the guess (time 0), zeros after it, as bsuite's final step."""
        shown = pixels(params.images[state.image_index], params.int8_pixels)
        return jnp.where(state.time == 0, shown, jnp.zeros(self.image_shape, jnp.float32))

    def is_terminal(self, state, params):
        """Whether the guess has been made (every episode is one guess)."""
        return state.time >= 1

    def reset_env(self, key, params):
        index = jax.random.randint(key, (), 0, params.labels.shape[0], dtype=jnp.int32)
        state = MNISTBanditState(time=jnp.zeros((), jnp.int32), image_index=index, correct_label=params.labels[index])
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        reward = jnp.where(action == state.correct_label, 1.0, -1.0)
        state = state.replace(time=state.time + 1)
        return self.observe(state, params), state, reward, jnp.asarray(True), {}

    @defaults_params
    def observation_space(self, params=None):
        low = -128.0 / 255.0 if params.int8_pixels else 0.0
        high = 127.0 / 255.0 if params.int8_pixels else 1.0
        return spaces.Box(np.float32(low), np.float32(high), shape=self.image_shape, dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(NUM_CLASSES)

    @defaults_params
    def render(self, state, params=None):
        image = params.images[state.image_index]
        ink = jnp.repeat(jnp.repeat(255 - image.astype(jnp.uint8), 8, axis=0), 8, axis=1)
        return jnp.stack([ink, ink, ink], axis=-1)
