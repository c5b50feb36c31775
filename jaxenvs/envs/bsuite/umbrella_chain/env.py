"""UmbrellaChain: only the first action (take the umbrella or not) decides the final reward,
while every step in between pays a random +1 or -1.

Reference: bsuite `environments/umbrella_chain.py` (experiments `umbrella_length`, chain
length 1..100 with 20 distractors, and `umbrella_distract`, 1..100 distractors with chain
length 20; 10,000 episodes). At reset "need umbrella" and "have umbrella" are fair coins. The
first action sets "have umbrella". Episodes last `chain_length` steps; the last step pays +1
if have == need, else -1; every other step pays a fair +1 or -1. The observation is bsuite's
float32 `(1, 3 + n_distractor)`: `[need, have, 1 - t / chain_length, n_distractor fresh fair
bits]`.

Invalid action under jit: the first action is clipped to 0..1.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams, coin_flips
from jaxenvs.params import integer

NUM_EPISODES = 10_000  # bsuite experiments/umbrella_length/sweep.py (and umbrella_distract)


@struct.dataclass
class UmbrellaChainState(EnvState):
    """The state of UmbrellaChain (bsuite's `_need_umbrella`, `_has_umbrella`).

    Attributes:
        need_umbrella: Whether it will rain (int32 scalar, 0 or 1), a fair coin at reset.
        has_umbrella: Whether the agent took the umbrella (int32 scalar, 0 or 1): a fair coin
            at reset, then set by the first action.
    """

    need_umbrella: jax.Array
    has_umbrella: jax.Array


@struct.dataclass
class UmbrellaChainParams(BsuiteParams):
    """UmbrellaChain's params.

    Attributes:
        chain_length: Steps per episode (bsuite's `chain_length`); the reward that counts comes
            at the last.
    """

    chain_length: int = integer(20, low=1)


def observation(state: UmbrellaChainState, distractors: jax.Array, params: UmbrellaChainParams) -> jax.Array:
    """bsuite's observation of UmbrellaChain.

    Args:
        state: The state.
        distractors: The fresh distractor bits, `int32[n_distractor]` of 0s and 1s.
        params: The env's params.

    Returns:
        A `float32[1, 3 + n_distractor]` array: `[need, have, 1 - t / chain_length,
        distractors]`.
    """
    time_left = (params.chain_length - state.time) / params.chain_length  # 1 - t / L, one rounding
    head = jnp.stack([state.need_umbrella, state.has_umbrella]).astype(jnp.float32)
    body = jnp.concatenate([head, jnp.asarray(time_left, jnp.float32)[None], distractors.astype(jnp.float32)])
    return body[None, :]


class UmbrellaChain(Environment[UmbrellaChainState, UmbrellaChainParams]):
    """bsuite's UmbrellaChain (see the module docstring).

    Args:
        chain_length: Steps per episode (bsuite's `chain_length`; it sets `default_params`).
        n_distractor: The number of random bits in each observation (bsuite's
            `n_distractor`; fixes the observation's shape).
    """

    def __init__(self, chain_length: int = 20, n_distractor: int = 0):
        self.n_distractor = int(n_distractor)
        self._chain_length = int(chain_length)

    @property
    def default_params(self) -> UmbrellaChainParams:
        return UmbrellaChainParams(chain_length=self._chain_length, bsuite_num_episodes=NUM_EPISODES)

    # no `observe`: the observation's distractor bits are drawn afresh in each step, not held
    # in the state (which the fingerprints and the gymnax export pin); a start state draws them
    # from its key, as the reset does

    def start_observation(self, key, state, params):
        """The first observation at `state`, its distractor bits drawn from `key` as `reset` draws them."""
        return observation(state, coin_flips(key, self.n_distractor + 2)[2:], params)

    def is_terminal(self, state, params):
        """Whether the chain's `chain_length` steps are done (the `terminated` of the step into `state`)."""
        return state.time == params.chain_length

    def reset_env(self, key, params):
        coins = coin_flips(key, self.n_distractor + 2)
        state = UmbrellaChainState(time=jnp.zeros((), jnp.int32), need_umbrella=coins[0], has_umbrella=coins[1])
        return observation(state, coins[2:], params), state

    def step_env(self, key, state, action, params):
        coins = coin_flips(key, self.n_distractor + 1)
        time = state.time + 1
        has = jnp.where(time == 1, jnp.clip(action, 0, 1), state.has_umbrella).astype(jnp.int32)
        state = state.replace(time=time, has_umbrella=has)
        terminated = self.is_terminal(state, params)
        final = jnp.where(state.has_umbrella == state.need_umbrella, 1.0, -1.0)
        reward = jnp.where(terminated, final, 2.0 * coins[0] - 1.0)
        return observation(state, coins[1:], params), state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        return spaces.Box(0.0, 1.0, shape=(1, 3 + self.n_distractor), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(2)

    @defaults_params
    def render(self, state, params=None):
        shown = observation(state, jnp.zeros((0,), jnp.int32), params)[0]
        colors = jnp.asarray([_draw.WARN, _draw.GOOD, _draw.ACCENT], jnp.uint8)
        return _draw.bars(shown, 0.0, 1.0, colors=colors)
