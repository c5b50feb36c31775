"""Behaviour fingerprints: one hash per built-in id of a fixed-key rollout, pinned in the package.

A fingerprint is the SHA-256 of `NUM_STEPS` steps of uniformly random actions from
`jax.random.key(0)` (CPU, float32), pinned in `fingerprints.json` with the jax version. An id's
bits may change only with the same distribution, the fingerprint re-pinned (by the project:
`make pin`, `lab/fingerprints.py`) and a line in `CHANGELOG.md`.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
from typing import Any

import numpy as np

NUM_STEPS = 1000
SEED = 0
PINNED_PATH = pathlib.Path(__file__).with_name("fingerprints.json")


def _rollout(env_id: str) -> dict[str, np.ndarray]:
    import jax

    import jaxenvs

    if jax.config.jax_enable_x64:
        raise RuntimeError("fingerprints are taken in float32: run without jax_enable_x64")
    env, params = jaxenvs.make(env_id)

    def run(key):
        key_reset, key_steps = jax.random.split(key)
        obs, state = env.reset(key_reset, params)

        def body(carry, key):
            obs, state = carry
            key_action, key_step = jax.random.split(key)
            action = env.action_space(params).sample(key_action)
            obs, state, reward, terminated, truncated, _ = env.step(key_step, state, action, params)
            return (obs, state), (obs, reward, terminated, truncated)

        _, out = jax.lax.scan(body, (obs, state), jax.random.split(key_steps, NUM_STEPS))
        return obs, out

    with jax.default_device(jax.devices("cpu")[0]):
        first_obs, (obs, reward, terminated, truncated) = jax.jit(run)(jax.random.key(SEED))
    return {
        "first_observation": first_obs,
        "observation": obs,
        "reward": reward,
        "terminated": terminated,
        "truncated": truncated,
    }


def fingerprint(env_id: str) -> str:
    """The SHA-256 (hex) of `env_id`'s fixed-key rollout.

    Observations (the first one too), rewards, terminations and truncations of `NUM_STEPS`
    uniformly random steps from `jax.random.key(SEED)`, on the CPU.

    Args:
        env_id: a registered id.

    Returns:
        64 hex digits.

    Raises:
        RuntimeError: `jax_enable_x64` is on (fingerprints are taken in float32).
        UnknownEnvError: `env_id` is not registered.
    """
    import jax

    digest = hashlib.sha256()
    for name, tree in _rollout(env_id).items():
        for path, leaf in jax.tree_util.tree_leaves_with_path(tree):
            array = np.ascontiguousarray(np.asarray(leaf))
            header = f"{name}{jax.tree_util.keystr(path)}:{array.dtype.str}:{array.shape};"
            digest.update(header.encode())
            digest.update(array.tobytes())
    return digest.hexdigest()


def pinned() -> dict[str, Any]:
    """The pinned fingerprints.

    Returns:
        `{"jax": version, "fingerprints": {id: hex}}`, as `fingerprints.json` holds them.
    """
    return json.loads(PINNED_PATH.read_text())


def compare(env_id: str) -> tuple[bool | None, str]:
    """`env_id`'s fingerprint against the pinned one.

    Args:
        env_id: a registered id.

    Returns:
        `(True, text)` when they match, `(False, text)` when they differ under the jax version
        they were pinned under, `(None, text)` when there is nothing to compare (the id is not
        pinned, or this is another jax version: the same code may give other bits there).
    """
    import jax

    now = fingerprint(env_id)
    data = pinned()
    want = data["fingerprints"].get(env_id)
    if want is None:
        return None, f"{env_id}: {now} (not pinned)"
    if data["jax"] != jax.__version__:
        same = "the same as" if now == want else "differs from"
        return None, f"{env_id}: {now} under jax {jax.__version__}; {same} the one pinned under jax {data['jax']}"
    if now == want:
        return True, f"{env_id}: {now} (as pinned under jax {data['jax']})"
    return False, f"{env_id}: {now}, but {want} is pinned under jax {data['jax']}: its behaviour changed"
