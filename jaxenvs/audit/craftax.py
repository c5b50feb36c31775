"""Craftax-Classic under our harness: against the original Crafter, distribution by distribution.

Craftax-Classic (through our adapter, `craftax/Craftax-Classic-Symbolic-v1`) is a rewrite of
Crafter in JAX: no state of one can be injected into the other, so the two are compared through
what a run of each produces. The same number of worlds and episodes a side: (1) the worlds at
reset (the fraction of the 64x64 map each block type covers, per world; the block types used;
the player's start cell and the cells around it; the creatures placed at generation), (2)
episodes of the uniform random policy over the 17 actions up to the 10,000-step time limit
(length and return), (3) the fraction of those episodes that unlock each of the 22
achievements, and (4) deaths: how often an episode ends in lava, the health part of the return
of an episode that ends in death (Crafter's reward gives `(health - last health) / 10` every
step, so a whole episode that ends at health 0 has a health reward of exactly -0.9), and one
step into lava put beside the start of a few fresh worlds (its reward and the death it ends in:
Craftax-Classic before 1.6.0 did not penalise it).

Crafter's worlds and episodes are drawn once per size and seed and cached
(`jaxenvs.audit.cache`): Crafter is pure Python (seconds to generate a world, milliseconds a
step). Its observation is not drawn (the audit compares no observation): the rendering, which
also draws the night's noise from the world's generator, is skipped; that changes which of the
generator's independent uniform numbers the game itself consumes, not their distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LIBRARY = "craftax"
REFERENCES = ("crafter",)
ROW = "Craftax-Classic-Symbolic-v1"
EPISODES_AT_ONE = 800  # worlds and random-policy episodes a side at scale 1 (200 at the page's 0.25)
MIN_EPISODES = 20
LIMIT = 10_000  # Crafter's `length` and Craftax-Classic's `max_timesteps`
NUM_ACTIONS = 17
# the block types Crafter's `worldgen.py` generates (the table and the furnace only by placing)
WORLD_BLOCKS = ("grass", "sand", "water", "stone", "tree", "coal", "iron", "diamond", "lava", "path")
CREATURES = ("cow", "zombie", "skeleton")
# the 8 cells around the start: within distance 2 of it, where Crafter's generator makes grass
NEIGHBOURS = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0))
DEATH_HEALTH_REWARD = -0.9  # Crafter: (0 - 9) / 10 over an episode from full health to death
HEALTH_ATOL = 1e-4  # float32 sums of a few hundred rewards of at most 1
LAVA_WORLDS = 5  # worlds a side in which the player steps into lava put beside the start
MOVE_RIGHT = 2  # both action sets: Crafter's `move_right` (x + 1), Craftax-Classic's RIGHT (column + 1)


def ids() -> list[str]:
    """The row the audit checks: Craftax-Classic, our adapter's id of it.

    Returns:
        The ids.
    """
    return [ROW]


def achievement_names() -> tuple[str, ...]:
    """Crafter's 22 achievements, in Crafter's order (Craftax-Classic has the same names).

    Returns:
        The names.
    """
    import crafter.constants

    return tuple(crafter.constants.achievements)


def crafter_sample(num: int, seed: int, episodes: bool = True) -> dict[str, np.ndarray]:
    """Crafter's worlds at reset and, if asked, one random-policy episode in each; cached.

    Args:
        num: how many worlds (and episodes).
        seed: Crafter's seed (its `Env(seed=...)`) and the random policy's.
        episodes: also play the episodes (else the worlds only).

    Returns:
        `blocks [num, 10]` (cells of each of `WORLD_BLOCKS`), `other_blocks [num]` (cells of any
        other type), `start [num, 2]`, `start_area [num]` (non-grass cells among the start and
        its 8 neighbours), `creatures [num, 3]` (`CREATURES` at generation); with episodes also
        `length`, `return`, `achievements [num, 22]` (bool, `achievement_names()`),
        `final_health`, `dead` and `lava` (the episode ended on a lava cell).

    Raises:
        ValueError: `num` is not positive.
    """
    import importlib.metadata

    from jaxenvs.audit.cache import cached

    if num < 1:
        raise ValueError(f"crafter_sample: num must be a positive number of worlds, got {num}")
    version = importlib.metadata.version("crafter")
    what = f"{num} random-policy episodes limit={LIMIT}" if episodes else f"{num} worlds"
    key = f"crafter {version} craftax-audit {what} seed={seed}"
    return cached(key, lambda: _draw_crafter(num, seed, episodes))


def _draw_crafter(num: int, seed: int, episodes: bool) -> dict[str, np.ndarray]:
    """Draws `crafter_sample`'s samples (slow: seconds a world, milliseconds a step)."""
    from crafter import objects

    env = _unrendered(seed)
    policy = np.random.default_rng(seed)
    names = achievement_names()
    out: dict[str, list] = {
        k: []
        for k in ("blocks", "other_blocks", "start", "start_area", "creatures")
        + (("length", "return", "achievements", "final_health", "dead", "lava") if episodes else ())
    }
    for _ in range(num):
        env.reset()
        world = env._world
        player = next(o for o in world.objects if isinstance(o, objects.Player))
        blocks = [int(world.count(name)) for name in WORLD_BLOCKS]
        out["blocks"].append(blocks)
        out["other_blocks"].append(world.area[0] * world.area[1] - sum(blocks))
        x, y = (int(v) for v in player.pos)
        out["start"].append((x, y))
        area = [world[(x + dx, y + dy)][0] for dx, dy in ((0, 0), *NEIGHBOURS)]
        out["start_area"].append(sum(m != "grass" for m in area))
        kinds = (objects.Cow, objects.Zombie, objects.Skeleton)
        out["creatures"].append([sum(isinstance(o, kind) for o in world.objects) for kind in kinds])
        if not episodes:
            continue
        done, length, ret, info = False, 0, 0.0, {}
        while not done:
            _, reward, done, info = env.step(int(policy.integers(NUM_ACTIONS)))
            length, ret = length + 1, ret + float(reward)
        out["length"].append(length)
        out["return"].append(ret)
        out["achievements"].append([info["achievements"][name] > 0 for name in names])
        out["final_health"].append(int(info["inventory"]["health"]))
        out["dead"].append(info["discount"] == 0.0)
        out["lava"].append(world[player.pos][0] == "lava")
    return {k: np.asarray(v) for k, v in out.items()}


