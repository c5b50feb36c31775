"""gymnax under our harness: its envs, through the gymnax adapter, checked by our ids' specs.

The harness injects the reference's states into the env under test; gymnax's states carry the
reference's field names for most of classic control (CartPole, MountainCar,
MountainCarContinuous, Pendulum), and other names for Acrobot (`RENAMES`). A peer's state is
the adapter's `GymnaxState` around gymnax's own `EnvState`, so the reference is given a
`to_jax` / `from_jax` that translate through it (fields the reference does not have, such as
Pendulum's `last_u`, keep the value of a fresh reset).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

LIBRARY = "gymnax"
REFERENCES = ("gymnasium",)
ABOUT = (
    "classic control. For these ids gymnax's defaults are the reference's settings (the same "
    "time limits and constants), so each has one row."
)
# our id -> gymnax id, for the ids whose states translate (classic control)
TRANSLATED = {
    "CartPole-v1": "CartPole-v1",
    "Acrobot-v1": "Acrobot-v1",
    "MountainCar-v0": "MountainCar-v0",
    "MountainCarContinuous-v0": "MountainCarContinuous-v0",
    "Pendulum-v1": "Pendulum-v1",
}
# what a failure of the audit found, in words (shown with the measured figures in docs/audit.md)
FINDINGS = {
    "MountainCarContinuous-v0": (
        "Looks like a bug in gymnax, not a design choice: at the left wall (position -1.2) "
        "gymnasium stops the car (`velocity = 0` when `position == min_position` and "
        "`velocity < 0`), while gymnax zeroes a negative velocity at the goal instead "
        "(`velocity * (1 - (position >= goal_position) * (velocity < 0))`), so a car driven "
        "into the left wall keeps its negative velocity there. The first mismatch below is such "
        "a state: the reference's next velocity is 0, gymnax's is not. The float64 checks' other "
        "errors (about 1e-8, under jax_enable_x64 only) are precision choices, not bugs: gymnax "
        "keeps the state in float64 where gymnasium rounds it to float32 after every step, and "
        "squares the float32 action in float32 for the reward."
    ),
}
# the reference's field -> gymnax's, where they differ
RENAMES = {
    "Acrobot-v1": {
        "theta1": "joint_angle1",
        "theta2": "joint_angle2",
        "dtheta1": "velocity_1",
        "dtheta2": "velocity_2",
    },
}


def peer_env(gymnax_id: str) -> tuple[Any, Any]:
    """gymnax's env of `gymnax_id` through the adapter, raw (no auto-reset), at gymnax's defaults.

    Every action is passed to gymnax as given (the adapter's clipping off).

    Args:
        gymnax_id: an id of `gymnax.registered_envs`.

    Returns:
        `(env, params)`.
    """
    from jaxenvs.adapters.gymnax import make_gymnax_env

    env = make_gymnax_env(gymnax_id, clip_actions=False)
    return env, env.default_params


def translating(reference: Any, env: Any, params: Any, renames: dict[str, str]) -> Any:
    """`reference` with `to_jax` / `from_jax` translating its states to the adapter's.

    Args:
        reference: the id's own reference (its state named like our env's fields).
        env: the adapted gymnax env.
        params: its params.
        renames: reference field -> gymnax field, where they differ.

    Returns:
        A copy of the reference.
    """
    templates: dict[bool, Any] = {}  # a fresh reset state, per precision (float64 under x64)
    back = {v: k for k, v in renames.items()}

    def template() -> Any:
        x64 = bool(jax.config.jax_enable_x64)
        if x64 not in templates:
            templates[x64] = env.reset(jax.random.key(0), params)[1]
        return templates[x64]

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        outer = template()
        inner = outer.env_state
        fields = {}
        for name, value in state.items():
            target = renames.get(name, name)
            if hasattr(inner, target):
                fields[target] = jnp.asarray(value, jnp.asarray(getattr(inner, target)).dtype)
        return outer.replace(env_state=inner.replace(**fields), library_truncated=jnp.asarray(False))

    def from_jax(state: Any) -> dict[str, Any]:
        inner = state.env_state
        return {back.get(k, k): np.asarray(getattr(inner, k)) for k in inner.__dataclass_fields__}

    return dataclasses.replace(reference, to_jax=to_jax, from_jax=from_jax)


def ids() -> list[str]:
    """Our ids whose gymnax port the audit checks.

    Returns:
        The ids.
    """
    return list(TRANSLATED)


def audit(env_id: str, scale: float, seed: int) -> Any:
    """One stage of `env_id`'s own parity spec run on gymnax's port.

    Args:
        env_id: one of `ids()`.
        scale: the run's scale.
        seed: the run's seed.

    Returns:
        The `ParityResult`.
    """
    import jaxenvs
    from jaxenvs.audit import run_spec_on_peer
    from jaxenvs.registry import resolve

    spec = resolve(jaxenvs.spec(env_id).parity)
    env, params = peer_env(TRANSLATED[env_id])
    renames = RENAMES.get(env_id, {})
    audited = dataclasses.replace(spec, reference=lambda i: translating(spec.reference(i), env, params, renames))
    return run_spec_on_peer("gymnax", env_id, TRANSLATED[env_id], audited, env, params, scale, seed)
