"""Any jaxenvs id as JaxUED's `UnderspecifiedEnv`, for PLR, ACCEL and DR code written for JaxUED.

`make(id, **overrides)` builds it. JaxUED (`jaxued.environments.UnderspecifiedEnv`) has no
`reset(key)`: every episode starts from a level, `reset_to_level(rng, level, params)`, and
`step(rng, state, action, params)` returns its five values `(obs, state, reward, done, info)`.
Here a level is a `jaxenvs.levels.Level` (settings for the params fields the env declares
per-episode, a start state, or both), so JaxUED's `LevelSampler` stores, replays and scores
jaxenvs levels, and its `AutoReplayWrapper` and `AutoResetWrapper` wrap the export as they wrap
JaxUED's own envs.

Where it differs from JaxUED's envs, and why:
- `done` is `terminated or truncated` (JaxUED folds the time limit into `done`); `info` keeps
  both flags apart, so a learner can bootstrap through a time limit.
- A step past the end of an episode changes nothing (`Absorbing`, as `jaxenvs.make(id,
  autoreset=False)`); JaxUED's envs go on integrating. Under `AutoReplayWrapper` the two agree.

JaxUED 0.0.1 on the package index calls `jax.tree_map`, which current jax no longer has:
docs/levels.md ("JaxUED") shows the one line that makes it run.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxenvs.environment import resolve_params
from jaxenvs.export import missing_extra
from jaxenvs.levels import Level, default_level, level_fields
from jaxenvs.spaces.convert import to_gymnax
from jaxenvs.wrappers.levels import Levels, LevelState

try:
    from jaxued.environments import UnderspecifiedEnv
except ImportError as e:
    raise missing_extra(e, "jaxued", __name__) from e

__all__ = ["JaxUEDExport", "LevelState", "make"]


class JaxUEDExport(UnderspecifiedEnv):
    """A jaxenvs env as JaxUED's `UnderspecifiedEnv`; build it with `make`.

    Its level is a `jaxenvs.levels.Level`, its state a `jaxenvs.wrappers.LevelState` (the env's
    own state and the episode's level: each step runs under the level's settings).

    Args:
        env: The env to export: one that never resets itself and keeps `reset_to_level`
            (`jaxenvs.make(id, autoreset=False)`'s).
        params: Its params, the export's `default_params`.
        name: The name the export reports (the id).
    """

    def __init__(self, env: Any, params: Any, name: str):
        self._env = Levels(env)
        self._params = params
        self._name = name

    @property
    def default_params(self) -> Any:
        """The params `make` built (the registered values and the overrides)."""
        return self._params

    @property
    def name(self) -> str:
        """The exported id."""
        return self._name

    def default_level(self, params: Any = None, fields: Any = None) -> Level:
        """A level at the params' own values: the placeholder `LevelSampler.initialize` takes.

        Args:
            params: The params whose values the settings take; None: `default_params`.
            fields: The per-episode fields to set (default: every one the env declares). A
                `LevelSampler`'s placeholder must have the tree of the levels it will store, so
                name the fields your level generator sets.

        Returns:
            A `Level` whose settings are `{field: value}` (float32 for real fields; float64
            under `jax_enable_x64`), and no start state.

        Raises:
            ValueError: `fields` names a field that may not vary per episode (naming those
                that may).
        """
        params = resolve_params(self, params)
        level = default_level(params)
        if fields is None:
            return level
        fields = tuple(fields)
        valid = level_fields(params)
        unknown = [f for f in fields if f not in valid]
        if unknown:
            raise ValueError(
                f"{self._name}: {', '.join(map(repr, unknown))} cannot vary per episode; the fields a level may "
                f"set are {', '.join(valid) or '(none)'}"
            )
        return Level(settings={f: level.settings[f] for f in fields})

    def reset_env_to_level(self, rng: jax.Array, level: Level, params: Any) -> tuple[Any, LevelState]:
        """Start an episode from `level` (JaxUED's `reset_to_level` calls it under `jit`).

        Args:
            rng: A JAX PRNG key.
            level: A `jaxenvs.levels.Level`, checked as `Environment.reset_to_level` checks it.
            params: The env's params.

        Returns:
            `(obs, LevelState)`.
        """
        return self._env.reset_to_level(rng, level, params)

    def step_env(self, rng: jax.Array, state: LevelState, action: Any, params: Any) -> tuple[Any, ...]:
        """One step under the episode's level (JaxUED's `step` calls it under `jit`).

        Args:
            rng: A JAX PRNG key.
            state: A `LevelState`.
            action: The action.
            params: The env's params (the level's settings replace theirs).

        Returns:
            `(obs, state, reward, done, info)`: `done` is `terminated | truncated`; `info` holds
            the env's keys, `"level"` (the level the step ran under), `"terminated"` and
            `"truncated"`.
        """
        obs, state, reward, terminated, truncated, info = self._env.step(rng, state, action, params)
        info = dict(info)
        info["terminated"] = terminated
        info["truncated"] = truncated
        return obs, state, reward, jnp.logical_or(terminated, truncated), info

    def action_space(self, params: Any = None) -> Any:
        """The action space, as a gymnax space (what JaxUED's envs return).

        Args:
            params: The env's params; None: `default_params`.

        Returns:
            A `gymnax.environments.spaces` space.
        """
        return to_gymnax(self._env.action_space(resolve_params(self, params)), self._name)

    def observation_space(self, params: Any = None) -> Any:
        """The observation space, as a gymnax space (what JaxUED's envs return).

        Args:
            params: The env's params; None: `default_params`.

        Returns:
            A `gymnax.environments.spaces` space.
        """
        return to_gymnax(self._env.observation_space(resolve_params(self, params)), self._name)

    @property
    def num_actions(self) -> int:
        """The number of actions (a discrete action space's `n`)."""
        return self._env.num_actions

    def __repr__(self) -> str:
        return f"JaxUEDExport({self._name!r})"


def make(env_id: str, **overrides: Any) -> tuple[JaxUEDExport, Any]:
    """Any jaxenvs id as JaxUED's `UnderspecifiedEnv`.

    Args:
        env_id: A registered jaxenvs id, e.g. `"CartPole-v1"`.
        **overrides: Params fields to change, as in `jaxenvs.make`.

    Returns:
        `(env, params)`: a `JaxUEDExport` (a `jaxued.environments.UnderspecifiedEnv`) and its
        default params.

    Raises:
        UnknownEnvError: `env_id` is not registered (naming the closest ids).
        TypeError: an unknown override (naming the valid ones).
        ValueError: an override outside its field's range.

    >>> import jax
    >>> from jaxenvs.export import jaxued as jaxenvs_jaxued
    >>> from jaxenvs.levels import Level
    >>> env, params = jaxenvs_jaxued.make("CartPole-v1")
    >>> level = Level(settings={"length": jax.numpy.float32(1.0)})
    >>> obs, state = env.reset_to_level(jax.random.key(0), level, params)
    >>> obs, state, reward, done, info = env.step(jax.random.key(1), state, 1, params)
    >>> float(reward), bool(done), float(info["level"].settings["length"])
    (1.0, False, 1.0)
    """
    from jaxenvs.registry import make as make_env

    env, params = make_env(env_id, autoreset=False, **overrides)
    return JaxUEDExport(env, params, env_id), params
