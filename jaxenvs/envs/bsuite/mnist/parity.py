"""MNISTBandit against bsuite's, on a small synthetic idx data set (its rules do not depend on
the digits, and no data set can be fetched here) injected into bsuite's env in place of its
download, unless the env under test has its own data: the images and labels read, the image
drawn at reset by distribution and what is shown, bsuite's int8 pixels, per step,
random-policy statistics."""

import tempfile
from typing import Any
from unittest import mock

import jax.numpy as jnp
import numpy as np

from jaxenvs import parity as p
from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.envs.bsuite.mnist import MNISTBandit, pixels
from jaxenvs.parity import Check, DmEnvReference, env_under_test
from jaxenvs.parity.collect import sample_jax_resets
from jaxenvs.parity.stats import error_check, exact_check


def _synthetic_mnist(directory: str, num: int = 16, seed: int = 0):
    from jaxenvs.envs.bsuite.mnist_data import IMAGES, LABELS, write_idx

    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(num, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=num).astype(np.uint8)
    write_idx(f"{directory}/{IMAGES}.gz", images)
    write_idx(f"{directory}/{LABELS}", labels)
    return images, labels


class _LastDraw:
    """bsuite's MNIST `RandomState`, remembering its last `randint` (the image drawn)."""

    def __init__(self, rng: np.random.RandomState):
        self._rng, self.last = rng, 0

    def randint(self, *args: Any) -> int:
        self.last = int(self._rng.randint(*args))
        return self.last


def _bsuite_mnist(images: np.ndarray, labels: np.ndarray, seed: int):
    """bsuite's MNISTBandit on the given arrays (its `datasets.load_mnist` downloads)."""
    from bsuite.utils import datasets

    with mock.patch.object(datasets, "load_mnist", lambda *a, **k: ((images, labels), (None, None))):
        env = b._bsuite_env("mnist", "MNISTBandit")(seed=seed)
    env._rng = _LastDraw(env._rng)
    return env


def _reference(images: np.ndarray, labels: np.ndarray) -> DmEnvReference:
    def read_state(env):
        return {
            "time": int(env._reset_next_step),
            "image_index": env._rng.last,
            "correct_label": int(labels[env._rng.last]),
        }

    def write_state(env, state):
        env._rng.last = int(state["image_index"])
        env._correct_label = int(state["correct_label"])
        env._reset_next_step = False

    return b._reference(
        "bsuite MNISTBandit (synthetic idx data)",
        lambda seed: _bsuite_mnist(images, labels, seed),
        (read_state, write_state),
        exact_fields=("time", "image_index", "correct_label"),
    )


def _flat(obs: Any) -> np.ndarray:
    return np.asarray(obs).reshape(len(obs), -1)


def _checks(ctx: p.Context) -> list[Check]:
    """The built-in id reads MNIST itself (a download): by default, the env on synthetic data;
    an env given is checked on its own data, which bsuite's env is then given too."""
    with tempfile.TemporaryDirectory() as tmp:
        images, labels = _synthetic_mnist(tmp, seed=ctx.seed)
        env, params = env_under_test(ctx.env_id, ctx.env or MNISTBandit(data_dir=tmp), ctx.params)
    if ctx.env is not None:
        images, labels = np.asarray(params.images, np.uint8), np.asarray(params.labels, np.uint8)
    ref, n, seed = _reference(images, labels), ctx.size(2000, 200), ctx.seed
    checks = [
        exact_check(
            "images and labels read from idx",
            np.concatenate([np.asarray(params.images).ravel(), np.asarray(params.labels)]),
            np.concatenate([images.ravel(), labels]),
        )
    ]
    mine = ctx.with_env(env, params, ref)
    checks += p.resets(outcome=lambda s, o: s["image_index"], discrete=True, label="reset image")(mine)
    # the observation and label of every image drawn, against the data set
    states, obs = sample_jax_resets(env, params, ref, n, seed)
    flat = images.reshape(len(images), -1).astype(np.float32) / 255
    checks.append(error_check("reset observation", _flat(obs), flat[states["image_index"]], 0.0))
    checks.append(exact_check("reset label", states["correct_label"], labels[states["image_index"]]))
    ref_states, ref_obs = ref.sample_resets(min(n, 200), seed)
    checks.append(error_check("reset observation (reference)", _flat(ref_obs), flat[ref_states["image_index"]], 0.0))
    # bsuite's own loader reads pixels as int8: int8_pixels=True reproduces its observations
    ref8_states, ref8_obs = _reference(images.astype(np.int8), labels).sample_resets(min(n, 200), seed)
    mine8 = pixels(jnp.asarray(images)[ref8_states["image_index"]], int8_pixels=True)
    checks.append(error_check("int8 pixels (bsuite's loader)", _flat(mine8), _flat(ref8_obs), 0.0))
    return checks + p.chain(p.transitions("atol", 0.0, seed_offset=1), b.statistics(1))(mine)


SPEC = p.ParitySpec(checks=_checks, library="bsuite", builds_env=True)  # the built-in env downloads MNIST