def crafter_lava_steps(num: int, seed: int) -> dict[str, np.ndarray]:
    """Crafter's step into lava: in `num` fresh worlds, the cell right of the start made lava,
    the player moves right; cached.

    Args:
        num: how many worlds.
        seed: Crafter's seed (its `Env(seed=...)`).

    Returns:
        `reward`, `done` and `health` after the step, and `lava` (the player is on lava).
    """
    import importlib.metadata

    from jaxenvs.audit.cache import cached

    version = importlib.metadata.version("crafter")
    return cached(f"crafter {version} craftax-audit {num} lava steps seed={seed}", lambda: _draw_lava(num, seed))


def _draw_lava(num: int, seed: int) -> dict[str, np.ndarray]:
    """Draws `crafter_lava_steps`'s samples."""
    from crafter import objects

    env = _unrendered(seed)
    out: dict[str, list] = {"reward": [], "done": [], "health": [], "lava": []}
    for _ in range(num):
        env.reset()
        world = env._world
        player = next(o for o in world.objects if isinstance(o, objects.Player))
        world[(int(player.pos[0]) + 1, int(player.pos[1]))] = "lava"
        _, reward, done, info = env.step(MOVE_RIGHT)
        for key, value in zip(out, (reward, done, info["inventory"]["health"], world[player.pos][0] == "lava")):
            out[key].append(value)
    return {k: np.asarray(v) for k, v in out.items()}


def _unrendered(seed: int) -> Any:
    """Crafter's env without its observation (the game unchanged, nothing drawn)."""
    import crafter

    class Unrendered(crafter.Env):
        """Crafter without its observation."""

        def _obs(self) -> None:
            return None

    env = Unrendered(length=LIMIT, seed=seed)
    env._sem_view = lambda: None  # the semantic map of `info`, unused here
    return env


