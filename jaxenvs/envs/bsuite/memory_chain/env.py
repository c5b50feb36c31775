"""MemoryChain: remember the context shown at the start and repeat the queried bit at the end.

Reference: bsuite `environments/memory_chain.py` (experiments `memory_len`, memory length
1..100 with 1 bit, and `memory_size`, 1..40 bits with memory length 2; 10,000 episodes). At
reset a context of `num_bits` fair bits and a query (one of the bits) are drawn. The
observation is bsuite's float32 `(1, num_bits + 2)`: `[1 - t / memory_length, query (only at
t = memory_length - 1), 2 * context - 1 (only at t = 0)]`. Episodes last `memory_length + 1`
steps; the last action earns +1 if it equals the queried bit, else -1; every other step 0.

As in bsuite, a step returns the observation of the time *before* the step (bsuite computes
it before advancing its clock), so the context is seen at reset and again after the first
step, and the query after step `memory_length`.

Invalid action under jit: any action other than the queried bit is wrong (-1), as in bsuite.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import Environment, EnvState, defaults_params
from jaxenvs.envs.bsuite import _draw
from jaxenvs.envs.bsuite._common import BsuiteParams
from jaxenvs.params import integer

NUM_EPISODES = 10_000  # bsuite experiments/memory_len/sweep.py (and memory_size)


@struct.dataclass
class MemoryChainState(EnvState):
    """The state of MemoryChain (bsuite's `_context`, `_query`; `time` is its `_timestep`).

    Attributes:
        context: The bits to remember, `int32[num_bits]` of 0s and 1s.
        query: Which bit is asked for at the end (int32 scalar, 0..num_bits - 1).
    """

    context: jax.Array
    query: jax.Array


@struct.dataclass
class MemoryChainParams(BsuiteParams):
    """MemoryChain's params.

    Attributes:
        memory_length: The number of steps between the context and the query (bsuite's
            `memory_length`); an episode lasts `memory_length + 1` steps.
    """

    memory_length: int = integer(5, low=1)


def observation(state: MemoryChainState, params: MemoryChainParams) -> jax.Array:
    """bsuite's observation at `state.time`: time left, the query at the end, the context at 0.

    Args:
        state: The state.
        params: The env's params.

    Returns:
        A `float32[1, num_bits + 2]` array: `[1 - t / memory_length, query (only at t =
        memory_length - 1, else 0), 2 * context - 1 (only at t = 0, else 0)]`.
    """
    t = state.time
    time_left = (params.memory_length - t) / params.memory_length  # 1 - t / L, one rounding
    query = jnp.where(t == params.memory_length - 1, state.query, 0).astype(jnp.float32)
    context = jnp.where(t == 0, 2 * state.context - 1, 0).astype(jnp.float32)
    head = jnp.stack([jnp.asarray(time_left, jnp.float32), query])
    return jnp.concatenate([head, context])[None, :]


def draw_context(key: jax.Array, num_bits: int) -> tuple[jax.Array, jax.Array]:
    """A context of `num_bits` fair bits and a uniform query, from one draw of random words.

    Args:
        key: A JAX PRNG key.
        num_bits: The context's length (static).

    Returns:
        `(context, query)`: `int32[num_bits]` of 0s and 1s, and an int32 scalar in
        `0..num_bits - 1` (a 32-bit word modulo `num_bits`: a bias below 1e-8 for up to 50
        bits).
    """
    words = (num_bits + 31) // 32
    raw = jax.random.bits(key, (words + 1,), jnp.uint32)
    shifts = jnp.arange(32, dtype=jnp.uint32)
    bits = ((raw[:words, None] >> shifts[None, :]) & jnp.uint32(1)).reshape(-1)[:num_bits]
    # modulo of a 32-bit word: a bias below 1e-8 for bsuite's at most 50 bits
    query = (raw[words] % jnp.uint32(num_bits)).astype(jnp.int32)
    return bits.astype(jnp.int32), query


class MemoryChain(Environment[MemoryChainState, MemoryChainParams]):
    """bsuite's MemoryChain (see the module docstring).

    Args:
        memory_length: The number of steps between the context and the query (bsuite's
            `memory_length`; it sets `default_params`).
        num_bits: The context's length (bsuite's `num_bits`; fixes the observation's shape).
    """

    def __init__(self, memory_length: int = 5, num_bits: int = 1):
        self.num_bits = int(num_bits)
        self._memory_length = int(memory_length)

    @property
    def default_params(self) -> MemoryChainParams:
        return MemoryChainParams(memory_length=self._memory_length, bsuite_num_episodes=NUM_EPISODES)

    def observe(self, state, params):
        """bsuite's observation of `state`: `observation` at the step before (at 0 for time 0)."""
        # bsuite observes before advancing the clock: the step into time t shows time t - 1's
        # observation, so times 0 and 1 both show the context
        return observation(state.replace(time=jnp.maximum(state.time - 1, 0)), params)

    def is_terminal(self, state, params):
        """Whether the query has been answered (the `terminated` of the step into `state`)."""
        return state.time - 1 >= params.memory_length

    def reset_env(self, key, params):
        context, query = draw_context(key, self.num_bits)
        state = MemoryChainState(time=jnp.zeros((), jnp.int32), context=context, query=query)
        return self.observe(state, params), state

    def step_env(self, key, state, action, params):
        state = state.replace(time=state.time + 1)
        obs = self.observe(state, params)
        terminated = self.is_terminal(state, params)
        correct = action == state.context[state.query]
        reward = jnp.where(terminated, jnp.where(correct, 1.0, -1.0), 0.0)
        return obs, state, reward, terminated, {}

    @defaults_params
    def observation_space(self, params=None):
        # bsuite's spec declares no bounds. The query's are [0, num_bits - 1], except that with one
        # bit (bsuite's memory_len experiments) the query is always 0: [0, 1] then, so that no
        # column has equal bounds (gymnasium's checker warns, and a normalizer would divide by 0)
        low = [[0.0, 0.0] + [-1.0] * self.num_bits]
        high = [[1.0, float(max(self.num_bits - 1, 1))] + [1.0] * self.num_bits]
        return spaces.Box(low, high, shape=(1, self.num_bits + 2), dtype=jnp.float32)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(2)

    @defaults_params
    def render(self, state, params=None):
        shown = observation(state, params)[0]
        return _draw.bars(shown, -1.0, max(1.0, float(self.num_bits - 1)))
