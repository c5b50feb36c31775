"""`NormalizeObservation` and `NormalizeReward`: running statistics carried in the env state.

References: gymnasium's `wrappers.NormalizeObservation` / `NormalizeReward` (the names, the
formulas: Chan et al.'s parallel mean/variance update starting from mean 0, variance 1 and a
count of 1e-4; `(obs - mean) / sqrt(var + epsilon)`; `reward / sqrt(var + epsilon)` where the
variance is that of a discounted running sum of rewards) and PureJaxRL's
`NormalizeVecObservation` / `NormalizeVecReward` (the batch statistics).

Where they differ from gymnasium, deliberately:

- The statistics live in the env state (`NormalizeObservationState.obs_rms`,
  `NormalizeRewardState.return_rms`), not in the wrapper object, so they jit, vmap and
  checkpoint with the rest of the state. `reset` starts them afresh: put these wrappers over
  an auto-resetting env (`make`'s default, or `make_vec`), where `reset` is called once per
  run, as PureJaxRL does.
- Over a batched env from `make_vec` the statistics are shared by the batch: each step
  updates them with the whole batch at once (PureJaxRL's, and gymnasium's vector wrappers').
  Under `jax.vmap` of a single env each env keeps its own.
- Under auto-reset, the observation statistics are updated with the observation each step
  returns (the new episode's first one where an episode ended, as PureJaxRL's are);
  `info["final_observation"]` is normalized with the same statistics but not counted.
- The discounted sum of rewards restarts when an episode ends, terminated or truncated
  (PureJaxRL's `done`); gymnasium's restarts on termination only and carries a truncated
  episode's sum into the next.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.wrappers.base import Wrapper, find_wrapper
from jaxenvs.wrappers.vector import VecEnv

# gymnasium's and PureJaxRL's initial count: the prior (mean 0, variance 1) weighs almost nothing
INITIAL_COUNT = 1e-4


@struct.dataclass
class RunningMeanStd:
    """Mean, variance and count of the values seen so far (float32)."""

    mean: jax.Array  # float32[shape]: running mean
    var: jax.Array  # float32[shape]: running (population) variance
    count: jax.Array  # float32[]: values seen, plus INITIAL_COUNT

    @classmethod
    def create(cls, shape: tuple[int, ...] = ()) -> RunningMeanStd:
        return cls(
            mean=jnp.zeros(shape, jnp.float32),
            var=jnp.ones(shape, jnp.float32),
            count=jnp.asarray(INITIAL_COUNT, jnp.float32),
        )

    def update(self, batch: jax.Array) -> RunningMeanStd:
        """The statistics with the rows of `batch` (leading axis) added."""
        batch = jnp.asarray(batch, jnp.float32)
        batch_mean, batch_var = jnp.mean(batch, axis=0), jnp.var(batch, axis=0)
        batch_count = jnp.float32(batch.shape[0])
        delta = batch_mean - self.mean
        total = self.count + batch_count
        m2 = self.var * self.count + batch_var * batch_count + jnp.square(delta) * self.count * batch_count / total
        return RunningMeanStd(mean=self.mean + delta * batch_count / total, var=m2 / total, count=total)


def batch_shape(env) -> tuple[int, ...]:
    """`(num_envs,)` for a batched env (a `VecEnv` in the stack: `make_vec`), `()` for a single one."""
    vec = find_wrapper(env, VecEnv)
    return () if vec is None else (vec.num_envs,)


def _check_epsilon(wrapper: str, epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError(f"{wrapper}: epsilon must be > 0, got {epsilon!r}")
    return float(epsilon)


@struct.dataclass
class NormalizeObservationState:
    env_state: object  # the wrapped env's state
    obs_rms: RunningMeanStd  # statistics of the observations returned so far


class NormalizeObservation(Wrapper):
    """Observations centred and scaled by running statistics: `(obs - mean) / sqrt(var + epsilon)`.

    The statistics are updated with every observation returned (by `reset`, then by each
    step) before it is normalized. Needs a Box observation space (wrap a Dict or Tuple one in
    `FlattenObservation` first). Observations become float32 in an unbounded Box.
    """

    def __init__(self, env, epsilon: float = 1e-8):
        super().__init__(env)
        self.epsilon = _check_epsilon("NormalizeObservation", epsilon)
        space = env.observation_space(env.default_params)
        if not isinstance(space, spaces.Box):
            raise TypeError(
                f"NormalizeObservation needs a Box observation space; {env.name} has {space!r} "
                "(wrap it in FlattenObservation first)"
            )
        self._batch = batch_shape(env)

    def _normalize(self, obs, rms: RunningMeanStd):
        return ((jnp.asarray(obs, jnp.float32) - rms.mean) / jnp.sqrt(rms.var + self.epsilon)).astype(jnp.float32)

    def _update(self, rms: RunningMeanStd, obs) -> RunningMeanStd:
        # a single env's observation is a batch of one (gymnasium's `update(np.array([obs]))`)
        return rms.update(obs if self._batch else obs[None])

    def reset(self, key, params=None):
        obs, env_state = self.env.reset(key, params)
        rms = self._update(RunningMeanStd.create(jnp.shape(obs)[len(self._batch) :]), obs)
        return self._normalize(obs, rms), NormalizeObservationState(env_state=env_state, obs_rms=rms)

    def step(self, key, state, action, params=None):
        obs, env_state, reward, terminated, truncated, info = self.env.step(key, state.env_state, action, params)
        rms = self._update(state.obs_rms, obs)
        if "final_observation" in info:
            info = dict(info, final_observation=self._normalize(info["final_observation"], rms))
        state = NormalizeObservationState(env_state=env_state, obs_rms=rms)
        return self._normalize(obs, rms), state, reward, terminated, truncated, info

    def observation_space(self, params=None):
        inner = self.env.observation_space(params)
        return spaces.Box(-jnp.inf, jnp.inf, shape=inner.shape, dtype=jnp.float32)

    def render(self, state, params=None):
        return self.env.render(state.env_state, params)


@struct.dataclass
class NormalizeRewardState:
    env_state: object  # the wrapped env's state
    return_rms: RunningMeanStd  # statistics of `discounted_reward` over the steps so far
    discounted_reward: jax.Array  # float32[batch]: each env's discounted sum of rewards this episode


class NormalizeReward(Wrapper):
    """Rewards scaled by the running standard deviation of a discounted sum of rewards.

    Each step, `discounted_reward = discounted_reward * gamma * (1 - done) + reward` (with
    `done` this step's end of episode, terminated or truncated, as PureJaxRL's), its running
    statistics are updated, and the reward is returned divided by `sqrt(var + epsilon)`
    (not centred: shifting rewards would change the task).
    """

    def __init__(self, env, gamma: float = 0.99, epsilon: float = 1e-8):
        super().__init__(env)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"NormalizeReward: gamma must be in [0, 1], got {gamma!r}")
        self.gamma = float(gamma)
        self.epsilon = _check_epsilon("NormalizeReward", epsilon)
        self._batch = batch_shape(env)

    def reset(self, key, params=None):
        obs, env_state = self.env.reset(key, params)
        state = NormalizeRewardState(
            env_state=env_state,
            return_rms=RunningMeanStd.create(),
            discounted_reward=jnp.zeros(self._batch, jnp.float32),
        )
        return obs, state

    def step(self, key, state, action, params=None):
        obs, env_state, reward, terminated, truncated, info = self.env.step(key, state.env_state, action, params)
        reward = jnp.asarray(reward, jnp.float32)
        # the step that ends an episode restarts the sum with its own reward, as both
        # references do (gymnasium keeps this "for backward compatibility")
        done = jnp.logical_or(terminated, truncated)
        discounted = jnp.where(done, 0.0, state.discounted_reward * self.gamma) + reward
        rms = state.return_rms.update(jnp.reshape(discounted, (-1,)))
        state = NormalizeRewardState(env_state=env_state, return_rms=rms, discounted_reward=discounted)
        return obs, state, (reward / jnp.sqrt(rms.var + self.epsilon)).astype(jnp.float32), terminated, truncated, info

    def render(self, state, params=None):
        return self.env.render(state.env_state, params)