def craftax_sample(num: int, seed: int, episodes: bool = True) -> dict[str, np.ndarray]:
    """Craftax-Classic's worlds at reset (through our adapter) and, if asked, one random-policy
    episode in each, the same statistics as `crafter_sample`.

    Args:
        num: how many worlds (and episodes).
        seed: the seed of the worlds' keys and of the random policy.
        episodes: also play the episodes (up to `LIMIT` steps; else the worlds only).

    Returns:
        The arrays `crafter_sample` returns, of Craftax-Classic; with episodes also `"lava step"`:
        `crafter_lava_steps`'s arrays of its first `LAVA_WORLDS` worlds.

    Raises:
        ValueError: `num` is not positive.
    """
    import jax
    import jax.numpy as jnp
    from craftax.craftax_classic.constants import Achievement, BlockType

    import jaxenvs

    if num < 1:
        raise ValueError(f"craftax_sample: num must be a positive number of worlds, got {num}")
    env, params = jaxenvs.make(f"craftax/{ROW}", autoreset=False)
    block_ids = jnp.asarray([BlockType[name.upper()].value for name in WORLD_BLOCKS])
    grass = BlockType.GRASS.value
    lava = BlockType.LAVA.value
    order = jnp.asarray([Achievement[name.upper()].value for name in achievement_names()])
    offsets = jnp.asarray(((0, 0), *NEIGHBOURS))

    def world(state: Any) -> dict[str, jax.Array]:
        s = state.env_state
        blocks = jnp.sum(s.map[None] == block_ids[:, None, None], axis=(1, 2))
        cells = s.player_position[None] + offsets
        area = s.map[cells[:, 0], cells[:, 1]]
        return {
            "blocks": blocks,
            "other_blocks": s.map.size - blocks.sum(),
            "start": s.player_position,
            "start_area": jnp.sum(area != grass),
            "creatures": jnp.stack([s.cows.mask.sum(), s.zombies.mask.sum(), s.skeletons.mask.sum()]),
        }

    def run(keys: jax.Array, policy: jax.Array) -> dict[str, jax.Array]:
        _, states = jax.vmap(lambda k: env.reset(k, params))(keys)
        out = jax.vmap(world)(states)
        if not episodes:
            return out
        step = jax.vmap(lambda k, s, a: env.step(k, s, a, params))

        def unfinished(carry: tuple) -> jax.Array:
            return ~jnp.all(carry[2])

        def body(carry: tuple) -> tuple:
            key, states, done, dead, length, ret = carry
            key, k_act, k_step = jax.random.split(key, 3)
            actions = jax.random.randint(k_act, (num,), 0, NUM_ACTIONS)
            _, nxt, reward, terminated, truncated, _ = step(jax.random.split(k_step, num), states, actions)

            def keep(new: jax.Array, old: jax.Array) -> jax.Array:
                return jnp.where(done.reshape(done.shape + (1,) * (new.ndim - 1)), old, new)

            states = jax.tree_util.tree_map(keep, nxt, states)
            ret = ret + jnp.where(done, 0.0, reward)
            length = length + (~done).astype(jnp.int32)
            dead = dead | (~done & terminated)
            return key, states, done | terminated | truncated, dead, length, ret

        # the step into lava put right of the start (Craftax-Classic's RIGHT: column + 1)
        few = jax.tree_util.tree_map(lambda x: x[:lava_worlds], states)
        s = few.env_state
        rows = jnp.arange(lava_worlds)
        s = s.replace(map=s.map.at[rows, s.player_position[:, 0], s.player_position[:, 1] + 1].set(lava))
        lava_keys = jax.random.split(jax.random.fold_in(policy, 1), lava_worlds)
        _, s, reward, terminated, _, _ = jax.vmap(lambda k, st: env.step(k, st, MOVE_RIGHT, params))(
            lava_keys, few.replace(env_state=s)
        )
        s = s.env_state
        out["lava step"] = {
            "reward": reward,
            "done": terminated,
            "health": s.player_health,
            "lava": s.map[rows, s.player_position[:, 0], s.player_position[:, 1]] == lava,
        }
        zeros = jnp.zeros(num, bool)
        carry = (policy, states, zeros, zeros, jnp.zeros(num, jnp.int32), jnp.zeros(num, jnp.float32))
        _, states, _, dead, length, ret = jax.lax.while_loop(unfinished, body, carry)
        s = states.env_state
        rows = jnp.arange(num)
        on = s.map[rows, s.player_position[:, 0], s.player_position[:, 1]]
        return {
            **out,
            "length": length,
            "return": ret,
            "achievements": s.achievements[:, order],
            "final_health": s.player_health,
            "dead": dead,
            "lava": on == lava,
        }

    lava_worlds = min(LAVA_WORLDS, num)
    keys = jax.random.split(jax.random.key(seed), num + 1)
    out = jax.jit(run)(keys[1:], keys[0])
    return jax.tree_util.tree_map(np.asarray, out)


