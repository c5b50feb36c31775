"""Real Atari: ale-py's emulators stepped inside `jit`, `ale/<Game>-v5` (make_vec only).

Each `jaxenvs.make_vec("ale/Pong-v5", n)` owns a batch of `n` emulators on the host
(ale-py's `ALEVectorInterface`, what `ale_py.AtariVectorEnv` drives), called from XLA through
ale-py's FFI targets. The env is batch-native: it declares `reset_rows`, so the builder adds
no batch layer and the one auto-reset step resets the finished rows inside the jitted step,
one FFI reset call per finished row. `reset(key)` seeds row `i` from `fold_in(key, i)`; a
finished row restarts on its emulator's own random stream (or, with `reseed_finished`, reseeded
from `fold_in(key_reset, row)`), so a run is reproducible from its keys.

Where it differs from a pure env: the state is a handle to emulators that live on the host,
so a state is used once (stepping an older state again raises), `jax.vmap` over it and
`reset_to_level` are refused, and `make(id)` refuses it (a batch of one is
`make_vec(id, 1)`). docs/ale.md states the contract.

The FFI targets' signature is not ale-py's public API: this module calls them as ale-py
0.12.1's `AtariVectorEnv.xla` does (`ale_py/vector_env.py`), and refuses other minor versions.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from jax.custom_batching import custom_vmap
from jax.experimental import io_callback

from jaxenvs import spaces
from jaxenvs.adapters._common import NO_LIMIT, import_library, no_such_env, rebuild
from jaxenvs.environment import Env, EnvParams, check_key, defaults_params
from jaxenvs.params import flag, integer, probability
from jaxenvs.wrappers.autoreset import finished_index

# the ale-py versions whose FFI targets this module's calls match (`TESTED_ALE_PY` is what the
# tests ran; a version outside `ALE_PY_RANGE` is refused before any call)
TESTED_ALE_PY = ("0.12.1",)
ALE_PY_RANGE = ((0, 12, 1), (0, 13, 0))
# names of our registrations of ale-py's targets (ale-py's own `xla()` registers the same
# capsules under its names; ours never collide with them)
RESET_TARGET = "jaxenvs_ale_vector_reset"
STEP_TARGET = "jaxenvs_ale_vector_step"
SEED_LIMIT = 2**31 - 1  # an emulator seed is an int32 >= 0 (-1 means "keep the current one")

# The "PPO on Atari" preprocessing (Mnih et al. 2015, Machado et al. 2018; CleanRL's and
# envpool's `ppo_atari`): 84x84 grayscale, 4 frames stacked, the last two frames max-pooled, up
# to 30 no-ops and FIRE at reset, rewards clipped to [-1, 1]. Sticky actions stay v5's 0.25.
# Not `episodic_life`: ale-py's starts a new game after a lost life, where DeepMind's
# EpisodicLifeEnv (and envpool's) plays on with the lives left (docs/ale.md).
# `make_vec("ale/Breakout-v5", n, **TRAINING_SETTINGS)`.
TRAINING_SETTINGS = dict(
    img_height=84,
    img_width=84,
    grayscale=True,
    stack_num=4,
    maxpool=True,
    noop_max=30,
    use_fire_reset=True,
    reward_clipping=True,
)


@struct.dataclass
class AleParams(EnvParams):
    """Params of an ALE batch: gymnasium's `ALE/<Game>-v5` settings by default.

    The names are ale-py's (`AtariVectorEnv`'s arguments). Every field but
    `max_steps_in_episode` is static: it fixes the emulators, which a batch builds for the
    params it is first reset with. The defaults are `gymnasium.make("ALE/<Game>-v5")`'s: frame
    skip 4, sticky actions 0.25, the minimal action set, 108,000 frames, the RGB screen, no
    no-ops, rewards as the game scores them. `TRAINING_SETTINGS` is the usual training set.

    Attributes:
        max_steps_in_episode: jaxenvs' own step limit (a truncation); none by default
            (ALE's frame limit applies).
        frameskip: Emulator frames per step, the action repeated.
        repeat_action_probability: Sticky actions: the chance, each frame, that the emulator
            repeats the previous action instead.
        full_action_space: All 18 actions instead of the game's minimal set.
        max_num_frames_per_episode: ALE's frame limit: reaching it truncates the episode.
        img_height: Observation height (the 210-row screen resized).
        img_width: Observation width (the 160-column screen resized).
        grayscale: Grayscale frames (else RGB, a trailing axis of 3).
        stack_num: Frames stacked in an observation (a leading axis).
        maxpool: Each frame the max of the last two frames of a step.
        noop_max: Up to `noop_max - 1` no-op frames at a reset, drawn by the emulator's seed.
        episodic_life: A lost life ends the episode (`terminated`), and the next one starts a
            new game (ale-py's meaning: not DeepMind's EpisodicLifeEnv, which plays on).
        reward_clipping: Rewards clipped to [-1, 1].
        use_fire_reset: Press FIRE at a reset, in games that have it.
        reseed_finished: Reseed each finished row's emulator from `fold_in(key_reset, row)`
            at its auto-reset. Off by default: `reset(key)` seeds every emulator from the key,
            and a finished row restarts on its emulator's own random stream, as ale-py's and
            envpool's auto-resets do (a run is reproducible from its keys either way); a reseed
            reloads the ROM, which costs about 25 plain resets.
        check_state: Check, on the host, that each step's state is the batch's current one (a
            host callback before the emulators move). Off, a step saves that callback (it counts
            at small batches) and an older state steps the emulators from where they are,
            unnoticed. Choose one value for a batch.
    """

    max_steps_in_episode: int = integer(NO_LIMIT, low=1)
    frameskip: int = integer(4, low=1, high=64, static=True)
    repeat_action_probability: float = probability(0.25, static=True)
    full_action_space: bool = flag(False, static=True)
    max_num_frames_per_episode: int = integer(108_000, low=1, high=SEED_LIMIT, static=True)
    img_height: int = integer(210, low=1, high=1024, static=True)
    img_width: int = integer(160, low=1, high=1024, static=True)
    grayscale: bool = flag(False, static=True)
    stack_num: int = integer(1, low=1, high=64, static=True)
    maxpool: bool = flag(False, static=True)
    noop_max: int = integer(0, low=0, high=100_000, static=True)
    episodic_life: bool = flag(False, static=True)
    reward_clipping: bool = flag(False, static=True)
    use_fire_reset: bool = flag(False, static=True)
    reseed_finished: bool = flag(False, static=True)
    check_state: bool = flag(True, static=True)


# the params fields that are jaxenvs' own, not the emulators' settings
JAXENVS_FIELDS = ("max_steps_in_episode", "reseed_finished", "check_state")


def emulator_settings(params: AleParams) -> tuple[tuple[str, Any], ...]:
    """The emulators' settings in `params`: what fixes a batch's emulators.

    Args:
        params: An `AleParams`.

    Returns:
        `((name, value), ...)`, every field but `JAXENVS_FIELDS`, named as ale-py names them.
    """
    return tuple((f.name, getattr(params, f.name)) for f in dataclasses.fields(params) if f.name not in JAXENVS_FIELDS)


@struct.dataclass
class AleState:
    """State of a batch of `num_envs` emulators: a handle to them, and what they last reported.

    Attributes:
        handle: uint8[8], the address of ale-py's vectorizer on the host (what its FFI calls take).
        count: int32 scalar, the batch's resets and steps, counted from a random start of the
            batch's own; the host keeps its own count, so a state stepped a second time (an older
            one) or another batch's state is caught.
        time: int32[num_envs], steps in each row's episode.
        lives: int32[num_envs], each row's lives, as ALE reports them.
        episode_frame_number: int32[num_envs], emulator frames in each row's episode.
    """

    handle: jax.Array
    count: jax.Array
    time: jax.Array
    lives: jax.Array
    episode_frame_number: jax.Array


def reset_seeds(key: jax.Array, num_envs: int) -> jax.Array:
    """The emulator seed of each row a reset from `key` starts: row `i` draws from `fold_in(key, i)`.

    Args:
        key: The reset's key (`reset`'s, or the `key_reset` of an auto-resetting step).
        num_envs: The batch size.

    Returns:
        int32[num_envs], each in [0, 2**31 - 1): what `ale_py.AtariVectorEnv.reset(seed=...)`
        takes, so a run driven from Python with these seeds is the same run.
    """

    def one(i):
        return jax.random.randint(jax.random.fold_in(key, i), (), 0, SEED_LIMIT, jnp.int32)

    return jax.vmap(one)(jnp.arange(num_envs, dtype=jnp.int32))


def _check_version(ale_py: Any) -> None:
    """Refuse an ale-py whose FFI targets this module was not written against."""
    text = getattr(ale_py, "__version__", "0")
    parts = tuple(int("".join(c for c in p if c.isdigit()) or 0) for p in text.split(".")[:3])
    low, high = ALE_PY_RANGE
    if not low <= parts < high:
        raise ImportError(
            f"jaxenvs' ale adapter calls ale-py's XLA targets, whose signature is not public API: it is "
            f"tested with ale-py {', '.join(TESTED_ALE_PY)}, and ale-py {text} is installed: "
            f'pip install "ale-py>={".".join(map(str, low))},<{".".join(map(str, high))}"',
            name="ale_py",
        )


@functools.cache
def _register_targets() -> None:
    """Register ale-py's FFI targets with XLA (CPU, and CUDA where the wheel has them), once."""
    ale_py = import_library("ale_py", "ale")
    _check_version(ale_py)
    lib = ale_py._ale_py
    jax.ffi.register_ffi_target(RESET_TARGET, lib.VectorXLAReset(), platform="cpu")
    jax.ffi.register_ffi_target(STEP_TARGET, lib.VectorXLAStep(), platform="cpu")
    if hasattr(lib, "VectorXLAResetGPU"):
        jax.ffi.register_ffi_target(RESET_TARGET, lib.VectorXLAResetGPU(), platform="CUDA")
        jax.ffi.register_ffi_target(STEP_TARGET, lib.VectorXLAStepGPU(), platform="CUDA")


