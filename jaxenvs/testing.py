"""`check_env(env, params)`: the conformance checker every env and adapter passes.

Users can run it on their own environments; it raises `AssertionError` saying what failed.
"""

from __future__ import annotations

from typing import Any

import chex
import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization

from jaxenvs import spaces
from jaxenvs.environment import resolve_params
from jaxenvs.wrappers.absorbing import Absorbing
from jaxenvs.wrappers.base import find_wrapper


def _tree_equal(a: Any, b: Any) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    if jax.tree_util.tree_structure(a) != jax.tree_util.tree_structure(b):
        return False
    return all(
        np.asarray(x).shape == np.asarray(y).shape and np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)
        for x, y in zip(la, lb)
    )


# float leaves of a vmapped batch may round differently from the single env (XLA vectorises
# the batched kernels; brax's ant differs by ~3e-8); integers and booleans must match exactly
_VMAP_RTOL = _VMAP_ATOL = 1e-5


def _assert_batch_matches(batched: Any, single: Any, message: str) -> None:
    """Raise `AssertionError(message)` unless the two trees agree: same structure and shapes,
    float leaves within `_VMAP_RTOL`/`_VMAP_ATOL`, other leaves equal."""
    assert jax.tree_util.tree_structure(batched) == jax.tree_util.tree_structure(single), (
        f"{message}: the tree structures differ"
    )
    for a, b in zip(jax.tree_util.tree_leaves(batched), jax.tree_util.tree_leaves(single)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, f"{message}: shapes {a.shape} vs {b.shape}"
        if np.issubdtype(a.dtype, np.floating):
            np.testing.assert_allclose(a, b, rtol=_VMAP_RTOL, atol=_VMAP_ATOL, err_msg=message)
        else:
            assert np.array_equal(a, b), message


def _structure(tree: Any) -> Any:
    return jax.tree_util.tree_map(lambda x: (jnp.shape(x), jnp.asarray(x).dtype), tree)


def _check_obs(space: spaces.Space, obs: Any, where: str) -> None:
    assert bool(space.contains(obs)), f"{where}: observation {obs!r} is not in {space!r}"
    if isinstance(space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete)):
        assert jnp.asarray(obs).dtype == space.dtype, (
            f"{where}: observation dtype {jnp.asarray(obs).dtype} differs from the space's {space.dtype}"
        )


def _check_absorbing(random_step, key, state, obs, terminated, truncated, where) -> None:
    """A step from a finished state (no auto-reset) changes nothing and pays nothing."""
    out = random_step(key, state)[0]
    assert _tree_equal((out[0], out[1]), (obs, state)), (
        f"{where}: a step past the end of the episode changed the state or observation (it must absorb)"
    )
    assert float(out[2]) == 0.0, f"{where}: a step past the end of the episode paid reward {float(out[2])}, not 0"
    assert (bool(out[3]), bool(out[4])) == (bool(terminated), bool(truncated)), (
        f"{where}: past the end of the episode the flags must stay (terminated, truncated) = "
        f"{(bool(terminated), bool(truncated))}, got {(bool(out[3]), bool(out[4]))}"
    )


