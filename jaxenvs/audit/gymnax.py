"""gymnax under our harness: its envs, through the gymnax adapter, checked against their references.

Classic control: the harness injects the reference's states into the env under test; gymnax's
states carry the reference's field names for most of classic control (CartPole, MountainCar,
MountainCarContinuous, Pendulum), and other names for Acrobot (`RENAMES`). A peer's state is
the adapter's `GymnaxState` around gymnax's own `EnvState`, so the reference is given a
`to_jax` / `from_jax` that translate through it (fields the reference does not have, such as
Pendulum's `last_u`, keep the value of a fresh reset); each id's own spec runs on the port.

FrozenLake: gymnax's `FrozenLake-misc` keeps gymnasium's cell `s` as `position`; its checks are
built here (`FROZEN_LAKE`), one row per map.

MinAtar and bsuite: gymnax's states are laid out differently from our envs' (Asterix keeps an
entity's slot flag as a fifth column, Freeway counts `time` where MinAtar counts down a
`terminate_timer`, DeepSea keeps its action mapping in the state, ...), so this module
translates the references' states (named like our envs' fields) into gymnax's and back
(`MINATAR_GAMES`, `BSUITE_ENVS`) and builds the checks itself: transitions by state injection
(MinAtar's steps that draw random numbers are left to distribution checks), random events by
distribution from injected states, resets, the time limit and random-policy episode statistics.
Each such id has two rows: `<id>` (gymnax configured to the reference's settings where gymnax
can be) and `<id>@gymnax-defaults` (gymnax as `gymnax.make` builds it), whose failures are
the design choices of gymnax's defaults.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

LIBRARY = "gymnax"
# the references every row needs (MinAtar's rows also need `minatar`, bsuite's `bsuite`: a row
# whose own reference is missing is skipped by `audit`)
REFERENCES = ("gymnasium",)
# our id -> gymnax id, for the ids whose states translate (classic control)
TRANSLATED = {
    "CartPole-v1": "CartPole-v1",
    "Acrobot-v1": "Acrobot-v1",
    "MountainCar-v0": "MountainCar-v0",
    "MountainCarContinuous-v0": "MountainCarContinuous-v0",
    "Pendulum-v1": "Pendulum-v1",
}
# the reference's field -> gymnax's, where they differ
RENAMES = {
    "Acrobot-v1": {
        "theta1": "joint_angle1",
        "theta2": "joint_angle2",
        "dtheta1": "velocity_1",
        "dtheta2": "velocity_2",
    },
}


def peer_env(gymnax_id: str) -> tuple[Any, Any]:
    """gymnax's env of `gymnax_id` through the adapter, raw (no auto-reset), at gymnax's defaults.

    Every action is passed to gymnax as given (the adapter's clipping off).

    Args:
        gymnax_id: an id of `gymnax.registered_envs`.

    Returns:
        `(env, params)`.
    """
    from jaxenvs.adapters.gymnax import make_gymnax_env

    env = make_gymnax_env(gymnax_id, clip_actions=False)
    return env, env.default_params


def translating(reference: Any, env: Any, params: Any, renames: dict[str, str]) -> Any:
    """`reference` with `to_jax` / `from_jax` translating its states to the adapter's.

    Args:
        reference: the id's own reference (its state named like our env's fields).
        env: the adapted gymnax env.
        params: its params.
        renames: reference field -> gymnax field, where they differ.

    Returns:
        A copy of the reference.
    """
    templates: dict[bool, Any] = {}  # a fresh reset state, per precision (float64 under x64)
    back = {v: k for k, v in renames.items()}

    def template() -> Any:
        x64 = bool(jax.config.jax_enable_x64)
        if x64 not in templates:
            templates[x64] = env.reset(jax.random.key(0), params)[1]
        return templates[x64]

    def to_jax(state: dict[str, Any], params: Any) -> Any:
        outer = template()
        inner = outer.env_state
        fields = {}
        for name, value in state.items():
            target = renames.get(name, name)
            if hasattr(inner, target):
                fields[target] = jnp.asarray(value, jnp.asarray(getattr(inner, target)).dtype)
        return outer.replace(env_state=inner.replace(**fields), library_truncated=jnp.asarray(False))

    def from_jax(state: Any) -> dict[str, Any]:
        inner = state.env_state
        return {back.get(k, k): np.asarray(getattr(inner, k)) for k in inner.__dataclass_fields__}

    return dataclasses.replace(reference, to_jax=to_jax, from_jax=from_jax)


def ids() -> list[str]:
    """The rows the audit checks: our classic-control and FrozenLake ids, and each MinAtar and bsuite id twice
    (at the reference's settings, and `<id>@gymnax-defaults`).

    Returns:
        The ids.
    """
    two = [row for env_id in (*MINATAR_GAMES, *BSUITE_ENVS) for row in (env_id, env_id + DEFAULTS)]
    return [*TRANSLATED, *FROZEN_LAKE, *two]


def audit(env_id: str, scale: float, seed: int) -> Any:
    """One stage of the audit of gymnax's port of `env_id` (a row of `ids()`).

    Args:
        env_id: one of `ids()`: our id, or `<id>@gymnax-defaults` for gymnax's default settings.
        scale: the run's size (1.0 = the full size of the row's checks).
        seed: the seed of both sides' draws.

    Returns:
        The `ParityResult`, named `"gymnax/<row or gymnax's id>"`.

    Raises:
        ValueError: `env_id` is not one of `ids()`.
    """
    base, defaults = env_id.removesuffix(DEFAULTS), env_id.endswith(DEFAULTS)
    needs = "minatar" if base in MINATAR_GAMES else "bsuite" if base in BSUITE_ENVS else None
    if needs is not None and importlib.util.find_spec(needs) is None:  # this row's own reference
        from jaxenvs.extras import install_line
        from jaxenvs.parity import ParityResult

        return ParityResult(f"gymnax/{env_id}", needs, skipped=f"{needs} is not installed ({install_line('audit')})")
    if base in MINATAR_GAMES:
        return _audit_minatar(base, defaults, scale, seed)
    if base in BSUITE_ENVS:
        return _audit_bsuite(base, defaults, scale, seed)
    if env_id in FROZEN_LAKE:
        return _audit_frozen_lake(env_id, scale, seed)
    if env_id not in TRANSLATED:
        raise ValueError(f"gymnax's audit has no row {env_id!r}; its rows: {ids()}")
    import jaxenvs
    from jaxenvs.audit import run_spec_on_peer
    from jaxenvs.registry import resolve

    jaxenvs.spec(env_id)
    spec = resolve(jaxenvs.spec(env_id).parity)
    env, params = peer_env(TRANSLATED[env_id])
    renames = RENAMES.get(env_id, {})
    audited = dataclasses.replace(spec, reference=lambda i: translating(spec.reference(i), env, params, renames))
    return run_spec_on_peer("gymnax", env_id, TRANSLATED[env_id], audited, env, params, scale, seed)


# ---------------------------------------------------------------------------------------------
# MinAtar and bsuite: translated states, checks built here

DEFAULTS = "@gymnax-defaults"  # the suffix of the rows at gymnax's defaults
# our MinAtar id (gymnax's id too) -> MinAtar's game; Seaquest's state is not translated
MINATAR_GAMES = {
    "Asterix-MinAtar": "asterix",
    "Breakout-MinAtar": "breakout",
    "Freeway-MinAtar": "freeway",
    "SpaceInvaders-MinAtar": "space_invaders",
    "Seaquest-MinAtar": "seaquest",
}
# our bsuite id (gymnax's id too) -> gymnax's constructor / params at the reference's settings
# (our id's `env_kwargs`), beside gymnax's defaults; MNISTBandit is left out (its data is a download)
BSUITE_ENVS = {
    "Catch-bsuite": ({"rows": 10, "columns": 5}, {}),
    # bsuite has no time limit: gymnax's (max_steps_in_episode = size by default) set past the end
    "DeepSea-bsuite": ({"size": 10}, {"max_steps_in_episode": 10_000}),
    "DiscountingChain-bsuite": ({"mapping_seed": 0}, {}),
    "MemoryChain-bsuite": ({"num_bits": 1}, {"memory_length": 5}),
    "UmbrellaChain-bsuite": ({"n_distractor": 20}, {"chain_length": 20}),
    "SimpleBandit-bsuite": ({"num_actions": 11}, {}),
}
# our FrozenLake id -> gymnax's map (FrozenLake-misc; its defaults are gymnasium's settings: one row)
FROZEN_LAKE = {"FrozenLake-v1": "4x4", "FrozenLake8x8-v1": "8x8"}
FREEWAY_LIMIT = 2500  # MinAtar's Freeway: `terminate_timer` starts here; gymnax's `max_steps_in_episode`
STICKY = 0.1  # MinAtar's `sticky_action_prob`
# per game: the field and the MinAtar actions of a horizontal move, for the sticky-action draw:
# (field, action taken, previous action); Freeway moves up and down
STICKY_MOVES = {
    "asterix": ("player_x", 1, 3),
    "breakout": ("pos", 1, 3),
    "space_invaders": ("pos", 1, 3),
    "freeway": ("pos", 2, 4),
}
_PEERS: dict[tuple, tuple[Any, Any]] = {}  # (gymnax id, kwargs, params) -> (env, params): compiles shared


def _gymnax(gymnax_id: str, make_kwargs: dict[str, Any], env_params: dict[str, Any]) -> tuple[Any, Any]:
    """gymnax's env through the adapter (raw, actions as given), built with `make_kwargs` and its
    params' fields set to `env_params`; one object per setting, so that stages share compiles."""
    from jaxenvs.adapters.gymnax import make_gymnax_env

    key = (gymnax_id, tuple(sorted(make_kwargs.items())), tuple(sorted(env_params.items())))
    if key not in _PEERS:
        env = make_gymnax_env(gymnax_id, clip_actions=False, **make_kwargs)
        params = env.default_params
        if env_params:
            params = params.replace(env_params=params.env_params.replace(**env_params))
        _PEERS[key] = (env, params)
    return _PEERS[key]