class Emulators:
    """One batch of ALE emulators on the host (ale-py's `ALEVectorInterface`) and its count.

    The count goes up by one at each reset and step of the batch, from a random start; each
    state carries the count it was made at, and a step checks the two agree (a host callback
    of one int32 each way, before the emulators move), so an older state cannot be stepped
    again.

    Args:
        name: The env's id, for errors.
        game: The ROM's name (`"pong"`).
        num_envs: The batch size.
        settings: `emulator_settings(params)`.
    """

    def __init__(self, name: str, game: str, num_envs: int, settings: tuple[tuple[str, Any], ...]):
        ale_py = import_library("ale_py", "ale")
        _check_version(ale_py)
        _register_targets()
        s = dict(settings)
        self.name = name
        self.num_envs = num_envs
        # the arguments `ale_py.AtariVectorEnv` passes, in sync mode (batch_size 0: the whole
        # batch) and NEXT_STEP auto-reset, which never fires: every finished row is reset by us
        self.interface = ale_py.ALEVectorInterface(
            rom_path=ale_py.roms.get_rom_path(game),
            num_envs=num_envs,
            frame_skip=s["frameskip"],
            stack_num=s["stack_num"],
            img_height=s["img_height"],
            img_width=s["img_width"],
            grayscale=s["grayscale"],
            maxpool=s["maxpool"],
            noop_max=s["noop_max"],
            use_fire_reset=s["use_fire_reset"],
            episodic_life=s["episodic_life"],
            life_loss_info=False,
            reward_clipping=s["reward_clipping"],
            max_episode_steps=s["max_num_frames_per_episode"],
            repeat_action_probability=s["repeat_action_probability"],
            full_action_space=s["full_action_space"],
            batch_size=0,
            num_threads=0,
            thread_affinity_offset=-1,
            autoreset_mode="NextStep",
        )
        self.handle = np.frombuffer(self.interface.handle(), dtype=np.uint8).copy()
        self.num_actions = len(self.interface.get_action_set())
        frame = (s["img_height"], s["img_width"]) + (() if s["grayscale"] else (3,))
        self.obs_shape = (s["stack_num"], *frame)
        # each batch counts from its own random start, so that under `jit` (where only the count
        # is checked) a state of another batch does not pass for this one's
        self.count = int(np.random.default_rng().integers(0, SEED_LIMIT))

    def restart(self) -> np.ndarray:
        """Host side of a reset: every older state becomes stale.

        Returns:
            The new count (int32).
        """
        self.count = (self.count + 1) % SEED_LIMIT
        return np.int32(self.count)

    def why_not(self, handle: Any, count: Any) -> str | None:
        """Why a state cannot be stepped.

        Args:
            handle: The state's handle (None: not checked, as under `jit`).
            count: The state's count.

        Returns:
            The message of the error, or None where the state is the batch's current one.
        """
        if handle is not None and not np.array_equal(np.asarray(handle), self.handle):
            return (
                f"{self.name}: this state belongs to another batch of emulators (another make_vec, or other "
                "emulator settings); step each batch with its own states"
            )
        if int(count) != self.count:
            return (
                f"{self.name}: this state is stale (or another batch's): the emulators have moved on since it "
                f"was made (state count {int(count)}, emulators at {self.count}). Its state is a handle to "
                "emulators on the host, used once: step the state the last reset or step returned"
            )
        return None

    def advance(self, count: Any) -> np.ndarray:
        """Host side of a step: check the state is the current one, then count the step.

        Args:
            count: The state's count.

        Returns:
            The new count (int32).

        Raises:
            ValueError: The state is stale (or another batch's).
        """
        why = self.why_not(None, count)
        if why is not None:
            raise ValueError(why)
        self.count = (self.count + 1) % SEED_LIMIT
        return np.int32(self.count)

    def ffi_reset(self, handle: jax.Array, rows: jax.Array, seeds: jax.Array) -> tuple:
        """ale-py's reset target.

        Args:
            handle: uint8[8], the vectorizer's address.
            rows: int32[k], the rows to reset (distinct).
            seeds: int32[k], their seeds (-1: keep the emulator's own).

        Returns:
            `(handle, obs, env_ids, lives, frame_number, episode_frame_number)`, every row's: a
            row not reset reports what it last reported.
        """
        n = self.num_envs
        row = jax.ShapeDtypeStruct((n,), jnp.int32)
        call = jax.ffi.ffi_call(
            RESET_TARGET,
            (jax.ShapeDtypeStruct((8,), jnp.uint8), jax.ShapeDtypeStruct((n, *self.obs_shape), jnp.uint8)) + (row,) * 4,
            has_side_effect=True,
        )
        return call(handle, rows.astype(jnp.int32), seeds.astype(jnp.int32))

    def ffi_step(self, handle: jax.Array, actions: jax.Array) -> tuple:
        """ale-py's step target.

        Args:
            handle: uint8[8], the vectorizer's address.
            actions: int[num_envs], indices into the action set.

        Returns:
            `(handle, obs, reward, terminated, truncated, env_ids, lives, frame_number,
            episode_frame_number)`, every row's.
        """
        n = self.num_envs
        row, flags = jax.ShapeDtypeStruct((n,), jnp.int32), jax.ShapeDtypeStruct((n,), jnp.bool_)
        call = jax.ffi.ffi_call(
            STEP_TARGET,
            (jax.ShapeDtypeStruct((8,), jnp.uint8), jax.ShapeDtypeStruct((n, *self.obs_shape), jnp.uint8))
            + (row, flags, flags)
            + (row,) * 4,
            has_side_effect=True,
        )
        return call(handle, actions.astype(jnp.int32), jnp.ones((n,), jnp.float32))