def check_env(
    env: Any,
    params: Any = None,
    num_steps: int = 200,
    num_envs: int = 4,
    seed: int = 0,
    check_render: bool = False,
) -> None:
    """Check `env` (raw or wrapped) against the jaxenvs interface; raise on the first failure.

    Under `jit` and `vmap`: reset and step run; observations lie in the observation space with
    its dtype; rewards are float32 scalars, flags booleans; `info` has the same keys and shapes
    at every step (terminal or not) and always `discount`; a fixed key gives the same result
    twice; the step compiles once for repeated calls; a state survives `flax.serialization`
    unchanged; a vmapped batch (reset and step) matches the single env, floats to 1e-5 (batched
    kernels round differently), integers and booleans exactly. For an env (raw, or under
    wrappers that keep its states) that defines `observe` and `is_terminal`: every observation is
    `observe` of its state, every `terminated` is `is_terminal` of the state stepped into, and
    under `Absorbing` (`make(id, autoreset=False)`) a step past the end of an episode changes
    nothing (same state and observation, reward 0, the same flags). An env that declares
    `reset_ignores_key` resets alike from two keys.

    Args:
        env: The env to check.
        params: Its params; `env.default_params` by default.
        num_steps: Steps of the random rollout.
        num_envs: The batch size of the vmap check; 0 skips it.
        seed: The seed of the keys.
        check_render: Also check that `render` gives a `uint8[H, W, 3]` image.

    Raises:
        AssertionError: On the first check that fails, saying what failed.
        ValueError: `num_envs` is 1 or negative.
    """
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 0 or num_envs == 1:
        raise ValueError(f"check_env: num_envs must be 0 (no vmap check) or at least 2, got {num_envs!r}")
    params = resolve_params(env, params)
    chex.clear_trace_counter()
    key = jax.random.key(seed)
    obs_space = env.observation_space(params)
    act_space = env.action_space(params)
    name = getattr(env, "name", type(env).__name__)

    # a raw env (or one under wrappers that keep its states) that says what a state's observation
    # is and whether it is terminal: computed inside the compiled reset and step, no program more
    observes = env.observe is not None and env.is_terminal is not None
    absorbs = find_wrapper(env, Absorbing) is not None

    def observed(state):
        return (env.observe(state, params), env.is_terminal(state, params)) if observes else None

    # reset: jit, space, determinism
    def observed_reset(key):
        obs, state = env.reset(key, params)
        return (obs, state), observed(state)

    compiled_reset = jax.jit(observed_reset)

    def reset(key):
        return compiled_reset(key)[0]

    (obs, state), seen = compiled_reset(key)
    _check_obs(obs_space, obs, f"{name}.reset")
    obs2, state2 = reset(key)
    assert _tree_equal((obs, state), (obs2, state2)), f"{name}.reset is not deterministic for a fixed key"
    if env.reset_ignores_key:
        assert _tree_equal((obs, state), reset(jax.random.key(seed + 7))), (
            f"{name} declares reset_ignores_key, but two keys reset it differently"
        )
    assert bool(act_space.contains(act_space.sample(key))), f"{name}: a sampled action is not in {act_space!r}"
    if observes:
        _assert_batch_matches(seen[0], obs, f"{name}.reset: the observation is not observe(state)")

    # step: jit compiles once across calls (so the state keeps its structure, dtypes and weak
    # types from step to step, as a lax.scan carry must); types; stable info. The action is
    # drawn from the key, so one compiled program serves every check below.
    traced = chex.assert_max_traces(env.step, n=1)

    def sampled_step(key, state):
        k_act, k_step = jax.random.split(key)
        out = traced(k_step, state, act_space.sample(k_act), params)
        return out, obs_space.contains(out[0]), observed(out[1])

    random_step = jax.jit(sampled_step)

    keys = jax.random.split(jax.random.key(seed + 1), num_steps)
    info_structure = None
    ended = None  # the first finished step of a raw env: stepped again below
    for i in range(num_steps):
        (obs, state, reward, terminated, truncated, info), obs_ok, seen = random_step(keys[i], state)
        where = f"{name}.step (step {i})"
        assert bool(obs_ok), f"{where}: observation {obs!r} is not in {obs_space!r}"
        if i == 0:
            _check_obs(obs_space, obs, where)
        assert jnp.shape(reward) == () and jnp.asarray(reward).dtype == jnp.float32, (
            f"{where}: reward must be a float32 scalar, got {jnp.asarray(reward).dtype}{jnp.shape(reward)}"
        )
        for flag_name, flag in (("terminated", terminated), ("truncated", truncated)):
            assert jnp.shape(flag) == () and jnp.asarray(flag).dtype == jnp.bool_, (
                f"{where}: {flag_name} must be a bool scalar, got {jnp.asarray(flag).dtype}{jnp.shape(flag)}"
            )
        assert isinstance(info, dict) and "discount" in info, f"{where}: info lacks 'discount'"
        expected = 1.0 - float(terminated)
        assert float(info["discount"]) == expected, f"{where}: info['discount'] must be 1 - terminated"
        if info_structure is None:
            info_structure = _structure(info)
        else:
            assert _structure(info) == info_structure, (
                f"{where}: info keys or shapes changed: {info_structure} -> {_structure(info)}"
            )
        if observes:
            observation, is_terminal = seen
            _assert_batch_matches(observation, obs, f"{where}: the observation is not observe(state)")
            assert bool(is_terminal) == bool(terminated), (
                f"{where}: terminated={bool(terminated)} but is_terminal(state)={bool(is_terminal)}"
            )
        if (bool(terminated) or bool(truncated)) and "final_observation" not in info:
            if observes and absorbs and ended is None:
                ended = (keys[i], state, obs, terminated, truncated, where)
            obs, state = reset(keys[i])
    chex.clear_trace_counter()

    # determinism of step
    k_step = jax.random.key(seed + 2)
    out1 = random_step(k_step, state)[0]
    out2 = random_step(k_step, state)[0]
    assert _tree_equal(out1, out2), f"{name}.step is not deterministic for a fixed key"

    # past the end of an episode, an env under `Absorbing` with `is_terminal` and `observe` absorbs
    if ended is not None:
        k, s, o, te, tr, where = ended
        _check_absorbing(random_step, k, s, o, te, tr, where)

    # serialization round trip
    restored = serialization.from_bytes(state, serialization.to_bytes(state))
    assert _tree_equal(state, restored), f"{name}: the state changes through flax.serialization"

    # vmap over keys, states and actions matches the single env
    if num_envs > 0:
        _check_vmap(env, params, num_envs, seed, reset, sampled_step, random_step, name)
    if check_render:
        _render_check(env, state, params)


def _check_vmap(env, params, num_envs, seed, reset, sampled_step, random_step, name) -> None:
    """A vmapped reset and random-action step of `num_envs` envs against the single env's."""
    reset_keys = jax.random.split(jax.random.key(seed + 3), num_envs)
    b_obs, b_state = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(reset_keys, params)
    single = reset(reset_keys[1])
    _assert_batch_matches(
        jax.tree_util.tree_map(lambda x: x[1], (b_obs, b_state)),
        single,
        f"{name}: vmapped reset differs from the single env",
    )
    chex.clear_trace_counter()  # the vmapped step traces env.step once more
    step_keys = jax.random.split(jax.random.key(seed + 5), num_envs)
    b_out = jax.jit(jax.vmap(lambda k, s: sampled_step(k, s)[0]))(step_keys, b_state)
    one = random_step(step_keys[1], jax.tree_util.tree_map(lambda x: x[1], b_state))[0]
    b_one = jax.tree_util.tree_map(lambda x: x[1], b_out)
    _assert_batch_matches(b_one, one, f"{name}: vmapped step differs from the single env")


def _render_check(env, state, params) -> None:
    img = jax.jit(env.render)(state, params)
    name = getattr(env, "name", type(env).__name__)
    assert img.ndim == 3 and img.shape[-1] == 3 and img.dtype == jnp.uint8, (
        f"{name}.render must return uint8[H, W, 3], got {img.dtype}{img.shape}"
    )
