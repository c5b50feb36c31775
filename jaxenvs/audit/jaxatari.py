"""JAXAtari under our harness: its Atari games against the Arcade Learning Environment's.

JAXAtari (PyPI `jaxtari`; the `jaxatari` project is an alias that installs it) re-implements
Atari 2600 games in JAX from their observed behaviour, not by emulating the console, so no
state of the one can be injected into the other: the games are compared by what a policy
sees. Both sides run the ALE `-v5` protocol: 4 frames per agent step with their rewards
summed, sticky actions with probability 0.25 drawn every frame, the minimal action set, no
no-op starts, no FIRE on reset, and an episode that ends at game over (JAXAtari's own
`AtariWrapper` with `sticky_actions=0.25, episodic_life=False, first_fire=False, noop_max=0`,
frame-skipped here; the ALE through `gymnasium.make("ALE/<Game>-v5")`). A random policy
plays whole episodes (capped at `MAX_STEPS` agent steps, on both sides alike), and the
checks compare the minimal action sets, the mean episode length and return, and the reward
of each agent step (chi-square over the reward values, all steps of all episodes pooled).

JAXAtari's renderers load sprite files that its installer downloads only after a declaration
of ownership of the Atari ROMs; the audit never renders (observations are not compared), so
each game is built with its renderer replaced by a stub that raises if anything reads it. The
audited games' steps never do; a game whose step does (`NEED_SPRITES`) is not audited.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any
from unittest import mock

import numpy as np

LIBRARY = "jaxtari"
REFERENCES = ("ale_py",)
# ALE id -> (JAXAtari game, JAXAtari's own rating of the game in k4ntz/JAXAtari's games_covered.md:
# gold "very close to original game", silver "close to original game, but may miss some
# parts, implements them differently", bronze "differs significantly from the original")
GAMES = {
    "ALE/Pong-v5": ("pong", "gold"),
    "ALE/Breakout-v5": ("breakout", "gold"),
    "ALE/Freeway-v5": ("freeway", "gold"),
    "ALE/Seaquest-v5": ("seaquest", "gold"),
    "ALE/SpaceInvaders-v5": ("spaceinvaders", "silver"),
}
# games both ship that cannot be audited without JAXAtari's sprite files: their step reads the
# renderer (Asterix's `step` sizes its stage by `self.renderer.SHAPE_MASKS['STAGE']`)
NEED_SPRITES = {"ALE/Asterix-v5": "asterix"}
# the policy's action probabilities over the minimal action set where it is not uniform:
# a uniform policy never gets the chicken across Freeway (both sides score 0 in every
# episode, which compares nothing but the time limit), so Freeway's walks up 80% of the time
POLICIES = {"ALE/Freeway-v5": (0.1, 0.8, 0.1)}  # NOOP, UP, DOWN
FRAME_SKIP = 4  # ALE v5's frames per agent step
STICKY = 0.25  # ALE v5's repeat_action_probability
MAX_STEPS = 3000  # agent steps an episode is cut at, on both sides (random play ends sooner)
EPISODES_AT_ONE = 200  # episodes a side at scale 1
CHUNK = 10  # JAXAtari's episodes are run this many at once (one compilation per game)


def ids() -> list[str]:
    """The ALE ids of the games JAXAtari ports that the audit checks.

    Returns:
        The ids.
    """
    return list(GAMES)


def _probabilities(env_id: str, num_actions: int) -> np.ndarray:
    """The policy's probability of each action of the minimal action set."""
    probs = np.asarray(POLICIES.get(env_id, np.full(num_actions, 1.0 / num_actions)), np.float64)
    if len(probs) != num_actions:
        raise ValueError(f"{env_id}: the policy has {len(probs)} action probabilities, the game {num_actions} actions")
    return probs / probs.sum()