def _ks(name: str, jax_values: np.ndarray, ref_values: np.ndarray, unit: str) -> Any:
    """A two-sample KS test of one quantity per world or episode, its means in the detail."""
    from scipy import stats

    from jaxenvs.parity.stats import p_value_check

    a, b = np.asarray(jax_values, np.float64), np.asarray(ref_values, np.float64)
    test = stats.ks_2samp(a, b)
    detail = f"mean {unit}: craftax {a.mean():.4g} vs crafter {b.mean():.4g}; KS D {test.statistic:.3f}"
    return p_value_check(name, len(a), float(test.pvalue), detail)


def _fisher(name: str, jax_flags: np.ndarray, ref_flags: np.ndarray) -> Any:
    """Fisher's exact test of two proportions (exact also where one side never saw the event)."""
    from scipy import stats

    from jaxenvs.parity.stats import p_value_check

    a, b = np.asarray(jax_flags, bool), np.asarray(ref_flags, bool)
    ka, kb = int(a.sum()), int(b.sum())
    p = float(stats.fisher_exact([[ka, len(a) - ka], [kb, len(b) - kb]]).pvalue) if ka + kb else 1.0
    detail = f"craftax {ka}/{len(a)} ({ka / len(a):.3f}) vs crafter {kb}/{len(b)} ({kb / len(b):.3f}); Fisher exact"
    return p_value_check(name, len(a), p, detail)


def world_checks(jax_side: dict[str, np.ndarray], ref_side: dict[str, np.ndarray]) -> list[Any]:
    """The worlds at reset compared: block types used, each type's fraction, start, creatures.

    Args:
        jax_side: `craftax_sample`'s arrays.
        ref_side: `crafter_sample`'s arrays.

    Returns:
        The checks: `world block types` (worlds with a block type Crafter's generator never
        makes: none may), `world <block> fraction` (KS of the per-world fraction, one per type
        of `WORLD_BLOCKS`), `world start position` (exact), `world start area` (worlds with a
        non-grass cell among the start and its 8 neighbours, where Crafter's generator makes
        only grass: none may), `world initial <creature>s` (KS of the count per world).
    """
    from jaxenvs.parity import Check
    from jaxenvs.parity.stats import exact_check

    n = len(jax_side["blocks"])
    cells = jax_side["blocks"].sum(axis=1) + jax_side["other_blocks"]
    outside, outside_ref = int(np.sum(jax_side["other_blocks"] > 0)), int(np.sum(ref_side["other_blocks"] > 0))
    detail = f"worlds with other block types: crafter {outside_ref}; {', '.join(WORLD_BLOCKS)} allowed"
    checks = [
        Check("world block types", n, float(outside), 0.0, outside == 0 and outside_ref == 0, "mismatches", detail)
    ]
    jax_fraction = jax_side["blocks"] / cells[:, None]
    ref_fraction = ref_side["blocks"] / (ref_side["blocks"].sum(axis=1) + ref_side["other_blocks"])[:, None]
    for i, block in enumerate(WORLD_BLOCKS):
        checks.append(_ks(f"world {block} fraction", jax_fraction[:, i], ref_fraction[:, i], "fraction of the map"))
    m = min(n, len(ref_side["start"]))
    start = exact_check("world start position", jax_side["start"][:m], ref_side["start"][:m])
    first = [tuple(int(v) for v in side["start"][0]) for side in (jax_side, ref_side)]
    start.detail = f"start cell of the first world: craftax {first[0]}, crafter {first[1]}"
    checks.append(start)
    bad, bad_ref = int(np.sum(jax_side["start_area"] > 0)), int(np.sum(ref_side["start_area"] > 0))
    detail = (
        f"non-grass cells among the start and its 8 neighbours, mean: craftax {jax_side['start_area'].mean():.3g}, "
        f"crafter {ref_side['start_area'].mean():.3g} (crafter's generator: grass within distance 2; "
        f"crafter worlds with any: {bad_ref})"
    )
    checks.append(Check("world start area", n, float(bad), 0.0, bad == 0 and bad_ref == 0, "mismatches", detail))
    for i, creature in enumerate(CREATURES):
        checks.append(
            _ks(f"world initial {creature}s", jax_side["creatures"][:, i], ref_side["creatures"][:, i], "count")
        )
    return checks


