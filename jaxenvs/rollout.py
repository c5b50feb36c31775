"""`rollout`: a `lax.scan` of a batched env under a policy, optionally sharded over devices.

With a `mesh`, XLA partitions the scan over the env batch and the result equals the
unsharded run; multi-host use is in the README.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxenvs.wrappers.vector import VecEnv


def random_policy(venv: VecEnv, params: Any) -> Callable[[jax.Array, Any], Any]:
    """A policy drawing uniformly from the action space.

    Args:
        venv: The batched env.
        params: Its params.

    Returns:
        `policy(key, obs) -> actions`.
    """
    return lambda key, obs: venv.sample_actions(key, params)


def rollout(
    env: Any,
    params: Any,
    policy: Callable[[jax.Array, Any], Any] | None,
    key: jax.Array,
    num_envs: int,
    num_steps: int,
    mesh: Mesh | None = None,
) -> dict[str, jax.Array]:
    """Run `num_envs` copies of `env` for `num_steps` steps under `policy`, jitted.

    With `mesh`, the env batch axis is sharded over the mesh's first axis with
    `NamedSharding`. Across hosts, call `jax.distributed.initialize()` first and build the mesh
    over `jax.devices()`.

    Args:
        env: A raw env, or a `VecEnv` of `num_envs` envs.
        params: The env's params.
        policy: `(key, obs[num_envs, ...]) -> actions[num_envs, ...]`; None for random actions.
        key: A JAX PRNG key.
        num_envs: The batch size.
        num_steps: The number of steps.
        mesh: A `jax.sharding.Mesh` to shard the batch over, or None.

    Returns:
        A dict with `reward`, `terminated` and `truncated` of shape `[num_steps, num_envs]` and
        the final `obs` and `state`.

    Raises:
        ValueError: If a `VecEnv`'s batch size is not `num_envs`, or `num_envs` does not divide
            evenly over the mesh's devices.

    Examples:
        >>> import jax, jaxenvs
        >>> venv, params = jaxenvs.make_vec("CartPole-v1", 4)
        >>> out = jaxenvs.rollout(venv, params, None, jax.random.key(0), num_envs=4, num_steps=8)
        >>> out["reward"].shape, out["obs"].shape
        ((8, 4), (4, 4))
    """
    venv = env if isinstance(env, VecEnv) else VecEnv(env, num_envs)
    if venv.num_envs != num_envs:
        raise ValueError(f"env has {venv.num_envs} envs, num_envs={num_envs}")
    if policy is None:
        policy = random_policy(venv, params)
    if mesh is not None and num_envs % mesh.devices.size:
        raise ValueError(f"num_envs={num_envs} must divide evenly over the mesh's {mesh.devices.size} devices")

    def shard(tree):
        if mesh is None:
            return tree
        batch = NamedSharding(mesh, PartitionSpec(mesh.axis_names[0]))
        return jax.tree_util.tree_map(lambda x: jax.lax.with_sharding_constraint(x, batch), tree)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        obs, state = shard(venv.reset(k_reset, params))

        def body(carry, k):
            obs, state = carry
            k_act, k_step = jax.random.split(k)
            actions = shard(policy(k_act, obs))
            obs, state, reward, terminated, truncated, _ = venv.step(k_step, state, actions, params)
            obs, state = shard((obs, state))
            return (obs, state), (reward, terminated, truncated)

        (obs, state), (reward, terminated, truncated) = jax.lax.scan(
            body, (obs, state), jax.random.split(k_run, num_steps)
        )
        return dict(reward=reward, terminated=terminated, truncated=truncated, obs=obs, state=state)

    if mesh is None:
        return jax.jit(run)(key)
    with mesh:
        return jax.jit(run)(key)
