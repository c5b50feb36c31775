"""A batch of jaxenvs envs as a Stable-Baselines3 `VecEnv` (the `sb3` extra).

One jitted, vmapped call per `step`; finished envs reset in the same step, as SB3's
`DummyVecEnv` does. The call works on buffers of 32-bit words, as the single gymnasium env's
(`_packed`): the key and the batched state stay on the device, and what SB3 returns
(observations, each env's final observation, rewards, both flags) comes to the host as one
array, cut into numpy views there. See docs/export.md.
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
from jaxenvs.export._bridge import Batch, Reconstructs, check_actions, check_not_forked, compiled, index, key_from_seed
from jaxenvs.export._packed import Carry, Observations, layout, pack
from jaxenvs.spaces.convert import cast, to_gymnasium

__all__ = ["JaxSB3VecEnv"]


class _Fused:
    """A batch's reset and SAME_STEP step as one jitted call each, on buffers of 32-bit words.

    The carry (`Carry`: the stream's key data, then the batched state) stays on the device; the
    outputs are the observations, then the final observations (`VecEnv`'s
    `info["final_observation"]`: the observation each env stepped to, before any reset), then
    the rewards as float32, then SB3's `dones` (`terminated | truncated`) and its
    `TimeLimit.truncated` (`truncated & ~terminated`), one word per env each.

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

        def reset(words, keys):
            obs, state = v_reset(keys, params)
            outputs = pack(jax.tree_util.tree_leaves(obs))
            if carry.joined:  # the buffer has one shape whatever made it
                outputs = jnp.pad(outputs, (0, blank_outputs))  # as the gymnasium env's reset (faster)
            return carry.result(words, state, outputs)

        def step(buf, actions):
            words, k = carry.split(buf)
            obs, state, reward, terminated, truncated, info = venv.step(k, carry.state(buf), actions, params)
            outputs = jax.tree_util.tree_leaves(obs) + jax.tree_util.tree_leaves(info["final_observation"])
            outputs += [jnp.asarray(reward, jnp.float32), terminated | truncated, truncated & ~terminated]
            return carry.result(words, state, pack(outputs))

        self.reset = jax.jit(reset)
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
    bootstraps on). Wrap with `VecMonitor` for episode statistics. It pickles by
    reconstruction (the id, params and overrides, and its run: key, state, seeds), so a copy
    steps on exactly as the original; in a process forked after JAX started it raises a
    `RuntimeError` (SB3's `SubprocVecEnv` starts its workers with forkserver by default: safe).

    Args:
        env_id: A registered id, or a raw `jaxenvs.Environment` (with `params`).
        num_envs: The batch size.
        params: The raw env's params; its `default_params` when None.
        seed: The seed of the first `reset()` (later resets continue the key stream); a random
            one when None.
        render_mode: None or `"rgb_array"` (`get_images()` / `render()`).
        **overrides: Params fields, e.g. `max_steps_in_episode=200`.

    Raises:
        ValueError: If `render_mode` is neither None nor "rgb_array", or `num_envs` is invalid.
    """

    PICKLED = ("_key", "_carry", "_actions", "_seeds", "_options", "reset_infos")

    def __init__(
        self,
        env_id: Any,
        num_envs: int = 1,
        params: Any = None,
        seed: int | None = None,
        render_mode: str | None = None,
        **overrides: Any,
    ):
        check_not_forked(env_id)
        self.remember_arguments(env_id, num_envs, params=params, seed=seed, render_mode=render_mode, **overrides)
        if render_mode is not None and render_mode != "rgb_array":
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self._batch = compiled(env_id, params, overrides, num_envs)
        env, params = self.jax_env, self.params = self._batch.env, self._batch.params
        self.render_mode = render_mode
        self._jax_obs_space = env.observation_space(params)
        self._jax_action_space = env.action_space(params)
        observation_space = to_gymnasium(self._jax_obs_space)
        self._batched_obs_space = batch_space(observation_space, num_envs)
        super().__init__(num_envs, observation_space, to_gymnasium(self._jax_action_space))
        self._key: Any = key_from_seed(seed if seed is not None else int(np.random.randint(2**31)))
        self._fused = _fused(self._batch, self._batched_obs_space)
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
        """Reset every env (with the seeds set by `seed`, if any).

        Returns:
            The batch's observations (numpy).
        """
        check_not_forked(self.jax_env.name)
        seeds = None if self._seeds[0] is None else list(self._seeds)
        key, keys = self._batch.keys(self._stream_key(), seeds)
        fused = self._fused
        self._carry, raw = fused.carry.host(fused.reset(jax.random.key_data(key), keys))
        self._key = None  # the carry holds it
        self._reset_seeds()
        self._reset_options()
        return fused.observations(raw)

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
