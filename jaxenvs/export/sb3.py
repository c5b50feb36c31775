"""A batch of jaxenvs envs as a Stable-Baselines3 `VecEnv` (the `sb3` extra).

One jitted, vmapped call per `step`; finished envs reset in the same step, as SB3's
`DummyVecEnv` does. See docs/export.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jaxenvs.export import missing_extra

try:
    from gymnasium.vector.utils import batch_space
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as e:
    raise missing_extra(e, "sb3", __name__) from e

from jaxenvs.export._bridge import check_actions, compiled, host, index, key_from_seed, to_jax, to_numpy

__all__ = ["JaxSB3VecEnv"]


class JaxSB3VecEnv(VecEnv):
    """`num_envs` copies of a jaxenvs env for SB3.

    `dones` is `terminated | truncated`; each finished env's info holds `terminal_observation`
    and every info holds `TimeLimit.truncated` (`truncated and not terminated`, the flag SB3
    bootstraps on). Wrap with `VecMonitor` for episode statistics.

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

    def __init__(
        self,
        env_id: Any,
        num_envs: int = 1,
        params: Any = None,
        seed: int | None = None,
        render_mode: str | None = None,
        **overrides: Any,
    ):
        if render_mode is not None and render_mode != "rgb_array":
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self._batch = compiled(env_id, params, overrides, num_envs)
        env, params = self.jax_env, self.params = self._batch.env, self._batch.params
        self.render_mode = render_mode
        self._jax_obs_space = env.observation_space(params)
        self._jax_action_space = env.action_space(params)
        observation_space = self._jax_obs_space.to_gymnasium()
        self._batched_obs_space = batch_space(observation_space, num_envs)
        super().__init__(num_envs, observation_space, self._jax_action_space.to_gymnasium())
        self._key = key_from_seed(seed if seed is not None else int(np.random.randint(2**31)))
        self._state: Any = None
        self._actions: Any = None

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
        seeds = None if self._seeds[0] is None else list(self._seeds)
        self._key, keys = self._batch.keys(self._key, seeds)
        obs, self._state = self._batch.reset(keys)
        self._reset_seeds()
        self._reset_options()
        return self._obs(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Check and keep the actions for `step_wait`.

        Args:
            actions: One action per env (numpy).

        Raises:
            ValueError: For an action outside the action space.
        """
        check_actions(actions, self._jax_action_space, self.jax_env.name, self.num_envs)
        self._actions = to_jax(actions, self._jax_action_space)

    def step_wait(self):
        """Step every env with the kept actions, resetting finished ones.

        Returns:
            `(obs, rewards, dones, infos)`, SB3's four values.

        Raises:
            RuntimeError: If `reset()` was not called first.
        """
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        self._key, obs, self._state, reward, terminated, truncated, final_obs, _ = self._batch.step_same_step(
            self._key, self._state, self._actions
        )
        obs, reward, terminated, truncated, final_obs = host((obs, reward, terminated, truncated, final_obs))
        terminated, truncated = np.asarray(terminated), np.asarray(truncated)
        dones = terminated | truncated
        time_limit = truncated & ~terminated
        infos = [{"TimeLimit.truncated": bool(t)} for t in time_limit]
        if dones.any():
            final = self._obs(final_obs)
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = index(final, i)
        return self._obs(obs), np.array(reward, dtype=np.float32), dones, infos

    def close(self) -> None:
        """Drop the state (nothing else to free)."""
        self._state = None

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One picture per env.

        Returns:
            A list of `uint8[H, W, 3]` arrays.

        Raises:
            RuntimeError: If `reset()` was not called first.
        """
        if self._state is None:
            raise RuntimeError("call reset() before rendering")
        return [np.array(f) for f in np.asarray(self._batch.render(self._state))]

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
    def _obs(self, obs: Any) -> Any:
        return to_numpy(obs, self._batched_obs_space, batched=True)

    @property
    def state(self) -> Any:
        """The current batched JAX state (for inspection; do not mutate)."""
        return self._state
