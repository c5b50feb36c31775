"""XLand-MiniGrid through the jaxenvs interface: `xminigrid/<id>` for every id it registers.

XLand ids come with xminigrid's empty default ruleset; set `params.env_params` to train on
one task, or `params.benchmark` (xminigrid's `Benchmark`, many rulesets) and a level's
`ruleset_id` to pick each episode's. See docs/adapters.md and docs/levels.md.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs import rendering, spaces
from jaxenvs.adapters._common import (
    AdapterEnvironment,
    LibraryParams,
    LibraryTruncatedState,
    import_library,
    library_key,
    library_params,
    strong,
)
from jaxenvs.environment import defaults_params
from jaxenvs.params import Valid, custom, integer
from jaxenvs.tree import cast_like

# xminigrid.core.constants: 13 tiles, 12 colours (ids from 0)
NUM_TILES, NUM_COLORS = 13, 12
EMPTY, FLOOR, WALL = 0, 1, 2
# xminigrid.rendering.rgb_render's COLORS_MAP, by colour id
PALETTE = np.frombuffer(
    bytes.fromhex("000000 ff0000 00ff00 0000ff 7027c3 ffff00 646464 000000 ff8c00 ffffff a0522d e11493"), np.uint8
).reshape(-1, 3)
CELL_PIXELS = 12


@struct.dataclass
class XMiniGridParams(LibraryParams):
    """Params of an xminigrid env.

    Attributes:
        max_steps_in_episode: jaxenvs' own time limit; never fires by default (xminigrid's
            `max_steps` applies).
        env_params: xminigrid's params (static fields; XLand's ruleset is a pytree: vmap it for
            meta-RL); None for its defaults.
    """

    # xminigrid's EnvParams (static fields; XLand's ruleset is a pytree); None: its defaults
    env_params: Any = custom(None, library_params, "xminigrid's EnvParams (a pytree) or None")


def benchmark_problem(value: Any) -> str | None:
    """What is wrong with `value` as `XLandParams.benchmark` (None, or xminigrid's `Benchmark`).

    Args:
        value: The proposed `benchmark`: None, or anything with `goals`, `rules` and `init_tiles`
            (xminigrid's `Benchmark`).

    Returns:
        None if `value` is acceptable, else a sentence saying what it got instead.
    """
    if value is None:
        return None
    if all(hasattr(value, name) for name in ("goals", "rules", "init_tiles")):
        return None
    return f"got a {type(value).__name__}, not rulesets (xminigrid's Benchmark: goals, rules, init_tiles)"


@struct.dataclass
class XLandParams(XMiniGridParams):
    """Params of an XLand-MiniGrid id (`xminigrid/XLand-MiniGrid-*`): rulesets to choose from.

    The ruleset is the level: with `benchmark` set, each episode plays its `ruleset_id`-th
    ruleset, which a level may set (`Level(settings={"ruleset_id": jnp.int32(i)})`), as
    xminigrid's own training samples one per episode (`benchmark.sample_ruleset`). A ruleset
    is used at reset only (the grid's objects, the goal and rules the episode's state keeps).

    Attributes:
        max_steps_in_episode: jaxenvs' own time limit; never fires by default.
        env_params: xminigrid's `XLandEnvParams` (its `ruleset` is played when `benchmark` is None).
        benchmark: xminigrid's `Benchmark` (`xminigrid.load_benchmark(name)`: rulesets stacked on
            a leading axis, one shape for all), or None.
        ruleset_id: The episode's ruleset, an index into `benchmark` (0 without one: the
            ruleset of `env_params`); per episode.
    """

    # `custom` with None valid too (`custom` itself has no `optional`)
    benchmark: Any = struct.field(
        default=None,
        metadata={"valid": Valid("custom", check=benchmark_problem, text="xminigrid's Benchmark", optional=True)},
    )
    ruleset_id: int = integer(0, low=0, high="num_rulesets", high_open=True, per_episode=True)

    @property
    def num_rulesets(self) -> int:
        """How many rulesets `ruleset_id` chooses from (1 without a benchmark)."""
        return 1 if self.benchmark is None else int(self.benchmark.goals.shape[0])

    def episode_env_params(self) -> Any:
        """xminigrid's params of an episode: `env_params` with the `ruleset_id`-th ruleset of `benchmark`.

        Returns:
            xminigrid's `XLandEnvParams`.
        """
        if self.benchmark is None:
            return self.env_params
        ruleset = self.benchmark.get_ruleset(jnp.asarray(self.ruleset_id, jnp.int32))
        return self.env_params.replace(ruleset=ruleset)


@struct.dataclass
class XMiniGridState(LibraryTruncatedState):
    """State of an xminigrid env.

    Attributes:
        library_truncated: bool[], whether xminigrid ended the last step by its own time limit.
        timestep: xminigrid's `TimeStep` (state, step type, reward, discount, observation).
    """

    # xminigrid's TimeStep: state (key, step_num, grid uint8[H, W, 2], agent, goal and rule
    # encodings), step_type, reward, discount, observation
    timestep: Any = None


class XMiniGridEnv(AdapterEnvironment):
    """An xminigrid env through the jaxenvs interface.

    Args:
        env_id: The id as `xminigrid.make` knows it (one of `xminigrid.registered_environments()`).
        **kwargs: Fields of xminigrid's `EnvParams` to set (`max_steps`, `view_size`, ...):
            `xminigrid.make` sets them in the params that become `default_params.env_params`.

    Raises:
        ValueError: If xminigrid has no such env.
        ImportError: If xminigrid is not installed.
    """

    family = "xminigrid"
    settings_note = " (XLand-MiniGrid ids have one: the ruleset, ruleset_id)"

    def __init__(self, env_id: str, **kwargs: Any):
        xminigrid = import_library("xminigrid", "xminigrid")
        self._set_env_id(env_id, xminigrid.registered_environments())
        self.xminigrid_env, self._env_params = xminigrid.make(env_id, **kwargs)

    @property
    def has_rulesets(self) -> bool:
        """Whether the env plays rulesets (the XLand ids), so that a level may choose one."""
        return hasattr(self._env_params, "ruleset")

    @property
    def default_params(self) -> XMiniGridParams:
        """The default params: `XLandParams` for an XLand id, else `XMiniGridParams`."""
        if self.has_rulesets:
            return XLandParams(env_params=self._env_params)
        return XMiniGridParams(env_params=self._env_params)

    # --- spaces -----------------------------------------------------------------------
    @defaults_params
    def observation_space(self, params: XMiniGridParams | None = None) -> spaces.Box:
        """The observation space, translated from xminigrid's."""
        shape = tuple(self.xminigrid_env.observation_shape(params.env_params))
        high = np.broadcast_to(np.array([NUM_TILES - 1, NUM_COLORS - 1], np.float64), shape)
        return spaces.Box(np.zeros(shape), high, shape=shape, dtype=jnp.uint8)

    @defaults_params
    def action_space(self, params: XMiniGridParams | None = None) -> spaces.Discrete:
        """The action space, translated from xminigrid's."""
        return spaces.Discrete(int(self.xminigrid_env.num_actions(params.env_params)))

    # --- transitions ------------------------------------------------------------------
    @defaults_params
    def observe(self, state: XMiniGridState, params: XMiniGridParams | None = None) -> jax.Array:
        """The observation of `state`: xminigrid's view, which its `TimeStep` keeps.

        What `reset` and `step` return with the state, so `reset_to_level(key, Level(state=s))`
        starts exactly where `s` is.

        Args:
            state: An `XMiniGridState`.
            params: The env's params (unused: xminigrid keeps the observation in its timestep).

        Returns:
            `uint8[view, view, 2]`.
        """
        return jnp.asarray(state.timestep.observation, jnp.uint8)

    def reset_env(self, key: jax.Array, params: XMiniGridParams) -> tuple[jax.Array, XMiniGridState]:
        """Start an episode with xminigrid's reset, from the key given (an XLand id: under the
        episode's ruleset, `XLandParams.episode_env_params`)."""
        env_params = params.episode_env_params() if isinstance(params, XLandParams) else params.env_params
        timestep = strong(self.xminigrid_env.reset(env_params, library_key(key)))
        state = XMiniGridState(
            time=jnp.zeros((), jnp.int32), library_truncated=jnp.zeros((), jnp.bool_), timestep=timestep
        )
        return self.observe(state, params), state

    def step_env(
        self, key: jax.Array, state: XMiniGridState, action: Any, params: XMiniGridParams
    ) -> tuple[jax.Array, XMiniGridState, jax.Array, jax.Array, dict[str, Any]]:
        """xminigrid's transition, no reset (docs/adapters.md says what is kept apart)."""
        del key  # xminigrid draws from the key in its state
        timestep = self.xminigrid_env.step(params.env_params, state.timestep, jnp.asarray(action, jnp.int32))
        timestep = cast_like(timestep, state.timestep, f"{self.name}: the library's state")
        last = timestep.step_type == 2  # StepType.LAST
        terminated = last & (timestep.discount == 0)
        truncated = last & (timestep.state.step_num >= params.env_params.max_steps)
        state = XMiniGridState(time=state.time + 1, library_truncated=truncated, timestep=timestep)
        return self.observe(state, params), state, jnp.asarray(timestep.reward, jnp.float32), terminated, {}

    # --- rendering --------------------------------------------------------------------
    @defaults_params
    def render(self, state: XMiniGridState, params: XMiniGridParams | None = None) -> jax.Array:
        """The whole grid (each cell in its tile's colour, the agent a red disc), jit-able."""
        grid = state.timestep.state.grid
        tile, colour = grid[..., 0].astype(jnp.int32), grid[..., 1].astype(jnp.int32)
        colour = jnp.where((tile == EMPTY) | (tile == FLOOR), 0, jnp.where(tile == WALL, 6, colour))
        img = rendering.grid_image(colour, PALETTE, CELL_PIXELS)
        row, col = state.timestep.state.agent.position[0], state.timestep.state.agent.position[1]
        centre = (CELL_PIXELS - 1) / 2
        x, y = col * CELL_PIXELS + centre, row * CELL_PIXELS + centre
        return rendering.circle(img, x, y, CELL_PIXELS / 3, (255, 0, 0))
