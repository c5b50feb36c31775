"""Tabular Q-learning over many agents at once: one Q-table per agent, all vmapped in one
jitted `lax.scan`, each agent with its own environment from `jaxenvs.make_vec`.

    python examples/q_learning.py --env GridWorld-misc --num-agents 4096 --num-steps 20000
    python examples/q_learning.py --env FrozenLake-v1 --num-agents 4096 --num-steps 50000

Epsilon-greedy with random tie-breaking (among equal Q-values the action is drawn uniformly,
so an all-zero table explores instead of always taking action 0), its randomness drawn as raw
bits in one call per step: on a CPU, random numbers cost more than the grid world itself. It prints steps/s (agent
steps, compile excluded) and evaluates the learned greedy policy: the fraction of agents whose
greedy rollout reaches the goal, and its mean return.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs import spaces


def random_words(key, batch_shape, num_actions):
    """The random bits one epsilon-greedy choice needs: 16 bits of priority per action and
    32 bits for the exploration coin. Random numbers are what a CPU spends its time on here, so
    one call to `jax.random.bits` serves every agent's whole decision."""
    words = (num_actions + 1) // 2 + 1
    return jax.random.bits(key, batch_shape + (words,), jnp.uint32)


def epsilon_greedy(words, q_rows, epsilon):
    """Epsilon-greedy over Q-table rows `[..., A]`, ties broken uniformly at random.

    Each action gets a random 16-bit priority; the highest-priority action is a uniform random
    action (the exploration move), and the highest-priority action among those with the best
    Q-value breaks ties uniformly (up to equal priorities, probability 2^-16)."""
    num_actions = q_rows.shape[-1]
    halves = jnp.stack([words[..., :-1] & 0xFFFF, words[..., :-1] >> 16], axis=-1)
    priority = halves.reshape(words.shape[:-1] + (-1,))[..., :num_actions].astype(jnp.int32)
    best = jnp.argmax(jnp.where(q_rows == q_rows.max(-1, keepdims=True), priority, -1), axis=-1)
    explore = words[..., -1] < jnp.uint32(min(int(epsilon * 2**32), 2**32 - 1))
    return jnp.where(explore, jnp.argmax(priority, axis=-1), best)


def reached_goal(env_id, terminated, reward):
    """FrozenLake also terminates in holes (reward 0); GridWorld terminates only at the goal."""
    if env_id.startswith("FrozenLake"):
        return terminated & (reward > 0)
    return terminated


def make_train(env_id, num_agents, num_steps, lr, gamma, epsilon, **overrides):
    venv, params = jaxenvs.make_vec(env_id, num_agents, **overrides)
    obs_space, act_space = venv.observation_space(params), venv.action_space(params)
    if not (isinstance(obs_space, spaces.Discrete) and isinstance(act_space, spaces.Discrete)):
        raise TypeError(
            f"tabular Q-learning needs Discrete observations and actions; {env_id} has {obs_space!r} and {act_space!r}"
        )
    num_states, num_actions = obs_space.n, act_space.n
    agents = jnp.arange(num_agents)

    def train(key):
        k_reset, k_run = jax.random.split(key)
        obs, state = venv.reset(k_reset, params)
        q_flat = jnp.zeros((num_agents * num_states, num_actions), jnp.float32)

        def step(carry, key):
            q_flat, obs, state = carry
            k_act, k_env = jax.random.split(key)
            words = random_words(k_act, (num_agents,), num_actions)
            # flat row index: one-dimensional gathers and scatters are the fast ones on a CPU
            rows = agents * num_states + obs
            actions = epsilon_greedy(words, q_flat[rows], epsilon)
            next_obs, state, reward, terminated, truncated, info = venv.step(k_env, state, actions, params)
            # bootstrap from the observation the step ended on, not the reset that followed it
            final_obs = info["final_observation"]
            target = reward + gamma * (1.0 - terminated) * q_flat[agents * num_states + final_obs].max(-1)
            q_flat = q_flat.at[rows, actions].add(lr * (target - q_flat[rows, actions]))
            return (q_flat, next_obs, state), reward.sum()

        (q_flat, _, _), rewards = jax.lax.scan(step, (q_flat, obs, state), jax.random.split(k_run, num_steps))
        return q_flat.reshape(num_agents, num_states, num_actions), rewards

    def evaluate(key, q, max_steps=200):
        """Greedy rollouts (one per agent, its own table): reached-goal fraction, mean return."""
        raw, raw_params = jaxenvs.make(env_id, autoreset=False, **overrides)

        def episode(key, q_agent):
            k_reset, k_run = jax.random.split(key)
            obs, state = raw.reset(k_reset, raw_params)

            def body(carry, k):
                obs, state, done, ret, success = carry
                k_tie, k_step = jax.random.split(k)
                action = epsilon_greedy(random_words(k_tie, (), num_actions), q_agent[obs], 0.0)
                obs2, state2, r, te, tr, _ = raw.step(k_step, state, action, raw_params)
                alive = ~done
                return (
                    jnp.where(alive, obs2, obs),
                    jax.tree_util.tree_map(lambda a, b: jnp.where(alive, a, b), state2, state),
                    done | te | tr,
                    ret + jnp.where(alive, r, 0.0),
                    success | (alive & reached_goal(env_id, te, r)),
                ), None

            init = (obs, state, jnp.asarray(False), jnp.asarray(0.0), jnp.asarray(False))
            (_, _, _, ret, success), _ = jax.lax.scan(body, init, jax.random.split(k_run, max_steps))
            return ret, success

        return jax.jit(jax.vmap(episode))(jax.random.split(key, num_agents), q)

    return jax.jit(train), evaluate


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="GridWorld-misc")
    p.add_argument("--num-agents", type=int, default=4096)
    p.add_argument("--num-steps", type=int, default=20_000)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--epsilon", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    train, evaluate = make_train(args.env, args.num_agents, args.num_steps, args.lr, args.gamma, args.epsilon)
    key = jax.random.key(args.seed)
    start = time.perf_counter()
    jax.block_until_ready(train.lower(key).compile())
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    q, rewards = jax.block_until_ready(train(key))
    seconds = time.perf_counter() - start
    steps_per_s = args.num_agents * args.num_steps / seconds
    returns, success = evaluate(jax.random.key(args.seed + 1), q)
    print(
        f"env={args.env} agents={args.num_agents} steps_per_agent={args.num_steps} "
        f"compile_s={compile_s:.1f} train_s={seconds:.2f}"
    )
    print(f"greedy policy: reached_goal={float(np.mean(success)):.3f} mean_return={float(np.mean(returns)):.3f}")
    print(f"steps_per_s={steps_per_s:,.0f}")
    return q, returns, success, steps_per_s


if __name__ == "__main__":
    main()
