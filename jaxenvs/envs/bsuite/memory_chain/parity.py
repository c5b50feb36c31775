"""MemoryChain against bsuite's: per step, the context and query at reset by distribution, the
same with three bits (memory_size's setting), random-policy statistics."""

from jaxenvs import parity as p
from jaxenvs.envs.bsuite import _parity as b
from jaxenvs.envs.bsuite.memory_chain import MemoryChain
from jaxenvs.parity import Check
from jaxenvs.parity.stats import rows

THREE_BITS = {"memory_length": 2, "num_bits": 3}


def _context_and_query(states: dict, obs: object) -> list[tuple]:
    return rows(states["context"], states["query"])


def _three_bits(ctx: p.Context) -> list[Check]:
    """Several bits: the context bits and the query at reset, and per step."""
    env = MemoryChain(**THREE_BITS)
    return p.chain(
        p.resets(outcome=_context_and_query, discrete=True, label="reset context and query (3 bits)"),
        p.transitions("atol", 0.0, at_one=500, label="3-bit step", reward_atol=1e-6),
    )(ctx.with_env(env, env.default_params, b._ref_memory_chain(THREE_BITS)))


SPEC = b.spec(
    b._ref_memory_chain,
    b.STEP,
    p.resets(outcome=_context_and_query, discrete=True, label="reset context and query"),
    _three_bits,
    longest=lambda ctx: b.settings(ctx.env_id)["memory_length"] + 1,
)
