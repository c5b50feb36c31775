"""pgx games through the jaxenvs interface: `pgx/<id>` for every id in `pgx.available_envs()`.

`params.reward_mode` says whose reward `reward` is ("actor", "all" or "opponent", where an
opponent policy plays the other seats). See docs/adapters.md.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs import spaces
from jaxenvs.adapters._common import (
    NO_LIMIT,
    AdapterEnvironment,
    import_library,
    library_key,
    space_for,
    strong,
)
from jaxenvs.environment import EnvParams, EnvState, defaults_params
from jaxenvs.params import choice, integer

REWARD_MODES = ("actor", "all", "opponent")
MINATAR_MAX_STEPS = 1000


@struct.dataclass
class PgxParams(EnvParams):
    """Params of a pgx game.

    Attributes:
        max_steps_in_episode: The time limit in agent steps (1000 for pgx's MinAtar games, none
            for board games).
        reward_mode: "actor", "all" or "opponent" (static).
        agent_player: The agent's player id under `reward_mode="opponent"`.
    """

    max_steps_in_episode: int = NO_LIMIT
    reward_mode: str = choice("actor", REWARD_MODES)
    # the agent's player id under reward_mode="opponent"
    agent_player: int = integer(0, low=0, high="num_players", high_open=True)


@struct.dataclass
class PgxState(EnvState):
    # the pgx game state: current_player, observation, rewards, terminated, truncated,
    # legal_action_mask, _step_count and the game's own fields
    """State of a pgx game.

    Attributes:
        pgx_state: pgx's state (current player, observation, rewards, flags, legal action mask).
    """

    pgx_state: Any


def random_legal_action(key: jax.Array, observation: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """The default opponent: a uniformly random legal action.

    Args:
        key: A JAX PRNG key.
        observation: The opponent's observation (unused).
        legal_action_mask: bool[num_actions].

    Returns:
        An int32 action.
    """
    del observation
    logits = jnp.where(legal_action_mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits).astype(jnp.int32)


class PgxEnv(AdapterEnvironment):
    """A pgx game through the jaxenvs interface.

    Args:
        env_id: The id as `pgx.make` knows it.
        opponent: The policy of the other seats under `reward_mode="opponent"`,
            `fn(key, observation, legal_action_mask) -> action`.

    Raises:
        ImportError: If pgx is not installed.
    """

    family = "pgx"

    def __init__(
        self,
        env_id: str,
        opponent: Callable[[jax.Array, jax.Array, jax.Array], jax.Array] = random_legal_action,
    ):
        pgx = import_library("pgx", "pgx")
        self._env_id = env_id
        self.pgx_env = pgx.make(env_id)
        self.opponent = opponent
        shape = jax.eval_shape(self.pgx_env.init, jax.ShapeDtypeStruct((2,), jnp.uint32))
        self._obs_shape = shape.observation
        self._num_actions = int(shape.legal_action_mask.shape[0])
        self.num_players = int(self.pgx_env.num_players)

    @property
    def default_params(self) -> PgxParams:
        """The default `PgxParams`."""
        limit = MINATAR_MAX_STEPS if self._env_id.startswith("minatar-") else NO_LIMIT
        return PgxParams(max_steps_in_episode=limit)

    @defaults_params
    def observation_space(self, params: PgxParams | None = None) -> spaces.Box:
        """The observation space, translated from pgx's."""
        return space_for(self._obs_shape.shape, self._obs_shape.dtype)

    @defaults_params
    def action_space(self, params: PgxParams | None = None) -> spaces.Discrete:
        """The action space, translated from pgx's."""
        return spaces.Discrete(self._num_actions)

    @defaults_params
    def action_mask(self, state: PgxState, params: PgxParams | None = None) -> jax.Array:
        """pgx's `legal_action_mask` of `state` (of any state, a reset one included).

        Args:
            state: A `PgxState`.
            params: The env's params; None means `default_params`.

        Returns:
            bool[num_actions].
        """
        return state.pgx_state.legal_action_mask

    @defaults_params
    def observe(self, state: PgxState, params: PgxParams | None = None) -> jax.Array:
        """The observation of `state`, what `reset` and `step` return with it: pgx's, which its
        state keeps (`State.observation`).

        pgx's is the view of the player to act; under "opponent" the agent's view is kept there
        instead (the same but at the end of a game, where pgx's may be another player's).

        Args:
            state: A `PgxState`.
            params: The env's params (unused: the state keeps the observation).

        Returns:
            The observation.
        """
        return state.pgx_state.observation

    def _as_agents(self, pgx_state: Any, params: PgxParams) -> Any:
        """Under "opponent", `pgx_state` with the agent's view as its observation (pgx computes the
        observation afresh in each step, and the opponent moves from its own)."""
        if params.reward_mode != "opponent":
            return pgx_state
        return pgx_state.replace(observation=self._observe_as(pgx_state, jnp.asarray(params.agent_player, jnp.int32)))

    # --- pieces -----------------------------------------------------------------------
    def _observe_as(self, pgx_state: Any, player: jax.Array) -> jax.Array:
        """The observation from `player`'s view (pgx deprecates the argument, not the view)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return self.pgx_env.observe(pgx_state, player)

    def _play_opponent(self, key: jax.Array, pgx_state: Any, agent: jax.Array) -> tuple[Any, jax.Array]:
        """Opponent moves until the agent is to act or the game is over; the per-player
        rewards of those moves, summed."""

        def waiting(carry):
            s, _, _ = carry
            return ~(s.terminated | s.truncated) & (s.current_player != agent)

        def move(carry):
            s, rewards, i = carry
            k_act, k_step = jax.random.split(jax.random.fold_in(key, i))
            action = self.opponent(k_act, s.observation, s.legal_action_mask)
            s = strong(self.pgx_env.step(s, jnp.asarray(action, jnp.int32), k_step))
            return s, rewards + s.rewards.astype(jnp.float32), i + 1

        carry = (pgx_state, jnp.zeros((self.num_players,), jnp.float32), jnp.zeros((), jnp.int32))
        pgx_state, rewards, _ = jax.lax.while_loop(waiting, move, carry)
        return pgx_state, rewards

    def _check_mode(self, params: PgxParams) -> None:
        if params.reward_mode not in REWARD_MODES:
            raise ValueError(f"{self.name}: reward_mode must be one of {REWARD_MODES}, got {params.reward_mode!r}")

    # --- transitions ------------------------------------------------------------------
    def reset_env(self, key: jax.Array, params: PgxParams) -> tuple[jax.Array, PgxState]:
        """Start a game from the key given (under "opponent", the opponent moves until the agent's turn).

        Args:
            key: A JAX PRNG key.
            params: The env's params.

        Returns:
            `(obs, PgxState)`.

        Raises:
            ValueError: For an unknown `reward_mode`.
        """
        self._check_mode(params)
        k_init, k_opponent = jax.random.split(library_key(key))
        pgx_state = strong(self.pgx_env.init(k_init))
        if params.reward_mode == "opponent":
            agent = jnp.asarray(params.agent_player, jnp.int32)
            pgx_state, _ = self._play_opponent(k_opponent, pgx_state, agent)
        state = PgxState(time=jnp.zeros((), jnp.int32), pgx_state=self._as_agents(pgx_state, params))
        return self.observe(state, params), state

    def step_env(
        self, key: jax.Array, state: PgxState, action: jax.Array, params: PgxParams
    ) -> tuple[jax.Array, PgxState, jax.Array, jax.Array, dict[str, Any]]:
        """pgx's step (and, under "opponent", the opponent's moves until the agent's turn), no reset.

        Args:
            key: A JAX PRNG key (pgx's stochastic games draw from it).
            state: The current `PgxState`.
            action: An action of `action_space(params)`.
            params: The env's params.

        Returns:
            `(obs, state, reward, terminated, info)`, `info` with `action_mask`, `current_player`
            and `rewards`.

        Raises:
            ValueError: For an unknown `reward_mode`.
        """
        self._check_mode(params)
        k_step, k_opponent = jax.random.split(library_key(key))
        actor = state.pgx_state.current_player
        # out of range (only reachable inside jit): clipped, then judged legal or not by pgx
        action = jnp.clip(jnp.asarray(action, jnp.int32), 0, self.pgx_env.num_actions - 1)
        pgx_state = strong(self.pgx_env.step(state.pgx_state, action, k_step))
        rewards = pgx_state.rewards.astype(jnp.float32)
        if params.reward_mode == "opponent":
            agent = jnp.asarray(params.agent_player, jnp.int32)
            pgx_state, opponent_rewards = self._play_opponent(k_opponent, pgx_state, agent)
            rewards = rewards + opponent_rewards
            reward = rewards[agent]
        elif params.reward_mode == "all":
            reward = rewards
        else:
            reward = rewards[actor]
        info = {
            "action_mask": pgx_state.legal_action_mask,
            "current_player": pgx_state.current_player.astype(jnp.int32),
            "rewards": rewards,
        }
        state = PgxState(time=state.time + 1, pgx_state=self._as_agents(pgx_state, params))
        return self.observe(state, params), state, reward, pgx_state.terminated, info

    def library_truncated(self, state: PgxState) -> jax.Array:
        """Whether pgx itself truncated the episode of `state` (its own time limit).

        Args:
            state: A `PgxState`.

        Returns:
            A bool scalar.
        """
        return state.pgx_state.truncated
