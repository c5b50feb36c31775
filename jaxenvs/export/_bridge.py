"""What every export shares: seeds to keys, values between JAX and numpy, the jitted batch,
levels, pickling by reconstruction and the guard against a forked process.

`Batch` compiles the batched reset and the SAME_STEP, NEXT_STEP and disabled-autoreset
steps, each one jitted call that also carries the random key (one dispatch per Python call).
`Leveled` is an export's env under `wrappers.Levels`: what runs once a reset is given a level
(or the export a `levels=` sampler).
"""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import spaces
from jaxenvs.environment import resolve_params
from jaxenvs.tree import where_done

# --- a process forked after JAX started --------------------------------------------------------

try:  # whether JAX's backends (and their threads) have started; no public API says it
    from jax._src import xla_bridge as _xla_bridge
except ImportError:  # pragma: no cover - a JAX without it: every fork counts as after the start
    _xla_bridge = None

# set in a child process forked after JAX started: JAX is multithreaded, and its copy in the
# child deadlocks on its first computation (gymnasium's AsyncVectorEnv forks its workers by
# default on Linux, after it made one env in the parent to read the spaces, so JAX has started)
_forked_after_jax = False


def _mark_forked_child() -> None:
    global _forked_after_jax
    # runs in the child right after fork: read a plain dict, take no lock, import nothing
    _forked_after_jax = _xla_bridge is None or bool(getattr(_xla_bridge, "_backends", True))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mark_forked_child)


def check_not_forked(env: Any) -> None:
    """Refuse to run JAX in a process forked after JAX started (it would hang, not fail).

    Args:
        env: The env's id, or the env (its name is in the message).

    Raises:
        RuntimeError: In such a process, naming `context="spawn"`.
    """
    if _forked_after_jax:
        name = env if isinstance(env, str) else getattr(env, "name", repr(env))
        raise RuntimeError(
            f"{name}: a jaxenvs export is used in a process forked after JAX started, and JAX is "
            "multithreaded: its copy in a forked process deadlocks. gymnasium's AsyncVectorEnv forks its "
            "workers by default on Linux; start them with spawn: gymnasium.make_vec(id, num_envs, "
            'vectorization_mode="async", vector_kwargs={"context": "spawn"}) or AsyncVectorEnv(env_fns, '
            'context="spawn"). The default gymnasium.make_vec(id, num_envs) needs no workers: one jitted '
            "call steps the whole batch in this process."
        )


# --- pickling ---------------------------------------------------------------------------------


class Reconstructs:
    """Pickling by reconstruction, for the exports (`copy.deepcopy` too).

    An export remembers its constructor's arguments (`remember_arguments`, first thing in its
    `__init__`: the id or raw env, params and overrides) and names in `PICKLED` the attributes
    that hold its run: the key, the JAX state, the episode's flags, numpy's generator. A pickle
    holds those two only, never a compiled function; unpickling calls the constructor again
    (its jitted functions come from the per-id cache, or compile again in a new process) and
    puts the run back, so the copy steps on exactly as the original would. JAX arrays pickle
    as themselves (values, dtypes, weak types, typed keys).
    """

    PICKLED: tuple[str, ...] = ()

    def remember_arguments(self, *args: Any, **kwargs: Any) -> None:
        """Record the constructor's arguments for unpickling.

        Args:
            *args: Its positional arguments.
            **kwargs: Its keyword arguments.
        """
        self._arguments = (args, dict(kwargs))

    def __getstate__(self) -> dict[str, Any]:
        run = {name: self.__dict__[name] for name in self.PICKLED if name in self.__dict__}
        return {"arguments": self._arguments, "run": run}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        args, kwargs = saved["arguments"]
        self.__init__(*args, **kwargs)
        self.__dict__.update(saved["run"])
        self.restored()

    def restored(self) -> None:
        """Called once the run is back: an export picks what its run needs (its program with levels)."""


