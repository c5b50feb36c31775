"""PPO on any jaxenvs id, PureJaxRL style: the whole training loop in one `jax.jit`, vmapped
over seeds.

    python examples/ppo.py --env CartPole-v1 --num-seeds 4 --total-timesteps 500000
    python examples/ppo.py --continuous --env Pendulum-v1
    python examples/ppo.py --levels length=0.25:1.0 masspole=0.05:0.5 \
        --eval-levels length=0.5,masspole=0.1 length=1.5,masspole=1.0

`--levels FIELD=LOW:HIGH ...` is domain randomisation: every episode draws each named params
field (one the env declares per-episode, `jaxenvs.levels.level_fields`) uniformly from its
range (`make_vec(..., levels=sample)`, inside the jitted step). `--eval-levels` names fixed
levels (`FIELD=VALUE,...`, one argument per level; `default` is the params' own values); after
training, each seed's greedy policy plays `--eval-episodes` whole episodes at each, and the
mean return is printed per level (`eval[...]`). docs/levels.md compares training with and
without levels this way.

Discrete action spaces get a categorical policy, Box action spaces a diagonal Gaussian. The
env batch comes from `jaxenvs.make_vec` (one key per step for the whole batch, resets only
where episodes ended) under `LogWrapper`, whose returns are what the progress lines and the
final `mean_return=<value>` report (mean over seeds of the episodes finished in the last
update).

`--continuous` is PureJaxRL's `ppo_continuous_action.py`: its wrapper stack (`ClipAction`,
the batch, `LogWrapper`, `NormalizeObservation`, `NormalizeReward`; the statistics shared by
the batch) and its defaults (2,048 envs x 10 steps, 32 minibatches, 256-unit layers, learning
rate 3e-4 without annealing, no entropy bonus). Returns are logged below the normalization, so
they are the env's own.
"""

from __future__ import annotations

import argparse
import os
import time

# XLA's CPU "concurrency optimized scheduler" (jaxlib 0.10.2) deadlocks this program when 4 or
# more seeds are vmapped on a 2-core machine; the flag must be set before JAX starts its backend.
if "xla_cpu_enable_concurrency_optimized_scheduler" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_cpu_enable_concurrency_optimized_scheduler=false"
    ).strip()
from typing import NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState

import jaxenvs
from jaxenvs import spaces
from jaxenvs.levels import Level, apply_level, check_level, level_fields
from jaxenvs.wrappers import (
    Absorbing,
    ClipAction,
    FlattenObservation,
    Levels,
    LogWrapper,
    NormalizeObservation,
    NormalizeReward,
)

# the flags without a fixed default: (discrete default, `--continuous` default); the continuous
# column is PureJaxRL's ppo_continuous_action.py config (its env is a brax task; Pendulum-v1
# trains on a CPU in minutes)
DEFAULTS = {
    "env": ("CartPole-v1", "Pendulum-v1"),
    "num_envs": (4, 2048),
    "num_steps": (128, 10),
    "total_timesteps": (500_000, 5_000_000),
    "lr": (2.5e-4, 3e-4),
    "anneal_lr": (1, 0),
    "num_minibatches": (4, 32),
    "ent_coef": (0.01, 0.0),
    "hidden": (64, 256),
}


class ActorCritic(nn.Module):
    action_dim: int
    continuous: bool
    hidden: int = 64

    @nn.compact
    def __call__(self, obs):
        x = obs.reshape(obs.shape[0], -1).astype(jnp.float32) if obs.ndim > 1 else obs.astype(jnp.float32)
        init = nn.initializers.orthogonal

        def mlp(h, out, scale):
            for _ in range(2):
                h = nn.tanh(nn.Dense(self.hidden, kernel_init=init(np.sqrt(2)))(h))
            return nn.Dense(out, kernel_init=init(scale))(h)

        value = mlp(x, 1, 1.0).squeeze(-1)
        head = mlp(x, self.action_dim, 0.01)
        if self.continuous:
            log_std = self.param("log_std", nn.initializers.zeros, (self.action_dim,))
            return (head, log_std), value
        return head, value


