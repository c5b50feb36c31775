"""jaxenvs environments as gymnasium `Env` and `VectorEnv`.

After `import jaxenvs`, every registered id is a gymnasium id `jaxenvs/<id>` (a post-import
hook registers them when gymnasium is imported). Time limits, autoreset modes and the hook
are described in docs/export.md.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.export import missing_extra

try:
    import gymnasium
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ImportError as e:
    raise missing_extra(e, "export", __name__) from e

from jaxenvs.export import _bridge
from jaxenvs.export._bridge import (
    Reconstructs,
    check_actions,
    check_level_option,
    check_not_forked,
    compiled,
    host,
    index,
    info_to_numpy,
    key_from_seed,
    renders,
)
from jaxenvs.export._gymnasium_step import fused
from jaxenvs.spaces.convert import cast, to_gymnasium, to_numpy

NAMESPACE = "jaxenvs"
RENDER_FPS = 30
# what the toy-text ids without a time limit declare (`jaxenvs.envs.toy_text._common`)
NO_TIME_LIMIT = 2**31 - 1

__all__ = ["JaxEnv", "JaxVectorEnv", "NAMESPACE", "gymnasium_id", "register_gymnasium_envs"]


def gymnasium_id(env_id: str, namespace: str = NAMESPACE) -> str:
    """The gymnasium id of a jaxenvs id.

    gymnasium allows one namespace, so any `/` in the id becomes `-`:
    `bsuite/catch/0` -> `jaxenvs/bsuite-catch-0`.

    Args:
        env_id: A jaxenvs id.
        namespace: The gymnasium namespace.

    Returns:
        `"<namespace>/<id>"`.
    """
    return f"{namespace}/{env_id.replace('/', '-')}"


def register_gymnasium_envs(ids: list[str] | None = None, namespace: str = NAMESPACE) -> list[str]:
    """Register jaxenvs ids with gymnasium as `"<namespace>/<id>"`.

    Ids already in gymnasium's registry are left as they are. gymnasium refuses an unversioned id
    beside versioned ones of the same name, so where jaxenvs has both (`Breakout-MinAtar` and
    `Breakout-MinAtar-v0/-v1`) only the versioned ids are registered, and the versions above the
    one that builds the bare id's env are hidden from gymnasium's "latest version" lookup:
    `gymnasium.make("jaxenvs/Breakout-MinAtar")` is `-v0`, as `jaxenvs.make("Breakout-MinAtar")`
    is. An id that declares a time limit is registered with `max_episode_steps` (and its
    gymnasium peer's `reward_threshold`). An id gymnasium cannot parse is skipped with a warning.

    Args:
        ids: The jaxenvs ids; every registered one by default.
        namespace: The gymnasium namespace.

    Returns:
        The gymnasium ids registered (or already there).
    """
    import warnings

    from gymnasium.envs.registration import parse_env_id

    from jaxenvs.registry import registered_envs

    ids = registered_envs() if ids is None else list(ids)
    parsed = {}
    for env_id in ids:
        try:
            parsed[env_id] = parse_env_id(gymnasium_id(env_id, namespace))
        except gymnasium.error.Error as e:
            warnings.warn(f"jaxenvs: {env_id!r} not registered with gymnasium: {e}", stacklevel=2)
    versioned = {(ns, name) for ns, name, version in parsed.values() if version is not None}
    versioned |= {(s.namespace, s.name) for s in gymnasium.registry.values() if s.version is not None}
    done = []
    bare = []
    for env_id, (ns, name, version) in parsed.items():
        gym_id = gymnasium_id(env_id, namespace)
        if version is None and (ns, name) in versioned:
            bare.append(env_id)
            continue
        if gym_id not in gymnasium.registry:
            limit = _declared_time_limit(env_id)
            kwargs = {"env_id": env_id} if limit is None else {"env_id": env_id, "truncate_at_time_limit": False}
            try:
                gymnasium.register(
                    id=gym_id,
                    entry_point=f"{__name__}:JaxEnv",
                    vector_entry_point=f"{__name__}:JaxVectorEnv",
                    kwargs=kwargs,
                    max_episode_steps=limit,
                    reward_threshold=_peer_reward_threshold(env_id),
                )
            except gymnasium.error.Error as e:
                warnings.warn(f"jaxenvs: {env_id!r} not registered with gymnasium: {e}", stacklevel=2)
                continue
        done.append(gym_id)
    for env_id in bare:
        _hide_from_latest(env_id, *parsed[env_id][:2])
    return done


def _declared_time_limit(env_id: str) -> int | None:
    """The time limit the id's registration declares (`params["max_steps_in_episode"]`); None
    where it declares none (its env's default then holds) or declares no limit. Read from the
    registration alone: building every env here would import every family."""
    from jaxenvs.registry import spec

    limit = spec(env_id).params.get("max_steps_in_episode")
    return int(limit) if limit is not None and int(limit) < NO_TIME_LIMIT else None


def _peer_reward_threshold(env_id: str) -> float | None:
    """The `reward_threshold` of the id's gymnasium peer (`peers["gymnasium"]`), where it has one."""
    from jaxenvs.registry import spec

    peer = spec(env_id).peers.get("gymnasium")  # an unknown id is named
    if not isinstance(peer, str) or peer not in gymnasium.registry:
        return None
    return gymnasium.registry[peer].reward_threshold


def _own_time_limit(params: Any) -> int | None:
    limit = int(getattr(params, "max_steps_in_episode", NO_TIME_LIMIT))
    return None if limit >= NO_TIME_LIMIT else limit


def _check_options(options: Any, name: str) -> None:
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"{name}: reset options must be a dict or None, got {type(options).__name__}")


def _refuse_params_time_limit(name: str, overrides: dict[str, Any]) -> None:
    if "max_steps_in_episode" in overrides:
        raise ValueError(
            f"{name}: gymnasium's TimeLimit sets this id's time limit (spec.max_episode_steps); pass "
            f"max_episode_steps={overrides['max_steps_in_episode']!r} to gymnasium.make / make_vec, "
            "not max_steps_in_episode"
        )


def _builds(env_id: str) -> tuple:
    from jaxenvs.registry import spec

    s = spec(env_id)
    return (s.entry_point, sorted(s.env_kwargs.items()), sorted(s.params.items()))


def _hide_from_latest(bare_id: str, ns: str, name: str) -> None:
    """Make gymnasium's bare `ns/name` resolve to the versioned id that builds the same env
    as the jaxenvs id `bare_id`: gymnasium resolves a bare name to the highest version whose
    spec has that `name`, so the versions above the highest equal one get their spec's
    `name` made version-specific (`Breakout-MinAtar-v1`); lookups by full id still find them."""
    from jaxenvs.registry import registered_envs

    versions = {
        s.version: s
        for s in gymnasium.registry.values()
        if s.namespace == ns and s.name == name and s.version is not None and "env_id" in s.kwargs
    }
    known = set(registered_envs())
    same = [
        v
        for v, s in versions.items()
        if s.kwargs["env_id"] in known and _builds(s.kwargs["env_id"]) == _builds(bare_id)
    ]
    if not same:
        return
    for version, s in versions.items():
        if version > max(same):
            s.name = f"{name}-v{version}"


def _discrete_range(space: Any, most: int = 1024) -> tuple[int, int] | None:
    """`(start, stop)` of a Discrete action space of at most `most` actions (the step's quick
    check and its actions kept on the device); None for other spaces."""
    from jaxenvs import spaces

    if type(space) is spaces.Discrete and space.n <= most:
        return space.start, space.start + space.n
    return None


def _reset_mask(mask: Any, num_envs: int, name: str) -> np.ndarray:
    """`options["reset_mask"]` checked as gymnasium's vector envs check it (they assert).

    Raises:
        TypeError: For a mask that is not a bool array (a list, ints, floats).
        ValueError: For a mask of another shape than `(num_envs,)`, or one with no True.
    """
    expected = f"a numpy bool array of shape ({num_envs},)"
    if not isinstance(mask, (np.ndarray, jax.Array)):
        raise TypeError(f"{name}: options['reset_mask'] must be {expected}, got {type(mask).__name__}")
    if mask.dtype != np.bool_:
        raise TypeError(f"{name}: options['reset_mask'] must be {expected}, got dtype {mask.dtype}")
    if mask.shape != (num_envs,):
        raise ValueError(f"{name}: options['reset_mask'] must be {expected}, got shape {mask.shape}")
    mask = np.asarray(mask)
    if not mask.any():
        raise ValueError(f"{name}: options['reset_mask'] must have at least one True (which envs to reset), got {mask}")
    return mask


def _render_fps(env: Any) -> int:
    return int(getattr(env.unwrapped, "render_fps", RENDER_FPS))


def _render_modes(env: Any, params: Any) -> list[str]:
    """`["rgb_array"]` where the env draws pictures; `[]` for those whose `render` raises
    `NotImplementedError` (jumanji and pgx ids), so gymnasium's checker never asks them."""
    return ["rgb_array"] if renders(env, params) else []


def _render_mode(env: Any, params: Any, render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in _render_modes(env, params):
        valid = " or ".join(repr(m) for m in [None, *_render_modes(env, params)])
        raise ValueError(f"{env.name}: render_mode must be {valid}, got {render_mode!r}")
    return render_mode


def _can_render(render_mode: str | None, state: Any, made: str) -> bool:
    """Whether `render()` may draw: not without a render mode (gymnasium's warning says to make `made`
    with one); `ResetNeeded` before the first `reset()`."""
    if render_mode is None:
        gymnasium.logger.warn(f"render() called without a render_mode; make {made} with render_mode='rgb_array'")
        return False
    if state is None:
        raise gymnasium.error.ResetNeeded("call reset() before render()")
    return True


class JaxEnv(Reconstructs, gymnasium.Env):
    """One jaxenvs env as a `gymnasium.Env` (jitted reset/step/render, numpy values out).

    Discrete observations are Python ints, like gymnasium's toy-text envs'; `reset(seed=...)`
    is deterministic. `reset(options={"level": level})` starts the episode from a
    `jaxenvs.levels.Level` (settings, a start state, or both), checked as the env's
    `reset_to_level` checks it, and the episode runs under its settings; the env then steps
    under `wrappers.Levels` (its `state` a `LevelState`, `info["level"]` the episode's level)
    until a reset without a level. It pickles (and deep-copies) by reconstruction: the id (or
    raw env), params, overrides and sampler, and its run (key, state, numpy generator), so a
    copy steps on exactly as the original. In a process forked after JAX started it raises a
    `RuntimeError` (see docs/export.md: gymnasium's `AsyncVectorEnv` needs `context="spawn"`).

    Args:
        env_id: A registered id, or a raw `jaxenvs.Environment` (with `params`).
        params: The raw env's params; its `default_params` when None.
        render_mode: None or `"rgb_array"` (`render()` then returns `uint8[H, W, 3]`).
        truncate_at_time_limit: Whether the env's own `params.max_steps_in_episode` truncates;
            False where gymnasium's `TimeLimit` applies the limit instead (what the registration
            of an id with a declared limit passes).
        levels: `sample(key) -> Level`: every episode starts from its own sampled level
            (`wrappers.Levels`, as `make_vec(levels=...)`); a level given to a reset must have
            the sampler's fields. Define it at module level for the env to pickle.
        **overrides: Params fields, e.g. `max_steps_in_episode=100`.

    Raises:
        ValueError: If `render_mode` is not one the env supports, `max_steps_in_episode` is
            given where gymnasium's `TimeLimit` sets the limit (`truncate_at_time_limit=False`),
            or `replay_levels` is given (make_vec's option).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": RENDER_FPS}
    PICKLED = ("_carry", "_terminated", "_np_random", "_np_random_seed", "_spec", "_levels_on")

    def __init__(
        self,
        env_id: Any,
        params: Any = None,
        render_mode: str | None = None,
        truncate_at_time_limit: bool = True,
        levels: Any = None,
        **overrides: Any,
    ):
        check_not_forked(env_id)
        self.remember_arguments(
            env_id,
            params=params,
            render_mode=render_mode,
            truncate_at_time_limit=truncate_at_time_limit,
            levels=levels,
            **overrides,
        )
        self._truncate_at_time_limit = bool(truncate_at_time_limit)
        if not self._truncate_at_time_limit:
            _refuse_params_time_limit(env_id if isinstance(env_id, str) else env_id.name, overrides)
        self._fns = compiled(env_id, params, overrides)
        env, params = self.jax_env, self.params = self._fns.env, self._fns.params
        self.render_mode = _render_mode(env, params, render_mode)
        self.metadata = dict(self.metadata, render_fps=_render_fps(env), render_modes=_render_modes(env, params))
        self._jax_obs_space = env.observation_space(params)
        self._jax_action_space = env.action_space(params)
        self.observation_space = to_gymnasium(self._jax_obs_space)
        self.action_space = to_gymnasium(self._jax_action_space)
        # reset and step, each one jitted call on buffers of 32-bit words (see _gymnasium_step):
        # one program without levels, one under them (built when first needed)
        self._build = (env_id, overrides, levels)
        self._programs: dict[bool, Any] = {}
        self._levels_on = levels is not None
        self._fused = self._program(self._levels_on)
        self._discrete_actions = _discrete_range(self._jax_action_space)
        if self._discrete_actions is not None:  # each action already on the device: no transfer per step
            dtype = np.dtype(self._jax_action_space.dtype)
            self._action_arrays = [jax.device_put(np.asarray(a, dtype)) for a in range(*self._discrete_actions)]
        self._carry: jax.Array | None = None  # the key and the state, on the device
        self._terminated: tuple[Any, Any] | None = None  # (observation, info) the episode ended on

    def _program(self, levels_on: bool) -> Any:
        """The fused reset and step without levels, or under them (built on first use)."""
        program = self._programs.get(levels_on)
        if program is None:
            env_id, overrides, levels = self._build
            drop = not self._truncate_at_time_limit
            program = self._programs[levels_on] = fused(
                env_id, overrides, self.jax_env, self.params, self.observation_space, drop, levels, levels_on
            )
        return program

    def restored(self) -> None:
        """After unpickling: the program the run's state belongs to."""
        self._fused = self._program(self._levels_on)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode, from a level where `options={"level": level}`.

        Args:
            seed: A non-negative int seed; None continues the key stream.
            options: None, or `{"level": level}`: a `jaxenvs.levels.Level` (settings for the
                fields the env declares per-episode, a start state, or both) the episode starts
                from and runs under. Without a `levels=` sampler it holds for this episode; with
                one it must have the sampler's fields and shapes.

        Returns:
            `(obs, info)`.

        Raises:
            TypeError: If `options` is not a dict, `seed` is not an int, or the level is not a
                `Level` or has a wrong tree or dtype (as the env's `reset_to_level`).
            ValueError: If `options` has another key, `seed` is negative, or the level sets a
                field that may not vary per episode, or a value outside its field's range
                (naming the field and its valid values).
        """
        name = self.jax_env.name
        check_not_forked(name)
        _check_options(options, name)
        unknown = sorted(set(options or {}) - {"level"})
        if unknown:
            raise ValueError(
                f"{name}: reset options are not supported (got {unknown}) but 'level', a jaxenvs.levels.Level to "
                "start from (docs/levels.md); a jaxenvs env draws its start from its params: pass them when making "
                "it, e.g. gymnasium.make(id, <param>=...)"
            )
        level = check_level_option(options, name)
        levels_on = level is not None or self._build[2] is not None
        program = self._program(levels_on)
        if level is not None:
            level = program.leveled.prepare(level)
        super().reset(seed=seed)
        if seed is not None or self._carry is None:
            seed = int(self.np_random.integers(2**63)) if seed is None else seed
            start = jax.random.key_data(key_from_seed(seed))
        elif program is not self._fused:  # the key stream goes on in the other program
            start = self._fused.key_data(self._carry)
        else:
            start = None  # the carry holds the key
        self._fused, self._levels_on = program, levels_on
        if level is not None:
            if start is None:
                self._carry, obs = program.reset_to_level_from_carry(self._carry, level)
            else:
                self._carry, obs = program.reset_to_level_from_key(start, level)
        elif start is None:
            self._carry, obs = program.reset_from_carry(self._carry)
        else:
            self._carry, obs = program.reset_from_key(start)
        self._terminated = None
        return obs, {}

    def step(self, action):
        """One step (after termination: a warning, and the terminal observation again with reward 0).

        Args:
            action: An action of `action_space`.

        Returns:
            `(obs, reward, terminated, truncated, info)`.

        Raises:
            gymnasium.error.ResetNeeded: If `reset()` was not called first.
            ValueError: For an action outside the action space.
        """
        if self._carry is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if _bridge._forked_after_jax:
            check_not_forked(self.jax_env.name)
        bounds = self._discrete_actions
        if (
            bounds is not None
            and (type(action) is int or isinstance(action, np.integer))
            and bounds[0] <= action < bounds[1]
        ):  # the quick check passes only actions the full one accepts
            jax_action = self._action_arrays[int(action) - bounds[0]]
        else:
            check_actions(action, self._jax_action_space, self.jax_env.name)
            jax_action = cast(action, self._jax_action_space)
        if self._terminated is not None:
            # gymnasium's own envs (CartPole) after `terminated`: warn, stay terminated, pay 0
            gymnasium.logger.warn(
                f"{self.jax_env.name}: step() called after the episode terminated; call reset() first"
            )
            obs, info = self._terminated
            return obs, 0.0, True, False, info
        # one jitted call (step, key split, time-limit correction, outputs packed), one host copy
        self._carry, (obs, reward, terminated, truncated, info) = self._fused.step(self._carry, jax_action)
        if terminated:
            self._terminated = (obs, info)
        return obs, reward, terminated, truncated, info

    def render(self):
        """A picture of the current state.

        Returns:
            A `uint8[H, W, 3]` array, or None (with a warning) without a render mode.

        Raises:
            gymnasium.error.ResetNeeded: If `reset()` was not called first.
        """
        if not _can_render(self.render_mode, self._carry, "the env"):
            return None
        return np.array(self._fused.render(self.state))

    @property
    def state(self) -> Any:
        """The current JAX state (for inspection; do not mutate); None before `reset()`; under
        levels a `wrappers.LevelState` (the env's state and the episode's level)."""
        return None if self._carry is None else self._fused.state(self._carry)

    @property
    def spec(self) -> Any:
        """gymnasium's `EnvSpec` of this env (set by `gymnasium.make`), its `max_episode_steps`
        the env's own time limit where that limit truncates (gymnasium's `TimeLimit` reports
        its own above it)."""
        return getattr(self, "_spec", None)

    @spec.setter
    def spec(self, value: Any) -> None:
        if value is not None and self._truncate_at_time_limit:
            value = dataclasses.replace(value, max_episode_steps=_own_time_limit(self.params))
        self._spec = value


class JaxVectorEnv(Reconstructs, gymnasium.vector.VectorEnv):
    """`num_envs` copies of a jaxenvs env as a `gymnasium.vector.VectorEnv`.

    One jitted, vmapped call per `step`, numpy arrays out. The autoreset mode is in
    `metadata["autoreset_mode"]`: SAME_STEP (the default; the terminal observation in
    `info["final_obs"]`), NEXT_STEP, or DISABLED (reset with `options={"reset_mask": m}`). Step
    infos are the env's info arrays batched, each with its `_key` mask. `reset(options={"level":
    levels})` starts each env (each masked one, with `reset_mask`) from its own level (one per
    env, every leaf with a leading axis of `num_envs`), and its episode runs under it; the batch
    then steps under `wrappers.Levels` (`info["level"]`) until a reset of every env without
    levels. It pickles by reconstruction, as `JaxEnv` does.

    Args:
        env_id: A registered id, or a raw `jaxenvs.Environment` (with `params`).
        num_envs: The batch size.
        params: The raw env's params; its `default_params` when None.
        autoreset_mode: An `AutoresetMode` or its string value.
        render_mode: None or `"rgb_array"`.
        max_episode_steps: Sets `params.max_steps_in_episode` (what `gymnasium.make_vec` passes).
        truncate_at_time_limit: False (what the registration of an id with a declared limit
            passes) refuses `max_steps_in_episode=` beside `max_episode_steps`: one way to say it.
        levels: `sample(key) -> Level`: every episode starts from its own sampled level, as
            `make_vec(levels=...)`; levels given to a reset must have the sampler's fields.
            Define it at module level for the env to pickle.
        **overrides: Params fields.

    Raises:
        ValueError: For an unknown autoreset mode or render mode, an invalid `num_envs`,
            `max_steps_in_episode` where `max_episode_steps` sets the limit, or `replay_levels`
            (make_vec's option).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": RENDER_FPS, "autoreset_mode": AutoresetMode.SAME_STEP}
    PICKLED = (
        "_key",
        "_obs",
        "_state",
        "_needs_reset",
        "_pending_obs",
        "_np_random",
        "_np_random_seed",
        "_spec",
        "_levels_on",
    )

    def __init__(
        self,
        env_id: Any,
        num_envs: int = 1,
        params: Any = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        render_mode: str | None = None,
        max_episode_steps: int | None = None,
        truncate_at_time_limit: bool = True,
        levels: Any = None,
        **overrides: Any,
    ):
        check_not_forked(env_id)
        self.remember_arguments(
            env_id,
            num_envs,
            params=params,
            autoreset_mode=autoreset_mode,
            render_mode=render_mode,
            max_episode_steps=max_episode_steps,
            truncate_at_time_limit=truncate_at_time_limit,
            levels=levels,
            **overrides,
        )
        if not truncate_at_time_limit:
            _refuse_params_time_limit(env_id if isinstance(env_id, str) else env_id.name, overrides)
        if max_episode_steps is not None:
            overrides["max_steps_in_episode"] = int(max_episode_steps)
        params_given = params
        plain = compiled(env_id, params, overrides, num_envs)
        env, params = self.jax_env, self.params = plain.env, plain.params
        # the batch without levels, and under them (built when first needed)
        self._build = (env_id, params_given, overrides, levels)
        self._batches: dict[bool, Any] = {False: plain}
        self._levels_on = levels is not None
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.num_envs = int(num_envs)
        self._batch = self._batches_for(self._levels_on)
        self.render_mode = _render_mode(env, params, render_mode)
        self.metadata = dict(
            self.metadata,
            autoreset_mode=self.autoreset_mode,
            render_fps=_render_fps(env),
            render_modes=_render_modes(env, params),
        )
        self._jax_obs_space = env.observation_space(params)
        self._jax_action_space = env.action_space(params)
        self.single_observation_space = to_gymnasium(self._jax_obs_space)
        self.single_action_space = to_gymnasium(self._jax_action_space)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._key: jax.Array | None = None
        self._obs: Any = None
        self._state: Any = None
        self._needs_reset = jnp.zeros(self.num_envs, jnp.bool_)
        self._pending_obs: Any = None
        self._all = np.ones(self.num_envs, np.bool_)

    def _batches_for(self, levels_on: bool) -> Any:
        """The batch without levels, or under them (built on first use)."""
        batch = self._batches.get(levels_on)
        if batch is None:
            env_id, params, overrides, levels = self._build
            batch = self._batches[levels_on] = compiled(env_id, params, overrides, self.num_envs, levels, True)
        return batch

    def restored(self) -> None:
        """After unpickling: the batch the run's state belongs to."""
        self._batch = self._batches_for(self._levels_on)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Reset the batch (or, with `options={"reset_mask": m}`, the envs where `m` is true).

        Args:
            seed: One non-negative int, one per env, or None (continue the key stream).
            options: None, or a dict of `"reset_mask"`: `bool[num_envs]`, the envs to reset,
                and `"level"`: a `jaxenvs.levels.Level` batched along a leading axis of
                `num_envs` (one level per env; only the reset envs start from theirs, but every
                env's is checked). Without a `levels=` sampler each level holds for the episode
                it starts; the episodes after it start as without levels.

        Returns:
            `(obs, info)`, batched.

        Raises:
            TypeError: If `seed` is neither an int nor a list of them, `options` is not a dict,
                the mask is not a numpy bool array, or the levels are not a `Level` or have a
                wrong tree or dtype.
            ValueError: For an unknown option, a mask of the wrong shape or with no True,
                invalid seeds, or levels without a leading axis of `num_envs`, setting a field
                that may not vary per episode, or with a value outside its field's range
                (naming the env, the field and its valid values).
        """
        check_not_forked(self.jax_env.name)
        _check_options(options, self.jax_env.name)
        per_env = isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim == 1)
        if seed is not None and not (per_env or isinstance(seed, (int, np.integer))):
            raise TypeError(
                f"{self.jax_env.name}: seed must be a non-negative int or a list of {self.num_envs} of them, "
                f"got {seed!r} ({type(seed).__name__})"
            )
        unknown = sorted(set(options or {}) - {"reset_mask", "level"})
        if unknown:
            raise ValueError(
                f"{self.jax_env.name}: the only reset option is 'reset_mask' (which envs to reset), with 'level' "
                f"(the levels they start from), got {unknown}"
            )
        mask = None if options is None else options.get("reset_mask")
        if mask is not None:
            mask = _reset_mask(mask, self.num_envs, self.jax_env.name)
        level = check_level_option(options, self.jax_env.name)
        levels_on = level is not None or self._build[3] is not None
        batch = self._batches_for(levels_on or (mask is not None and self._levels_on))
        if level is not None:
            level = batch.leveled.prepare(level, self.num_envs)
        super().reset(seed=seed if isinstance(seed, (int, np.integer)) else None)
        if self._key is None and seed is None:
            self._key = key_from_seed(int(self.np_random.integers(2**63)))
        self._key, keys = batch.keys(self._key, seed)
        if mask is None or self._state is None:
            if level is None:
                self._obs, self._state = batch.reset(keys)
            else:
                self._obs, self._state = batch.start(keys, level)
            self._needs_reset = jnp.zeros(self.num_envs, jnp.bool_)
            self._pending_obs = self._obs
        else:
            jmask = jnp.asarray(mask)
            if batch is not self._batch:  # the running episodes go on under the params' own values
                self._state = batch.lift(self._state)
            if level is None:
                self._obs, self._state = batch.reset_where(keys, jmask, self._obs, self._state)
            else:
                self._obs, self._state = batch.start_where(keys, jmask, level, self._obs, self._state)
            self._needs_reset = self._needs_reset & ~jmask
        self._batch, self._levels_on = batch, batch is not self._batches[False]
        return to_numpy(self._obs, self.observation_space, batched=True), {}

    def step(self, actions):
        """One step of every env, resetting as the autoreset mode says.

        Args:
            actions: One action per env.

        Returns:
            `(obs, rewards, terminated, truncated, infos)`, batched numpy.

        Raises:
            gymnasium.error.ResetNeeded: If `reset()` was not called first.
            TypeError: For one action where there must be one per env (gymnasium's error).
            ValueError: For an action outside the action space.
        """
        if self._state is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        check_not_forked(self.jax_env.name)
        if not isinstance(actions, (dict, tuple, list)) and np.ndim(actions) == 0:
            # gymnasium's vector envs iterate over the actions: one action is a TypeError there
            raise TypeError(
                f"{self.jax_env.name}: step() takes one action per env ({self.num_envs}), got one action {actions!r}"
            )
        check_actions(actions, self._jax_action_space, self.jax_env.name, self.num_envs)
        actions = cast(actions, self._jax_action_space)
        b = self._batch
        final_obs = None
        info_mask = self._all
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            self._key, self._obs, self._state, reward, terminated, truncated, final_obs, info = b.step_same_step(
                self._key, self._state, actions
            )
        elif self.autoreset_mode == AutoresetMode.NEXT_STEP:
            was_reset = self._needs_reset
            (
                self._key,
                self._obs,
                self._state,
                reward,
                terminated,
                truncated,
                self._needs_reset,
                self._pending_obs,
                info,
            ) = b.step_next_step(self._key, self._state, actions, self._needs_reset, self._pending_obs)
            info_mask = ~np.asarray(was_reset)
        else:
            self._key, self._obs, self._state, reward, terminated, truncated, info = b.step_disabled(
                self._key, self._state, actions
            )
        obs, reward, terminated, truncated, info, final_obs = host(
            (self._obs, reward, terminated, truncated, info, final_obs)
        )
        infos: dict[str, Any] = {}
        for name, value in info_to_numpy(info).items():
            infos[name] = value
            infos[f"_{name}"] = info_mask.copy()
        terminated, truncated = np.array(terminated), np.array(truncated)
        if final_obs is not None:
            done = terminated | truncated
            if done.any():
                final = to_numpy(final_obs, self.observation_space, batched=True)
                objects = np.full(self.num_envs, None, dtype=object)
                ended = np.flatnonzero(done)
                rows = final[ended] if isinstance(final, np.ndarray) else [index(final, i) for i in ended]
                for i, row in zip(ended, rows):
                    objects[i] = row
                infos["final_obs"], infos["_final_obs"] = objects, done
                final_info = {}
                for name, value in info_to_numpy(info).items():
                    final_info[name], final_info[f"_{name}"] = value, done.copy()
                infos["final_info"], infos["_final_info"] = final_info, done.copy()
        return (
            to_numpy(obs, self.observation_space, batched=True),
            np.array(reward),
            terminated,
            truncated,
            infos,
        )

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One picture per env.

        Returns:
            A tuple of `uint8[H, W, 3]` arrays, or None (with a warning) without a render mode.

        Raises:
            gymnasium.error.ResetNeeded: If `reset()` was not called first.
        """
        if not _can_render(self.render_mode, self._state, "it"):
            return None
        frames = np.asarray(self._batch.render(self._state))
        return tuple(np.array(f) for f in frames)

    @property
    def state(self) -> Any:
        """The current batched JAX state (for inspection; do not mutate)."""
        return self._state

    @property
    def spec(self) -> Any:
        """gymnasium's `EnvSpec` of this batch (set by `gymnasium.make_vec`), its
        `max_episode_steps` the limit the envs run under (gymnasium copies the registered one)."""
        return getattr(self, "_spec", None)

    @spec.setter
    def spec(self, value: Any) -> None:
        if value is not None:
            value = dataclasses.replace(value, max_episode_steps=_own_time_limit(self.params))
        self._spec = value


# importing this module directly (before gymnasium was imported) registers the ids too
register_gymnasium_envs()
