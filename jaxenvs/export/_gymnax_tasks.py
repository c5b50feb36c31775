"""gymnax's task for each id gymnax defines: what `jaxenvs.export.gymnax.make(id)` serves by
default, one entry per id (see docs/from-gymnax.md, "One name, two tasks").

`jaxenvs.make(id)` keeps the reference's task (MinAtar's, bsuite's, gymnasium's); an entry here
says only how gymnax's task differs from it: params, constructor arguments, the observation's
dtype and shape, the state's field names, the info keys, and whether gymnax differentiates the
transition. What an entry leaves out is the same in both (docs/gymnax.md lists the settings,
measured by building both; tests/export/test_gymnax_tasks.py checks each entry against gymnax's
own env through the `gymnax/<id>` adapter).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from typing import Any

import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass(frozen=True)
class GymnaxTask:
    """How gymnax's task of one id differs from the jaxenvs id's (the reference's) task.

    Attributes:
        jaxenvs_id: The jaxenvs id that runs it (gymnax's `FrozenLake-misc` is `FrozenLake-v1`).
        params: Params fields set to gymnax's values.
        env_kwargs: Constructor arguments set to gymnax's (over the jaxenvs id's own).
        obs_dtype: gymnax's observation dtype, where the reference's differs.
        obs_shape: gymnax's observation shape, where the reference's differs (a reshape).
        state_names: gymnax's state field -> ours, where the names differ.
        gymnax_state: `"module:Class"` of gymnax's own state class, returned where
            `state_names` renames fields or `step_fields` adds some (so `state.joint_angle1`,
            `state.last_u` and `replace` work); None
            returns the jaxenvs state, whose names are gymnax's already.
        gymnax_only: gymnax's state fields absent here (its statistics and internals).
        from_gymnax: Builds our state's fields from a gymnax state where a rename is not enough.
        step_fields: `(action, params) -> {field: value}`: gymnax state fields the env has no
            counterpart of, computed from the step's action (Pendulum's `last_u`); zero at reset.
        terminates: False where gymnax's env never terminates (its `is_terminated` is always
            false: DiscountingChain, whose episodes end truncated at the time limit only).
        data: `() -> constructor arguments` computed at make (MNIST's images from where gymnax
            takes them).
        info_names: Our info key -> gymnax's.
        info_absent: Our info keys gymnax's env does not report.
        gradients: gymnax 1.x's `supports_transition_gradients` for the id.
    """

    jaxenvs_id: str
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    obs_dtype: Any = None
    obs_shape: tuple[int, ...] | None = None
    state_names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    gymnax_state: str | None = None
    gymnax_only: tuple[str, ...] = ()
    from_gymnax: Callable[[Any], dict[str, Any]] | None = None
    step_fields: Callable[[Any, Any], dict[str, Any]] | None = None
    terminates: bool = True
    data: Callable[[], dict[str, Any]] | None = None
    info_names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    info_absent: tuple[str, ...] = ()
    gradients: bool = False


def _asterix_from_gymnax(state: Any) -> dict[str, Any]:
    # gymnax's entities are int[8, 5], the fifth column MinAtar's "not None"
    entities = jnp.asarray(state.entities)
    return {"entities": entities[:, :4], "entity_active": entities[:, 4].astype(bool)}


def _pendulum_last_u(action: Any, params: Any) -> dict[str, Any]:
    # gymnax keeps the clipped torque for rendering, as gymnasium's `last_u`
    return {"last_u": jnp.clip(jnp.asarray(action), -params.max_torque, params.max_torque).reshape(())}


def _mnist_data() -> dict[str, Any]:
    """MNISTBandit's data where gymnax's task takes it from: the directory in
    `$JAXENVS_MNIST_DIR` when set (never downloading), else gymnax's own loader
    (`gymnax.utils.load_mnist.load_mnist`, its directory or a loader the user installed there).
    gymnax reads the pixels as its loader returns them: int8 ones wrap above 127."""
    from jaxenvs.envs.bsuite.mnist_data import ENV_VAR

    if os.environ.get(ENV_VAR):
        return {"download": False, "int8_pixels": True}  # gymnax's (bsuite's) loader parses int8
    from gymnax.utils import load_mnist as gymnax_mnist

    (images, labels), _ = gymnax_mnist.load_mnist()
    images = np.asarray(images)
    wrapped = images.dtype == np.int8
    return {"data": (images.view(np.uint8) if wrapped else images, np.asarray(labels)), "int8_pixels": wrapped}


def _minatar(env_id: str, max_steps: int, minimal: bool = True, **task: Any) -> GymnaxTask:
    # gymnax's MinAtar: no sticky actions, its step limit, float32 observations
    params = {"max_steps_in_episode": max_steps, "sticky_action_prob": 0.0}
    if minimal:
        params["use_minimal_action_set"] = True
    return GymnaxTask(env_id, params=params, obs_dtype=jnp.float32, **task)


GYMNAX_TASKS: dict[str, GymnaxTask] = {
    # classic control: gymnax's settings are gymnasium's; Acrobot's fields have gymnax's names
    "CartPole-v1": GymnaxTask("CartPole-v1"),
    "Pendulum-v1": GymnaxTask(
        "Pendulum-v1",
        gymnax_state="gymnax.environments.classic_control.pendulum:EnvState",
        step_fields=_pendulum_last_u,
        gradients=True,
    ),
    "Acrobot-v1": GymnaxTask(
        "Acrobot-v1",
        state_names={
            "joint_angle1": "theta1",
            "joint_angle2": "theta2",
            "velocity_1": "dtheta1",
            "velocity_2": "dtheta2",
        },
        gymnax_state="gymnax.environments.classic_control.acrobot:EnvState",
    ),
    "MountainCar-v0": GymnaxTask("MountainCar-v0"),
    "MountainCarContinuous-v0": GymnaxTask("MountainCarContinuous-v0", gradients=True),
    # MinAtar (gymnax: minimal action sets, no sticky actions, 1,000 steps; Freeway 2,500)
    "Asterix-MinAtar": _minatar("Asterix-MinAtar", 1000, gymnax_only=("shot_timer",), from_gymnax=_asterix_from_gymnax),
    "Breakout-MinAtar": _minatar("Breakout-MinAtar", 1000),
    "Freeway-MinAtar": _minatar("Freeway-MinAtar", 2500),
    "Seaquest-MinAtar": _minatar(
        "Seaquest-MinAtar",
        1000,
        minimal=False,
        gymnax_only=(
            "divers",
            "divers_count",
            "e_bullet_count",
            "e_fish",
            "e_fish_count",
            "e_subs",
            "e_subs_count",
            "f_bullet_count",
            "f_bullets",
        ),
    ),
    "SpaceInvaders-MinAtar": _minatar("SpaceInvaders-MinAtar", 1000, gymnax_only=("ramping",)),
    # bsuite (gymnax: shorter step limits, DeepSea of size 8, chains observed as flat vectors)
    "Catch-bsuite": GymnaxTask("Catch-bsuite", params={"max_steps_in_episode": 1000}, gymnax_only=("prev_done",)),
    "DeepSea-bsuite": GymnaxTask(
        "DeepSea-bsuite",
        params={"max_steps_in_episode": 8},
        env_kwargs={"size": 8},
        gymnax_only=("action_mapping", "denoised_return", "optimal_return", "total_bad_episodes"),
    ),
    "MemoryChain-bsuite": GymnaxTask(
        "MemoryChain-bsuite",
        params={"max_steps_in_episode": 1000},
        obs_shape=(3,),
        gymnax_only=("total_perfect", "total_regret"),
    ),
    "UmbrellaChain-bsuite": GymnaxTask(
        "UmbrellaChain-bsuite",
        params={"max_steps_in_episode": 100, "chain_length": 10},
        env_kwargs={"n_distractor": 0},
        obs_shape=(3,),
        gymnax_only=("total_regret",),
    ),
    "DiscountingChain-bsuite": GymnaxTask(
        "DiscountingChain-bsuite",
        params={"max_steps_in_episode": 100},
        obs_shape=(2,),
        gymnax_only=("rewards",),
        terminates=False,
    ),
    "SimpleBandit-bsuite": GymnaxTask(
        "SimpleBandit-bsuite", params={"max_steps_in_episode": 100}, gymnax_only=("rewards", "total_regret")
    ),
    "MNISTBandit-bsuite": GymnaxTask("MNISTBandit-bsuite", params={"max_steps_in_episode": 1}, data=_mnist_data),
    # misc: gymnax's own ports under gymnax's ids (FourRooms observes int32 in gymnax)
    "FourRooms-misc": GymnaxTask("FourRooms-misc", obs_dtype=jnp.int32),
    "MetaMaze-misc": GymnaxTask("MetaMaze-misc"),
    "PointRobot-misc": GymnaxTask("PointRobot-misc", gradients=True),
    "BernoulliBandit-misc": GymnaxTask("BernoulliBandit-misc"),
    "GaussianBandit-misc": GymnaxTask("GaussianBandit-misc"),
    "Reacher-misc": GymnaxTask("Reacher-misc", gradients=True),
    "Swimmer-misc": GymnaxTask("Swimmer-misc", gradients=True),
    "Pong-misc": GymnaxTask("Pong-misc", gymnax_only=("terminal",)),
    # gymnasium's FrozenLake under gymnax's name: its state field and info key are gymnax's
    "FrozenLake-misc": GymnaxTask(
        "FrozenLake-v1",
        state_names={"position": "s"},
        gymnax_state="gymnax.environments.misc.frozen_lake:EnvState",
        info_names={"prob": "p"},
        info_absent=("discount",),
    ),
}