def episode_checks(jax_side: dict[str, np.ndarray], ref_side: dict[str, np.ndarray], seed: int) -> list[Any]:
    """The random policy's episodes compared: length, return, achievements, deaths.

    Args:
        jax_side: `craftax_sample`'s arrays (with episodes).
        ref_side: `crafter_sample`'s arrays (with episodes).
        seed: the permutation tests' seed.

    Returns:
        The checks: `random-policy episode length` and `... return` (means), `achievement
        <name>` (Fisher's exact test of the fraction of episodes unlocking it, one per
        achievement), `lava deaths` (Fisher) and `death health reward` (the return less the
        achievements of every episode ending in death, against Crafter's -0.9).
    """
    from jaxenvs.parity.stats import error_check, mean_check

    length = mean_check("random-policy episode length", jax_side["length"], ref_side["length"], seed)
    length.transitions = int(ref_side["length"].sum())
    checks = [length, mean_check("random-policy episode return", jax_side["return"], ref_side["return"], seed + 1)]
    for i, name in enumerate(achievement_names()):
        checks.append(_fisher(f"achievement {name}", jax_side["achievements"][:, i], ref_side["achievements"][:, i]))
    checks.append(_fisher("lava deaths", jax_side["lava"] & jax_side["dead"], ref_side["lava"] & ref_side["dead"]))
    health = jax_side["return"] - jax_side["achievements"].sum(axis=1)
    dead = jax_side["dead"]
    check = error_check("death health reward", health[dead], np.full(int(dead.sum()), DEATH_HEALTH_REWARD), HEALTH_ATOL)
    ref_health = ref_side["final_health"][ref_side["dead"]]
    check.detail = (
        f"return less achievements of the {int(dead.sum())} episodes ending in death, against crafter's "
        f"{DEATH_HEALTH_REWARD} (health 9 to 0, a tenth a point); final health at death: craftax "
        f"{sorted(set(jax_side['final_health'][dead].tolist()))}, crafter {sorted(set(ref_health.tolist()))}"
    )
    checks.append(check)
    return checks


def lava_step_checks(jax_steps: dict[str, np.ndarray], ref_steps: dict[str, np.ndarray]) -> list[Any]:
    """The step into lava compared: its reward and the death it ends in.

    Args:
        jax_steps: `craftax_sample(...)["lava step"]`.
        ref_steps: `crafter_lava_steps`'s arrays.

    Returns:
        `lava step reward` (an error: Crafter's is -0.9, from full health to none) and `lava step
        death` (mismatches of done, on lava, health 0).
    """
    from jaxenvs.parity.stats import error_check, exact_check

    m = min(len(jax_steps["reward"]), len(ref_steps["reward"]))
    reward = error_check("lava step reward", jax_steps["reward"][:m], ref_steps["reward"][:m], 1e-6)
    reward.detail = (
        "a fresh world, lava put right of the start, the player moves right: reward craftax "
        f"{sorted(set(np.round(jax_steps['reward'].astype(np.float64), 6).tolist()))}, "
        f"crafter {sorted(set(ref_steps['reward'].tolist()))}"
    )
    reward.transitions = m

    def outcome(side: dict[str, np.ndarray]) -> np.ndarray:
        return np.stack([side["done"][:m], side["lava"][:m], side["health"][:m] == 0], axis=1)

    death = exact_check("lava step death", outcome(jax_steps), outcome(ref_steps))
    death.detail = "done, on lava and health 0 after the step, each side"
    return [reward, death]


def audit(env_id: str, scale: float, seed: int) -> Any:
    """One stage of the audit of Craftax-Classic against Crafter.

    Args:
        env_id: `ROW`.
        scale: the run's scale (`EPISODES_AT_ONE` worlds and episodes a side at 1).
        seed: the run's seed.

    Returns:
        The `ParityResult`.

    Raises:
        ValueError: an id other than `ROW`.
    """
    import importlib.metadata

    from jaxenvs.parity import ParityResult
    from jaxenvs.parity.verdict import Timer

    if env_id != ROW:
        raise ValueError(f"the craftax audit has one row, {ROW!r}; got {env_id!r}")
    num = max(MIN_EPISODES, int(round(EPISODES_AT_ONE * scale)))
    version = importlib.metadata.version("crafter")
    result = ParityResult(f"craftax/{env_id}", f"crafter {version} (Crafter, pure Python)")
    with Timer() as timer:
        ref = crafter_sample(num, seed)
        ref_lava = crafter_lava_steps(LAVA_WORLDS, seed)
        mine = craftax_sample(num, seed)
        checks = world_checks(mine, ref) + episode_checks(mine, ref, seed)
        result.checks = checks + lava_step_checks(mine["lava step"], ref_lava)
    result.seconds = timer.seconds
    return result
