"""pgx games through the jaxenvs interface: `pgx/<id>` for every id in `pgx.available_envs()`.

Reference: `pgx.make(id)` (pgx >= 2.0). pgx has no auto-reset, returns one reward per player
and never truncates by itself; here:

- `info["action_mask"]` is pgx's `legal_action_mask` (bool[num_actions]) of the observation
  the step returns, `info["current_player"]` the player to act next (int32), and
  `info["rewards"]` the whole per-player reward vector (float32[num_players]), in every mode.
  `action_mask(state)` gives the mask of any state (a reset one too: under `AutoReset`,
  `info["action_mask"]` belongs to `final_observation`).
- `params.reward_mode` (static) says whose reward `reward` is:
  - "actor" (default): the reward of the player who took the action; the observation is
    pgx's, i.e. from the view of the player to act next (self-play).
  - "all": the per-player vector, float32[num_players]. The one mode whose reward is not a
    scalar: `check_env` and `LogWrapper` expect scalars and do not apply to it.
  - "opponent": the agent is player `params.agent_player` (default 0) and every other seat is
    played by an opponent policy, random legal moves by default (pass
    `opponent=fn(key, observation, legal_action_mask) -> action` to the constructor for
    another). Reset and step play the opponent's moves until it is the agent's turn again or
    the game is over, so the agent sees only its own turns, always from its own view; the
    reward is everything the agent received meanwhile. pgx shuffles seats at reset, so the
    agent moves first in about half of the games of a two-player game.
- a key goes to every pgx step (stochastic games: 2048, backgammon, MinAtar's sticky actions).
- `terminated` is pgx's `terminated`; `truncated` is pgx's `truncated` (never set by pgx 2.x)
  or `state.time >= params.max_steps_in_episode` (counted in agent steps), which is 1000 for
  pgx's MinAtar games (they can run forever; gymnax's MinAtar default) and never fires for the
  board games by default (they end by their rules).
- invalid action: inside jit an action outside [0, num_actions) is clipped into that range;
  an illegal action (outside `action_mask`) ends the game at once with pgx's penalty: -1 for
  the player who took it, +1 for each other player.
- the observation space is a `Box` of pgx's observation shape and dtype (bool planes for
  most board games, float32 or int32 for some).
- `render` is not provided: pgx draws SVG, which is not jit-able; call
  `state.pgx_state.save_svg(path)` outside jit.
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
from jaxenvs.environment import EnvParams, EnvState
from jaxenvs.params import choice, integer

REWARD_MODES = ("actor", "all", "opponent")
MINATAR_MAX_STEPS = 1000


@struct.dataclass
class PgxParams(EnvParams):
    max_steps_in_episode: int = NO_LIMIT
    reward_mode: str = choice("actor", REWARD_MODES)
    # the agent's player id under reward_mode="opponent"
    agent_player: int = integer(0, low=0, high="num_players", high_open=True)


@struct.dataclass
class PgxState(EnvState):
    # the pgx game state: current_player, observation, rewards, terminated, truncated,
    # legal_action_mask, _step_count and the game's own fields
    pgx_state: Any


def random_legal_action(key: jax.Array, observation: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """The default opponent: a uniformly random legal action."""
    del observation
    logits = jnp.where(legal_action_mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits).astype(jnp.int32)


class PgxEnv(AdapterEnvironment):
    """pgx game `env_id`; `opponent` is the policy of the other seats under reward_mode="opponent"."""

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
    def name(self) -> str:
        return f"pgx/{self._env_id}"

    @property
    def default_params(self) -> PgxParams:
        limit = MINATAR_MAX_STEPS if self._env_id.startswith("minatar-") else NO_LIMIT
        return PgxParams(max_steps_in_episode=limit)

    def observation_space(self, params: PgxParams | None = None) -> spaces.Box:
        return space_for(self._obs_shape.shape, self._obs_shape.dtype)

    def action_space(self, params: PgxParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self._num_actions)

    def action_mask(self, state: PgxState, params: PgxParams | None = None) -> jax.Array:
        """pgx's `legal_action_mask` of `state` (bool[num_actions])."""
        return state.pgx_state.legal_action_mask

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
        self._check_mode(params)
        k_init, k_opponent = jax.random.split(library_key(key))
        pgx_state = strong(self.pgx_env.init(k_init))
        obs = pgx_state.observation
        if params.reward_mode == "opponent":
            agent = jnp.asarray(params.agent_player, jnp.int32)
            pgx_state, _ = self._play_opponent(k_opponent, pgx_state, agent)
            obs = self._observe_as(pgx_state, agent)
        return obs, PgxState(time=jnp.zeros((), jnp.int32), pgx_state=pgx_state)

    def step_env(
        self, key: jax.Array, state: PgxState, action: jax.Array, params: PgxParams
    ) -> tuple[jax.Array, PgxState, jax.Array, jax.Array, dict[str, Any]]:
        self._check_mode(params)
        k_step, k_opponent = jax.random.split(library_key(key))
        actor = state.pgx_state.current_player
        # out of range (only reachable inside jit): clipped, then judged legal or not by pgx
        action = jnp.clip(jnp.asarray(action, jnp.int32), 0, self.pgx_env.num_actions - 1)
        pgx_state = strong(self.pgx_env.step(state.pgx_state, action, k_step))
        rewards = pgx_state.rewards.astype(jnp.float32)
        obs = pgx_state.observation
        if params.reward_mode == "opponent":
            agent = jnp.asarray(params.agent_player, jnp.int32)
            pgx_state, opponent_rewards = self._play_opponent(k_opponent, pgx_state, agent)
            rewards = rewards + opponent_rewards
            reward = rewards[agent]
            obs = self._observe_as(pgx_state, agent)
        elif params.reward_mode == "all":
            reward = rewards
        else:
            reward = rewards[actor]
        info = {
            "action_mask": pgx_state.legal_action_mask,
            "current_player": pgx_state.current_player.astype(jnp.int32),
            "rewards": rewards,
        }
        state = PgxState(time=state.time + 1, pgx_state=pgx_state)
        return obs, state, reward, pgx_state.terminated, info

    def library_truncated(self, state: PgxState) -> jax.Array:
        return state.pgx_state.truncated