def _refuse_vmap(name: str, method: str):
    """An identity that raises under `jax.vmap`: a batch of emulators is not batched again."""

    @custom_vmap
    def same(tree):
        return tree

    @same.def_vmap
    def _rule(axis_size, in_batched, tree):
        raise ValueError(
            f"jax.vmap over {name}'s {method}: its state is a handle to {name}'s emulators on the host, one batch "
            f"that a vmap cannot copy. Use make_vec's batch instead: jaxenvs.make_vec({name!r}, num_envs) steps "
            "num_envs emulators in one call (a larger num_envs, or one make_vec per seed, for more)"
        )

    return same


class AleVectorEnv(Env):
    """A batch of ALE emulators through the jaxenvs interface (`ale/<Game>-v5`; `make_vec` only).

    Observation: `uint8[stack_num, img_height, img_width(, 3)]` per env, ale-py's
    `AtariVectorEnv` layout (by default one RGB 210x160 screen). Action: `Discrete` over the
    game's minimal action set (18 with `full_action_space`); inside `jit` an out-of-range
    action is clipped into the set. Reward: the game's score change over the step's frames,
    float32 (clipped with `reward_clipping`).

    `reset` and `step` take and return the whole batch (`num_envs` rows); `reset` seeds row `i`
    from `fold_in(key, i)`; `reset_rows` resets the finished rows (one FFI call per row), which
    the auto-reset layer calls in the step that ends an episode. `info` holds ALE's `lives`,
    `frame_number` and `episode_frame_number` of the step (before any reset) and `discount`.

    Args:
        game: The ROM's name, as ale-py names it (`"pong"`, `"montezuma_revenge"`).
        num_envs: The batch size.
        env_id: The id's name after `ale/` (`"Pong-v5"`), for messages.

    Raises:
        ValueError: ale-py has no ROM `game`; `num_envs` is not a positive int.
        ImportError: ale-py is not installed, or not a version this adapter was tested with.
    """

    family = "ale"

    def __init__(self, game: str, num_envs: int, env_id: str | None = None):
        ale_py = import_library("ale_py", "ale")
        _check_version(ale_py)
        roms = sorted(ale_py.roms.get_all_rom_ids())
        if game not in roms:
            raise no_such_env("ale-py", game, roms)
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"ale/{env_id or game}: num_envs must be a positive int, got {num_envs!r}")
        self.game = game
        self.num_envs = int(num_envs)
        self.env_id = env_id or game
        self._emulators: dict[tuple, Emulators] = {}

    def __reduce__(self) -> tuple:
        # emulators do not pickle: a copy builds its own (a state of the original is stale there)
        return rebuild, (type(self), (self.game, self.num_envs), {"env_id": self.env_id})

    @property
    def name(self) -> str:
        """The jaxenvs id (`ale/Pong-v5`)."""
        return f"ale/{self.env_id}"

    @property
    def default_params(self) -> AleParams:
        """gymnasium's v5 settings (`AleParams()`)."""
        return AleParams()

    def emulators(self, params: AleParams) -> Emulators:
        """The batch's emulators for `params`' settings, built on first use (also while tracing).

        Args:
            params: The env's params.

        Returns:
            The `Emulators`.

        Raises:
            TypeError: `params` are not `AleParams`.
        """
        if not isinstance(params, AleParams):
            raise TypeError(f"{self.name}: params must be an AleParams, got a {type(params).__name__}")
        settings = emulator_settings(params)
        if settings not in self._emulators:
            self._emulators[settings] = Emulators(self.name, self.game, self.num_envs, settings)
        return self._emulators[settings]

    # --- spaces -----------------------------------------------------------------------
    @defaults_params
    def observation_space(self, params: AleParams | None = None) -> spaces.Box:
        """One env's observation space: `uint8[stack_num, img_height, img_width(, 3)]` in [0, 255]."""
        frame = (params.img_height, params.img_width) + (() if params.grayscale else (3,))
        return spaces.Box(0, 255, shape=(params.stack_num, *frame), dtype=jnp.uint8)

    @defaults_params
    def action_space(self, params: AleParams | None = None) -> spaces.Discrete:
        """One env's action space: the game's minimal action set (all 18 with `full_action_space`)."""
        return spaces.Discrete(self.emulators(params).num_actions)

    @defaults_params
    def sample_actions(self, key: jax.Array, params: AleParams | None = None) -> jax.Array:
        """One uniform action per env, drawn with one key.

        Args:
            key: A JAX PRNG key.
            params: The env's params (default: `default_params`).

        Returns:
            int32[num_envs].
        """
        return jax.random.randint(key, (self.num_envs,), 0, self.action_space(params).n, jnp.int32)

    # --- transitions ------------------------------------------------------------------
    @defaults_params
    def reset(self, key: jax.Array, params: AleParams | None = None) -> tuple[jax.Array, AleState]:
        """Reset every emulator, row `i` seeded from `fold_in(key, i)` (`reset_seeds`).

        Args:
            key: One JAX PRNG key.
            params: The env's params (default: `default_params`).

        Returns:
            `(obs, state)`: `uint8[num_envs, ...]` and the batch's `AleState`; every state made
            before is stale from then on.

        Raises:
            TypeError: `key` is not one PRNG key; `params` are not `AleParams`.
            ValueError: under `jax.vmap` (use make_vec's batch).
        """
        check_key(key, self.name)
        emulators = self.emulators(params)
        key = _refuse_vmap(self.name, "reset")(key)
        seeds = reset_seeds(key, self.num_envs)
        if params.check_state:
            count = io_callback(emulators.restart, jax.ShapeDtypeStruct((), jnp.int32))
            # the handle is read after the count moved: a reset makes every older state stale first
            handle, count = jax.lax.optimization_barrier((jnp.asarray(emulators.handle), count))
        else:
            handle, count = jnp.asarray(emulators.handle), jnp.int32(0)
        rows = jnp.arange(self.num_envs, dtype=jnp.int32)
        handle, obs, _, lives, _, episode_frame = emulators.ffi_reset(handle, rows, seeds)
        state = AleState(
            handle=handle,
            count=count,
            time=jnp.zeros((self.num_envs,), jnp.int32),
            lives=lives,
            episode_frame_number=episode_frame,
        )
        return obs, state

    @defaults_params
    def step(
        self, key: jax.Array, state: AleState, action: Any, params: AleParams | None = None
    ) -> tuple[jax.Array, AleState, jax.Array, jax.Array, jax.Array, dict[str, Any]]:
        """Step every emulator once (a row that finished is not reset here: `reset_rows` does it).

        Args:
            key: One JAX PRNG key (unused: the emulators draw from their own seeds).
            state: The batch's current `AleState` (the one the last reset or step returned).
            action: int[num_envs], one action per env.
            params: The env's params (default: `default_params`).

        Returns:
            `(obs, state, reward, terminated, truncated, info)`, batched; `terminated` and
            `truncated` as ALE reports them (its frame limit is a truncation), `truncated` also
            at `params.max_steps_in_episode`; `info` holds `discount`, `lives`, `frame_number`
            and `episode_frame_number`.

        Raises:
            TypeError: `key` is not one PRNG key; `params` are not `AleParams`; `state` is not an
                `AleState`.
            ValueError: (eagerly) the action is not `num_envs` ints in the action set; with
                `params.check_state`, the state is stale or another batch's (under `jit`, the same
                message comes as XLA's runtime error); under `jax.vmap`.
        """
        check_key(key, self.name)
        emulators = self.emulators(params)
        if not isinstance(state, AleState):
            raise TypeError(
                f"{self.name}: state must be an AleState, got a {type(state).__name__}: another env's state?"
            )
        self._check_action(action, emulators)
        concrete = not any(isinstance(x, jax.core.Tracer) for x in (state.handle, state.count))
        if params.check_state and concrete:
            why = emulators.why_not(state.handle, state.count)
            if why is not None:
                raise ValueError(why)
        key, state, action = _refuse_vmap(self.name, "step")((key, state, jnp.asarray(action)))
        if params.check_state:
            # the check runs on the host before the emulators move (the barrier: the step reads
            # the handle only once the count is back); one int32 each way keeps the callback cheap
            count = io_callback(emulators.advance, jax.ShapeDtypeStruct((), jnp.int32), state.count)
            handle, count = jax.lax.optimization_barrier((state.handle, count))
        else:
            handle, count = state.handle, state.count
        action = jnp.clip(action.astype(jnp.int32), 0, emulators.num_actions - 1)
        handle, obs, reward, terminated, truncated, _, lives, frame, episode_frame = emulators.ffi_step(handle, action)
        time = state.time + 1
        truncated = jnp.logical_or(truncated, time >= params.max_steps_in_episode)
        new_state = AleState(handle=handle, count=count, time=time, lives=lives, episode_frame_number=episode_frame)
        info = {
            "discount": 1.0 - terminated.astype(jnp.float32),
            "lives": lives,
            "frame_number": frame,
            "episode_frame_number": episode_frame,
        }
        return obs, new_state, reward.astype(jnp.float32), terminated, truncated, info

    def reset_rows(
        self, done: jax.Array, key: jax.Array, obs: jax.Array, state: AleState, params: AleParams | None = None
    ) -> tuple[jax.Array, AleState]:
        """Reset the rows where `done`, keep the others.

        One FFI reset call per finished row, in a `while_loop` over them (ale-py's reset takes
        a list of rows whose length is static: a traced mask cannot be one call). A row goes on
        with its emulator's own random stream, or, with `params.reseed_finished`, is reseeded
        from `fold_in(key, row)` (`reset_seeds`).

        Args:
            done: bool[num_envs].
            key: The reset's key (the auto-reset step's `key_reset`).
            obs: The step's observations.
            state: The step's state.
            params: The env's params (default: `default_params`).

        Returns:
            `(obs, state)`: the finished rows at their new episode's start.
        """
        params = self.default_params if params is None else params
        emulators = self.emulators(params)
        if params.reseed_finished:
            seeds = reset_seeds(key, self.num_envs)
        else:  # -1: ale-py keeps the emulator's seed
            seeds = jnp.full((self.num_envs,), -1, jnp.int32)
        index, finished = finished_index(done, 0)

        def one(carry):
            i, handle, obs, lives, episode_frame = carry
            row = index[i]
            handle, obs, _, lives, _, episode_frame = emulators.ffi_reset(handle, row[None], seeds[row][None])
            return i + 1, handle, obs, lives, episode_frame

        carry = (jnp.int32(0), state.handle, obs, state.lives, state.episode_frame_number)
        _, handle, obs, lives, episode_frame = jax.lax.while_loop(lambda c: c[0] < finished, one, carry)
        new_state = state.replace(
            handle=handle, time=jnp.where(done, 0, state.time), lives=lives, episode_frame_number=episode_frame
        )
        return obs, new_state

    def reset_to_level(self, key: jax.Array, level: Any, params: AleParams | None = None) -> Any:
        """Refused: an emulator starts only from its game's reset.

        Raises:
            TypeError: Always, saying what to use instead.
        """
        raise TypeError(
            f"{self.name}: reset_to_level is refused: the state is a handle to emulators on the host, which "
            "start an episode only from the game's own reset (no given state, no per-episode settings). "
            "Use reset(key, params); emulator settings are make_vec's params (docs/ale.md)"
        )

    @defaults_params
    def render(self, state: AleState, params: AleParams | None = None) -> jax.Array:
        """Refused: the state holds no screen.

        Raises:
            NotImplementedError: Always; the observation is the screen (RGB by default).
        """
        raise NotImplementedError(
            f"{self.name}: the state is a handle to emulators and holds no screen; the observation is the "
            "screen (RGB 210x160 with the default params)"
        )

    def _check_action(self, action: Any, emulators: Emulators) -> None:
        """A `ValueError` for actions that are not `num_envs` ints in the action set (exactly
        when concrete, by shape and dtype when traced)."""
        arr = action if isinstance(action, jax.core.Tracer) else np.asarray(action)
        n, k = self.num_envs, emulators.num_actions
        valid = f"int[{n}], one action per env in [0, {k})"
        if tuple(np.shape(arr)) != (n,) or not jnp.issubdtype(arr.dtype, jnp.integer):
            raise ValueError(f"{self.name}: action must be {valid}, got shape {tuple(np.shape(arr))} of {arr.dtype}")
        if not isinstance(arr, jax.core.Tracer) and (arr.min() < 0 or arr.max() >= k):
            raise ValueError(f"{self.name}: action must be {valid}, got {arr.tolist()}")