def key_from_seed(seed: int) -> jax.Array:
    """A JAX key from any non-negative int seed (numpy's SeedSequence takes arbitrary size)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative integer, got {seed!r} ({type(seed).__name__})")
    seed = int(seed)
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    words = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint32) & np.uint32(0x7FFFFFFF)
    return jax.random.fold_in(jax.random.key(int(words[0])), int(words[1]))


def env_and_params(env: Any, params: Any, overrides: dict[str, Any]) -> tuple[Any, Any]:
    """The raw env and its params from an id or an env instance."""
    from jaxenvs.registry import apply_overrides, make

    if isinstance(env, str):
        return make(env, autoreset=False, **overrides)
    reject_autoreset(env)
    params = resolve_params(env, params)
    return env, apply_overrides(env, params, overrides)


def reject_autoreset(env: Any) -> None:
    """Refuse an env that auto-resets: the exports reset envs themselves, and an inner reset would hide episode ends."""
    from jaxenvs.wrappers import AutoReset, find_wrapper

    if find_wrapper(env, AutoReset) is not None:
        raise ValueError(
            f"{env!r} resets itself (AutoReset); export the raw env, e.g. "
            "jaxenvs.make(id, autoreset=False), and let the export handle resets"
        )


# --- values ---------------------------------------------------------------------------------


def host(tree: Any) -> Any:
    """Every JAX array of `tree` as numpy.

    `np.asarray` per leaf: cheaper than `device_get`'s bookkeeping for a handful of small arrays.
    """
    return jax.tree_util.tree_map(np.asarray, tree)


def info_to_numpy(info: Any) -> Any:
    """An info dict (nested dicts kept) as numpy arrays."""
    return jax.tree_util.tree_map(np.array, info)


def check_actions(actions: Any, space: spaces.Space, name: str, num_envs: int | None = None) -> None:
    """Check an action (or a batch of actions) exactly, numpy-side, before the jitted call casts it.

    No int32 wrap-around; NaN and inf are outside a Box.
    """
    spaces.check_action(space, actions, name, batch=() if num_envs is None else (int(num_envs),))


def renders(env: Any, params: Any) -> bool:
    """Whether `env.render` draws a picture (traced only, nothing computed).

    The exports advertise `render_modes=["rgb_array"]` only then.
    """
    key = jax.ShapeDtypeStruct((), jax.random.key(0).dtype)
    try:
        _, state = jax.eval_shape(lambda k: env.reset(k, params), key)
        jax.eval_shape(lambda s: env.render(s, params), state)
    except NotImplementedError:
        return False
    return True


def index(tree: Any, i: int) -> Any:
    """Element `i` of a batched numpy value (dicts and tuples kept)."""
    if isinstance(tree, dict):
        return {k: index(v, i) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(index(v, i) for v in tree)
    return tree[i]


# --- levels ---------------------------------------------------------------------------------


def _key_like() -> jax.ShapeDtypeStruct:
    """A key's abstract value, for `jax.eval_shape` (made when asked: importing an export must
    not start JAX, or a process forked from the importer could not use it)."""
    return jax.ShapeDtypeStruct((), jax.random.key(0).dtype)


class Leveled:
    """An export's env under `wrappers.Levels`, and how a level given to a reset starts its episode.

    With a sampler (the export's `levels=`) it is `Levels(env, sample)`, as `make_vec` builds it:
    a reset without a level samples one, and a level given to a reset must have the sampler's
    fields and shapes (`Levels.reset_to_level` checks). Without one, a level given to a reset
    holds for that episode: the state keeps every per-episode field (the params' own values
    where the level sets none), its start state is where the episode starts, and the episodes
    after it (an auto-reset's) start and run at the params' own values.

    Args:
        env: The export's env (no auto-reset).
        params: Its params.
        sample: The export's `levels=` sampler, or None.
    """

    def __init__(self, env: Any, params: Any, sample: Any = None):
        from jaxenvs.levels import Level, default_level
        from jaxenvs.wrappers.levels import Levels

        self.base, self.params, self.sample = env, params, sample
        self._defaults = default_level(params)
        if sample is None:
            defaults = self._defaults
            self.env = Levels(env, lambda key: defaults)
        else:
            self.env = Levels(env, sample)
        sampled = jax.eval_shape(self.env.sample_level, _key_like())
        # the settings the state keeps (the sampler's, or every per-episode field): their dtypes
        self._kept = dict(sampled.settings) if isinstance(sampled, Level) else {}
        # the trees, shapes and dtypes of the levels whose reset the env has checked (traced)
        self._checked: set = set()
        self._state_like: Any = None

    def prepare(self, level: Any, num_envs: int | None = None) -> Any:
        """A level given to a reset, checked as the env checks one, in the dtypes the state keeps.

        One env's level goes through the env's own `reset_to_level` (abstractly evaluated, the
        level concrete: every check, values included), once per tree, shapes and dtypes; later
        levels like it through `check_level`, what the env's `reset_to_level` checks values
        with. A batch's is checked as `make_vec`'s `reset_to_level` checks it (each env's
        values, naming the first bad one), and the rest (trees, dtypes, start states) when its
        reset is traced.

        Args:
            level: A `jaxenvs.levels.Level`; for a batch, every leaf with a leading axis of
                `num_envs`.
            num_envs: The batch size, or None for one env.

        Returns:
            The level `start` takes: its settings cast to the dtypes the state keeps, and
            without a sampler the params' own values of the fields it does not set.

        Raises:
            TypeError, ValueError: As the env's `reset_to_level` (one env) or `make_vec`'s (a
                batch): a wrong tree, dtype or shape, a field that may not vary per episode, a
                value outside its field's range.
        """
        from jaxenvs.levels import Level, check_level, check_level_batch

        if num_envs is not None:
            check_level_batch(level, self.params, self.base.name, num_envs)
        elif (like := _outline(level)) in self._checked:  # its tree passed: its values now
            check_level(level, self.params, self.base.name, self._start_state_like)
        else:
            checker = self.env if self.sample is not None else self.base
            jax.eval_shape(lambda k: checker.reset_to_level(k, level, self.params), _key_like())
            self._checked.add(like)
        settings = {  # numpy: cast on the host, no dispatch per value
            name: np.asarray(value, self._kept[name].dtype) if name in self._kept else value
            for name, value in level.settings.items()
        }
        if self.sample is None:
            defaults = self._defaults.settings
            if num_envs is not None:
                defaults = {name: jnp.broadcast_to(v, (num_envs, *v.shape)) for name, v in defaults.items()}
            settings = {**defaults, **settings}
        return Level(settings=settings, state=level.state)

    def _start_state_like(self) -> Any:
        """The abstract start state of the env (what a level's state must match)."""
        if self._state_like is None:
            self._state_like = jax.eval_shape(lambda k: self.base.reset(k, self.params)[1], _key_like())
        return self._state_like

    def start(self, key: jax.Array, level: Any, params: Any) -> tuple[Any, Any]:
        """The episode a reset given `level` (from `prepare`) starts; traced.

        Returns:
            `(obs, LevelState)`.
        """
        from jaxenvs.levels import Level
        from jaxenvs.wrappers.levels import LevelState

        if self.sample is not None:
            return self.env.reset_to_level(key, level, params)
        obs, state = self.base.reset_to_level(key, level, params)
        return obs, LevelState(env_state=state, level=Level(settings=level.settings))

    def lift(self, state: Any) -> Any:
        """A state of the env without levels as one at the params' own values (traced)."""
        from jaxenvs.wrappers.levels import LevelState

        return LevelState(env_state=state, level=self._defaults)


def _outline(level: Any) -> tuple | None:
    """A level's tree, shapes and dtypes (what decides its structural checks), or None if it
    cannot be read so (not a `Level`: the env's check names the error)."""
    from jaxenvs.levels import Level

    if not isinstance(level, Level) or not isinstance(level.settings, dict):
        return None
    leaves, tree = jax.tree_util.tree_flatten(level)
    return tree, tuple((np.shape(x), getattr(x, "dtype", type(x))) for x in leaves)


def as_dicts(tree: Any) -> Any:
    """`tree` with its dataclasses as dicts of their array fields (None ones left out), as
    gymnasium's infos hold values (its `data_equivalence` compares dicts, not dataclasses)."""
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        fields = [f.name for f in dataclasses.fields(tree) if f.metadata.get("pytree_node", True)]
        return {k: as_dicts(getattr(tree, k)) for k in fields if getattr(tree, k) is not None}
    if isinstance(tree, dict):
        return {k: as_dicts(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(as_dicts(v) for v in tree)
    return tree


def gymnasium_info(info: dict) -> dict:
    """A step's info for gymnasium: `info["level"]` (under levels) as dicts (`as_dicts`)."""
    if "level" not in info:
        return info
    return {**info, "level": as_dicts(info["level"])}


def check_level_option(options: dict | None, name: str) -> Any:
    """`options["level"]`, or None where there is none (or it is None).

    Raises:
        TypeError: For a level that is not a `jaxenvs.levels.Level`.
    """
    from jaxenvs.levels import Level

    level = (options or {}).get("level")
    if level is not None and not isinstance(level, Level):
        raise TypeError(
            f"{name}: options['level'] must be a jaxenvs.levels.Level(settings={{field: value}}, state=None or a "
            f"start state), got {type(level).__name__}"
        )
    return level


# --- the batch ------------------------------------------------------------------------------


class Batch:
    """`num_envs` copies of a raw env behind jitted, vmapped numpy-friendly functions.

    Its attributes `reset`, `reset_where`, `step_same_step`, `step_next_step`, `step_disabled`
    and `render` are jitted functions; the steps take and return the random key. Under
    `leveled` the batch is its env's (states are `LevelState`s), and `start`, `start_where`
    (resets from given levels, one per env) and `lift` (states without levels at the params'
    own values) are jitted too.

    Args:
        env: A raw env (no auto-reset).
        params: Its params.
        num_envs: The batch size.
        leveled: The env under levels (`Leveled`), or None.
    """

    def __init__(self, env: Any, params: Any, num_envs: int, leveled: Leveled | None = None):
        from jaxenvs.wrappers.vector import VecEnv, check_num_envs

        num_envs = check_num_envs(num_envs, where=env.name)
        if leveled is not None:
            env = leveled.env
        self.env, self.params, self.num_envs, self.leveled = env, params, num_envs, leveled
        venv = VecEnv(env, self.num_envs)
        v_reset = jax.vmap(env.reset, in_axes=(0, None))
        v_step = jax.vmap(env.step, in_axes=(0, 0, 0, None))
        n = self.num_envs

        def reset(keys):
            return v_reset(keys, params)

        def reset_where(keys, mask, obs, state):
            new_obs, new_state = v_reset(keys, params)
            return where_done(mask, new_obs, obs), where_done(mask, new_state, state)

        def step_same_step(key, state, actions):
            key, k = jax.random.split(key)
            obs, state, reward, terminated, truncated, info = venv.step(k, state, actions, params)
            final_obs = info.pop("final_observation")
            for name in ("final_terminated", "final_truncated"):
                info.pop(name)
            return key, obs, state, reward, terminated, truncated, final_obs, gymnasium_info(info)

        def step_next_step(key, state, actions, needs_reset, pending_obs):
            # gymnasium's NEXT_STEP: an env that ended on the last call is reset now, its
            # action ignored, reward 0 and no flags. Built on the SAME_STEP batch (which resets
            # only the envs that finished): it already reset such an env's state on the last
            # call and kept its first observation in `pending_obs`; this call keeps that
            # state, discards the step computed for it, and returns that observation.
            key, k = jax.random.split(key)
            reset_obs, stepped, reward, terminated, truncated, info = venv.step(k, state, actions, params)
            obs = where_done(needs_reset, pending_obs, info.pop("final_observation"))
            for name in ("final_terminated", "final_truncated"):
                info.pop(name)
            state = where_done(needs_reset, state, stepped)
            reward = jnp.where(needs_reset, 0.0, reward).astype(reward.dtype)
            terminated = terminated & ~needs_reset
            truncated = truncated & ~needs_reset
            done = terminated | truncated
            return key, obs, state, reward, terminated, truncated, done, reset_obs, gymnasium_info(info)

        def step_disabled(key, state, actions):
            key, k = jax.random.split(key)
            obs, state, reward, terminated, truncated, info = v_step(jax.random.split(k, n), state, actions, params)
            return key, obs, state, reward, terminated, truncated, gymnasium_info(info)

        self.reset = jax.jit(reset)
        self.reset_where = jax.jit(reset_where)
        self.step_same_step = jax.jit(step_same_step)
        self.step_next_step = jax.jit(step_next_step)
        self.step_disabled = jax.jit(step_disabled)
        self.render = jax.jit(jax.vmap(lambda s: env.render(s, params)))
        if leveled is not None:
            v_start = jax.vmap(leveled.start, in_axes=(0, 0, None))

            def start(keys, levels):
                return v_start(keys, levels, params)

            def start_where(keys, mask, levels, obs, state):
                new_obs, new_state = v_start(keys, levels, params)
                return where_done(mask, new_obs, obs), where_done(mask, new_state, state)

            self.start = jax.jit(start)
            self.start_where = jax.jit(start_where)
            self.lift = jax.jit(jax.vmap(leveled.lift))

    def keys(self, key: jax.Array | None, seeds: Any = None) -> tuple[jax.Array, jax.Array]:
        """The next key and one reset key per env.

        Args:
            key: The current key of the stream.
            seeds: None (draw from `key`), one int seed, or one int seed per env.

        Returns:
            `(next key, reset keys[num_envs])`.

        Raises:
            ValueError: If a list of seeds does not have one per env, or holds None.
        """
        if seeds is not None and not isinstance(seeds, (int, np.integer)):
            seeds = list(seeds)
            if len(seeds) != self.num_envs:
                raise ValueError(f"expected {self.num_envs} seeds, got {len(seeds)}")
            if any(s is None for s in seeds):
                raise ValueError("per-env seeds must all be integers")
            per_env = jnp.stack([key_from_seed(s) for s in seeds])
            return jax.random.fold_in(per_env[0], self.num_envs), per_env
        if seeds is not None:
            key = key_from_seed(seeds)
        key, k = jax.random.split(key)
        return key, jax.random.split(k, self.num_envs)


class Single:
    """One raw env behind jitted reset / step / render that carry the random key.

    Args:
        env: A raw env (no auto-reset).
        params: Its params.
        leveled: The env under levels (`Leveled`: its sampler starts every episode), or None.
    """

    def __init__(self, env: Any, params: Any, leveled: Leveled | None = None):
        if leveled is not None:
            env = leveled.env
        self.env, self.params, self.leveled = env, params, leveled

        def reset(key):
            key, k = jax.random.split(key)
            obs, state = env.reset(k, params)
            return key, obs, state

        def step(key, state, action):
            key, k = jax.random.split(key)
            obs, state, reward, terminated, truncated, info = env.step(k, state, action, params)
            return key, obs, state, reward, terminated, truncated, info

        self.reset = jax.jit(reset)
        self.step = jax.jit(step)
        self.render = jax.jit(lambda state: env.render(state, params))


# Exports of the same id, overrides and levels share their compiled functions (a SyncVectorEnv
# of JaxEnvs, or a second gymnasium.make of one id, compiles once).
@functools.lru_cache(maxsize=32)
def _cached(kind: str, env_id: str, overrides: tuple, num_envs: int, levels: Any, leveled: bool) -> Any:
    from jaxenvs.registry import make

    env, params = make(env_id, autoreset=False, **dict(overrides))
    return _build(kind, env, params, num_envs, levels, leveled)


def _build(kind: str, env: Any, params: Any, num_envs: int, levels: Any, leveled: bool) -> Any:
    under = Leveled(env, params, levels) if leveled else None
    return Single(env, params, under) if kind == "single" else Batch(env, params, num_envs, under)


def reject_replay_levels(env: Any, overrides: dict[str, Any]) -> None:
    """Refuse `replay_levels=` (make_vec's option): an export would pass it on to `make` unseen.

    Raises:
        ValueError: If `overrides` holds it.
    """
    if "replay_levels" in overrides:
        name = env if isinstance(env, str) else env.name
        raise ValueError(
            f"{name}: replay_levels is make_vec's option, not an export's: an export starts an episode from a "
            "level given to its reset (gymnasium: reset(options={'level': level}); SB3: set_options({'level': "
            "level})) or from levels=sample, a sampler of one level per episode"
        )


def compiled(
    env: Any,
    params: Any,
    overrides: dict[str, Any],
    num_envs: int | None = None,
    levels: Any = None,
    leveled: bool = False,
) -> Any:
    """The jitted functions of an id (cached per id, overrides, batch size and levels) or of a raw env.

    Args:
        env: An id, or a raw env.
        params: The raw env's params (None: its defaults).
        overrides: Params fields.
        num_envs: The batch size (a `Batch`), or None (a `Single`).
        levels: The export's `levels=` sampler, or None.
        leveled: Whether the env runs under `Leveled` (always with a sampler).

    Returns:
        A `Single` or a `Batch`.
    """
    kind = "single" if num_envs is None else "batch"
    leveled = bool(leveled) or levels is not None
    reject_replay_levels(env, overrides)
    if num_envs is not None:  # before the cache key reads it: 2.5 must not become 2
        from jaxenvs.wrappers.vector import check_num_envs

        num_envs = check_num_envs(num_envs, where=env if isinstance(env, str) else env.name)
    if isinstance(env, str):
        try:
            return _cached(kind, env, tuple(sorted(overrides.items())), int(num_envs or 0), levels, leveled)
        except TypeError:  # an unhashable override value: build afresh
            pass
    env, params = env_and_params(env, params, overrides)
    return _build(kind, env, params, num_envs, levels, leveled)
