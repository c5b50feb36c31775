"""DiscountingChain: the first action picks a chain whose single +1 reward comes after 1, 3,
10, 30 or 100 steps; one chain (set by `mapping_seed`) pays 1.1 instead.

Reference: bsuite `environments/discounting_chain.py` (experiment `discounting_chain`, 1,000
episodes). Episodes last 100 steps. The observation is bsuite's float32 `(1, 2)`:
`[context, t / 100]`, where the context is -1 before the first action and the chosen chain
after it. Only the first action matters.

Bonus chain: `mapping_seed % 5` as in bsuite; `mapping_seed=None` draws it from numpy's global
generator like bsuite. It lives in `params.rewards` (float32[5], the reward each chain pays).

Invalid action under jit: the first action is clipped to 0..4.
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
from jaxenvs.params import array, integer

NUM_EPISODES = 1_000  # bsuite experiments/discounting_chain/sweep.py
REWARD_TIMESTEP = (1, 3, 10, 30, 100)  # when each chain pays its reward
NUM_ACTIONS = len(REWARD_TIMESTEP)


@struct.dataclass
class DiscountingChainState(EnvState):
    """The state of DiscountingChain (bsuite's `_context`; `time` is its `_timestep`).

    Attributes:
        context: The chain chosen by the first action (int32 scalar, 0..4); -1 before it.
    """

    context: jax.Array


@struct.dataclass
class DiscountingChainParams(BsuiteParams):
    """DiscountingChain's params.

    Attributes:
        rewards: What each chain pays, `float32[5]` (bsuite's `_rewards`): 1, and 1.1 for the
            bonus chain.
        episode_len: The episode's length in steps (bsuite's `_episode_len`).
    """

    rewards: jax.Array | None = array(shape=(5,))
    episode_len: int = integer(100, low=1)


def chain_rewards(mapping_seed: int | None) -> np.ndarray:
    """bsuite's chain rewards: 1 for each chain, 1.1 for chain `mapping_seed % 5`.

    Args:
        mapping_seed: Picks the bonus chain; None draws it from numpy's global generator, as
            bsuite does.

    Returns:
        A `float32[5]` numpy array.
    """
    bonus = np.random.randint(0, NUM_ACTIONS) if mapping_seed is None else mapping_seed % NUM_ACTIONS
    rewards = np.ones(NUM_ACTIONS, np.float32)
    rewards[bonus] += np.float32(0.1)
    return rewards


def observation(state: DiscountingChainState, params: DiscountingChainParams) -> jax.Array:
    """bsuite's observation of DiscountingChain.

    Args:
        state: The state.
        params: The env's params.

    Returns:
        A `float32[1, 2]` array: `[context, time / episode_len]`.
    """
    return (
        jnp.stack([state.context.astype(jnp.float32), state.time / params.episode_len])
        .astype(jnp.float32)
        .reshape(1, 2)
    )


class DiscountingChain(Environment[DiscountingChainState, DiscountingChainParams]):
    """bsuite's DiscountingChain (see the module docstring).

    Args:
        mapping_seed: Picks the bonus chain, `mapping_seed % 5` (bsuite's `mapping_seed`; 0 to
            4 in its sweep); None draws it from numpy's global generator.
    """

    reset_ignores_key = True  # every episode starts alike

    def __init__(self, mapping_seed: int | None = None):
        self._rewards = chain_rewards(mapping_seed)

    @property
    def default_params(self) -> DiscountingChainParams:
        return DiscountingChainParams(rewards=jnp.asarray(self._rewards), bsuite_num_episodes=NUM_EPISODES)

    def observe(self, state, params):
        """bsuite's observation, `float32[1, 2]`: `[context, time / episode_len]`."""
        return observation(state, params)

    def is_terminal(self, state, params):
        """Whether the episode's `episode_len` steps are done (the `terminated` of the step into `state`)."""
        return state.time == params.episode_len

    def reset_env(self, key, params):
        state = DiscountingChainState(time=jnp.zeros((), jnp.int32), context=jnp.asarray(-1, jnp.int32))
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        context = jnp.where(state.time == 0, jnp.clip(action, 0, NUM_ACTIONS - 1), state.context)
        state = state.replace(context=context.astype(jnp.int32), time=state.time + 1)
        chain = jnp.maximum(state.context, 0)
        paid_now = state.time == jnp.asarray(REWARD_TIMESTEP, jnp.int32)[chain]
        reward = jnp.where(paid_now, params.rewards[chain], 0.0)
        return self.observe(state, params), state, reward, self.is_terminal(state, params), {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(low=[[-1.0, 0.0]], high=[[NUM_ACTIONS - 1.0, 1.0]], shape=(1, 2), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(NUM_ACTIONS)

    @defaults_params
    def render(self, state, params=None):
        chosen = jnp.arange(NUM_ACTIONS) == state.context
        colors = jnp.where(chosen[:, None], jnp.asarray(_draw.GOOD), jnp.asarray(_draw.ACCENT))
        return _draw.bars(params.rewards, 0.0, 1.2, colors=colors)