def log_prob_entropy(policy, action, continuous):
    if continuous:
        mean, log_std = policy
        std = jnp.exp(log_std)
        logp = -0.5 * (((action - mean) / std) ** 2 + 2 * log_std + jnp.log(2 * jnp.pi))
        entropy = jnp.broadcast_to(0.5 + 0.5 * jnp.log(2 * jnp.pi) + log_std, mean.shape)
        return logp.sum(-1), entropy.sum(-1)
    logits = jax.nn.log_softmax(policy)
    logp = jnp.take_along_axis(logits, action[..., None], axis=-1).squeeze(-1)
    entropy = -jnp.sum(jnp.exp(logits) * logits, axis=-1)
    return logp, entropy


def sample_action(key, policy, continuous):
    if continuous:
        mean, log_std = policy
        return mean + jnp.exp(log_std) * jax.random.normal(key, mean.shape)
    return jax.random.categorical(key, policy)


class Transition(NamedTuple):
    obs: jax.Array
    action: jax.Array
    reward: jax.Array
    done: jax.Array
    discount: jax.Array
    value: jax.Array
    log_prob: jax.Array
    next_value: jax.Array  # value of the observation the step ended on (for truncation)
    returned_episode: jax.Array
    episode_return: jax.Array


def parse_ranges(specs, params, where):
    """`["length=0.25:1.0", ...]` -> `{"length": (0.25, 1.0), ...}`, each a per-episode field."""
    ranges = {}
    for item in specs:
        name, _, bounds = item.partition("=")
        low, sep, high = bounds.partition(":")
        try:
            low, high = float(low), float(high)
        except ValueError:
            low = high = None
        if not sep or low is None or not low <= high:
            raise ValueError(f"--levels takes FIELD=LOW:HIGH with LOW <= HIGH (e.g. length=0.25:1.0), got {item!r}")
        ranges[name] = (low, high)
    for bound in (0, 1):  # both ends must be valid levels (a wrong name or a range outside the field's)
        check_level(Level(settings={k: v[bound] for k, v in ranges.items()}), params, where)
    return ranges


def uniform_levels(ranges):
    """`sample(key) -> Level`: each field uniform in its range, new for every episode."""
    names = sorted(ranges)
    low = jnp.array([ranges[k][0] for k in names], jnp.float32)
    high = jnp.array([ranges[k][1] for k in names], jnp.float32)

    def sample(key):
        values = jax.random.uniform(key, (len(names),), minval=low, maxval=high)
        return Level(settings={k: values[i] for i, k in enumerate(names)})

    return sample


def parse_eval_levels(specs, params, where):
    """`["default", "length=1.5,masspole=1.0", ...]` -> `[(label, Level), ...]`, each checked."""
    levels = []
    for item in specs:
        settings = {}
        if item != "default":
            for pair in item.split(","):
                name, sep, value = pair.partition("=")
                try:
                    settings[name] = float(value)
                except ValueError:
                    sep = ""
                if not sep:
                    raise ValueError(
                        f"--eval-levels takes 'default' or FIELD=VALUE,... (e.g. length=1.5,masspole=1.0), "
                        f"got {item!r}; fields: {', '.join(level_fields(params))}"
                    )
        level = Level(settings=settings)
        check_level(level, params, where)
        levels.append((item, level))
    return levels