def _batch(states: dict[str, Any]) -> tuple[int, ...]:
    """The batch shape of a dict of batched state fields (its `time`'s, else its first scalar field's)."""
    return np.shape(states["time"] if "time" in states else next(iter(states.values())))


def _const(value: Any, batch: tuple[int, ...]) -> np.ndarray:
    """`value` repeated over the batch."""
    value = np.asarray(value)
    return np.broadcast_to(value, batch + value.shape)


def translated(reference: Any, env: Any, params: Any, to_fields: Any, from_fields: Any) -> Any:
    """`reference` with `to_jax` / `from_jax` translating its (batched) states to gymnax's.

    Args:
        reference: a reference whose state dicts carry our env's field names.
        env: the adapted gymnax env.
        params: its params.
        to_fields: `(states, template) -> {gymnax field: batched value}`, every field of
            gymnax's `EnvState` (`template`, a fresh reset state, gives the constants).
        from_fields: `{gymnax field: value} -> {our field: value}`.

    Returns:
        A copy of the reference (batched `to_jax`, no recorded draws replayed).
    """
    from jaxenvs.adapters.gymnax import GymnaxState

    template = env.reset(jax.random.key(0), params)[1].env_state
    names = list(template.__dataclass_fields__)

    def to_jax(states: dict[str, Any], params: Any) -> Any:
        fields = to_fields({k: np.asarray(v) for k, v in states.items()}, template)
        missing = [k for k in names if k not in fields]
        if missing:
            raise KeyError(f"the translation to gymnax's state lacks {missing}")
        inner = template.replace(**{k: jnp.asarray(fields[k], jnp.asarray(getattr(template, k)).dtype) for k in names})
        time = jnp.asarray(inner.time, jnp.int32)
        return GymnaxState(time=time, library_truncated=jnp.zeros(time.shape, jnp.bool_), env_state=inner)

    def from_jax(state: Any) -> dict[str, Any]:
        inner = state.env_state
        return from_fields({k: np.asarray(getattr(inner, k)) for k in names})

    return dataclasses.replace(reference, to_jax=to_jax, from_jax=from_jax, batched_to_jax=True, draws_to_jax=None)


