"""Shared by the toy-text env tests."""

import jax


def keyed_steps(env, params, n, seed):
    """Step one state `n` times at once, each with its own key: the frequencies of a random move.

    Args:
        env: A raw env.
        params: Its params.
        n: How many keys.
        seed: The keys are split from `jax.random.key(seed)`.

    Returns:
        A jitted `(state, action) -> step outputs`, each output batched over the `n` keys.
    """
    keys = jax.random.split(jax.random.key(seed), n)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))
    return lambda state, action: step(keys, state, action, params)