def make_train(args):
    env, params = jaxenvs.make(args.env, autoreset=False)
    if isinstance(env.observation_space(params), (spaces.Dict, spaces.Tuple)):
        env = FlattenObservation(env)
    act_space = env.action_space(params)
    continuous = isinstance(act_space, spaces.Box)
    eval_env = env  # under `Absorbing`: an episode's return is the sum of its steps' rewards
    eval_levels = parse_eval_levels(args.eval_levels or [], params, args.env)
    if args.levels:
        # the levels layer sits on the raw env, under the batch's auto-reset (as make_vec puts it)
        sample = uniform_levels(parse_ranges(args.levels, params, args.env))
        env = Levels(env.env if isinstance(env, Absorbing) else env, sample)
    action_dim = int(np.prod(act_space.shape)) if continuous else act_space.n
    # `train` is vmapped over seeds, so each batch is one of a batch of batches
    if args.continuous:
        if not continuous:
            raise ValueError(f"--continuous needs a Box action space; {args.env} has {act_space!r}")
        # PureJaxRL's stack; the returns are logged before the rewards are normalized
        venv = jaxenvs.wrappers.VecEnv(ClipAction(env), args.num_envs, allow_vmap=True)
        venv = NormalizeReward(NormalizeObservation(LogWrapper(venv)), gamma=args.gamma)
    else:
        venv = LogWrapper(jaxenvs.wrappers.VecEnv(env, args.num_envs, allow_vmap=True))
    network = ActorCritic(action_dim, continuous, hidden=args.hidden)
    num_updates = args.total_timesteps // (args.num_envs * args.num_steps)
    minibatch_size = args.num_envs * args.num_steps // args.num_minibatches

    def schedule(count):
        frac = 1.0 - (count // (args.num_minibatches * args.update_epochs)) / num_updates
        return args.lr * frac

    def clip_action(action):
        if continuous and not args.continuous:  # --continuous clips in the ClipAction wrapper
            return jnp.clip(action, act_space.low, act_space.high)
        return action

    def train(key, seed_index):
        key, k_init, k_reset = jax.random.split(key, 3)
        obs, env_state = venv.reset(k_reset, params)
        net_params = network.init(k_init, obs)
        tx = optax.chain(
            optax.clip_by_global_norm(args.max_grad_norm),
            optax.adam(learning_rate=schedule if args.anneal_lr else args.lr, eps=1e-5),
        )
        state = TrainState.create(apply_fn=network.apply, params=net_params, tx=tx)

        def env_step(carry, _):
            state, env_state, obs, key = carry
            key, k_act, k_step = jax.random.split(key, 3)
            policy, value = network.apply(state.params, obs)
            action = sample_action(k_act, policy, continuous)
            log_prob, _ = log_prob_entropy(policy, action, continuous)
            next_obs, env_state, reward, terminated, truncated, info = venv.step(
                k_step, env_state, clip_action(action), params
            )
            _, final_value = network.apply(state.params, info["final_observation"])
            transition = Transition(
                obs,
                action,
                reward,
                terminated | truncated,
                info["discount"],
                value,
                log_prob,
                final_value,
                info["returned_episode"],
                info["returned_episode_returns"],
            )
            return (state, env_state, next_obs, key), transition

        def gae(traj):
            def body(advantage, t):
                # bootstrap from the observation the step ended on: nothing after a termination
                # (discount 0), its value after a truncation; no advantage flows across episodes
                delta = t.reward + args.gamma * t.discount * t.next_value - t.value
                advantage = delta + args.gamma * args.gae_lambda * (1.0 - t.done) * advantage
                return advantage, advantage

            _, adv = jax.lax.scan(body, jnp.zeros_like(traj.value[0]), traj, reverse=True)
            return adv, adv + traj.value

        def loss_fn(p, batch, adv, targets):
            policy, value = network.apply(p, batch.obs)
            log_prob, entropy = log_prob_entropy(policy, batch.action, continuous)
            v_clipped = batch.value + jnp.clip(value - batch.value, -args.clip_eps, args.clip_eps)
            v_loss = 0.5 * jnp.maximum((value - targets) ** 2, (v_clipped - targets) ** 2).mean()
            ratio = jnp.exp(log_prob - batch.log_prob)
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - args.clip_eps, 1 + args.clip_eps) * adv).mean()
            loss = pg_loss + args.vf_coef * v_loss - args.ent_coef * entropy.mean()
            return loss, (pg_loss, v_loss, entropy.mean())

        def update(carry, update_index):
            state, env_state, obs, key = carry
            (state, env_state, obs, key), traj = jax.lax.scan(
                env_step, (state, env_state, obs, key), None, args.num_steps
            )
            advantages, targets = gae(traj)

            def epoch(carry, _):
                state, key = carry
                key, k_perm = jax.random.split(key)
                flat = jax.tree_util.tree_map(lambda x: x.reshape((-1,) + x.shape[2:]), (traj, advantages, targets))
                perm = jax.random.permutation(k_perm, args.num_envs * args.num_steps)
                shuffled = jax.tree_util.tree_map(
                    lambda x: x[perm].reshape((args.num_minibatches, minibatch_size) + x.shape[1:]), flat
                )

                def minibatch(state, mb):
                    batch, adv, tgt = mb
                    (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params, batch, adv, tgt)
                    return state.apply_gradients(grads=grads), (loss, *aux)

                state, losses = jax.lax.scan(minibatch, state, shuffled)
                return (state, key), losses

            (state, key), losses = jax.lax.scan(epoch, (state, key), None, args.update_epochs)
            finished = traj.returned_episode.sum()
            mean_return = jnp.where(
                finished > 0, (traj.episode_return * traj.returned_episode).sum() / jnp.maximum(finished, 1), jnp.nan
            )
            metrics = dict(loss=losses[0].mean(), mean_return=mean_return, episodes=finished)

            def report(seed_index, update_index, metrics):
                if int(seed_index) == 0 and args.verbose:
                    print(
                        f"update {int(update_index) + 1}/{num_updates} "
                        f"loss={float(metrics['loss']):.4f} "
                        f"return(seed 0)={float(metrics['mean_return']):.2f}",
                        flush=True,
                    )

            jax.debug.callback(report, seed_index, update_index, metrics, ordered=False)
            return (state, env_state, obs, key), metrics

        (state, _, _, key), metrics = jax.lax.scan(update, (state, env_state, obs, key), jnp.arange(num_updates))
        if args.save:
            metrics["params"] = state.params
        if eval_levels:
            metrics["eval_return"] = jnp.stack(
                [evaluate(state.params, jax.random.fold_in(key, i), level) for i, (_, level) in enumerate(eval_levels)]
            )
        return metrics

    def evaluate(net_params, key, level):
        """Mean return of the greedy policy over `args.eval_episodes` whole episodes at `level`."""
        level_params = apply_level(params, level)
        keys = jax.random.split(key, args.eval_episodes)
        obs, env_state = jax.vmap(eval_env.reset_to_level, in_axes=(0, None, None))(keys, level, params)

        def step(carry, k):
            obs, env_state, total = carry
            policy, _ = network.apply(net_params, obs)
            action = policy[0] if continuous else jnp.argmax(policy, axis=-1)
            obs, env_state, reward, _, _, _ = jax.vmap(eval_env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(k, args.eval_episodes), env_state, clip_action(action), level_params
            )
            return (obs, env_state, total + reward), None

        horizon = int(params.max_steps_in_episode)
        (_, _, total), _ = jax.lax.scan(
            step, (obs, env_state, jnp.zeros(args.eval_episodes)), jax.random.split(key, horizon)
        )
        return total.mean()

    return train, num_updates, [label for label, _ in eval_levels]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--continuous",
        action="store_true",
        help="PureJaxRL's continuous-action PPO: its wrappers (observation and reward normalization) and defaults",
    )
    p.add_argument("--env", help="default: CartPole-v1, with --continuous Pendulum-v1")
    p.add_argument("--num-seeds", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--total-timesteps", type=int)
    p.add_argument("--num-envs", type=int)
    p.add_argument("--num-steps", type=int)
    p.add_argument("--lr", type=float)
    p.add_argument("--anneal-lr", type=int)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--num-minibatches", type=int)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip-eps", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, help="units per hidden layer")
    p.add_argument(
        "--levels",
        nargs="+",
        metavar="FIELD=LOW:HIGH",
        help="domain randomisation: each episode draws these per-episode params fields uniformly",
    )
    p.add_argument(
        "--eval-levels",
        nargs="+",
        metavar="FIELD=VALUE,...",
        help="after training, the greedy policy's mean return at each of these fixed levels ('default': the params')",
    )
    p.add_argument("--eval-episodes", type=int, default=64, help="episodes per evaluation level")
    p.add_argument("--quiet", dest="verbose", action="store_false", help="no progress line per update")
    p.add_argument(
        "--save",
        metavar="PATH",
        help="write the first seed's trained network to PATH (flax msgpack) and its settings to PATH.json",
    )
    args = p.parse_args(argv)
    for name, (discrete, continuous) in DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, continuous if args.continuous else discrete)
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        p.error("--num-minibatches must divide num_envs * num_steps")

    if args.continuous and args.save:
        p.error("--save: --continuous's observation normalization is not saved with the network")
    if args.continuous and args.eval_levels:
        p.error("--eval-levels needs the observation normalization's statistics under --continuous: not supported")
    try:
        train, num_updates, eval_labels = make_train(args)
    except (TypeError, ValueError) as error:
        p.error(str(error))
    if num_updates < 1:
        p.error("--total-timesteps must cover at least one update (num_envs * num_steps)")
    keys = jax.random.split(jax.random.key(args.seed), args.num_seeds)
    start = time.perf_counter()
    metrics = jax.jit(jax.vmap(train))(keys, jnp.arange(args.num_seeds))
    returns = np.asarray(jax.block_until_ready(metrics["mean_return"]))  # [seeds, updates]
    seconds = time.perf_counter() - start
    # per seed: the last update in which an episode finished
    final = [r[~np.isnan(r)][-1] if (~np.isnan(r)).any() else np.nan for r in returns]
    print(
        f"env={args.env} seeds={args.num_seeds} steps={num_updates * args.num_envs * args.num_steps} "
        f"updates={num_updates} wall_s={seconds:.1f} final_returns={np.round(final, 2).tolist()}"
    )
    for label, values in zip(eval_labels, np.asarray(metrics.get("eval_return", np.zeros((0, 0)))).T):
        print(f"eval[{label}] mean={float(values.mean()):.1f} per_seed={[round(float(v), 1) for v in values]}")
    print(f"mean_return={float(np.nanmean(final)):.2f}")
    if args.save:
        save(args, jax.tree_util.tree_map(lambda x: x[0], metrics.pop("params")))
    return metrics


