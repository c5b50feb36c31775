"""bsuite's MountainCar: an underpowered car must rock back and forth to climb a hill.

Reference: bsuite `environments/mountain_car.py` (experiment `mountain_car`, 1,000
episodes). Actions 0, 1, 2 push left, not at all, right (`(a - 1) * 0.001`), gravity
`-0.0025 cos(3 position)`; velocity clipped to +-0.07, position to [-1.2, 0.6], and at the
left wall the velocity is clipped to be non-negative. Reward -1 per step; the episode ends
(terminates, as bsuite's does) when position >= 0.5 or after `max_steps` (1,000) steps. The
observation is bsuite's float32 `(1, 3)`: `[position, velocity, t / max_steps]`. Reset:
position uniform in [-0.6, -0.4], velocity 0.

Differs: float32 dynamics unless `jax_enable_x64` is on (bsuite computes in float64).
Invalid action under jit: clipped to 0..2.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import rendering as r
from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params, float_dtype
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams
from jaxenvs.params import integer, positive, real

NUM_EPISODES = 1_000  # bsuite experiments/mountain_car/sweep.py


@struct.dataclass
class MountainCarState(EnvState):
    """The state of bsuite's MountainCar (its `_position`, `_velocity`).

    Both fields below are float scalars in the dynamics' dtype (float32, or float64 with
    `jax_enable_x64`).

    Attributes:
        position: The car's position, in `[min_pos, max_pos]`.
        velocity: The car's velocity per step, in `[-max_speed, max_speed]`.
    """

    position: jax.Array
    velocity: jax.Array


@struct.dataclass
class MountainCarParams(BsuiteParams):
    """bsuite's MountainCar settings and physics.

    Attributes:
        max_steps: The episode ends after this many steps (a termination, as in bsuite); it
            also scales the observation's time entry.
        min_pos: The left wall's position (the position is clipped to it, and the velocity
            there to be non-negative).
        max_pos: The right end's position (the position is clipped to it).
        max_speed: The velocity is clipped to `[-max_speed, max_speed]`.
        goal_pos: The episode ends when the position reaches it.
        force: The push of actions 0 and 2, `-force` and `+force`, added to the velocity.
        gravity: The pull of the hill, `-gravity * cos(3 * position)` added to the velocity.
    """

    max_steps: int = integer(1000, low=1)
    min_pos: float = real(-1.2, high="max_pos", high_open=True)
    max_pos: float = real(0.6, low="min_pos", low_open=True)
    max_speed: float = positive(0.07)
    goal_pos: float = real(0.5)
    force: float = real(0.001, low=0.0)
    gravity: float = real(0.0025)


def dynamics(state: MountainCarState, action: jax.Array, params: MountainCarParams) -> MountainCarState:
    """One step of bsuite's mountain-car physics.

    Args:
        state: The state.
        action: 0 (push left), 1 (no push) or 2 (push right); others are clipped to 0..2.
        params: The env's params.

    Returns:
        The next state, in `state`'s float dtype, its `time` unchanged (the caller counts
        steps).
    """
    dtype = state.position.dtype
    push = (jnp.clip(action, 0, 2) - 1).astype(dtype) * params.force
    velocity = state.velocity + push + jnp.cos(3 * state.position) * -params.gravity
    velocity = jnp.clip(velocity, -params.max_speed, params.max_speed)
    position = jnp.clip(state.position + velocity, params.min_pos, params.max_pos)
    velocity = jnp.where(position == params.min_pos, jnp.clip(velocity, 0, params.max_speed), velocity)
    return state.replace(position=position.astype(dtype), velocity=velocity.astype(dtype))


def observation(state: MountainCarState, params: MountainCarParams) -> jax.Array:
    """bsuite's observation of MountainCar.

    Args:
        state: The state.
        params: The env's params.

    Returns:
        A `float32[1, 3]` array: `[position, velocity, time / max_steps]`.
    """
    return jnp.stack(
        [
            state.position.astype(jnp.float32),
            state.velocity.astype(jnp.float32),
            jnp.asarray(state.time / params.max_steps, jnp.float32),
        ]
    )[None, :]


class MountainCar(Environment[MountainCarState, MountainCarParams]):
    """bsuite's MountainCar (see the module docstring).

    Args:
        max_steps: The episode's length limit in steps (it sets `default_params`).
    """

    def __init__(self, max_steps: int = 1000):
        self._max_steps = int(max_steps)

    @property
    def default_params(self) -> MountainCarParams:
        return MountainCarParams(max_steps=self._max_steps, bsuite_num_episodes=NUM_EPISODES)

    def observe(self, state, params):
        """bsuite's observation, `float32[1, 3]`: `[position, velocity, time / max_steps]`."""
        return observation(state, params)

    def is_terminal(self, state, params):
        """Whether the car reached `goal_pos` or `max_steps` passed (the `terminated` of the step into `state`)."""
        return (state.position >= params.goal_pos) | (state.time >= params.max_steps)

    def reset_env(self, key, params):
        position = jax.random.uniform(key, (), float_dtype(), minval=-0.6, maxval=-0.4)
        state = MountainCarState(
            time=jnp.zeros((), jnp.int32), position=position, velocity=jnp.zeros((), float_dtype())
        )
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        state = dynamics(state, action, params).replace(time=state.time + 1)
        return self.observe(state, params), state, -jnp.ones((), jnp.float32), self.is_terminal(state, params), {}

    @defaults_params
    def observation_space(self, params=None):
        low = np.array([[params.min_pos, -params.max_speed, 0.0]], np.float32)
        high = np.array([[params.max_pos, params.max_speed, 1.0]], np.float32)
        return spaces.Box(low, high, shape=(1, 3), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(3)

    @defaults_params
    def render(self, state, params=None, width: int = 480, height: int = 240):
        """A picture of `state`: the hill, the goal's flag and the car; jit-able.

        Args:
            state: The state to draw.
            params: The env's params; None means `default_params`.
            width: The image's width in pixels.
            height: The image's height in pixels.

        Returns:
            A `uint8[height, width, 3]` image.
        """
        scale = width / (params.max_pos - params.min_pos)

        def to_px(pos):
            return (pos - params.min_pos) * scale, height * 0.55 - jnp.sin(3 * pos) * height * 0.4

        px, py = to_px(jnp.linspace(params.min_pos, params.max_pos, 40, dtype=jnp.float32))
        img = r.canvas(height, width, _draw.BACKGROUND)
        img = r.polyline(img, list(px), list(py), 2.0, _draw.INK)
        flag_x, flag_y = to_px(jnp.float32(params.goal_pos))
        img = r.line(img, flag_x, flag_y, flag_x, flag_y - 30.0, 2.0, _draw.GOOD)
        car_x, car_y = to_px(state.position.astype(jnp.float32))
        return r.circle(img, car_x, car_y - 8.0, 8.0, _draw.WARN)