# --- MinAtar's games, our fields <-> gymnax's ---------------------------------------------------

_MAPS = ("brick_map", "f_bullet_map", "e_bullet_map", "alien_map")


def _minatar_to(game: str) -> Any:
    """`to_fields` of a MinAtar game: our state dict -> gymnax's `EnvState` fields."""

    def to_fields(d: dict[str, np.ndarray], template: Any) -> dict[str, Any]:
        out = {k: v for k, v in d.items() if hasattr(template, k)}
        batch = _batch(d)
        if game == "asterix":  # gymnax: [x, y, lr, gold, slot taken], an empty slot all zeros
            active = d["entity_active"].astype(bool)[..., None]
            out["entities"] = np.concatenate([d["entities"], active], axis=-1) * active
            out["shot_timer"] = _const(0, batch)  # gymnax keeps one; Asterix never uses it
        elif game == "freeway":  # gymnax counts the time up to its limit; MinAtar counts down
            out["time"] = FREEWAY_LIMIT - d["terminate_timer"]
        elif game == "space_invaders":  # gymnax keeps MinAtar's `ramping` in the state
            out["ramping"] = _const(True, batch)
        return out

    return to_fields


def _minatar_from(game: str) -> Any:
    """`from_fields` of a MinAtar game: gymnax's `EnvState` fields -> our state dict."""

    def from_fields(f: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = dict(f)
        for k in _MAPS:
            if k in out:
                out[k] = out[k] != 0
        if game == "asterix":
            entities = out.pop("entities")
            out["entities"], out["entity_active"] = entities[..., :4], entities[..., 4] != 0
            del out["shot_timer"]
        elif game == "freeway":
            out["terminate_timer"] = FREEWAY_LIMIT - out.pop("time")
        elif game == "space_invaders":
            del out["ramping"]
        return out

    return from_fields


def _minatar_game(game: str) -> Any:
    """Our spec's `Game` of a MinAtar game (its reader, writer and scrambler of MinAtar's state)."""

    import importlib

    return importlib.import_module(f"jaxenvs.envs.minatar.{game}.parity").GAME


def _registered_limit(env_id: str) -> int:
    """The time limit our id declares for the reference (MinAtar itself has none: a cap)."""
    from jaxenvs.parity import builtin_env

    return int(builtin_env(env_id)[1].max_steps_in_episode)


def _minatar_transitions(game: Any, name: str, env: Any, params: Any, ref: Any, n: int, seed: int) -> list:
    """Reference transitions (sticky actions off) by state injection, exactly, where the
    reference drew no random number during the step: a uniform random policy and our spec's
    scrambled states. Freeway's last two steps of a game (its own time limit) are a set apart."""
    from jaxenvs.envs.minatar import _parity as m
    from jaxenvs.parity import Collection, FieldPolicy, check_transitions

    sets = {
        "random policy": m.collect(game, n, m.uniform_policy(), seed),
        "scrambled states": m.collect(game, n, m.uniform_policy(), seed + 1, game.scramble),
    }
    kept, drawn, ends = {}, 0, []
    for label, data in sets.items():
        quiet = np.array([not d for d in data.draws], bool)
        drawn += int((~quiet).sum())
        end = data.states["terminate_timer"] <= 1 if name == "freeway" else np.zeros(len(data), bool)
        kept[label] = data.select(quiet & ~end)
        ends.append(data.select(quiet & end))
    if name == "freeway":
        kept["game end (its last two steps)"] = ends[0] + ends[1]
    canonical = None
    if name == "asterix":
        from jaxenvs.envs.minatar.asterix.parity import mask_empty_slots as canonical
    kept = {k: v for k, v in kept.items() if len(v)}
    fields, collect = FieldPolicy(atol=0.0, canonical=canonical), Collection(data=kept)
    checks = check_transitions(env, params, ref, seed=seed, fields=fields, collect=collect)
    if checks:
        note = f"{drawn} steps that drew random numbers left to the distribution checks"
        checks[0].detail = (checks[0].detail + "; " if checks[0].detail else "") + note
    return checks


def _minatar_resets(name: str, env: Any, params: Any, ref: Any, n: int, seed: int) -> list:
    """The reset state by distribution: Breakout's ball start, Freeway's first car's speed,
    the whole state of the games whose reset draws nothing."""
    from jaxenvs.parity import check_resets
    from jaxenvs.parity.stats import rows

    def whole(s: dict[str, Any], o: Any) -> np.ndarray:
        keys = sorted(k for k in s if k not in ("time", "last_action"))
        return np.concatenate([np.asarray(s[k]).reshape(len(s[k]), -1).astype(np.int64) for k in keys], axis=1)

    def ball(s: dict[str, Any], o: Any) -> np.ndarray:
        return rows(s["ball_x"], s["ball_dir"])

    def car(s: dict[str, Any], o: Any) -> np.ndarray:
        return rows(np.asarray(s["cars"])[:, 0, 0], np.asarray(s["cars"])[:, 0, 3])

    # the game -> (label, outcome, resets drawn)
    label, outcome, size = {
        "breakout": ("reset ball start (x, direction)", ball, n),
        "freeway": ("reset car 1 (x, speed)", car, n),
    }.get(name, ("reset state", whole, min(n, 200)))
    return check_resets(env, params, ref, size, seed, discrete=True, label=label, outcome=outcome)


def _asterix_spawns(env: Any, params: Any, ref: Any, n: int, seed: int) -> list:
    """Asterix's spawn by distribution from injected states: slots 2, 5 and 6 taken, every slot
    but 3 taken, and every slot taken (the entity spawned, and how many entities the step removed)."""
    from jaxenvs.parity import check_step_distribution

    ref.reset(seed)
    cases = []
    entities = np.stack([np.full(8, 3), np.arange(1, 9), np.ones(8), np.zeros(8)], axis=1).astype(np.int32)
    for taken in ((2, 5, 6), (0, 1, 2, 4, 5, 6, 7), tuple(range(8))):
        start = ref.state()
        active = np.isin(np.arange(8), taken)
        start.update(entities=entities, entity_active=active, spawn_timer=np.int32(0), move_timer=np.int32(3))
        start.update(player_x=np.int32(5), player_y=np.int32(8), terminal=np.bool_(False))
        cases.append((start, 0))

    def spawned(t: Any) -> list[tuple]:
        out = []
        for before, after, ents in zip(
            t.states["entity_active"], t.next_states["entity_active"], t.next_states["entities"]
        ):
            new = np.flatnonzero(after & ~before)
            lost = int(np.sum(before & ~after))
            out.append((*(int(ents[s][k]) for s in new for k in (1, 0, 2, 3)), "removed", lost))
        return out

    return check_step_distribution(
        env, params, ref, cases, n, spawned, seed, label="spawn (slot + 1, x, lr, gold; entities removed)"
    )


def _freeway_crossing(env: Any, params: Any, ref: Any, n: int, seed: int) -> list:
    """Freeway's new car speeds at a crossing (chicken one row from the top, moving up), by
    distribution: the first car's signed speed."""
    from jaxenvs.parity import check_step_distribution

    ref.reset(seed)
    start = ref.state()
    start.update(pos=np.int32(1), move_timer=np.int32(0))
    start["cars"] = np.asarray(start["cars"]).copy()
    start["cars"][:, 0] = 9  # no car in the chicken's column
    return check_step_distribution(
        env,
        params,
        ref,
        [(start, 2)],
        n,
        lambda t: list(np.asarray(t.next_states["cars"])[:, 0, 3]),
        seed,
        label="crossing: new speed of car 1",
    )


def _sticky(game: Any, name: str, env: Any, params: Any, translate: Any, actions: tuple, n: int, seed: int) -> list:
    """The sticky-action draw: from a state whose previous action was the opposite move, the
    moved field after one step, gymnax's against MinAtar's at `sticky_action_prob=0.1`."""
    from jaxenvs.parity import check_step_distribution

    field, action, previous = STICKY_MOVES[name]
    ref = translate(game.reference(sticky_action_prob=STICKY, action_map=actions))
    ref.reset(seed)
    start = ref.state()
    start["last_action"] = np.int32(previous)
    if name == "freeway":
        start.update(pos=np.int32(5), move_timer=np.int32(0))
    elif name == "asterix":
        start.update(player_x=np.int32(5), spawn_timer=np.int32(3), move_timer=np.int32(3))
    else:
        start[field] = np.int32(5)
    return check_step_distribution(
        env,
        params,
        ref,
        [(start, actions.index(action))],
        n,
        lambda t: list(np.asarray(t.next_states[field])),
        seed,
        label=f"sticky actions ({field} after '{'lurdf'[action - 1]}' following '{'lurdf'[previous - 1]}')",
    )


def _minatar_statistics(game: Any, env: Any, params: Any, sticky: float, n: int, seed: int, cap: int) -> list:
    """Random-policy episode length and return: gymnax against MinAtar at `sticky` with its six
    actions (the reference side drawn once per size and seed, cached)."""
    import minatar  # noqa: F401 (the reference's version is named in the cache key)

    from jaxenvs.audit.cache import cached
    from jaxenvs.parity.collect import jax_episode_statistics
    from jaxenvs.parity.stats import mean_check

    ref = game.reference(sticky_action_prob=sticky)
    key = f"minatar 1.0.15 {game.name} gymnax-audit episodes={n} sticky={sticky} cap={cap} seed={seed}"
    ref_len, ref_ret = cached(key, lambda: ref.episode_statistics(n, seed, cap))
    length, ret = jax_episode_statistics(env, params, n, seed, cap)
    tag = f"random policy ({env.action_space(params).n} actions; reference sticky {sticky:g}, 6 actions)"
    return [
        mean_check(f"{tag} episode length", length, ref_len, seed),
        mean_check(f"{tag} episode return", ret, ref_ret, seed + 1),
    ]


def _setting(name: str, mine: Any, theirs: Any) -> Any:
    from jaxenvs.parity.stats import exact_check

    check = exact_check(f"setting: {name}", np.asarray([mine]), np.asarray([theirs]))
    check.detail = f"gymnax {mine} vs reference {theirs}"
    return check


def _audit_minatar(env_id: str, defaults: bool, scale: float, seed: int) -> Any:
    """One stage of a MinAtar row: gymnax at the reference's settings (six actions, our id's time
    limit; no sticky actions, which gymnax lacks) or at gymnax's defaults."""
    from jaxenvs.parity import Check, ParityResult
    from jaxenvs.parity.harness import check_time_limit
    from jaxenvs.parity.verdict import Timer

    name = MINATAR_GAMES[env_id]
    game = _minatar_game(name)
    limit = FREEWAY_LIMIT + 1 if name == "freeway" else _registered_limit(env_id)
    if defaults:
        env, params = _gymnax(env_id, {}, {})
    else:
        env, params = _gymnax(env_id, {"use_minimal_action_set": False}, {"max_steps_in_episode": limit})
    actions = tuple(int(a) for a in np.asarray(env.gymnax_env.action_set))
    n_steps, n_samples = max(200, int(2000 * scale)), max(400, int(4000 * scale))
    n_episodes = max(20, int(200 * scale))
    cap = FREEWAY_LIMIT + 10 if name == "freeway" else 5000
    row = env_id + (DEFAULTS if defaults else "")
    result = ParityResult(f"gymnax/{row}", f"minatar {name} (MinAtar 1.0.15)")
    checks, aside = [], []

    def translate(reference: Any) -> Any:
        return translated(reference, env, params, _minatar_to(name), _minatar_from(name))

    with Timer() as timer:
        if name == "seaquest":
            why = (
                "gymnax's Seaquest keeps its bullets, enemies and divers as compacted fixed-capacity "
                "lists (`e_fish`, `e_subs`, ... with counts), not translated from MinAtar's lists here"
            )
            aside.append(Check("transitions (state injection)", 0, 0.0, 0.0, True, kind="not compared", detail=why))
        elif not defaults:
            ref = translate(game.reference())
            checks += _minatar_transitions(game, name, env, params, ref, n_steps, seed)
            checks += _minatar_resets(name, env, params, ref, n_samples, seed)
            if name == "asterix":
                checks += _asterix_spawns(env, params, ref, n_samples, seed)
            elif name == "freeway":
                checks += _freeway_crossing(env, params, ref, n_samples, seed)
        if name not in ("freeway", "seaquest"):
            # the limit, from the reference's states one and two steps before it (the reference
            # truncates at our id's cap; MinAtar has none)
            ref = translate(game.reference(max_steps_in_episode=_registered_limit(env_id), action_map=actions))
            checks += check_time_limit(env, params, ref, _registered_limit(env_id), 60, seed)
        if defaults:
            checks.append(_setting("actions", len(actions), 6))
        if name != "seaquest":
            sticky = _sticky(game, name, env, params, translate, actions, n_samples, seed + 2)
            if defaults:
                checks += sticky
            else:
                for c in sticky:
                    c.detail = (c.detail + "; " if c.detail else "") + (
                        "gymnax has no sticky actions (no previous action in its state; its step "
                        "takes `self.action_set[action]`): not configurable"
                    )
                aside += sticky
        # whole episodes: at the reference's settings (sticky actions off, which gymnax lacks),
        # or MinAtar's defaults (sticky 0.1) against gymnax's
        checks += _minatar_statistics(game, env, params, STICKY if defaults else 0.0, n_episodes, seed, cap)
        result.checks, result.set_aside = checks, aside
    result.seconds = timer.seconds
    return result


# --- bsuite's envs, our fields <-> gymnax's -----------------------------------------------------


def _bsuite_reference(env_id: str, kwargs: dict[str, Any]) -> Any:
    """Our spec's reference of a bsuite id (bsuite's env, its state read into our field names)."""
    from jaxenvs.envs.bsuite import _parity as b

    make = {
        "Catch-bsuite": b._ref_catch,
        "DeepSea-bsuite": b._ref_deep_sea,
        "DiscountingChain-bsuite": b._ref_discounting_chain,
        "MemoryChain-bsuite": b._ref_memory_chain,
        "UmbrellaChain-bsuite": b._ref_umbrella_chain,
        "SimpleBandit-bsuite": b._ref_bandit,
    }[env_id]
    return make(kwargs)


def _bsuite_constant(env_id: str, kwargs: dict[str, Any]) -> dict[str, np.ndarray]:
    """What bsuite fixes when the env is built and gymnax keeps in the state: DeepSea's action
    mapping and the bandit's arm rewards (injected with every state)."""
    from jaxenvs.envs.bsuite._parity import _bsuite_env

    if env_id == "DeepSea-bsuite":
        return {"action_mapping": _bsuite_env("deep_sea", "DeepSea")(**kwargs)._action_mapping.astype(np.int32)}
    if env_id == "SimpleBandit-bsuite":
        return {"rewards": _bsuite_env("bandit", "SimpleBandit")(**kwargs)._rewards}
    return {}


def _bsuite_to(env_id: str, constants: dict[str, np.ndarray]) -> Any:
    """`to_fields` of a bsuite env: our state dict (+ bsuite's constants) -> gymnax's fields."""

    def to_fields(d: dict[str, np.ndarray], template: Any) -> dict[str, Any]:
        batch = _batch(d)
        out = {k: v for k, v in d.items() if hasattr(template, k)}
        out.update({k: _const(v, batch) for k, v in constants.items()})
        for k in template.__dataclass_fields__:  # gymnax's running totals and constants: a reset's
            if k not in out:
                out[k] = _const(np.asarray(getattr(template, k)), batch)
        if env_id == "Catch-bsuite":
            out["prev_done"] = _const(False, batch)
        return out

    return to_fields


def _bsuite_from(env_id: str, ours: tuple[str, ...]) -> Any:
    def from_fields(f: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {k: f[k] for k in ours if k in f}

    return from_fields


def _bsuite_settings(env_id: str, env: Any, params: Any, kwargs: dict[str, Any]) -> list:
    """gymnax's settings (constructor and params) against the reference's (our id's kwargs)."""
    g, p = env.gymnax_env, params.env_params
    if env_id == "Catch-bsuite":
        return [_setting("rows", g.rows, 10), _setting("columns", g.columns, 5)]
    if env_id == "DeepSea-bsuite":
        return [_setting("size", g.size, kwargs["size"])]
    if env_id == "MemoryChain-bsuite":
        return [
            _setting("memory_length", p.memory_length, kwargs["memory_length"]),
            _setting("num_bits", g.num_bits, 1),
        ]
    if env_id == "UmbrellaChain-bsuite":
        return [
            _setting("chain_length", p.chain_length, kwargs["chain_length"]),
            _setting("n_distractor", g.n_distractor, kwargs["n_distractor"]),
        ]
    if env_id == "DiscountingChain-bsuite":
        return [_setting("mapping_seed", g.mapping_seed, kwargs["mapping_seed"])]
    return [_setting("arms", g.num_actions, 11)]


def _bsuite_case(env_id: str, kwargs: dict[str, Any]) -> tuple[dict[str, Any], int] | None:
    """A state and action whose step is random in the reference, for a distribution check."""
    if env_id == "UmbrellaChain-bsuite":  # a step mid-chain: the coin-flip reward
        return {"need_umbrella": 1, "has_umbrella": 0, "time": 3}, 0
    return None


def _audit_bsuite(env_id: str, defaults: bool, scale: float, seed: int) -> Any:
    """One stage of a bsuite row: gymnax at the reference's settings (our id's `env_kwargs`), or
    at gymnax's defaults (its transitions then against bsuite built at those settings)."""
    import jaxenvs
    from jaxenvs.parity import (
        Check,
        FieldPolicy,
        ParityResult,
        check_episode_statistics,
        check_resets,
        check_step_distribution,
        check_transitions,
    )
    from jaxenvs.parity.stats import rows
    from jaxenvs.parity.verdict import Timer

    registered = dict(jaxenvs.spec(env_id).env_kwargs)
    make, env_params = BSUITE_ENVS[env_id]
    env, params = _gymnax(env_id, {} if defaults else make, {} if defaults else env_params)
    # bsuite built at the settings gymnax runs at (equal to the registered ones, except defaults)
    g, p = env.gymnax_env, params.env_params
    kwargs = dict(registered)
    if env_id == "DeepSea-bsuite":
        kwargs["size"] = g.size
    elif env_id == "UmbrellaChain-bsuite":
        kwargs.update(chain_length=int(p.chain_length), n_distractor=g.n_distractor)
    elif env_id == "MemoryChain-bsuite":
        kwargs.update(memory_length=int(p.memory_length), num_bits=g.num_bits)
    ref = _bsuite_reference(env_id, kwargs)
    ref.reset(seed)
    ours = tuple(ref.state())
    ref = translated(ref, env, params, _bsuite_to(env_id, _bsuite_constant(env_id, kwargs)), _bsuite_from(env_id, ours))
    n_steps, n_samples = max(200, int(2000 * scale)), max(400, int(2000 * scale))
    n_episodes = max(20, int(200 * scale))
    row = env_id + (DEFAULTS if defaults else "")
    result = ParityResult(f"gymnax/{row}", f"bsuite {env_id.removesuffix('-bsuite')} (bsuite 0.3.6)")
    checks, aside = [], []
    with Timer() as timer:
        settings = _bsuite_settings(env_id, env, params, registered)
        if env_id == "DeepSea-bsuite":
            mapping = _bsuite_constant(env_id, kwargs)["action_mapping"]
            mine = np.asarray(g.action_mapping)
            check = Check(
                "setting: action mapping",
                mine.size,
                float(np.sum(mine != mapping)),
                0.0,
                bool(np.array_equal(mine, mapping)),
                kind="mismatches",
                detail=(
                    f"cells of gymnax's fixed mapping (`jax.random.bernoulli(key(0), 0.5, (size, size))`) "
                    f"unlike bsuite's (mapping_seed {kwargs['mapping_seed']}); the transitions inject bsuite's"
                ),
            )
            settings.append(check)
        if defaults:
            checks += settings
        else:  # gymnax configured as the reference: what still differs cannot be configured
            checks += [c for c in settings if c.passed]
            aside += [c for c in settings if not c.passed]
        checks += check_transitions(env, params, ref, n_steps, 0.0, seed, fields=FieldPolicy(reward_atol=1e-6))
        case = _bsuite_case(env_id, kwargs)
        if case is not None:
            checks += check_step_distribution(
                env, params, ref, [case], n_samples, lambda t: list(t.rewards), seed, label="random reward mid-chain"
            )
        fields = [k for k in ours if k != "time"]
        if env_id == "SimpleBandit-bsuite":  # the arm rewards are drawn where gymnax resets: the best arm
            state_fields = ("rewards",)

            def best_arm(states: Any, obs: Any) -> list:
                return list(np.argmax(np.asarray(states["rewards"]), axis=-1))

            raw = dataclasses.replace(
                ref, from_jax=lambda s: {k: np.asarray(getattr(s.env_state, k)) for k in state_fields}
            )
            raw = dataclasses.replace(
                raw, read_state=lambda e: {"rewards": np.asarray(e._rewards), "time": int(e._reset_next_step)}
            )
            checks += check_resets(
                env, params, raw, n_samples, seed, outcome=best_arm, discrete=True, label="reset best arm"
            )
        elif fields:
            checks += check_resets(
                env,
                params,
                ref,
                n_samples,
                seed,
                outcome=lambda s, o: rows(*(np.asarray(s[k]).reshape(len(s[k]), -1)[:, 0] for k in fields)),
                discrete=True,
                label=f"reset {', '.join(fields)}",
            )
        # episodes: against bsuite at the registered settings (gymnax's defaults' effect, in a row at them)
        stats_ref = _bsuite_reference(env_id, registered)
        checks += check_episode_statistics(env, params, stats_ref, n_episodes, seed, max_steps=1000)
        result.checks, result.set_aside = checks, aside
    result.seconds = timer.seconds
    return result


# --- FrozenLake (gymnax's FrozenLake-misc) against gymnasium --------------------------------------


def _audit_frozen_lake(env_id: str, scale: float, seed: int) -> Any:
    """One stage of FrozenLake: gymnax's `FrozenLake-misc` (its `position` is gymnasium's `s`)
    without slipping, every (cell, action) and random-policy steps exactly, and the time limit;
    slipping, every (cell, action) of the ice by distribution; random-policy episodes."""
    from jaxenvs.envs.toy_text import _parity as tt
    from jaxenvs.envs.toy_text.frozen_lake.env import FrozenLakeState
    from jaxenvs.parity import Collection, ParityResult, check_episode_statistics, check_transitions
    from jaxenvs.parity.harness import check_time_limit
    from jaxenvs.parity.verdict import Timer

    def to_fields(d: dict[str, np.ndarray], template: Any) -> dict[str, Any]:
        return {"position": d["s"], "time": d["time"] if "time" in d else np.zeros_like(d["s"])}

    def from_fields(f: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {"s": f["position"], "time": f["time"]}

    limit = _registered_limit(env_id)
    map_name = FROZEN_LAKE[env_id]
    dry_env, dry_params = _gymnax("FrozenLake-misc", {"map_name": map_name, "is_slippery": False}, {})
    env, params = _gymnax("FrozenLake-misc", {"map_name": map_name}, {})
    n_steps, n_per, n_episodes = max(200, int(2000 * scale)), max(60, int(150 * scale)), max(20, int(200 * scale))
    result = ParityResult(f"gymnax/{env_id}", f"gymnasium {env_id} (toy_text)")
    with Timer() as timer:
        checks = [_setting("time limit", int(params.env_params.max_steps_in_episode), limit)]
        dry = translated(
            tt.cell_reference(env_id, FrozenLakeState, True, is_slippery=False),
            dry_env,
            dry_params,
            to_fields,
            from_fields,
        )
        dry.reset(seed)
        desc = [[c.decode() for c in line] for line in dry.env.unwrapped.desc]
        cells = len(desc) * len(desc[0])
        live = [c for c in range(cells) if desc[c // len(desc[0])][c % len(desc[0])] in "SF"]
        ends = [c for c in range(cells) if c not in live]
        for label, group in (("non-slippery every (live cell, action)", live), ("from a hole or the goal", ends)):
            cases = [({"s": np.int32(c)}, a) for c in group for a in range(4)]
            collect = Collection(data=dry.step_cases(cases))
            checks += check_transitions(dry_env, dry_params, dry, label=label, collect=collect)
        # a step from a hole or the goal happens in neither library's episodes (gymnax resets
        # after the termination; gymnasium's table keeps those cells absorbing): set aside
        aside = [c for c in checks if c.name.startswith("from a hole")]
        for c in aside:
            c.detail = (c.detail + "; " if c.detail else "") + (
                "unreachable: gymnax resets after a termination, gymnasium's table keeps the cell absorbing"
            )
        checks = [c for c in checks if not c.name.startswith("from a hole")]
        checks += check_transitions(dry_env, dry_params, dry, n_steps, 0.0, seed, label="non-slippery step")
        checks += check_time_limit(dry_env, dry_params, dry, limit, 60, seed)
        ref = translated(tt.cell_reference(env_id, FrozenLakeState, True), env, params, to_fields, from_fields)
        checks += tt.cell_distribution("slippery step", env, params, ref, live, n_per, seed + 1)
        checks += check_episode_statistics(env, params, ref, n_episodes, seed, max_steps=limit)
        result.checks, result.set_aside = checks, aside
    result.seconds = timer.seconds
    return result
