"""Throughput harness: jitted, vmapped rollouts timed on this machine.

`rollout_throughput(env_id, num_envs, num_steps)` times a `lax.scan` of the batched env
(`make_vec`) with random actions, compile excluded, and returns steps/s. The side-by-side
comparisons against gymnax, gymnasium and envpool live in `benchmarks/`.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Any

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Throughput:
    env_id: str
    num_envs: int
    num_steps: int
    steps_per_second: float  # median over repeats
    compile_seconds: float
    repeats: int


def _random_rollout(venv: Any, params: Any, num_steps: int):
    """A jitted function `key -> (total reward, final state)` running `num_steps` batched steps.

    The final state is returned so that XLA cannot drop the dynamics as dead code."""
    def rollout(key):
        k_reset, k_run = jax.random.split(key)
        obs, state = venv.reset(k_reset, params)

        def body(carry, k):
            state, total = carry
            k_act, k_step = jax.random.split(k)
            actions = venv.sample_actions(k_act, params)
            _, state, reward, _, _, _ = venv.step(k_step, state, actions, params)
            return (state, total + jnp.sum(reward)), None

        (state, total), _ = jax.lax.scan(body, (state, jnp.zeros(())), jax.random.split(k_run, num_steps))
        return total, state

    return jax.jit(rollout)


def rollout_throughput(
    env_id: str, num_envs: int = 1024, num_steps: int = 100, repeats: int = 5, **overrides: Any
) -> Throughput:
    """Median steps/s of a jitted random-action rollout of `make_vec(env_id, num_envs)`."""
    from jaxenvs.registry import make_vec

    venv, params = make_vec(env_id, num_envs, **overrides)
    fn = _random_rollout(venv, params, num_steps)
    t0 = time.perf_counter()
    jax.block_until_ready(fn(jax.random.key(0)))
    compile_seconds = time.perf_counter() - t0
    times = []
    for i in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(jax.random.key(i + 1)))
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    return Throughput(env_id, num_envs, num_steps, num_envs * num_steps / median, compile_seconds, repeats)
