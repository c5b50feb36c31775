"""`NormalizeObservation` and `NormalizeReward`: running statistics carried in the env state.

Over `make_vec` the statistics are shared by the batch (PureJaxRL's way); `reset` starts them
afresh, so put these wrappers over an auto-resetting env. `reset_to_level` starts them as
`reset` does, or, given the run's `state=` (a PLR loop's next rollout), keeps them. See
docs/wrappers.md.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.base import find_wrapper
from jaxenvs.wrappers.start import StartWrapper
from jaxenvs.wrappers.vector import VecEnv

# gymnasium's and PureJaxRL's initial count: the prior (mean 0, variance 1) weighs almost nothing
INITIAL_COUNT = 1e-4


@struct.dataclass
class RunningMeanStd:
    """Mean, variance and count of the values seen so far (float32).

    Attributes:
        mean: float32[shape], the running mean.
        var: float32[shape], the running (population) variance.
        count: float32[], the values seen, plus `INITIAL_COUNT`.
    """

    mean: jax.Array
    var: jax.Array
    count: jax.Array

    @classmethod
    def create(cls, shape: tuple[int, ...] = ()) -> RunningMeanStd:
        """Statistics before any value: mean 0, variance 1, count `INITIAL_COUNT` (gymnasium's start).

        Args:
            shape: The shape of one value.

        Returns:
            The statistics.
        """
        return cls(
            mean=jnp.zeros(shape, jnp.float32),
            var=jnp.ones(shape, jnp.float32),
            count=jnp.asarray(INITIAL_COUNT, jnp.float32),
        )

    def update(self, batch: jax.Array) -> RunningMeanStd:
        """The statistics with the rows of `batch` added (Chan et al.'s parallel update).

        Args:
            batch: Values along the leading axis.

        Returns:
            The updated statistics.
        """
        batch = jnp.asarray(batch, jnp.float32)
        batch_mean, batch_var = jnp.mean(batch, axis=0), jnp.var(batch, axis=0)
        batch_count = jnp.float32(batch.shape[0])
        delta = batch_mean - self.mean
        total = self.count + batch_count
        m2 = self.var * self.count + batch_var * batch_count + jnp.square(delta) * self.count * batch_count / total
        return RunningMeanStd(mean=self.mean + delta * batch_count / total, var=m2 / total, count=total)


def batch_shape(env) -> tuple[int, ...]:
    """The batch shape of `env`.

    Args:
        env: An env, raw or wrapped.

    Returns:
        `(num_envs,)` for a batched env (a `VecEnv` in the stack: `make_vec`, or a raw env that is
        a batch of its own, declaring `reset_rows`: ALE's), `()` for a single one.
    """
    vec = find_wrapper(env, VecEnv)
    if vec is not None:
        return (vec.num_envs,)
    raw = env.unwrapped
    return (raw.num_envs,) if raw.reset_rows is not None else ()


def _check_epsilon(wrapper: str, epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError(f"{wrapper}: epsilon must be > 0, got {epsilon!r}")
    return float(epsilon)


@struct.dataclass
class NormalizeObservationState:
    """`NormalizeObservation`'s state.

    Attributes:
        env_state: The wrapped env's state.
        obs_rms: The statistics of the observations returned so far.
    """

    env_state: object
    obs_rms: RunningMeanStd


class NormalizeObservation(StartWrapper):
    """Observations centred and scaled by running statistics: `(obs - mean) / sqrt(var + epsilon)`.

    The statistics are updated with every observation returned (by `reset` or `reset_to_level`,
    then by each step) before it is normalized; `info["final_observation"]` is normalized with
    them but not counted. `reset_to_level(..., state=s)` keeps `s`'s statistics (a PLR loop's
    next rollout); without `state` they start afresh, as in `reset`.
    Observations become float32 in an unbounded Box.

    Args:
        env: An env with a Box observation space (wrap a Dict or Tuple one in
            `FlattenObservation` first).
        epsilon: Added to the variance before the square root (> 0).

    Raises:
        ValueError: If `epsilon` is not > 0.
        TypeError: If the observation space is not a Box.

    Examples:
        >>> import jax, jaxenvs
        >>> from jaxenvs.wrappers import NormalizeObservation
        >>> venv, params = jaxenvs.make_vec("CartPole-v1", 8)
        >>> venv = NormalizeObservation(venv)
        >>> obs, state = venv.reset(jax.random.key(0), params)
        >>> bool(abs(obs.mean(axis=0)).max() < 1e-5)  # centred on the batch's first observations
        True
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

    def _start(self, obs, env_state, params, previous=None):
        """The statistics (`previous`'s, or fresh) updated with the first observation, which is normalized."""
        rms = RunningMeanStd.create(jnp.shape(obs)[len(self._batch) :]) if previous is None else previous.obs_rms
        rms = self._update(rms, obs)
        return self._normalize(obs, rms), NormalizeObservationState(env_state=env_state, obs_rms=rms)

    def _env_state(self, state):
        """The wrapped env's state."""
        return state.env_state

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; the statistics updated, the observation normalized."""
        obs, env_state, reward, terminated, truncated, info = self.env.step(key, state.env_state, action, params)
        rms = self._update(state.obs_rms, obs)
        if "final_observation" in info:
            info = dict(info, final_observation=self._normalize(info["final_observation"], rms))
        state = NormalizeObservationState(env_state=env_state, obs_rms=rms)
        return self._normalize(obs, rms), state, reward, terminated, truncated, info

    @defaults_params
    def observation_space(self, params=None):
        """An unbounded float32 Box of the wrapped env's observation shape."""
        inner = self.env.observation_space(params)
        return spaces.Box(-jnp.inf, jnp.inf, shape=inner.shape, dtype=jnp.float32)

    @defaults_params
    def render(self, state, params=None):
        """A picture of `state`."""
        return self.env.render(state.env_state, params)


@struct.dataclass
class NormalizeRewardState:
    """`NormalizeReward`'s state.

    Attributes:
        env_state: The wrapped env's state.
        return_rms: The statistics of `discounted_reward` over the steps so far.
        discounted_reward: float32[batch], each env's discounted sum of rewards this episode.
    """

    env_state: object
    return_rms: RunningMeanStd
    discounted_reward: jax.Array


class NormalizeReward(StartWrapper):
    """Rewards scaled by the running standard deviation of a discounted sum of rewards.

    Each step, `discounted_reward = discounted_reward * gamma * (1 - done) + reward` (with `done`
    this step's end of episode, terminated or truncated, as PureJaxRL's), its running statistics
    are updated, and the reward is returned divided by `sqrt(var + epsilon)` (not centred:
    shifting rewards would change the task). `reset` and `reset_to_level` start the sum at zero
    and the statistics afresh; `reset_to_level(..., state=s)` keeps `s`'s statistics.

    Args:
        env: The env to wrap.
        gamma: The discount of the running sum, in [0, 1].
        epsilon: Added to the variance before the square root (> 0).

    Raises:
        ValueError: If `gamma` is outside [0, 1] or `epsilon` is not > 0.

    Examples:
        >>> import jax, jaxenvs
        >>> from jaxenvs.wrappers import NormalizeReward
        >>> env, params = jaxenvs.make("CartPole-v1")
        >>> env = NormalizeReward(env, gamma=0.99)
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> obs, state, reward, *_ = env.step(jax.random.key(1), state, 0, params)
        >>> float(state.discounted_reward)  # the raw reward, 1.0, summed so far
        1.0
    """

    def __init__(self, env, gamma: float = 0.99, epsilon: float = 1e-8):
        super().__init__(env)
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"NormalizeReward: gamma must be in [0, 1], got {gamma!r}")
        self.gamma = float(gamma)
        self.epsilon = _check_epsilon("NormalizeReward", epsilon)
        self._batch = batch_shape(env)

    def _start(self, obs, env_state, params, previous=None):
        """The statistics `previous`'s, or fresh; the discounted sum at zero."""
        state = NormalizeRewardState(
            env_state=env_state,
            return_rms=RunningMeanStd.create() if previous is None else previous.return_rms,
            discounted_reward=jnp.zeros(self._batch, jnp.float32),
        )
        return obs, state

    def _env_state(self, state):
        """The wrapped env's state."""
        return state.env_state

    @defaults_params
    def step(self, key, state, action, params=None):
        """One transition; the reward scaled."""
        obs, env_state, reward, terminated, truncated, info = self.env.step(key, state.env_state, action, params)
        reward = jnp.asarray(reward, jnp.float32)
        # the step that ends an episode restarts the sum with its own reward, as both
        # references do (gymnasium keeps this "for backward compatibility")
        done = jnp.logical_or(terminated, truncated)
        discounted = jnp.where(done, 0.0, state.discounted_reward * self.gamma) + reward
        rms = state.return_rms.update(jnp.reshape(discounted, (-1,)))
        state = NormalizeRewardState(env_state=env_state, return_rms=rms, discounted_reward=discounted)
        return obs, state, (reward / jnp.sqrt(rms.var + self.epsilon)).astype(jnp.float32), terminated, truncated, info

    @defaults_params
    def render(self, state, params=None):
        """A picture of `state`."""
        return self.env.render(state.env_state, params)
