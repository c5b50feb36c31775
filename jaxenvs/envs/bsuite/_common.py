"""What every bsuite env here shares: its params base and a cheap source of fair coins.

bsuite's environments end their episodes themselves (catch when the ball lands, cartpole
after `max_time`, mountain car after `max_steps`, ...), so the time limit every jaxenvs env
carries, `max_steps_in_episode`, is set far above any of their episode lengths and never
binds at bsuite's settings. `bsuite_num_episodes` is the number of episodes bsuite's
experiment runs and reports (`sweep.NUM_EPISODES`); it is metadata, static, and not used by
the dynamics.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.environment import EnvParams
from jaxenvs.params import integer

# Longer than any bsuite episode at bsuite's settings (cartpole's 1001 steps is the longest).
GENEROUS_TIME_LIMIT = 10_000


@struct.dataclass
class BsuiteParams(EnvParams):
    """The params every bsuite env has.

    Attributes:
        max_steps_in_episode: jaxenvs' time limit, 10,000 steps: above every bsuite episode at
            bsuite's settings, so bsuite's own episode ends are the only ones.
        bsuite_num_episodes: The number of episodes bsuite's experiment runs (its
            `bsuite_num_episodes`), set per env and per sweep id; static metadata, unused by the
            dynamics.
    """

    max_steps_in_episode: int = GENEROUS_TIME_LIMIT
    bsuite_num_episodes: int = integer(10_000, low=1, static=True)


def coin_flips(key: jax.Array, n: int) -> jax.Array:
    """Independent fair coins from ceil(n / 32) random words.

    One draw of 32 coins per word, where `jax.random.bernoulli` would draw one float per coin.
    """
    words = jax.random.bits(key, ((n + 31) // 32,), jnp.uint32)
    shifts = jnp.arange(32, dtype=jnp.uint32)
    bits = (words[:, None] >> shifts[None, :]) & jnp.uint32(1)
    return bits.reshape(-1)[:n].astype(jnp.int32)
