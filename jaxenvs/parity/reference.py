"""The reference protocol (`Reference`), and drivers for the gymnasium, dm_env and JAX APIs.

A reference can be reset with a seed, stepped with an action, and have its state read and
written as `{field: value}` named like the JAX state's fields; the batch operations the checks
use are written once on top of that. `GymnasiumReference`, `DmEnvReference` and `JaxReference`
implement it for one API each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.parity.collect import first_episodes, space_and_cut, to_numpy
from jaxenvs.parity.data import State, Transitions, stack_rows, take_rows

__all__ = [
    "DmEnvReference",
    "GymnasiumReference",
    "JaxReference",
    "Policy",
    "Reference",
    "Scramble",
    "elapsed_steps",
    "episode_seeds",
    "set_elapsed_steps",
]

Policy = Callable[["Reference", np.random.Generator], Any]
Scramble = Callable[["Reference", np.random.Generator], None]


def episode_seeds(seed: int, n: int) -> list[int]:
    """The reference's reset seeds for `n` episodes (or resets) of a check seeded `seed`.

    Drawn from `numpy.random.SeedSequence(seed)`, not `seed, seed + 1, ...`: with consecutive
    seeds a run at seed 1 would replay all but one of seed 0's reference episodes, so that runs
    at several seeds would compare their JAX samples with one reference sample. Each value is
    below 2**31, as every reference library takes it.

    Args:
        seed: the check's seed.
        n: how many seeds.

    Returns:
        `n` ints; the first `k` of them do not depend on `n`.
    """
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(n, np.uint32) >> 1]


@dataclasses.dataclass(kw_only=True)
class Reference:
    """The protocol every reference follows, and how its states translate.

    Subclasses implement `reset`, `step`, `state`, `load` and `sample_action`; `take_draws`
    where the reference's random draws are recorded (the JAX side can then replay them). The
    batch operations (`transitions`, `step_cases`, `episodes`, `sample_steps`,
    `sample_resets`, `episode_statistics`) are written once on top of those.

    Args:
        read_state: `env -> {field: value}`, the reference's state named like the JAX state's
            fields.
        write_state: `(env, state)` writes such a dict back into the reference.
        to_jax: `(state, params) -> JAX state` (default: the JAX env's own reset state with
            the same field names filled in).
        from_jax: `JAX state -> {field: value}` (default: the same field names).
        exact_fields: fields compared exactly (`"*"`: every field); the rest to a tolerance.
        angle_fields: fields compared modulo 2 pi.
        random_fields: fields drawn at random, left to the distribution checks.
        random_step: `(state, next_state, reward) -> bool`: the steps where
            `random_step_fields` are drawn at random.
        random_step_fields: fields drawn at random on the steps `random_step` picks.
        obs_mask: `obs -> the entries of it compared` (applied to both sides' observations).
        draws_to_jax: `(draws, state) -> what a replay takes`, the recorded draws translated.
        batched_to_jax: `to_jax` takes a batch of states at once.
        truncation_excludes_termination: the reference's `truncated` is never true with
            `terminated` (dm_env's last step is one or the other).
        name: the reference in words.
        policy: `(reference, rng) -> action`, the actions of `transitions` when it is given
            none (`reference.env` is the live env); None: uniform random actions.
        env: the live library env, once `reset` has built it.

    Attributes:
        seeds_each_reset: whether `reset(seed)` starts a fresh random stream, so that
            `sample_resets` can seed each reset (a class attribute).
    """

    read_state: Callable[[Any], State] | None = None
    write_state: Callable[[Any, State], None] | None = None
    to_jax: Callable[[State, Any], Any] | None = None
    from_jax: Callable[[Any], State] | None = None
    exact_fields: Sequence[str] = ("time",)
    angle_fields: Sequence[str] = ()
    random_fields: Sequence[str] = ()
    random_step: Callable[[State, State, float], bool] | None = None
    random_step_fields: Sequence[str] = ()
    obs_mask: Callable[[np.ndarray], np.ndarray] | None = None
    draws_to_jax: Callable[[Any, State], Any] | None = None
    batched_to_jax: bool = False
    # the reference's `truncated` is never true with `terminated` (dm_env's last step is one or the other)
    truncation_excludes_termination: bool = False
    name: str = "reference"
    policy: Policy | None = None
    seeds_each_reset: ClassVar[bool] = True

    # --- the protocol ------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> Any:
        """Start an episode.

        Args:
            seed: a fresh random stream from this seed; None continues the current one.

        Returns:
            The first observation.

        Raises:
            NotImplementedError: the subclass does not implement it.
        """
        raise NotImplementedError

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """One step.

        Args:
            action: the action, as the reference takes it.

        Returns:
            `(observation, reward, terminated, truncated, info)`.

        Raises:
            NotImplementedError: the subclass does not implement it.
        """
        raise NotImplementedError

    def state(self) -> State:
        """The current state.

        Returns:
            `{field: numpy value}` (copies).

        Raises:
            TypeError: there is no `read_state`, or it does not return a dict.
        """
        if self.read_state is None:
            raise TypeError(f"{type(self).__name__} needs read_state=(env -> {{field: value}}) to read its state")
        state = self.read_state(self.env)
        if not isinstance(state, Mapping):
            raise TypeError(
                f"{self.name}: read_state must return a dict {{field name: value}} named like the JAX state's "
                f"fields, got {type(state).__name__}"
            )
        return {k: np.asarray(v).copy() for k, v in state.items()}

    def load(self, state: State) -> None:
        """Write a state into the reference.

        Args:
            state: a state read by `state()`, possibly changed.

        Raises:
            TypeError: there is no `write_state`.
        """
        if self.write_state is None:
            raise TypeError(f"{type(self).__name__} needs write_state=(env, state) to have a state injected")
        self.write_state(self.env, state)

    def sample_action(self, rng: np.random.Generator) -> Any:
        """A uniformly random action.

        Args:
            rng: the generator to draw from (where the reference does not draw its own).

        Returns:
            The action, as `step` takes it.

        Raises:
            NotImplementedError: the subclass does not implement it.
        """
        raise NotImplementedError

    def take_draws(self) -> Any:
        """The random draws made since the last call.

        Returns:
            The draws, or None where they are not recorded.
        """
        return None

    def close(self) -> None:
        """Release the library env (nothing by default)."""

    env: Any = None  # the live library env, once `reset` has built it

    # --- batch operations, written once on the protocol -------------------------------------
    def transitions(
        self, num_steps: int, seed: int = 0, policy: Policy | None = None, scramble: Scramble | None = None
    ) -> Transitions:
        """A stream of transitions, reset after every episode.

        Args:
            num_steps: how many transitions.
            seed: the seed of the first reset and of `rng`.
            policy: `(reference, rng) -> action` (default: the reference's `policy`, else uniform
                random actions).
            scramble: `(reference, rng)` writes a random state before every step (to reach
                rare events).

        Returns:
            The transitions.
        """
        rng, policy = np.random.default_rng(seed), policy or self.policy
        self.reset(seed)
        out: list[tuple] = []
        episode = 0
        for _ in range(num_steps):
            if scramble is not None:
                scramble(self, rng)
            state = self.state()
            action = policy(self, rng) if policy is not None else self.sample_action(rng)
            if self._record(out, state, action, episode):
                episode += 1
                self.reset()
        return self._pack(out)

    def step_cases(self, cases: Sequence[tuple[State, Any]]) -> Transitions:
        """One step from each injected state.

        Args:
            cases: `(state, action)` pairs.

        Returns:
            One transition per case, each numbered as its own episode.
        """
        if self.env is None:
            self.reset(0)
        out: list[tuple] = []
        for i, (state, action) in enumerate(cases):
            self.load(dict(state))
            self._record(out, dict(state), action, i)
        return self._pack(out)

    def episodes(self, num_episodes: int, seed: int = 0, max_steps: int = 100_000) -> Transitions:
        """Whole episodes under uniform random actions.

        Args:
            num_episodes: how many episodes.
            seed: the seed of the actions and of the episodes' reset seeds (`episode_seeds`).
            max_steps: each episode is cut here.

        Returns:
            The episodes' transitions.
        """
        rng = np.random.default_rng(seed)
        out: list[tuple] = []
        for episode, reset_seed in enumerate(episode_seeds(seed, num_episodes)):
            self.reset(reset_seed)
            for _ in range(max_steps):
                if self._record(out, self.state(), self.sample_action(rng), episode):
                    break
        return self._pack(out)

    def sample_steps(self, state: State, action: Any, n: int, seed: int = 0) -> Transitions:
        """`n` steps from the same injected state (the reference's random parts, sampled).

        Args:
            state: the state to inject.
            action: the action taken from it.
            n: how many steps.
            seed: the seed of the reference's draws.

        Returns:
            The `n` transitions.
        """
        self.reset(seed)
        return self.step_cases([(state, action)] * n)

    def sample_resets(self, n: int, seed: int = 0) -> tuple[State, Any]:
        """`n` resets.

        Args:
            n: how many resets.
            seed: the seed of the resets' seeds (`episode_seeds`), or of the one seeded stream.

        Returns:
            `(states, observations)`, each stacked along a new first axis.
        """
        states, obs = [], []
        # a reset of its own seed each, or one seeded env reset n times
        seeds = episode_seeds(seed, n) if self.seeds_each_reset else [seed] + [None] * (n - 1)
        for reset_seed in seeds:
            obs.append(self.reset(reset_seed))
            states.append(self.state())
        return stack_rows(states), stack_rows(obs)

    def episode_statistics(self, num_episodes: int, seed: int = 0, max_steps: int = 100_000):
        """Lengths and returns of episodes under uniform random actions.

        Args:
            num_episodes: how many episodes.
            seed: the seed of the first reset and of the actions.
            max_steps: each episode is cut here.

        Returns:
            `(lengths, returns)`, numpy arrays of `num_episodes` each.
        """
        rng = np.random.default_rng(seed)
        lengths, returns = [], []
        for i in range(num_episodes):
            self.reset(None if i else seed)  # one seeded stream
            done, length, ret = False, 0, 0.0
            while not done and length < max_steps:
                _, r, te, tr, _ = self.step(self.sample_action(rng))
                done, length, ret = bool(te or tr), length + 1, ret + float(r)
            lengths.append(length)
            returns.append(ret)
        return np.asarray(lengths), np.asarray(returns)

    def _record(self, out: list[tuple], state: State, action: Any, episode: int) -> bool:
        """Step from `state` (already the reference's) with `action`; append the transition; whether
        the episode ended."""
        self.take_draws()
        obs, reward, terminated, truncated, info = self.step(action)
        out.append((state, action, self.state(), obs, reward, terminated, truncated, episode, info, self.take_draws()))
        return terminated or truncated

    @staticmethod
    def _pack(out: list[tuple]) -> Transitions:
        states, actions, next_states, obs, rewards, terminated, truncated, episode, infos, draws = zip(*out)
        infos = [i if isinstance(i, Mapping) else {} for i in infos]
        info = {}
        for k in [k for k in infos[0] if all(k in i for i in infos)]:
            try:
                info[k] = np.stack([np.asarray(i[k]) for i in infos])
            except (ValueError, TypeError):  # ragged or not numeric: not compared
                pass
        return Transitions(
            stack_rows(states),
            np.asarray(actions),
            stack_rows(next_states),
            stack_rows(obs),
            np.asarray(rewards, np.float64),
            np.asarray(terminated, bool),
            np.asarray(truncated, bool),
            np.asarray(episode, np.int64),
            info,
            list(draws) if any(d is not None for d in draws) else None,
        )


# ---------------------------------------------------------------------------------------------
# gymnasium


def elapsed_steps(env: Any) -> int:
    """The steps a gymnasium env's `TimeLimit` has counted.

    Args:
        env: a gymnasium env, possibly wrapped.

    Returns:
        The count (0 without a `TimeLimit`, or before its first reset).
    """
    steps = env.get_wrapper_attr("_elapsed_steps") if env.has_wrapper_attr("_elapsed_steps") else None
    return 0 if steps is None else int(steps)


def set_elapsed_steps(env: Any, t: int) -> None:
    """Set the steps a gymnasium env's `TimeLimit` has counted (nothing without one).

    Args:
        env: a gymnasium env, possibly wrapped.
        t: the count.
    """
    env.set_wrapper_attr("_elapsed_steps", int(t), force=False)


@dataclasses.dataclass(kw_only=True)
class GymnasiumReference(Reference):
    """A `gymnasium.Env` as a reference.

    Args:
        make: `() -> gymnasium.Env` builds it (e.g. `lambda: gymnasium.make(id)`).
            (`reference.env` is the live env).

    `Reference`'s fields are taken too, as keywords.
    """

    make: Callable[[], Any]

    def reset(self, seed: int | None = None) -> Any:
        """Build the env on first use and reset it (its action space seeded too, given `seed`).

        Args:
            seed: gymnasium's `reset(seed=)`.

        Returns:
            The first observation.
        """
        if self.env is None:
            self.env = self.make()
        if seed is not None:
            self.env.action_space.seed(seed)
        return self.env.reset(seed=seed)[0]

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """One gymnasium step.

        Args:
            action: the action.

        Returns:
            `(observation, reward, terminated, truncated, info)`, reward and flags as Python scalars.
        """
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, float(reward), bool(terminated), bool(truncated), info

    def sample_action(self, rng: np.random.Generator) -> Any:
        """A uniformly random action from the env's action space (seeded by `reset`).

        Args:
            rng: unused: the action space draws from its own seeded stream.

        Returns:
            The action.
        """
        return self.env.action_space.sample()

    def close(self) -> None:
        """Close the gymnasium env (a later `reset` builds a new one)."""
        if self.env is not None:
            self.env.close()
            self.env = None


# ---------------------------------------------------------------------------------------------
# dm_env


@dataclasses.dataclass(kw_only=True)
class DmEnvReference(Reference):
    """A `dm_env.Environment` as a reference.

    The episode ends when a `TimeStep` is `last()`. A last step is terminated or truncated,
    never both, so the JAX `truncated` is compared as "truncated and not terminated".

    Args:
        make: `seed -> dm_env.Environment` builds one seeded env (dm_env has no seeded
            reset); `reset(seed)` builds a fresh one, `reset()` continues the same stream.
        discount_truncates: a last step with a positive discount is truncated (dm_env's way
            of marking a time limit), not terminated.
        truncation_excludes_termination: as `Reference` (True here).

    `Reference`'s other fields are taken too, as keywords.

    Attributes:
        seeds_each_reset: False: dm_env seeds an env once, when it is built.
    """

    make: Callable[[int], Any]
    discount_truncates: bool = True
    truncation_excludes_termination: bool = True
    seeds_each_reset: ClassVar[bool] = False

    def reset(self, seed: int | None = None) -> Any:
        """Start an episode: a fresh env from `seed`, or the same stream without one.

        Args:
            seed: build a new env with this seed; None continues the current env.

        Returns:
            The first observation.
        """
        if self.env is None or seed is not None:
            self.env = self.make(0 if seed is None else seed)
        return self.env.reset().observation

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """One dm_env step, its `TimeStep` read as gymnasium's five values.

        Args:
            action: the action.

        Returns:
            `(observation, reward, terminated, truncated, {})` (a missing reward is 0).
        """
        ts = self.env.step(action)
        last = bool(ts.last())
        truncated = last and self.discount_truncates and float(ts.discount or 0.0) > 0
        return ts.observation, float(ts.reward or 0.0), last and not truncated, truncated, {}

    def sample_action(self, rng: np.random.Generator) -> Any:
        """A uniformly random action within the env's `action_spec()`.

        Args:
            rng: the generator to draw from.

        Returns:
            An int for a discrete spec, else an array of the spec's shape and dtype.
        """
        spec = self.env.action_spec()
        if hasattr(spec, "num_values"):
            return int(rng.integers(spec.num_values))
        return rng.uniform(spec.minimum, spec.maximum, spec.shape).astype(spec.dtype)


# ---------------------------------------------------------------------------------------------
# JAX


@dataclasses.dataclass(kw_only=True)
class JaxReference(Reference):
    """A JAX env as a reference.

    States are its own dataclasses, read field by field unless `read_state` says otherwise;
    `to_jax` defaults to the same field names. Besides the one-step protocol (each step one
    jitted call), `sample_steps`, `sample_resets`, `episodes` and `episode_statistics` run
    vmapped, in one program each.

    Args:
        env: ours (`reset(key, params)`, `step(...)` -> six-tuple) or gymnax's (its raw
            `reset_env` / `step_env`, truncation from `is_truncated`, the way its
            auto-resetting `step` sees them).
        params: its params (default: `env.default_params`).

    `Reference`'s other fields are taken too, as keywords.
    """

    env: Any
    params: Any = None

    def __post_init__(self) -> None:
        if self.params is None:
            self.params = self.env.default_params
        params = self.params
        if hasattr(self.env, "step_env") and hasattr(self.env, "is_truncated"):  # gymnax's raw functions

            def reset_fn(key):
                return self.env.reset_env(key, params)

            def step_fn(key, state, action):
                obs, state, reward, done, info = self.env.step_env(key, state, action, params)
                return obs, state, reward, done, self.env.is_truncated(state, params), info
        else:

            def reset_fn(key):
                return self.env.reset(key, params)

            def step_fn(key, state, action):
                return self.env.step(key, state, action, params)

        self._reset_fn, self._step_fn = reset_fn, step_fn
        self._reset = jax.jit(reset_fn)
        self._step = jax.jit(step_fn)
        # compiled once, whatever the state injected
        self._sample_steps = jax.jit(jax.vmap(step_fn, in_axes=(0, None, None)))
        self._sample_resets = jax.jit(jax.vmap(reset_fn))
        self._live, self._key = None, None

    # the live env of `read_state` / `write_state` is the JAX state
    def state(self) -> State:
        """The live JAX state, by `read_state` or field by field.

        Returns:
            `{field: numpy value}` (copies).
        """
        return {k: v.copy() for k, v in self._read(self._live).items()}

    def load(self, state: State) -> None:
        """Make `state` the live JAX state (by `write_state`, or field by field in each field's dtype).

        Args:
            state: `{field: value}`.
        """
        if self.write_state is not None:
            self._live = self.write_state(self._live, state)
            return
        self._live = self._live.replace(
            **{k: jnp.asarray(v, jnp.asarray(getattr(self._live, k)).dtype) for k, v in state.items()}
        )

    def reset(self, seed: int | None = None) -> Any:
        """Start an episode from the next key of the stream.

        Args:
            seed: restart the stream at `jax.random.key(seed)`; None continues it.

        Returns:
            The first observation, as numpy.
        """
        if seed is not None or self._key is None:
            self._key = jax.random.key(0 if seed is None else seed)
        self._key, sub = jax.random.split(self._key)
        obs, self._live = self._reset(sub)
        return np.asarray(obs)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """One jitted step of the live state.

        Args:
            action: the action.

        Returns:
            `(observation, reward, terminated, truncated, info)`, as numpy and Python scalars.
        """
        self._key, sub = jax.random.split(self._key)
        obs, self._live, reward, terminated, truncated, info = self._step(sub, self._live, jnp.asarray(action))
        return to_numpy(obs), float(reward), bool(terminated), bool(truncated), to_numpy(info)

    def sample_action(self, rng: np.random.Generator) -> Any:
        """A uniformly random action from the env's action space.

        Args:
            rng: draws the key the space samples with.

        Returns:
            The action, as numpy.
        """
        key = jax.random.key(int(rng.integers(2**31)))
        return np.asarray(self.env.action_space(self.params).sample(key))

    # --- vmapped batch operations -------------------------------------------------------------
    def _keys(self, seed: int, *shape: int) -> jax.Array:
        data = np.random.default_rng(seed).integers(0, 2**32, size=(*shape, 2), dtype=np.uint32)
        return jax.random.wrap_key_data(data)

    def _read(self, states: Any) -> State:
        """`read_state` of a batch of states (it must work on batches; the fields by default)."""
        if self.read_state is not None:
            return {k: np.asarray(v) for k, v in self.read_state(states).items()}
        return {f.name: np.asarray(getattr(states, f.name)) for f in dataclasses.fields(states)}

    def sample_steps(self, state: State, action: Any, n: int, seed: int = 0) -> Transitions:
        """`n` steps from the same injected state, vmapped.

        Args:
            state: the state to inject.
            action: the action taken from it.
            n: how many steps.
            seed: the seed of the steps' keys.

        Returns:
            The `n` transitions.
        """
        self.reset(seed)
        self.load(state)
        obs, nxt, *out = to_numpy(self._sample_steps(self._keys(seed, n), self._live, jnp.asarray(action)))
        return Transitions.from_steps(state, action, self._read(nxt), (obs, *out))

    def sample_resets(self, n: int, seed: int = 0) -> tuple[State, Any]:
        """`n` resets, vmapped.

        Args:
            n: how many resets.
            seed: the seed of the reset keys.

        Returns:
            `(states, observations)`, `n` rows each.
        """
        obs, states = to_numpy(self._sample_resets(self._keys(seed, n)))
        return self._read(states), obs

    def episodes(self, num_episodes: int, seed: int = 0, max_steps: int = 100_000) -> Transitions:
        """The first episode of each of `num_episodes` vmapped envs, uniform random actions.

        Args:
            num_episodes: how many episodes.
            seed: the seed of the envs' keys.
            max_steps: each episode is cut here (or at the env's `max_steps_in_episode`).

        Returns:
            The episodes' transitions.
        """
        space, steps = space_and_cut(self.env, self.params, max_steps)

        def episode(key):
            k_reset, k_run = jax.random.split(key)
            _, state = self._reset_fn(k_reset)

            def body(carry, k):
                state, alive = carry
                ka, ks = jax.random.split(k)
                action = space.sample(ka)
                obs, nxt, r, te, tr, _ = self._step_fn(ks, state, action)
                return (nxt, alive & ~(te | tr)), (state, action, nxt, obs, r, te, tr, alive)

            return jax.lax.scan(body, (state, jnp.asarray(True)), jax.random.split(k_run, steps))[1]

        keys = jax.random.split(jax.random.key(seed), num_episodes)
        states, actions, nxt, obs, r, te, tr, alive = to_numpy(jax.jit(jax.vmap(episode))(keys))
        keep = alive.reshape(-1)
        flat = lambda tree: take_rows(jax.tree_util.tree_map(lambda x: x.reshape(-1, *x.shape[2:]), tree), keep)  # noqa: E731
        return Transitions(
            self._read(flat(states)),
            flat(actions),
            self._read(flat(nxt)),
            flat(obs),
            flat(r).astype(np.float64),
            flat(te).astype(bool),
            flat(tr).astype(bool),
            np.repeat(np.arange(num_episodes), steps)[keep],
        )

    def episode_statistics(self, num_episodes: int, seed: int = 0, max_steps: int = 100_000):
        """Lengths and returns of `num_episodes` vmapped first episodes, uniform random actions.

        Args:
            num_episodes: how many episodes.
            seed: the seed of the envs' keys.
            max_steps: each episode is cut here (or at the env's `max_steps_in_episode`).

        Returns:
            `(lengths, returns)`, numpy arrays of `num_episodes` each.
        """
        space, steps = space_and_cut(self.env, self.params, max_steps)
        run = jax.jit(lambda keys: first_episodes(self._reset_fn, self._step_fn, space, steps, keys))
        lengths, returns = to_numpy(run(self._keys(seed, num_episodes)))
        return lengths, returns.astype(np.float64)
