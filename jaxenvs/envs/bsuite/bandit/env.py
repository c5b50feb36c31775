"""SimpleBandit: an 11-armed bandit with deterministic rewards 0, 0.1, ..., 1 in shuffled order.

Reference: bsuite `environments/bandit.py` (experiment `bandit`, 10,000 episodes). Each
episode is a single pull: the observation is always `ones((1, 1))`, the pull returns the
arm's reward and ends the episode.

The arms' order is bsuite's "action mapping", drawn when the env is built: `mapping_seed`
seeds numpy's `RandomState` exactly as bsuite does, so `SimpleBandit(mapping_seed=3)` has the
same reward per arm as bsuite's, and `mapping_seed=None` draws fresh entropy like bsuite. The
result lives in `params.rewards` (float32[num_actions]), so it can be inspected, replaced, or
vmapped over (`sample_rewards(key)` draws a random order inside JAX, for meta-RL).

Differs: bsuite's `total_regret` logging is not kept. Invalid action under jit: clipped to
the nearest arm.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams
from jaxenvs.params import array

NUM_EPISODES = 10_000  # bsuite experiments/bandit/sweep.py


@struct.dataclass
class SimpleBanditState(EnvState):
    """SimpleBandit's state: a bandit has no state beyond the step count."""


@struct.dataclass
class SimpleBanditParams(BsuiteParams):
    """SimpleBandit's params.

    Attributes:
        rewards: The reward of each arm, `float32[num_actions]` (bsuite's `_rewards`): the
            values `linspace(0, 1, num_actions)` in the order `mapping_seed` draws.
    """

    rewards: jax.Array | None = array(shape=("num_arms",))


def arm_rewards(num_actions: int, mapping_seed: int | None) -> np.ndarray:
    """bsuite's arm rewards: `linspace(0, 1, num_actions)` permuted by `RandomState(mapping_seed)`.

    Args:
        num_actions: The number of arms.
        mapping_seed: The seed of numpy's `RandomState`, as bsuite's; None draws fresh entropy.

    Returns:
        A `float32[num_actions]` numpy array, the reward of each arm.
    """
    rng = np.random.RandomState(mapping_seed)
    order = rng.choice(num_actions, size=num_actions, replace=False)
    return np.linspace(0.0, 1.0, num_actions)[order].astype(np.float32)


def sample_rewards(key: jax.Array, num_actions: int = 11) -> jax.Array:
    """Arm rewards in a uniformly random order drawn inside JAX (for vmapping over bandits).

    Args:
        key: A JAX PRNG key.
        num_actions: The number of arms (static).

    Returns:
        A `float32[num_actions]` array: `linspace(0, 1, num_actions)` permuted, for
        `params.rewards`.
    """
    return jnp.linspace(0.0, 1.0, num_actions, dtype=jnp.float32)[jax.random.permutation(key, num_actions)]


def observation() -> jax.Array:
    """bsuite's bandit observation, the same at every step.

    Returns:
        `ones((1, 1))`, float32.
    """
    return jnp.ones((1, 1), jnp.float32)


class SimpleBandit(Environment[SimpleBanditState, SimpleBanditParams]):
    """bsuite's SimpleBandit (see the module docstring).

    Args:
        mapping_seed: The seed of the arms' order (bsuite's `mapping_seed`); None draws fresh
            entropy.
        num_actions: The number of arms (bsuite's `num_actions`, 11 in its experiment).
    """

    reset_ignores_key = True  # every episode starts alike

    def __init__(self, mapping_seed: int | None = None, num_actions: int = 11):
        self.num_arms = int(num_actions)
        self._rewards = arm_rewards(self.num_arms, mapping_seed)

    @property
    def default_params(self) -> SimpleBanditParams:
        return SimpleBanditParams(rewards=jnp.asarray(self._rewards), bsuite_num_episodes=NUM_EPISODES)

    def observe(self, state, params):
        """bsuite's bandit observation, `ones((1, 1))` in every state."""
        return observation()

    def is_terminal(self, state, params):
        """Whether the arm has been pulled (every episode is one pull)."""
        return state.time >= 1

    def reset_env(self, key, params):
        state = SimpleBanditState(time=jnp.zeros((), jnp.int32))
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        reward = params.rewards[jnp.clip(action, 0, self.num_arms - 1)]
        state = state.replace(time=state.time + 1)
        return self.observe(state, params), state, reward, jnp.asarray(True), {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(0.0, 1.0, shape=(1, 1), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(self.num_arms)

    @defaults_params
    def render(self, state, params=None):
        return _draw.bars(params.rewards, 0.0, 1.0)