def save(args, net_params) -> None:
    """Write a trained network (`--save PATH`): its weights, and the settings that rebuild it."""
    import json

    from flax import serialization

    with open(args.save, "wb") as f:
        f.write(serialization.to_bytes(net_params))
    settings = dict(env=args.env, continuous=args.continuous, hidden=args.hidden, seed=args.seed)
    with open(args.save + ".json", "w") as f:
        json.dump(settings, f)
    print(f"saved {args.save}")


def load(path):
    """`(network, weights, settings)` of a network written by `--save PATH`."""
    import json

    from flax import serialization

    with open(path + ".json") as f:
        settings = json.load(f)
    if settings["continuous"]:
        raise ValueError(f"{path}: trained with --continuous, whose observation normalization is not saved")
    env, params = jaxenvs.make(settings["env"], autoreset=False)
    act_space = env.action_space(params)
    continuous = isinstance(act_space, spaces.Box)
    action_dim = int(np.prod(act_space.shape)) if continuous else act_space.n
    network = ActorCritic(action_dim, continuous, hidden=settings["hidden"])
    obs, _ = env.reset(jax.random.key(0), params)
    template = network.init(jax.random.key(0), obs[None])
    with open(path, "rb") as f:
        weights = serialization.from_bytes(template, f.read())
    return network, weights, settings


if __name__ == "__main__":
    main()
