"""On a GPU or TPU a batched step has no data-dependent control flow of the library's own.

XLA's GPU runtime decides each `cond` and `while` on the host, waiting for the device every
step. The batched step (`make_vec`, and `jax.vmap` over `make`) is lowered here for `"cuda"`
without a GPU (lowering only, no compile) and its `stablehlo.case`/`stablehlo.while` ops are
counted against the raw env's own step and reset lowered alone (a library's generator may
loop: jumanji's Connector draws its grid in `while` loops). A `case` whose index is a constant (how
`jax.lax.platform_dependent` lowers) is decided at compile time and does not count.
"""

from __future__ import annotations

import jax
import pytest
from jax._src.interpreters import mlir

import jaxenvs
from jaxenvs.registry import BUILT_IN_FAMILIES, registered_envs, spec

BATCH = 64


def data_dependent_control_flow(lowered) -> int:
    """The number of `while` ops and of `case` ops with a non-constant index in `lowered`."""
    count = 0

    def walk(op):
        nonlocal count
        name = op.operation.name
        if name == "stablehlo.while":
            count += 1
        elif name == "stablehlo.case" and len(op.regions) > 1:
            index = op.operation.operands[0]
            owner = index.owner if isinstance(index, mlir.ir.OpResult) else None
            if owner is None or owner.name != "stablehlo.constant":
                count += 1
        for region in op.operation.regions:
            for block in region:
                for child in block:
                    walk(child)

    for op in lowered.compiler_ir("stablehlo").body.operations:
        walk(op)
    return count


def _lowered(fn, *args, platform="cuda"):
    return jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,))


def _one_id_per_entry_point() -> list[str]:
    """One built-in id per entry point and per setting of its constructor (static params)."""
    seen, ids = set(), []
    for env_id in registered_envs():
        s = spec(env_id)
        if s.family not in BUILT_IN_FAMILIES or s.notes:
            continue
        variant = (str(s.entry_point), repr(sorted(s.env_kwargs.items())))
        if variant not in seen and "/" not in env_id:
            seen.add(variant)
            ids.append(env_id)
    return ids


IDS = _one_id_per_entry_point()


def test_the_sample_covers_every_built_in_entry_point():
    entry_points = {str(spec(i).entry_point) for i in IDS}
    assert len(IDS) >= 30 and len(entry_points) >= 28


def _counts(env_id, platform="cuda"):
    venv, params = jaxenvs.make_vec(env_id, BATCH)
    key = jax.random.key(0)
    _, state = venv.reset(key, params)
    actions = venv.sample_actions(key, params)
    vec = data_dependent_control_flow(_lowered(venv.step, key, state, actions, params, platform=platform))
    env, _ = jaxenvs.make(env_id)
    keys = jax.random.split(key, BATCH)
    vmapped = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    vmap = data_dependent_control_flow(_lowered(vmapped, keys, state, actions, params, platform=platform))
    raw = 0
    if vec or vmap or platform != "cuda":  # the raw env's own control flow, which the batch may keep
        raw_env = env.unwrapped
        raw_step = jax.vmap(raw_env.step, in_axes=(0, 0, 0, None))
        raw_reset = jax.vmap(raw_env.reset, in_axes=(0, None))
        raw = data_dependent_control_flow(_lowered(raw_step, keys, state, actions, params, platform=platform))
        raw += data_dependent_control_flow(_lowered(raw_reset, keys, params, platform=platform))
    return vec, vmap, raw


@pytest.mark.parametrize("env_id", IDS)
def test_the_batched_step_lowered_for_a_gpu_waits_on_nothing(env_id, mnist_data_dir):
    vec, vmap, raw = _counts(env_id)
    assert vec <= raw and vmap <= raw, f"{env_id}: make_vec {vec}, vmap {vmap}, the raw step and reset {raw}"


def test_the_counter_sees_the_cpu_strategy():
    """The same step lowered for the CPU keeps its `cond` and capacity `while` (the CPU's
    choice): the count above is not blind to them."""
    vec, vmap, raw = _counts("CartPole-v1", platform="cpu")
    assert vec >= raw + 2 and vmap >= raw + 2  # a `cond` and a `while` of ours each


@pytest.mark.parametrize("family", ["pgx", pytest.param("jumanji", marks=pytest.mark.slow)])
def test_an_adapted_family_lowered_for_a_gpu_waits_on_nothing_of_ours(family):
    """One representative id of an adapted family: the batched step adds no control flow to
    what its library's own step and reset hold (brax's, lowered once by hand, holds none:
    docs/batching.md)."""
    from jaxenvs.registry import availability, representatives

    env_id = next(iter(representatives(family)), None)
    if env_id is None or not availability(env_id).runnable:
        pytest.skip(f"no {family} id runs here")
    vec, vmap, raw = _counts(env_id)
    assert vec <= raw and vmap <= raw, f"{env_id}: make_vec {vec}, vmap {vmap}, the raw step and reset {raw}"
