"""What the five MinAtar games share: the base `MinAtarEnvironment` with its params and state,
action sets and sticky actions, random draws from `uint32` words, and MinAtar's colours."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import rendering, spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.params import flag, probability

GRID_SIZE = 10
ACTION_NAMES = ("n", "l", "u", "r", "d", "f")  # MinAtar's `action_map`
NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
FULL_ACTION_SET = tuple(range(6))
CELL_SIZE = 16  # pixels per grid cell in `render`


@struct.dataclass
class MinAtarParams(EnvParams):
    """The params every MinAtar game has, with MinAtar's defaults.

    Attributes:
        sticky_action_prob: The probability (in [0, 1]) that the action executed on the
            previous step is executed again instead of the agent's (MinAtar's
            `sticky_action_prob`, default 0.1).
        difficulty_ramping: MinAtar's `ramping`: the game speeds up as it goes on (Asterix,
            Seaquest and Space Invaders; Breakout and Freeway ignore it, as MinAtar does).
        use_minimal_action_set: Static. False: the six actions `n, l, u, r, d, f`
            (`minatar.Environment` and minatar's gymnasium `MinAtar/<Game>-v0`); True: the
            game's minimal action set (`MinAtar/<Game>-v1`), the agent's action `i` meaning the
            set's `i`-th.
        max_steps_in_episode: The time limit, 10,000 steps. MinAtar has none besides
            Freeway's own; this one truncates an endless episode of a strong agent and is never
            reached by a random policy.
    """

    sticky_action_prob: float = probability(0.1, per_episode=True)
    difficulty_ramping: bool = flag(True)
    use_minimal_action_set: bool = flag(False, static=True)
    max_steps_in_episode: int = 10_000


@struct.dataclass
class MinAtarState(EnvState):
    """The base of every MinAtar game's state.

    Attributes:
        last_action: The MinAtar action (0..5, int32 scalar) executed on the previous step,
            the one a sticky draw repeats; no-op (0) after a reset.
        terminal: The game has ended (bool scalar), MinAtar's own flag; further steps change
            nothing.
    """

    last_action: jax.Array
    terminal: jax.Array


# ---------------------------------------------------------------------------------------------
# actions


def action_set(params: MinAtarParams, minimal_actions: Sequence[int]) -> tuple[int, ...]:
    """The MinAtar actions the agent's actions `0, 1, ...` stand for."""
    return tuple(minimal_actions) if params.use_minimal_action_set else FULL_ACTION_SET


def to_minatar_action(action: Any, params: MinAtarParams, minimal_actions: Sequence[int]) -> jax.Array:
    """The MinAtar action (0..5) of the agent's action; out-of-range actions are clipped."""
    actions = action_set(params, minimal_actions)
    index = jnp.clip(jnp.asarray(action, jnp.int32), 0, len(actions) - 1)
    if actions == FULL_ACTION_SET:
        return index
    return jnp.asarray(actions, jnp.int32)[index]


def apply_sticky(action: jax.Array, last_action: jax.Array, u: jax.Array, sticky_action_prob: Any) -> jax.Array:
    """MinAtar's sticky action: the previous executed action when `u < sticky_action_prob`."""
    return jnp.where(u < sticky_action_prob, last_action, action).astype(jnp.int32)


# ---------------------------------------------------------------------------------------------
# random numbers


def uniform_from_bits(bits: jax.Array) -> jax.Array:
    """Floats uniform on [0, 1) from `uint32` words (24 bits of resolution, like float32)."""
    return (bits >> 8).astype(jnp.float32) * jnp.float32(2.0**-24)


def randint_from_bits(bits: jax.Array, n: Any) -> jax.Array:
    """Integers uniform on `0..n-1` from `uint32` words: `floor(u * n)` with a 24-bit `u`.

    The bias is below `n / 2**24` (MinAtar's `randint(n)` is exact).
    """
    n = jnp.asarray(n, jnp.uint32)
    return (((bits >> 8) * n) >> 24).astype(jnp.int32)


# ---------------------------------------------------------------------------------------------
# grid helpers


def _rows_cols() -> tuple[jax.Array, jax.Array]:
    rows = jnp.arange(GRID_SIZE, dtype=jnp.int32)[:, None]
    cols = jnp.arange(GRID_SIZE, dtype=jnp.int32)[None, :]
    return rows, cols


def cell_mask(y: Any, x: Any) -> jax.Array:
    """One cell of the grid as a mask."""
    rows, cols = _rows_cols()
    return (rows == y) & (cols == x)


def observation_space(num_channels: int) -> spaces.Box:
    """The observation space of a MinAtar game."""
    return spaces.Box(False, True, (GRID_SIZE, GRID_SIZE, num_channels), jnp.bool_)


# ---------------------------------------------------------------------------------------------
# colours


def _cubehelix_lut(n: int = 256) -> np.ndarray:
    """matplotlib's "cubehelix" colormap table (Green 2011; gamma=1, s=0.5, r=-1.5, h=1)."""
    x = np.linspace(0.0, 1.0, n)
    a = x * (1 - x) / 2
    phi = 2 * np.pi * (0.5 / 3 - 1.5 * x)
    cos, sin = np.cos(phi), np.sin(phi)
    red = x + a * (-0.14861 * cos + 1.78277 * sin)
    green = x + a * (-0.29227 * cos - 0.90649 * sin)
    blue = x + a * (1.97294 * cos)
    return np.clip(np.stack([red, green, blue], axis=1), 0.0, 1.0)


@functools.cache
def palette(num_channels: int) -> np.ndarray:
    """MinAtar's display colours: black for an empty cell, then one colour per channel.

    A channel's colour is seaborn's `color_palette("cubehelix", num_channels)`, which samples
    matplotlib's 256-entry table at `num_channels` evenly spaced interior points.
    """
    lut = _cubehelix_lut()
    points = np.linspace(0.0, 1.0, num_channels + 2)[1:-1]
    index = np.minimum((points * len(lut)).astype(int), len(lut) - 1)
    return np.concatenate([np.zeros((1, 3)), lut[index]], axis=0)


@functools.cache
def palette_uint8(num_channels: int) -> np.ndarray:
    """`palette` as 8-bit colours."""
    return np.round(palette(num_channels) * 255).astype(np.uint8)


def channel_index_image(obs: jax.Array) -> jax.Array:
    """Which colour each cell is drawn in (what MinAtar's `display_state` and `rgb_array`
    colour a cell by).
    """
    num_channels = obs.shape[-1]
    weights = jnp.arange(1, num_channels + 1, dtype=jnp.int32)
    return jnp.max(obs.astype(jnp.int32) * weights, axis=-1)


def render_observation(obs: jax.Array, cell_size: int = CELL_SIZE) -> jax.Array:
    """A picture of an observation in MinAtar's colours; jit-able."""
    colours = jnp.asarray(palette_uint8(obs.shape[-1]))
    return rendering.grid_image(channel_index_image(obs), colours, cell_size)


# ---------------------------------------------------------------------------------------------
# the base environment


class MinAtarEnvironment(Environment):
    """Sticky actions, action sets, spaces and render for a MinAtar game.

    MinAtar (Young & Tian 2019, the `minatar` package) plays every game on a 10x10 grid seen
    as boolean channels `(10, 10, C)`, with six actions `n, l, u, r, d, f` (no-op, left, up,
    right, down, fire). Its `Environment` wrapper adds sticky actions: at every step, with
    probability `sticky_action_prob`, the action the agent chose is replaced by the one
    executed on the previous step, and the executed action is remembered (`Environment.act`).
    Its gymnasium registration offers the full six actions (`MinAtar/<Game>-v0`) or each
    game's minimal action set (`-v1`, `Env.minimal_action_set()`), the agent's action `i`
    meaning the set's `i`-th (`MinAtarParams.use_minimal_action_set`).

    A game sets the class attributes below and implements `reset_env`, `draws_from_bits`
    (the step's random draws, in MinAtar's terms: a spawn side, a slot, car speeds),
    `transition` (the game's `act` for a MinAtar action 0..5 with the draws given
    explicitly, so that parity tests can feed it the draws the reference made) and `get_obs`.

    `step_env` maps the agent's action into MinAtar's, applies the sticky draw and calls
    `act`, which runs the transition (frozen once `state.terminal`, as MinAtar's `act`
    returns `0, True` without changing anything after the end), counts `time` and records
    the executed action in `last_action`. All random numbers of a step come from one
    `jax.random.bits` call of `1 + num_draw_words` words (the first for the sticky draw).

    A game's state subclasses `MinAtarState`; its params are `MinAtarParams`.

    Attributes:
        num_channels: The observation's number of channels `C`.
        minimal_actions: The game's minimal action set (MinAtar's `minimal_action_set()`),
            as MinAtar actions 0..5.
        num_draw_words: How many random `uint32` words `draws_from_bits` takes per step.
    """

    num_channels: int = 0
    minimal_actions: tuple[int, ...] = FULL_ACTION_SET
    num_draw_words: int = 0

    @property
    def default_params(self) -> MinAtarParams:
        return MinAtarParams()

    # --- the game supplies these --------------------------------------------------------
    def draws_from_bits(self, bits: jax.Array, state: Any, params: MinAtarParams) -> Any:
        """The step's random draws, in MinAtar's terms; a game that draws overrides it.

        Args:
            bits: `uint32[num_draw_words]` random words.
            state: The state before the step.
            params: The game's params.

        Returns:
            What the game's `transition` takes as `draws` (a pytree; None here: no draws).
        """
        return None

    def transition(self, state: Any, action: jax.Array, draws: Any, params: MinAtarParams):
        """The game's `act` (MinAtar's) for an executed action with the step's draws given.

        Args:
            state: The state before the step.
            action: The executed MinAtar action, 0..5 (int32 scalar).
            draws: The step's draws (`draws_from_bits`, or the reference's recorded ones).
            params: The game's params.

        Returns:
            `(state, reward, terminal)`: the next state (its `time`, `last_action` and
            `terminal` are set by `act`), the float32 reward and whether the game ended.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def get_obs(self, state: Any) -> jax.Array:
        """The game's observation channels, as MinAtar's `state()`.

        Args:
            state: The game's state.

        Returns:
            `bool[10, 10, num_channels]`.

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    # --- shared -------------------------------------------------------------------------
    def step_env(self, key, state, action, params):
        bits = jax.random.bits(key, (1 + self.num_draw_words,), jnp.uint32)
        chosen = to_minatar_action(action, params, self.minimal_actions)
        executed = apply_sticky(chosen, state.last_action, uniform_from_bits(bits[0]), params.sticky_action_prob)
        draws = self.draws_from_bits(bits[1:], state, params)
        obs, next_state, reward, terminal = self.act(state, executed, draws, params)
        return obs, next_state, reward, terminal, {}

    def act(self, state, action, draws, params):
        """The step once the executed MinAtar action and the draws are known (after the sticky
        draw); parity tests call it with the reference's draws.

        Args:
            state: The state before the step.
            action: The executed MinAtar action, 0..5 (int32 scalar).
            draws: The step's draws, as the game's `transition` takes them.
            params: The game's params.

        Returns:
            `(obs, state, reward, terminal)`: the observation (`observe`), the next state (its
            `time` counted up, `last_action = action`), the float32 reward and the bool
            `terminal`. From a state already terminal, the state is unchanged but for `time`
            and `last_action`, the reward 0 and `terminal` true.
        """
        next_state, reward, terminal = self.transition(state, action, draws, params)
        next_state, reward, terminal = freeze_if_terminal(state, next_state, reward, terminal)
        next_state = next_state.replace(
            time=state.time + 1, last_action=jnp.asarray(action, jnp.int32), terminal=terminal
        )
        return self.observe(next_state, params), next_state, reward, terminal

    def observe(self, state, params):
        """`bool[10, 10, num_channels]`, one channel per kind of object (`get_obs`)."""
        return self.get_obs(state)

    def is_terminal(self, state, params):
        """Whether the game is over."""
        return state.terminal

    @defaults_params
    def observation_space(self, params=None):
        return observation_space(self.num_channels)

    @defaults_params
    def action_space(self, params=None):
        return spaces.Discrete(len(action_set(params, self.minimal_actions)))

    @defaults_params
    def action_set(self, params=None) -> tuple[int, ...]:
        """The MinAtar actions the agent's actions stand for.

        Args:
            params: The game's params; None means `default_params`.

        Returns:
            The MinAtar actions (0..5) of the agent's actions `0, 1, ...`: the minimal set or
            all six.
        """
        return action_set(params, self.minimal_actions)

    @defaults_params
    def render(self, state, params=None):
        return render_observation(self.get_obs(state))


def freeze_if_terminal(state: Any, next_state: Any, reward: jax.Array, terminal: jax.Array):
    """MinAtar's `act` on a finished game returns reward 0, terminal, and changes nothing."""
    done = state.terminal
    next_state = jax.tree_util.tree_map(lambda new, old: jnp.where(done, old, new), next_state, state)
    reward = jnp.where(done, 0.0, reward).astype(jnp.float32)
    return next_state, reward, done | terminal
