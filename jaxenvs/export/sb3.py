"""A batch of jaxenvs envs as a Stable-Baselines3 `VecEnv` (the `sb3` extra).

One jitted, vmapped call per `step`; finished envs reset in the same step, as SB3's
`DummyVecEnv` does. The call works on buffers of 32-bit words, as the single gymnasium env's
(`_packed`): the key and the batched state stay on the device, and what SB3 returns
(observations, each env's final observation, rewards, both flags) comes to the host as one
array, cut into numpy views there. `set_options({"level": level})` starts the envs from levels at
the next `reset()`, as SB3's options apply. See docs/export.md.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import spaces
from jaxenvs.export import missing_extra

try:
    from gymnasium.vector.utils import batch_space
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as e:
    raise missing_extra(e, "sb3", __name__) from e

from jaxenvs.export import _bridge
from jaxenvs.export._bridge import (
    Batch,
    Reconstructs,
    check_actions,
    check_level_option,
    check_not_forked,
    compiled,
    index,
    key_from_seed,
)
from jaxenvs.export._packed import Carry, Observations, layout, pack
from jaxenvs.spaces.convert import cast, to_gymnasium
from jaxenvs.tree import where_done

__all__ = ["JaxSB3VecEnv"]


class _Fused:
    """A batch's reset and SAME_STEP step as one jitted call each, on buffers of 32-bit words.

    The carry (`Carry`: the stream's key data, then the batched state) stays on the device; the
    outputs are the observations, then the final observations (`VecEnv`'s
    `info["final_observation"]`: the observation each env stepped to, before any reset), then
    the rewards as float32, then SB3's `dones` (`terminated | truncated`) and its
    `TimeLimit.truncated` (`truncated & ~terminated`), one word per env each. A batch under
    levels (`batch.leveled`) also resets from given levels (`reset_to_level`).

    Args:
        batch: The `Batch` (its env, params and batch size).
        obs_space: The batched gymnasium observation space.
    """

    def __init__(self, batch: Batch, obs_space: Any):
        from jaxenvs.wrappers.vector import VecEnv as JaxVecEnv

        env, params, n = batch.env, batch.params, batch.num_envs
        self.num_envs = n
        venv = JaxVecEnv(env, n)
        v_reset = jax.vmap(env.reset, in_axes=(0, None))
        key = jax.random.key(0)
        obs, state = jax.eval_shape(lambda k: v_reset(jax.random.split(k, n), params), key)
        self.carry = carry = Carry(key, state)
        obs_leaves, obs_tree = jax.tree_util.tree_flatten(obs)
        obs_layout, obs_end = layout(obs_leaves, start=carry.outputs_start)
        final_layout, end = layout(obs_leaves, start=obs_end)
        self.observations = Observations(obs_layout, obs_tree, obs_space, batched=True)
        self.final_observations = Observations(final_layout, obs_tree, obs_space, batched=True)
        self.reward_at, self.flags_at = end, end + n
        blank_outputs = end + 3 * n - obs_end  # what a reset does not fill

        def first(words, obs, state):
            outputs = pack(jax.tree_util.tree_leaves(obs))
            if carry.joined:  # the buffer has one shape whatever made it
                outputs = jnp.pad(outputs, (0, blank_outputs))  # as the gymnasium env's reset (faster)
            return carry.result(words, state, outputs)

        def reset(words, keys):
            return first(words, *v_reset(keys, params))

        def reset_to_level(words, keys, levels, given):
            # the envs given no level start as a reset starts them
            started = jax.vmap(batch.leveled.start, in_axes=(0, 0, None))(keys, levels, params)
            return first(words, *where_done(given, started, v_reset(keys, params)))

        def step(buf, actions):
            words, k = carry.split(buf)
            obs, state, reward, terminated, truncated, info = venv.step(k, carry.state(buf), actions, params)
            outputs = jax.tree_util.tree_leaves(obs) + jax.tree_util.tree_leaves(info["final_observation"])
            outputs += [jnp.asarray(reward, jnp.float32), terminated | truncated, truncated & ~terminated]
            return carry.result(words, state, pack(outputs))

        self.reset = jax.jit(reset)
        if batch.leveled is not None:
            self.reset_to_level = jax.jit(reset_to_level)
        self.step = jax.jit(step, donate_argnums=carry.donate)
        self.state = jax.jit(carry.state)
        self.key = jax.jit(lambda buf: jax.random.wrap_key_data(buf[: carry.key_words], impl=carry.impl))


# one `_Fused` per `Batch` (which `compiled` caches per id, overrides and batch size)
_FUSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _fused(batch: Batch, obs_space: Any) -> _Fused:
    fused = _FUSED.get(batch)
    if fused is None:
        fused = _FUSED[batch] = _Fused(batch, obs_space)
    return fused


class JaxSB3VecEnv(Reconstructs, VecEnv):
    """`num_envs` copies of a jaxenvs env for SB3.

    `dones` is `terminated | truncated`; each finished env's info holds `terminal_observation`
    and every info holds `TimeLimit.truncated` (`truncated and not terminated`, the flag SB3
    bootstraps on). Wrap with `VecMonitor` for episode statistics. `set_options({"level":
    level})` starts every env from `level` (a `jaxenvs.levels.Level`) at the next `reset()`, and
    `set_options([{"level": l0}, {}, ...])` each env from its own (or as usual, given none): the
    episodes run under their levels, and the episodes after them (the auto-resets) start as
    without levels, or from the `levels=` sampler. It pickles by reconstruction (the id,
    params, overrides and sampler, and its run: key, state, seeds, options), so a copy steps on
    exactly as the original; in a process forked after JAX started it raises a `RuntimeError`
    (SB3's `SubprocVecEnv` starts its workers with forkserver by default: safe).

    Args:
        env_id: A registered id, or a raw `jaxenvs.Environment` (with `params`).
        num_envs: The batch size.
        params: The raw env's params; its `default_params` when None.
        seed: The seed of the first `reset()` (later resets continue the key stream); a random
            one when None.
        render_mode: None or `"rgb_array"` (`get_images()` / `render()`).
        levels: `sample(key) -> Level`: every episode starts from its own sampled level, as
            `make_vec(levels=...)`; levels set by `set_options` must have the sampler's fields.
            Define it at module level for the env to pickle.
        **overrides: Params fields, e.g. `max_steps_in_episode=200`.

    Raises:
        ValueError: If `render_mode` is neither None nor "rgb_array", `num_envs` is invalid, or
            `replay_levels` is given (make_vec's option).
    """

    PICKLED = ("_key", "_carry", "_actions", "_seeds", "_options", "reset_infos", "_levels_on")

    def __init__(
        self,
        env_id: Any,
        num_envs: int = 1,
        params: Any = None,
        seed: int | None = None,
        render_mode: str | None = None,
        levels: Any = None,
        **overrides: Any,
    ):
        check_not_forked(env_id)
        self.remember_arguments(
            env_id, num_envs, params=params, seed=seed, render_mode=render_mode, levels=levels, **overrides
        )
        if render_mode is not None and render_mode != "rgb_array":
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        # the batch without levels, and under them (built when first needed)
        self._build = (env_id, params, overrides, levels)
        plain = compiled(env_id, params, overrides, num_envs)
        self._batches: dict[bool, Batch] = {False: plain}
        self._levels_on = levels is not None
        env, params = self.jax_env, self.params = plain.env, plain.params
        self.render_mode = render_mode
        self._jax_obs_space = env.observation_space(params)
        self._jax_action_space = env.action_space(params)
        observation_space = to_gymnasium(self._jax_obs_space)
        self._batched_obs_space = batch_space(observation_space, num_envs)
        super().__init__(num_envs, observation_space, to_gymnasium(self._jax_action_space))
        self._key: Any = key_from_seed(seed if seed is not None else int(np.random.randint(2**31)))
        self.restored()
        self._carry: Any = None  # the key and the batched state, on the device (holds the key once reset)
        self._actions: Any = None
        space = self._jax_action_space
        self._discrete_actions = None  # (n, dtype) for the quick action check
        if type(space) is spaces.Discrete and space.start == 0:
            self._discrete_actions = (space.n, np.dtype(space.dtype))

    # --- the VecEnv API ----------------------------------------------------------------
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """SB3's `seed`: env `i` gets `seed + i` at the next `reset()`.

        Args:
            seed: A non-negative int, or None.

        Returns:
            The seeds the envs will get.

        Raises:
            TypeError: If `seed` is not an int (1.5 would become 1, "12" is no number).
            ValueError: If `seed` is negative.
        """
        if seed is not None:
            key_from_seed(seed)
        return super().seed(seed)

    def reset(self):
        """Reset every env (with the seeds and options set by `seed` and `set_options`, if any).

        The only option is `"level"`: a `jaxenvs.levels.Level` the env starts from and its
        episode runs under, checked as `make_vec`'s `reset_to_level` checks levels (each env's
        values, naming the first bad one).

        Returns:
            The batch's observations (numpy).

        Raises:
            TypeError: A level is not a `Level`, the levels of the envs differ in tree, or one
                has a wrong dtype.
            ValueError: An option other than `"level"`; a level sets a field that may not vary
                per episode, or a value outside its field's range.
        """
        check_not_forked(self.jax_env.name)
        levels, given = self._option_levels()
        batch = self._batches_for(levels is not None or self._build[3] is not None)
        if levels is not None:
            levels = batch.leveled.prepare(levels, self.num_envs)
        seeds = None if self._seeds[0] is None else list(self._seeds)
        key, keys = batch.keys(self._stream_key(), seeds)
        fused = _fused(batch, self._batched_obs_space)
        if levels is None:
            result = fused.reset(jax.random.key_data(key), keys)
        else:
            result = fused.reset_to_level(jax.random.key_data(key), keys, levels, given)
        self._carry, raw = fused.carry.host(result)
        self._batch, self._fused, self._levels_on = batch, fused, batch is not self._batches[False]
        self._key = None  # the carry holds it
        self._reset_seeds()
        self._reset_options()
        return fused.observations(raw)

    def _option_levels(self) -> tuple[Any, Any]:
        """The levels `set_options` gave, one per env (stacked), and which envs were given one.

        Returns:
            `(levels, given)`: None and None where no env was given a level; an env given none
            holds a copy of another's, unused.

        Raises:
            TypeError: A level is not a `Level`, or the levels differ in tree.
            ValueError: An option other than `"level"`.
        """
        name = self.jax_env.name
        levels = []
        for options in self._options:
            unknown = sorted(set(options or {}) - {"level"})
            if unknown:
                raise ValueError(
                    f"{name}: the only reset option is 'level' (a jaxenvs.levels.Level to start from), got {unknown}"
                )
            levels.append(check_level_option(options, name))
        given = [level is not None for level in levels]
        if not any(given):
            return None, None
        first = levels[given.index(True)]
        tree = jax.tree_util.tree_structure(first)
        for i, level in enumerate(levels):
            if level is not None and jax.tree_util.tree_structure(level) != tree:
                raise TypeError(
                    f"{name}: the levels of one reset must have one tree (the same settings fields, each with a start "
                    f"state or none): env {i}'s is {jax.tree_util.tree_structure(level)}, another's {tree}"
                )
        rows = [first if level is None else level for level in levels]
        stacked = jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *rows)
        return stacked, jnp.asarray(given)

    def _batches_for(self, levels_on: bool) -> Batch:
        """The batch without levels, or under them (built on first use)."""
        batch = self._batches.get(levels_on)
        if batch is None:
            env_id, params, overrides, levels = self._build
            batch = self._batches[levels_on] = compiled(env_id, params, overrides, self.num_envs, levels, True)
        return batch

    def restored(self) -> None:
        """The batch and fused functions the run's state belongs to (after unpickling too)."""
        self._batch = self._batches_for(self._levels_on)
        self._fused = _fused(self._batch, self._batched_obs_space)

    def step_async(self, actions: np.ndarray) -> None:
        """Check and keep the actions for `step_wait`.

        Args:
            actions: One action per env (numpy).

        Raises:
            ValueError: For an action outside the action space.
        """
        quick = self._discrete_actions
        if (
            quick is not None
            and type(actions) is np.ndarray
            and actions.dtype.kind in "iu"
            and actions.shape == (self.num_envs,)
            # one reduction: read as unsigned, a negative integer is beyond every valid action
            and actions.view(f"u{actions.dtype.itemsize}").max() < quick[0]
        ):  # the quick check passes only actions the full one accepts
            self._actions = actions.astype(quick[1])
        else:
            check_actions(actions, self._jax_action_space, self.jax_env.name, self.num_envs)
            self._actions = cast(actions, self._jax_action_space)

    def step_wait(self):
        """Step every env with the kept actions, resetting finished ones.

        Returns:
            `(obs, rewards, dones, infos)`, SB3's four values.

        Raises:
            RuntimeError: If `reset()` was not called first.
        """
        if self._carry is None:
            raise RuntimeError("call reset() before step()")
        if _bridge._forked_after_jax:
            check_not_forked(self.jax_env.name)
        # one jitted call (key split, step, resets of the finished envs, outputs packed), one host copy
        fused, n = self._fused, self.num_envs
        self._carry, raw = fused.carry.host(fused.step(self._carry, self._actions))
        at = fused.reward_at
        reward = raw[at : at + n].view(np.float32)
        at = fused.flags_at
        flags = raw[at : at + 2 * n].astype(np.bool_)
        dones = flags[:n]
        infos = [{"TimeLimit.truncated": t} for t in flags[n:].tolist()]
        if dones.any():
            final = fused.final_observations(raw)
            for i in np.flatnonzero(dones).tolist():
                infos[i]["terminal_observation"] = index(final, i)
        return fused.observations(raw), reward, dones, infos

    def close(self) -> None:
        """Drop the state (nothing else to free); a later `reset()` continues the key stream."""
        if self._carry is not None:
            self._key, self._carry = self._stream_key(), None

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One picture per env.

        Returns:
            A list of `uint8[H, W, 3]` arrays.

        Raises:
            RuntimeError: If `reset()` was not called first.
        """
        if self._carry is None:
            raise RuntimeError("call reset() before rendering")
        return [np.array(f) for f in np.asarray(self._batch.render(self.state))]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """An attribute of the JAX env (or this batch's `render_mode`), once per env asked for.

        Args:
            attr_name: The attribute's name.
            indices: The envs (all by default).

        Returns:
            The value, once per env.
        """
        value = getattr(self, attr_name) if attr_name == "render_mode" else getattr(self.jax_env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Refused: a JAX env has no mutable attributes.

        Args:
            attr_name: The attribute's name.
            value: The value.
            indices: The envs.

        Raises:
            AttributeError: Always.
        """
        raise AttributeError(f"{self.jax_env.name}: a JAX env has no mutable attributes ({attr_name})")

    def env_method(self, method_name: str, *method_args, indices: Any = None, **method_kwargs) -> list[Any]:
        """Call a method of the JAX env once and return its result for each env asked for.

        Args:
            method_name: The method's name.
            *method_args: Its positional arguments.
            indices: The envs (all by default).
            **method_kwargs: Its keyword arguments.

        Returns:
            The result, once per env.
        """
        result = getattr(self.jax_env, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """Whether each env is wrapped in an SB3 wrapper: never.

        Args:
            wrapper_class: The wrapper class asked about.
            indices: The envs (all by default).

        Returns:
            False, once per env.
        """
        return [False for _ in self._get_indices(indices)]

    # --- helpers -----------------------------------------------------------------------
    def _stream_key(self) -> Any:
        """The key stream's current key (the carry holds it once reset)."""
        return self._key if self._carry is None else self._fused.key(self._carry)

    @property
    def state(self) -> Any:
        """The current batched JAX state (a copy read out of the carry; None before `reset()`)."""
        return None if self._carry is None else self._fused.state(self._carry)