class _NoRenderer:
    """Stands in for a JAXAtari game's renderer: building one needs no sprite files, reading it raises."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"the JAXAtari audit does not render (read the renderer's {name!r})")


@functools.cache
def _peer_env(game: str) -> Any:
    """JAXAtari's game `game` as `jaxtari.make` builds it without mods, its renderer a stub."""
    from jaxtari.core import GAME_MODULES
    from jaxtari.environment import JaxEnvironment
    from jaxtari.renderers import JAXGameRenderer

    module = importlib.import_module(GAME_MODULES[game])
    classes = [
        obj
        for _, obj in inspect.getmembers(module)
        if inspect.isclass(obj) and issubclass(obj, JaxEnvironment) and obj is not JaxEnvironment
    ]
    renderers = {
        name: _NoRenderer
        for name, obj in vars(module).items()
        if inspect.isclass(obj) and issubclass(obj, JAXGameRenderer) and obj is not JAXGameRenderer
    }
    with mock.patch.multiple(module, **renderers):
        return classes[0]()


@functools.cache
def _peer_rollout(game: str, probs: tuple[float, ...]) -> Any:
    """A compiled function `key -> (lengths, rewards)`: `CHUNK` whole episodes of JAXAtari's `game`.

    `rewards` is `[MAX_STEPS, CHUNK]`, NaN after an episode's end.
    """
    import jax
    import jax.numpy as jnp
    from jaxtari.wrappers import AtariWrapper

    env = AtariWrapper(_peer_env(game), sticky_actions=STICKY, episodic_life=False, first_fire=False, noop_max=0)
    logits = jnp.log(jnp.asarray(probs, jnp.float32))

    def agent_step(state: Any, action: Any) -> tuple[Any, Any, Any]:
        def frame(carry: Any, _: Any) -> tuple[Any, None]:
            state, reward, done = carry
            _, nxt, _, _, truncated, info = env.step(state, action)
            state = jax.tree.map(lambda a, b: jnp.where(done, a, b), state, nxt)
            reward = reward + jnp.where(done, 0.0, info["env_reward"].astype(jnp.float32))
            return (state, reward, done | info["env_done"] | truncated), None

        (state, reward, done), _ = jax.lax.scan(frame, (state, jnp.float32(0), jnp.bool_(False)), None, FRAME_SKIP)
        return state, reward, done

    def keep(done: Any, old: Any, new: Any) -> Any:
        return jax.tree.map(lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), old, new)

    @jax.jit
    def run(key: Any) -> tuple[Any, Any]:
        keys = jax.random.split(key, CHUNK + 1)
        _, states = jax.vmap(env.reset)(keys[1:])

        def body(carry: Any) -> Any:
            t, states, done, lengths, rewards, key = carry
            key, draw = jax.random.split(key)
            actions = jax.random.categorical(draw, logits, shape=(CHUNK,))
            nxt, reward, ended = jax.vmap(agent_step)(states, actions)
            rewards = rewards.at[t].set(jnp.where(done, jnp.nan, reward))
            return t + 1, keep(done, states, nxt), done | ended, lengths + ~done, rewards, key

        start = (0, states, jnp.zeros(CHUNK, bool), jnp.zeros(CHUNK, jnp.int32), jnp.full((MAX_STEPS, CHUNK), jnp.nan))
        out = jax.lax.while_loop(lambda c: (c[0] < MAX_STEPS) & ~jnp.all(c[2]), body, (*start, keys[0]))
        return out[3], out[4]

    return run, np.asarray(env._env.ACTION_SET)


