"""Ids -> entry points. `make` imports an env's module only when that id is asked for.

Each family lists its ids in a small data-only module (`jaxenvs/envs/<family>/registration.py`,
`jaxenvs/adapters/registration.py`) that names entry points as `"module:attribute"` strings, so
`import jaxenvs` imports none of the environments, nor brax, gymnasium or any reference.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from jaxenvs.extras import EXTRA_LIBRARIES, install_line, not_installed
from jaxenvs.params import check_params
from jaxenvs.wrappers.absorbing import Absorbing
from jaxenvs.wrappers.autoreset import AutoReset
from jaxenvs.wrappers.defaults import RegisteredDefaults
from jaxenvs.wrappers.levels import Levels
from jaxenvs.wrappers.vector import VecEnv, check_num_envs

# The families whose envs are jaxenvs' own (`jaxenvs/envs/<family>/`), in registration order.
BUILT_IN_FAMILIES = ("classic", "toy_text", "minatar", "bsuite", "misc", "box2d")
# Data-only modules whose `REGISTRATIONS` are registered at import time.
_FAMILY_MODULES = (*(f"jaxenvs.envs.{f}.registration" for f in BUILT_IN_FAMILIES), "jaxenvs.adapters.registration")


class UnknownEnvError(KeyError):
    """Raised by `make` and `spec` for an id that is not registered; names the closest ids.

    A `KeyError`, whose `str` is the message itself (not its repr).

    Args:
        message: What went wrong, naming the id and the closest registered ones.
        env_id: The id that is not registered (None when not given).
        closest: The registered ids closest to it, closest first (empty when none is close).

    Attributes:
        env_id: The id that is not registered (None when not given).
        closest: The registered ids closest to it, as a tuple, closest first.

    >>> import jaxenvs
    >>> try:
    ...     jaxenvs.make("CartPole-v2")
    ... except jaxenvs.UnknownEnvError as e:
    ...     print(e.env_id, "->", e.closest[0])
    CartPole-v2 -> CartPole-v1
    """

    def __init__(self, message: str = "", *, env_id: str | None = None, closest: Sequence[str] = ()):
        super().__init__(message)
        self.env_id = env_id
        self.closest = tuple(closest)

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """Everything declared about a registered id, in one entry.

    What `make(id)` builds and what `availability` reads, and what parity and bench read: its
    reference and parity checks, its benchmark peers. None of these is imported until used
    (an entry point, a parity spec are `"module:attribute"` strings).

    Args:
        id: the registered id.
        entry_point: `"module:attribute"` (or a callable) returning an `Environment` when
            called with `env_kwargs`.
        env_kwargs: constructor arguments (what the id fixes, e.g. a game or a sweep setting).
        params: overrides applied to the env's `default_params` (e.g. the time limit).
        family: "classic", "minatar", ... used for grouping in reports.
        extra: the pip extra that provides the library the entry point needs, if any.
        notes: run policy, `{kind: why}`, the why in words (no timings: `jaxenvs report` and
            `jaxenvs bench` measure them): `"needs_download"` (constructing it downloads data:
            run only when asked, `--all`), `"broken_upstream"` (it fails inside its library:
            never run, the reason shown), both read by `availability`; `"slow_on_cpu"`
            (compiling dominates on a CPU: the report's rollout is smaller), `"representative"`
            (it stands for its family, `representatives`: where a family declares some, the
            report rolls out only those by default, the summary line naming the command for the
            rest, and the tests sample them).
        reference: the reference implementation, in words (None where none is named).
        parity: its parity checks, read by `jaxenvs.parity`: a `jaxenvs.parity.ParitySpec` or
            `Reference`, or `"module:attribute"` naming one (or a function of no arguments
            returning one); None where it declares none.
        peers: the same env in other libraries, read by `jaxenvs bench --compare` and the
            gymnasium export: `{"gymnax": ..., "gymnasium": ..., "envpool": ..., "loop": ...}`.
        batch_native: the entry point builds a whole batch (emulators of its own, as the ALE
            family's): `build` passes it `num_envs`, so only `make_vec` makes it and `make`
            refuses it, naming `make_vec`. Its env declares `reset_rows`.
    """

    id: str
    entry_point: str | Callable[..., Any]
    env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    family: str = "user"
    extra: str | None = None
    notes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    reference: str | None = None
    parity: Any = None
    peers: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    batch_native: bool = False


NOTE_KINDS = ("needs_download", "broken_upstream", "slow_on_cpu", "representative")

_REGISTRY: dict[str, EnvSpec] = {}
_FAMILIES_LOADED = False


def register(
    id: str,
    entry_point: str | Callable[..., Any],
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    reference: Any = None,
    family: str = "user",
    extra: str | None = None,
    parity: Any = None,
    peers: Mapping[str, Any] | None = None,
    notes: Mapping[str, str] | None = None,
    overwrite: bool = False,
    batch_native: bool = False,
) -> EnvSpec:
    """Register `id`, so that `make(id)` builds it.

    Args:
        id: the id, e.g. `"mine/CartPole-v1"`.
        entry_point: `"module:attribute"` or a callable making the env from `env_kwargs`.
        env_kwargs: constructor arguments.
        params: overrides applied to the env's `default_params`.
        reference: the reference in words, or the reference itself for `jaxenvs parity <id>`:
            a `jaxenvs.parity.Reference`, or `"module:attribute"` naming one (then its name is
            read when a check runs).
        family: the family the id is grouped under.
        extra: the pip extra that provides the library the entry point needs.
        parity: its parity checks, imported only when a check runs: a `jaxenvs.parity.ParitySpec`
            or `Reference`, or `"module:attribute"` naming one (or a function of no arguments
            returning one).
        peers: the same env in other libraries, for `jaxenvs bench --compare`:
            `{"gymnax": id or (id, kwargs), "gymnasium": id, "envpool": id,
            "loop": ("minatar", game) or ("bsuite", name, kwargs)}`.
        notes: run policy, `{kind: why}` (`EnvSpec.notes`; kinds in `NOTE_KINDS`).
        overwrite: replace an id already registered.
        batch_native: the entry point takes `num_envs` and builds the whole batch
            (`EnvSpec.batch_native`).

    Returns:
        The new `EnvSpec`.

    Raises:
        TypeError: `id` is not a non-empty str, or `entry_point` is neither a callable nor a str.
        ValueError: `entry_point` is not `"module:attribute"`; `id` is already registered
            (without `overwrite`); `extra` is not an extra's name; an unknown note kind; the
            parity reference given both as `reference=` and `parity=`.
    """
    if not isinstance(id, str) or not id:
        raise TypeError(f"register: id must be a non-empty str such as 'mine/CartPole-v1', got {id!r}")
    if isinstance(entry_point, str):
        if not _is_entry_point(entry_point):
            raise ValueError(
                f"register({id!r}): entry_point must read 'package.module:attribute' (dotted names, "
                f"one colon), got {entry_point!r}"
            )
    elif not callable(entry_point):
        raise TypeError(
            f"register({id!r}): entry_point must be a callable returning an env or a "
            f"'module:attribute' string, got {type(entry_point).__name__}"
        )
    # the built-in families first: a user's id may replace a built-in one, never be replaced by it
    _load_families()
    if not overwrite and id in _REGISTRY:
        raise ValueError(f"{id!r} is already registered; pass overwrite=True to replace it")
    if extra is not None:
        try:
            install_line(extra)
        except ValueError:
            raise ValueError(
                f"register({id!r}): extra must be the name of a pip extra such as 'brax', got {extra!r}"
            ) from None
    unknown = sorted(set(notes or {}) - set(NOTE_KINDS))
    if unknown:
        raise ValueError(f"unknown note kinds {unknown}; valid: {list(NOTE_KINDS)}")
    if reference is not None and not isinstance(reference, str) or _is_entry_point(reference):
        if parity is not None:
            raise ValueError("give the parity reference once: as reference= or as parity=, not both")
        parity, reference = (
            reference,
            getattr(reference, "name", None) or (reference if isinstance(reference, str) else None),
        )
    spec = EnvSpec(
        id=id,
        entry_point=entry_point,
        env_kwargs=dict(env_kwargs or {}),
        params=dict(params or {}),
        family=family,
        extra=extra,
        notes=dict(notes or {}),
        reference=reference,
        parity=parity,
        peers=dict(peers or {}),
        batch_native=bool(batch_native),
    )
    _REGISTRY[id] = spec
    return spec


def _is_entry_point(value: Any) -> bool:
    """`"package.module:attribute"` (no spaces), as opposed to a reference named in words."""
    if not isinstance(value, str) or " " in value or value.count(":") != 1:
        return False
    module, attr = value.split(":")
    return all(part.isidentifier() for part in module.split(".") + attr.split("."))


def resolve(entry_point: Any) -> Any:
    """The object a `"module:attribute"` string names.

    Args:
        entry_point: `"module:attribute"` (the attribute may be dotted), or anything else.

    Returns:
        The named object (importing its module); anything but a str is returned as is.
    """
    if not isinstance(entry_point, str):
        return entry_point
    module_name, _, attr = entry_point.partition(":")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _load_families() -> None:
    global _FAMILIES_LOADED
    if _FAMILIES_LOADED:
        return
    _FAMILIES_LOADED = True
    for module_name in _FAMILY_MODULES:
        module = importlib.import_module(module_name)
        for entry in module.REGISTRATIONS:
            entry = dict(entry)
            register(entry.pop("id"), entry.pop("entry_point"), overwrite=True, **entry)


def registered_envs(family: str | None = None) -> list[str]:
    """Every registered id, in registration order.

    Args:
        family: only this family's ids (all when None).

    Returns:
        The ids.
    """
    _load_families()
    return [i for i, s in _REGISTRY.items() if family is None or s.family == family]


def spec(id: str) -> EnvSpec:
    """The registration of `id`.

    Args:
        id: a registered id.

    Returns:
        Its `EnvSpec`.

    Raises:
        TypeError: `id` is not a str.
        UnknownEnvError: `id` is not registered (naming the closest ids).
    """
    if not isinstance(id, str):
        raise TypeError(
            f"an env id must be a str such as 'CartPole-v1', got {id!r} ({type(id).__name__}); "
            "jaxenvs.registered_envs() lists them"
        )
    _load_families()
    try:
        return _REGISTRY[id]
    except KeyError:
        close = difflib.get_close_matches(id, list(_REGISTRY), n=5, cutoff=0.5)
        if not close:
            close = [i for i in _REGISTRY if id.lower() in i.lower()][:5]
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise UnknownEnvError(
            f"No environment registered as {id!r}.{hint} (`jaxenvs list` prints every id; in Python, "
            "jaxenvs.registered_envs())",
            env_id=id,
            closest=close,
        ) from None


# Why an id cannot run here (`Availability.kind`), in the order `availability` looks.
MISSING_EXTRA, NEEDS_DOWNLOAD, BROKEN_UPSTREAM = "missing_extra", "needs_download", "broken_upstream"


@dataclasses.dataclass(frozen=True)
class Availability:
    """Whether an id can run here, and if not, why and what to do (`availability`).

    Args:
        env_id: the id.
        runnable: `make(env_id)` and a rollout can run here as it is.
        kind: why not: `MISSING_EXTRA` (its extra's library is not installed),
            `NEEDS_DOWNLOAD` (constructing it downloads data), `BROKEN_UPSTREAM` (it fails
            inside its library); None where it is runnable.
        reason: why not, in words (the registration's note, or the missing library).
        install: the command that makes it runnable (`pip install "jaxenvs[extra]"`) where an
            extra is missing, else None.
    """

    env_id: str
    runnable: bool
    kind: str | None = None
    reason: str | None = None
    install: str | None = None


def availability(id: str, *, download: bool = False) -> Availability:
    """Can `id` run here, and if not, why and the install line.

    Reads only the registration and which libraries are installed: nothing is imported or
    built. The CLI (`jaxenvs report`), the tests and the docs generator ask this.

    Args:
        id: a registered id.
        download: count an id whose construction downloads data as runnable (`jaxenvs report
            --all`); by default it is not (`NEEDS_DOWNLOAD`).

    Returns:
        An `Availability`; where several reasons hold, the first of a missing extra, a
        download (nothing is fetched unless asked), a failure upstream.

    Raises:
        UnknownEnvError: `id` is not registered (naming the closest ids).
    """
    s = spec(id)
    library = _library_of(s)
    if library is not None and importlib.util.find_spec(library) is None:
        return Availability(id, False, MISSING_EXTRA, f"{library!r} is not installed", install_line(s.extra))
    if "needs_download" in s.notes and not download:
        return Availability(id, False, NEEDS_DOWNLOAD, s.notes["needs_download"])
    if "broken_upstream" in s.notes:
        return Availability(id, False, BROKEN_UPSTREAM, s.notes["broken_upstream"])
    return Availability(id, True)


def _library_of(s: EnvSpec) -> str | None:
    """The top-level module an id's extra provides: the known extras' library, else the module
    of its entry point where that is not jaxenvs' own; None where it needs no extra."""
    if s.extra is None:
        return None
    if s.extra in EXTRA_LIBRARIES:
        return EXTRA_LIBRARIES[s.extra]
    if isinstance(s.entry_point, str):
        top = s.entry_point.split(":")[0].split(".")[0]
        return None if top == "jaxenvs" else top
    return None


def representatives(family: str) -> list[str]:
    """The ids that stand for `family` in `jaxenvs report` and the tests.

    Args:
        family: a family name.

    Returns:
        Its ids noted `representative`, in registration order (empty where it declares none).
    """
    return [i for i in registered_envs(family) if "representative" in _REGISTRY[i].notes]


def _resolve(entry_point: str | Callable[..., Any], extra: str | None, id: str = "") -> Callable[..., Any]:
    if callable(entry_point):
        return entry_point
    module_name, _, attr = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        missing = e.name or ""
        if extra is not None and missing.split(".")[0] != "jaxenvs":
            raise not_installed(entry_point, missing, extra) from e
        raise ImportError(
            f"{id}: its entry point {entry_point!r} cannot be imported ({e}); register it with an importable "
            "'module:attribute' or a callable",
            name=missing,
        ) from e
    try:
        return resolve(f"{module_name}:{attr}") if "." in attr else getattr(module, attr)
    except AttributeError:
        raise ImportError(f"{id}: module {module_name!r} has no {attr!r} (entry point {entry_point!r})") from None


def apply_overrides(env: Any, params: Any, overrides: Mapping[str, Any], where: str | None = None) -> Any:
    """`params` with `overrides` applied and checked.

    Args:
        env: the env the params belong to (named in errors, and checks its declarations).
        params: the params dataclass.
        overrides: `{field: value}` to change.
        where: what errors name (default: the env's name).

    Returns:
        The new params (`params` itself when there is nothing to change).

    Raises:
        TypeError: an override names no field of `params` (the valid ones are listed).
        ValueError: an overridden value is outside what the field declares valid.
    """
    if not overrides:
        return params
    valid = [f.name for f in dataclasses.fields(params)]
    unknown = sorted(set(overrides) - set(valid))
    if unknown:
        raise TypeError(
            f"{where or env.name}: unknown parameter(s) {', '.join(map(repr, unknown))}; "
            f"valid parameters are: {', '.join(valid)}"
        )
    # dataclasses.replace, not params.replace: the check below names the env, not the class
    new = dataclasses.replace(params, **overrides)
    check_params(new, env=env, names=list(overrides), where=where)
    return new


def build(
    id: str,
    env_kwargs: Mapping[str, Any] | None = None,
    registered_params: bool = True,
    num_envs: int | None = None,
    **overrides: Any,
) -> tuple[Any, Any]:
    """The env of an id and its params: what every door to an env starts from.

    Reads everything the registration says of the id (entry point, constructor arguments,
    registered params, extra) and applies the overrides, checked. The env's `default_params`
    are the params built (through `wrappers.RegisteredDefaults`, which changes nothing else,
    where they differ from the class's); the layers that change behaviour are `apply_layers`'.

    Args:
        id: a registered id.
        env_kwargs: constructor arguments over the registration's own (the gymnax export's
            tasks use them).
        registered_params: apply the registration's params (its time limit, ...); False keeps
            the constructed env's own defaults (an env built with other constructor arguments,
            as gymnax's FrozenLake with `map_name="8x8"` gets the 8x8 map's time limit).
        num_envs: the batch size, passed to the entry point of a batch-native id
            (`EnvSpec.batch_native`), which needs it; ignored for any other id.
        **overrides: params fields to change.

    Returns:
        `(env, params)`.

    Raises:
        UnknownEnvError: `id` is not registered (naming the closest ids).
        TypeError: an override names no params field; the entry point does not return an
            environment; a batch-native id without `num_envs` (naming `make_vec`).
        ValueError: a params value is outside what its field declares valid.
        ImportError: the library the env needs is not installed (naming the extra).
    """
    s = spec(id)
    kwargs = {**s.env_kwargs, **(env_kwargs or {})}
    if s.batch_native:
        if num_envs is None:
            raise TypeError(
                f"{id} is a batch of emulators on the host, not one env: make it with "
                f"jaxenvs.make_vec({id!r}, num_envs) (a batch of one: num_envs=1)"
            )
        kwargs["num_envs"] = num_envs
    env = _resolve(s.entry_point, s.extra, id)(**kwargs)
    if not (callable(getattr(env, "reset", None)) and callable(getattr(env, "step", None))):
        raise TypeError(
            f"{id}: its entry point returned {type(env).__name__}, not an environment (expected an object with "
            "reset(key, params), step(key, state, action, params) and default_params, e.g. a jaxenvs.Environment)"
        )
    changes = {**(s.params if registered_params else {}), **overrides}
    params = apply_overrides(env, env.default_params, changes, where=id)
    check_params(params, env=env, where=id)
    if changes:
        env = RegisteredDefaults(env, params)
    return env, params


def apply_layers(
    env: Any,
    *,
    autoreset: bool = True,
    num_envs: int | None = None,
    levels: Any = None,
    replay_levels: bool = False,
    reset_strategy: str = "auto",
    allow_vmap: bool = False,
) -> Any:
    """The layers over a built env, always in this order (the one place it is written):

    1. levels (`wrappers.Levels`), where `levels` or `replay_levels` is given;
    2. the end of an episode: auto-reset (`wrappers.AutoReset`), or with `autoreset=False`
       the guard that keeps a finished episode where it is (`wrappers.Absorbing`);
    3. the batch (`wrappers.VecEnv`: the auto-reset step vmapped), where `num_envs` is given.
       A family whose raw env is already a batch declares `reset_rows`: it gets the
       auto-reset layer alone, which resets its rows with that hook.

    Args:
        env: an env, as `build` gives it.
        autoreset: reset a finished episode in the step that ends it (always, in a batch).
        num_envs: the batch size, or None for one env.
        levels: `sample(key) -> Level` for `wrappers.Levels`.
        replay_levels: restart each finished episode from its own level.
        reset_strategy: how a batch finds its resets (`wrappers.autoreset`).
        allow_vmap: let `jax.vmap` batch a batch's key (`VecEnv`).

    Returns:
        The layered env.
    """
    if levels is not None or replay_levels:
        env = Levels(env, levels, replay=replay_levels)
    if num_envs is None:
        return AutoReset(env, reset_strategy=reset_strategy) if autoreset else Absorbing(env)
    if env.reset_rows is not None:
        return AutoReset(env, reset_strategy=reset_strategy)
    return VecEnv(env, num_envs, allow_vmap=allow_vmap, reset_strategy=reset_strategy)


def make(
    id: str,
    autoreset: bool = True,
    reset_strategy: str = "auto",
    levels: Any = None,
    replay_levels: bool = False,
    **overrides: Any,
) -> tuple[Any, Any]:
    """Build a registered env.

    Args:
        id: a registered id (`registered_envs()` lists them).
        autoreset: wrap in `AutoReset` (same-step reset, `info["final_observation"]`); pass
            `False` for the env that never resets, under `Absorbing` (a step past the end of
            an episode changes nothing).
        reset_strategy: how `AutoReset` finds a batch's resets under `jax.vmap`: `"auto"`
            (`"capacity"` on a CPU, `"select"` elsewhere), `"capacity"` or `"select"`
            (`wrappers.autoreset`); the same results whichever runs.
        levels: `sample(key) -> jaxenvs.levels.Level`: every episode starts from its own
            sampled level (`wrappers.Levels`, under the auto-reset; docs/levels.md).
        replay_levels: restart each finished episode from its own level instead.
        **overrides: params fields to change, e.g. `max_steps_in_episode=200`.

    Returns:
        `(env, params)`: the env (its `default_params` are the params built) and the params.

    Raises:
        UnknownEnvError: `id` is not registered (naming the closest ids).
        TypeError: `id` is not a str; `autoreset` is not a bool; an override names no params
            field; the entry point does not return an environment.
        ValueError: a params value is outside what its field declares valid; `reset_strategy`
            is not one of the three.
        ImportError: the library the env needs is not installed (naming the extra).

    Examples:
        >>> import jax, jaxenvs
        >>> env, params = jaxenvs.make("CartPole-v1")
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> obs.shape
        (4,)
    """
    spec(id)
    if not isinstance(autoreset, (bool, np.bool_)):
        raise TypeError(f"{id}: autoreset must be True or False, got {autoreset!r}")
    env, params = build(id, **overrides)
    layered = apply_layers(
        env, autoreset=bool(autoreset), levels=levels, replay_levels=replay_levels, reset_strategy=reset_strategy
    )
    return layered, params


def make_vec(
    id: str,
    num_envs: int,
    allow_vmap: bool = False,
    reset_strategy: str = "auto",
    levels: Any = None,
    replay_levels: bool = False,
    **overrides: Any,
) -> tuple[Any, Any]:
    """A batched env of `num_envs` copies of `id` (one key per call; resets only finished envs).

    Args:
        id: a registered id.
        num_envs: the batch size.
        allow_vmap: let `jax.vmap` batch its key, making a batch of batches (a training loop
            vmapped over seeds); without it that raises a `ValueError` (see `VecEnv`).
        reset_strategy: how the finished envs are reset, as in `make` (the same results).
        levels: `sample(key) -> jaxenvs.levels.Level`: every episode starts from its own
            sampled level (`wrappers.Levels`; docs/levels.md), inside the jitted step. The state
            is then a `LevelState` and `info["level"]` the level each step ran under.
        replay_levels: restart each finished env from its own level (set by the first reset
            or `reset_to_level`) instead of a fresh sample.
        **overrides: params fields to change, as in `make`.

    Returns:
        `(VecEnv, params)`: params unbatched, shared by every env.

    Raises:
        TypeError: `num_envs` is not an int; `autoreset=` is given (make_vec always
            auto-resets); as `make`.
        ValueError: `num_envs` is outside [1, 2**30]; as `make`.
        UnknownEnvError: `id` is not registered.

    Examples:
        >>> import jax, jaxenvs
        >>> venv, params = jaxenvs.make_vec("CartPole-v1", 4)
        >>> obs, state = venv.reset(jax.random.key(0), params)
        >>> obs.shape
        (4, 4)
        >>> actions = venv.sample_actions(jax.random.key(1), params)
        >>> obs, state, reward, terminated, truncated, info = venv.step(jax.random.key(2), state, actions, params)
        >>> reward
        Array([1., 1., 1., 1.], dtype=float32)
    """
    check_num_envs(num_envs, where=id)
    if "autoreset" in overrides:
        raise TypeError(
            f"{id}: make_vec always auto-resets the envs that finished (autoreset= is make()'s option); "
            "for raw envs in a batch, jax.vmap the env of make(id, autoreset=False)"
        )
    env, params = build(id, num_envs=num_envs, **overrides)
    layered = apply_layers(
        env,
        num_envs=num_envs,
        levels=levels,
        replay_levels=replay_levels,
        reset_strategy=reset_strategy,
        allow_vmap=allow_vmap,
    )
    return layered, params
