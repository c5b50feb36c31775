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

A batch-native id (`jaxenvs.spec(id).batch_native`: the ALE family, `ale/<Game>-v5`) is a batch
of emulators on the host: `make_vec(id, num_envs, **settings)` builds it (under `LogWrapper`),
`train` runs under `jax.jit` without the vmap over seeds, and `--num-seeds` must be 1 (run one
process per seed). Its defaults are CleanRL's `ppo_atari.py` (8 envs x 128 steps, learning rate
2.5e-4 annealed, 4 minibatches, 4 epochs, clip 0.1, entropy 0.01):

    python examples/ppo.py --env ale/Breakout-v5 --ale-training-settings --life-loss --total-timesteps 245760

`--ale-training-settings` sets `jaxenvs.adapters.ale.TRAINING_SETTINGS` (84x84 gray, 4 frames,
...); `--env-settings KEY=VALUE ...` sets any params field, for any id (after those). An image
observation (uint8, rank 3 or more: ale-py's `[frames, height, width(, 3)]`) gets the Nature DQN
torso (`--network auto`, or `cnn` / `mlp`), its frames scaled by 1/255. `--life-loss` ends the
value's horizon at a lost life (`info["lives"]` going down), as DeepMind's `EpisodicLifeEnv` does
for learning, while the game plays on. `--random-policy` plays uniform actions and learns
nothing: the baseline a run is compared with (same env, same seeds).
"""

from __future__ import annotations

import argparse
import ast
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
    "clip_eps": (0.2, 0.2),
}
# a batch-native id's defaults (the ALE family's: CleanRL's ppo_atari.py, Nature CNN)
BATCH_NATIVE_DEFAULTS = {
    "num_envs": 8,
    "num_steps": 128,
    "total_timesteps": 10_000_000,
    "lr": 2.5e-4,
    "anneal_lr": 1,
    "num_minibatches": 4,
    "ent_coef": 0.01,
    "clip_eps": 0.1,
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


def patches(x, size, stride):
    """`[batch, h, w, c]` -> `[batch, h', w', size * size * c]`: each output pixel's receptive field
    of a VALID convolution, (row, column, channel) flattened, taken as strided slices."""
    _, h, w, _ = x.shape
    out_h, out_w = (h - size) // stride + 1, (w - size) // stride + 1
    fields = [
        x[:, i : i + stride * (out_h - 1) + 1 : stride, j : j + stride * (out_w - 1) + 1 : stride]
        for i in range(size)
        for j in range(size)
    ]
    return jnp.concatenate(fields, axis=-1)


class NatureActorCritic(nn.Module):
    """The Nature DQN torso (Mnih et al. 2015) under a categorical policy and a value head, as in
    CleanRL's and PureJaxRL's Atari PPO: conv 32 8x8/4, 64 4x4/2, 64 3x3/1, dense 512.

    Each convolution is a dense layer over `patches` (the same function, its kernel flattened):
    XLA:CPU runs a convolution's gradient inside a loop body (the scans of `train`) about 15x
    slower than outside (jax-ml/jax#12868), and the patches' slices do not have that problem.
    """

    action_dim: int

    @nn.compact
    def __call__(self, obs):
        # ale-py's [batch, frames, height, width(, 3)]: the frames (and colours) become channels
        x = jnp.moveaxis(obs, 1, 3)
        x = x.reshape(x.shape[:3] + (-1,)).astype(jnp.float32) / 255.0
        init = nn.initializers.orthogonal
        for features, size, stride in ((32, 8, 4), (64, 4, 2), (64, 3, 1)):
            x = nn.relu(nn.Dense(features, kernel_init=init(np.sqrt(2)))(patches(x, size, stride)))
        x = nn.relu(nn.Dense(512, kernel_init=init(np.sqrt(2)))(x.reshape(x.shape[0], -1)))
        logits = nn.Dense(self.action_dim, kernel_init=init(0.01))(x)
        value = nn.Dense(1, kernel_init=init(1.0))(x).squeeze(-1)
        return logits, value


def choose_network(kind, obs_space, action_dim, continuous, hidden):
    """`(network, kind)`: `kind` "auto" is "cnn" for frames (uint8, `[frames, height, width(, 3)]`,
    at least 36 x 36: the Nature torso's smallest input), else "mlp" (small uint8 grids, such as
    NAVIX's and XLand-MiniGrid's views, included)."""
    shape = tuple(getattr(obs_space, "shape", ()) or ())
    uint8 = np.dtype(getattr(obs_space, "dtype", np.float32)) == np.uint8
    image = len(shape) >= 3 and uint8 and min(shape[1], shape[2]) >= 36
    if kind == "auto":
        kind = "cnn" if image else "mlp"
    if kind == "cnn":
        if continuous:
            raise ValueError("--network cnn has a categorical policy: it needs a Discrete action space")
        if len(shape) < 3:
            raise ValueError(f"--network cnn needs image observations ([frames, height, width(, 3)]), got {shape}")
        return NatureActorCritic(action_dim), kind
    return ActorCritic(action_dim, continuous, hidden=hidden), kind


def parse_settings(specs):
    """`["grayscale=True", "noop_max=30", ...]` -> `{"grayscale": True, "noop_max": 30, ...}`."""
    settings = {}
    for item in specs:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--env-settings takes KEY=VALUE (e.g. frameskip=4), got {item!r}")
        try:
            settings[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            settings[name] = text
    return settings


def env_settings(args):
    """The params fields `--ale-training-settings` and `--env-settings` set, the latter last."""
    settings = {}
    if args.ale_training_settings:
        from jaxenvs.adapters.ale import TRAINING_SETTINGS

        settings.update(TRAINING_SETTINGS)
    settings.update(parse_settings(args.env_settings or []))
    return settings


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


def observation_statistics(venv, env_state):
    """`(mean, scale)` of `venv`'s `NormalizeObservation` layer at `env_state`: it returns
    `(obs - mean) / scale`."""
    layer, state = venv, env_state
    while not isinstance(layer, NormalizeObservation):
        layer, state = layer.env, state.env_state
    return state.obs_rms.mean, jnp.sqrt(state.obs_rms.var + layer.epsilon)


def make_train(args):
    batch_native = jaxenvs.spec(args.env).batch_native
    if batch_native:  # a batch of emulators: built whole, never vmapped (the ALE family)
        env, params = jaxenvs.make_vec(args.env, args.num_envs, **env_settings(args))
    else:
        env, params = jaxenvs.make(args.env, autoreset=False, **env_settings(args))
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
    # `train` is vmapped over seeds, so each batch is one of a batch of batches (but a batch-native one)
    if batch_native:
        venv = LogWrapper(env)
    elif args.continuous:
        if not continuous:
            raise ValueError(f"--continuous needs a Box action space; {args.env} has {act_space!r}")
        # PureJaxRL's stack; the returns are logged before the rewards are normalized
        venv = jaxenvs.wrappers.VecEnv(ClipAction(env), args.num_envs, allow_vmap=True)
        venv = NormalizeReward(NormalizeObservation(LogWrapper(venv)), gamma=args.gamma)
    else:
        venv = LogWrapper(jaxenvs.wrappers.VecEnv(env, args.num_envs, allow_vmap=True))
    network, args.network = choose_network(
        args.network, env.observation_space(params), action_dim, continuous, args.hidden
    )
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
            state, (env_state, lives), obs, key = carry
            key, k_act, k_step = jax.random.split(key, 3)
            if args.random_policy:  # the baseline: uniform actions, no network
                action = jax.vmap(act_space.sample)(jax.random.split(k_act, args.num_envs))
                value = log_prob = jnp.zeros(args.num_envs)
            else:
                policy, value = network.apply(state.params, obs)
                action = sample_action(k_act, policy, continuous)
                log_prob, _ = log_prob_entropy(policy, action, continuous)
            next_obs, env_state, reward, terminated, truncated, info = venv.step(
                k_step, env_state, clip_action(action), params
            )
            if args.random_policy:
                final_value = value
            else:
                _, final_value = network.apply(state.params, info["final_observation"])
            done, discount = terminated | truncated, info["discount"]
            if args.life_loss:
                # a lost life ends the value's horizon (not the episode): -1 is "not yet seen"
                lost = (lives >= 0) & (info["lives"] < lives) & ~done
                done, discount = done | lost, jnp.where(lost, 0.0, discount)
                lives = jnp.where(done & ~lost, -1, info["lives"])
            transition = Transition(
                obs,
                action,
                reward,
                done,
                discount,
                value,
                log_prob,
                final_value,
                info["returned_episode"],
                info["returned_episode_returns"],
            )
            return (state, (env_state, lives), next_obs, key), transition

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

            if args.random_policy:
                losses = (jnp.zeros(()),)
            else:
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

        lives = jnp.full((args.num_envs,), -1, jnp.int32)
        carry = (state, (env_state, lives), obs, key)
        (state, (env_state, _), _, key), metrics = jax.lax.scan(update, carry, jnp.arange(num_updates))
        if args.save:
            metrics["params"] = state.params
            if args.continuous:  # the policy reads normalized observations: it is saved with them
                metrics["normalization"] = observation_statistics(venv, env_state)
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
    p.add_argument("--clip-eps", type=float)
    p.add_argument("--ent-coef", type=float)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, help="units per hidden layer")
    p.add_argument(
        "--network",
        choices=("auto", "mlp", "cnn"),
        default="auto",
        help="cnn: the Nature DQN torso (frames scaled by 1/255); auto: cnn for image observations (uint8, rank >= 3)",
    )
    p.add_argument(
        "--ale-training-settings",
        action="store_true",
        help="an ALE id's params set to jaxenvs.adapters.ale.TRAINING_SETTINGS (84x84 gray, 4 frames, ...)",
    )
    p.add_argument(
        "--env-settings",
        nargs="+",
        metavar="KEY=VALUE",
        help="params fields to set (after --ale-training-settings), e.g. repeat_action_probability=0.0",
    )
    p.add_argument(
        "--life-loss",
        action="store_true",
        help="a lost life (info['lives'] going down) ends the value's horizon, as DeepMind's EpisodicLifeEnv "
        "does for learning; the game plays on, and the logged returns stay whole episodes",
    )
    p.add_argument(
        "--random-policy",
        action="store_true",
        help="uniform random actions and no learning: the baseline for the same env and seeds",
    )
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
        help="write the first seed's trained network to PATH (flax msgpack) and its settings to PATH.json "
        "(under --continuous with its observation normalization; lab/transfer.py plays it)",
    )
    args = p.parse_args(argv)
    if args.env is not None and jaxenvs.spec(args.env).batch_native:
        if args.num_seeds != 1:
            p.error(
                f"--num-seeds {args.num_seeds}: {args.env} is a batch of emulators on the host, which cannot be "
                "vmapped over seeds; run one process per seed (--seed)"
            )
        for flag, used in (("--continuous", args.continuous), ("--levels", args.levels)):
            if used:
                p.error(f"{flag} is not supported for {args.env}, a batch of emulators")
        if args.eval_levels:
            p.error(f"--eval-levels is not supported for {args.env}: its emulators have no levels")
        for name, value in BATCH_NATIVE_DEFAULTS.items():
            if getattr(args, name) is None:
                setattr(args, name, value)
    if args.life_loss and (args.env is None or jaxenvs.spec(args.env).family != "ale"):
        p.error(f"--life-loss needs an env whose step reports info['lives'] (the ALE family), not {args.env}")
    for name, (discrete, continuous) in DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, continuous if args.continuous else discrete)
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        p.error("--num-minibatches must divide num_envs * num_steps")

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
    if jaxenvs.spec(args.env).batch_native:  # one seed, not vmapped; the metrics keep a seed axis
        metrics = jax.tree_util.tree_map(lambda x: x[None], jax.jit(train)(keys[0], jnp.int32(0)))
    else:
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
        saved = {k: metrics.pop(k) for k in ("params", "normalization") if k in metrics}
        first = jax.tree_util.tree_map(lambda x: x[0], saved)
        save(args, first["params"], first.get("normalization"))
    return metrics


def save(args, net_params, normalization=None) -> None:
    """Write a trained network (`--save PATH`): its weights, and the settings that rebuild it, with
    `--continuous`'s observation normalization at the end of training (`normalization`: `(mean,
    scale)`, `observation_statistics`), as the policy reads observations normalized."""
    import json

    from flax import serialization

    with open(args.save, "wb") as f:
        f.write(serialization.to_bytes(net_params))
    settings = dict(env=args.env, continuous=args.continuous, hidden=args.hidden, seed=args.seed)
    settings.update(network=args.network, env_settings=env_settings(args))
    if normalization is not None:
        settings["observation_mean"], settings["observation_scale"] = (np.asarray(v).tolist() for v in normalization)
    with open(args.save + ".json", "w") as f:
        json.dump(settings, f)
    print(f"saved {args.save}")


def load(path):
    """`(network, weights, settings)` of a network written by `--save PATH`."""
    import json

    from flax import serialization

    with open(path + ".json") as f:
        settings = json.load(f)
    if settings["continuous"] and "observation_mean" not in settings:
        raise ValueError(f"{path}: trained with --continuous, but its observation statistics were not saved")
    overrides = settings.get("env_settings", {})
    if jaxenvs.spec(settings["env"]).batch_native:  # a batch of one emulator, not reset
        env, params = jaxenvs.make_vec(settings["env"], 1, **overrides)
        space = env.observation_space(params)
        obs = jnp.zeros(space.shape, space.dtype)
    else:
        env, params = jaxenvs.make(settings["env"], autoreset=False, **overrides)
        obs, _ = env.reset(jax.random.key(0), params)
    act_space = env.action_space(params)
    continuous = isinstance(act_space, spaces.Box)
    action_dim = int(np.prod(act_space.shape)) if continuous else act_space.n
    network, _ = choose_network(
        settings.get("network", "mlp"), env.observation_space(params), action_dim, continuous, settings["hidden"]
    )
    template = network.init(jax.random.key(0), obs[None])
    with open(path, "rb") as f:
        weights = serialization.from_bytes(template, f.read())
    return network, weights, settings


def greedy_policy(network, weights, settings, action_space):
    """`act(obs) -> action` for a batch of raw observations: a network written by `--save PATH`
    (`load`) played greedily, the same on jaxenvs' env and on a reference's.

    Categorical: the most likely action. Gaussian: the mean, clipped to `action_space`'s bounds
    (training's `ClipAction`). Under `--continuous` the observations are first normalized as in
    training (`NormalizeObservation`, the statistics saved at its end, then frozen).
    """
    discrete = not isinstance(action_space, spaces.Box)
    mean = jnp.asarray(settings.get("observation_mean", 0.0), jnp.float32)
    scale = jnp.asarray(settings.get("observation_scale", 1.0), jnp.float32)

    def act(obs):
        policy, _ = network.apply(weights, (jnp.asarray(obs, jnp.float32) - mean) / scale)
        if discrete:
            return jnp.argmax(policy, axis=-1)
        return jnp.clip(policy[0], action_space.low, action_space.high)

    return act


if __name__ == "__main__":
    main()