def _peer_side(env_id: str, num_episodes: int, seed: int) -> dict[str, Any]:
    """JAXAtari's random-policy episodes: lengths, returns and the reward of every agent step."""
    import jax

    game, _ = GAMES[env_id]
    num_actions = len(_peer_env(game).ACTION_SET)
    run, action_set = _peer_rollout(game, tuple(_probabilities(env_id, num_actions)))
    lengths, rewards = [], []
    for chunk in range(-(-num_episodes // CHUNK)):
        chunk_lengths, chunk_rewards = jax.device_get(run(jax.random.fold_in(jax.random.key(seed), chunk)))
        lengths.append(np.asarray(chunk_lengths))
        rewards.append(np.asarray(chunk_rewards))
    lengths_all = np.concatenate(lengths)[:num_episodes]
    steps = np.concatenate(rewards, axis=1)[:, :num_episodes]
    return {
        "action_set": action_set,
        "lengths": lengths_all,
        "returns": np.nansum(steps, axis=0),
        "rewards": steps.T[~np.isnan(steps.T)],
    }


def _reference_side(env_id: str, num_episodes: int, seed: int) -> dict[str, Any]:
    """The ALE's random-policy episodes, drawn once per (id, size, seed) and cached."""
    import ale_py
    import gymnasium

    from jaxenvs.audit.cache import cached

    def draw() -> dict[str, Any]:
        gymnasium.register_envs(ale_py)
        # RAM observations: the dynamics are the same and no screen is drawn into an array
        env = gymnasium.make(
            env_id, obs_type="ram", frameskip=FRAME_SKIP, repeat_action_probability=STICKY, full_action_space=False
        )
        action_set = np.asarray([a.value for a in env.unwrapped.ale.getMinimalActionSet()])
        probs = _probabilities(env_id, len(action_set))
        rng = np.random.default_rng(seed)
        lengths, returns, rewards = [], [], []
        for i in range(num_episodes):
            env.reset(seed=seed * 100_003 + i)
            done, length, total = False, 0, 0.0
            while not done and length < MAX_STEPS:
                _, reward, terminated, truncated, _ = env.step(int(rng.choice(len(probs), p=probs)))
                length, total, done = length + 1, total + float(reward), bool(terminated or truncated)
                rewards.append(float(reward))
            lengths.append(length)
            returns.append(total)
        env.close()
        return {
            "action_set": action_set,
            "lengths": np.asarray(lengths),
            "returns": np.asarray(returns),
            "rewards": np.asarray(rewards),
        }

    key = (
        f"ale-py {ale_py.__version__} {env_id} jaxatari-audit episodes={num_episodes} frameskip={FRAME_SKIP} "
        f"sticky={STICKY} cap={MAX_STEPS} policy={POLICIES.get(env_id, 'uniform')} seed={seed}"
    )
    return cached(key, draw)


def audit(env_id: str, scale: float, seed: int) -> Any:
    """One stage of the audit of JAXAtari's game of the ALE id `env_id`.

    Args:
        env_id: an ALE id, one of `ids()`.
        scale: the run's size (`EPISODES_AT_ONE` episodes a side at 1).
        seed: the seed of both sides' draws.

    Returns:
        The `ParityResult`, named `"jaxatari/<ALE id>"`.

    Raises:
        ValueError: `env_id` is not one of `ids()`.
    """
    from jaxenvs.parity import ParityResult
    from jaxenvs.parity.stats import chi_square_check, exact_check, mean_check
    from jaxenvs.parity.verdict import Timer

    if env_id not in GAMES:
        raise ValueError(f"JAXAtari's audit has no game {env_id!r}; audited: {ids()}")
    num_episodes = max(CHUNK, int(EPISODES_AT_ONE * scale))
    result = ParityResult(f"jaxatari/{env_id}", f"ale-py {env_id} (sticky {STICKY}, frame skip {FRAME_SKIP})")
    with Timer() as timer:
        ref = _reference_side(env_id, num_episodes, seed)
        mine = _peer_side(env_id, num_episodes, seed)
        checks = [exact_check("minimal action set", mine["action_set"][None], ref["action_set"][None])]
        cut = f"episodes cut at {MAX_STEPS} steps: jax {np.sum(mine['lengths'] >= MAX_STEPS)}, "
        cut += f"reference {np.sum(ref['lengths'] >= MAX_STEPS)}"
        length = mean_check("random-policy episode length", mine["lengths"], ref["lengths"], seed)
        length.detail += f"; {cut}"
        checks.append(length)
        checks.append(mean_check("random-policy episode return", mine["returns"], ref["returns"], seed + 1))
        rewards = chi_square_check("reward per agent step", mine["rewards"], ref["rewards"])
        rewards[-1].transitions = len(ref["rewards"])
        counts = dict(zip(*np.unique(mine["rewards"], return_counts=True)))
        ref_counts = dict(zip(*np.unique(ref["rewards"], return_counts=True)))
        rewards[-1].detail += f"; jax {_counts(counts)} vs reference {_counts(ref_counts)}"
        result.checks = checks + rewards
    result.seconds = timer.seconds
    return result


def _counts(counts: dict[Any, Any]) -> str:
    """`{reward: count}` in words, e.g. `"{-1: 336, 0: 14945, 1: 17}"`."""
    return "{" + ", ".join(f"{float(k):g}: {int(v)}" for k, v in sorted(counts.items())) + "}"
