"""The audit's shared machinery for JAX ports of MiniGrid (NAVIX, XLand-MiniGrid) against `minigrid`.

A peer's reset states and `minigrid`'s are both read into one layout: MiniGrid's own cell
encoding (object type, colour, state; `minigrid.core.constants`), indexed `[row, col]`, with
the agent's cell and MiniGrid's direction (0 east, 1 south, 2 west, 3 north). On those
layouts the audit checks, for one MiniGrid id:

1. solvability: the goal square (without one: every object and door, and a key for each locked
   door) is reachable from the agent's start by search (walls and lava
   block, closed doors open, a locked door opens once a key of its colour is reachable,
   movable objects can be moved), and the agent does not start on an object;
2. the reset distribution: the agent's start cell and direction, each kind of object's cells
   (chi-square), the number of interior obstacles and one obstacle cell drawn per layout;
3. random-policy episodes: length and return, with MiniGrid's time limit and reward
   `1 - 0.9 * step / max_steps` on both sides, the same uniform policy over the actions both
   have;
4. transitions: the peer's state after random play is copied into `minigrid`'s env (grid,
   agent, carried object, step count) and both step under every action; the next agent cell,
   direction, carried object, the cell in front, reward and termination must agree exactly.

`minigrid`'s side of 1-3 is drawn once per (id, size, seed) and kept with `cached`.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

# minigrid.core.constants.OBJECT_TO_IDX / STATE_TO_IDX
EMPTY, WALL, FLOOR, DOOR, KEY, BALL, BOX, GOAL, LAVA = 1, 2, 3, 4, 5, 6, 7, 8, 9
OPEN, CLOSED, LOCKED = 0, 1, 2
KINDS = {"goal": GOAL, "key": KEY, "door": DOOR, "ball": BALL, "box": BOX}
MOVES = ((0, 1), (1, 0), (0, -1), (-1, 0))  # (drow, dcol) of MiniGrid's directions
ACTION_NAMES = ("left", "right", "forward", "pickup", "drop", "toggle", "done")
RESETS_AT_ONE = 1000  # reset layouts a side at scale 1, each also the start of a random-policy episode
STATES_AT_ONE = 400  # peer states stepped under every action at scale 1


@dataclasses.dataclass(frozen=True)
class Peer:
    """A JAX port of MiniGrid, as the audit reaches it; its `ids` and `audit` are its module's.

    Args:
        name: the peer's name (`"navix"`, `"xminigrid"`).
        pairs: MiniGrid id -> the peer's id of the same env.
        make: `(peer id, max_steps) -> (env, params)`: the jaxenvs adapter's raw env, set to
            MiniGrid's time limit and reward.
        layouts: a batch of the adapter's states -> `{"grid": uint8[n, H, W, 3], "agent":
            int[n, 2], "dir": int[n], "carrying": uint8[n, 3], "step": int[n]}` in MiniGrid's
            encoding (`carrying` all zero when empty).
        actions: the peer's action for each MiniGrid action the random policy draws from
            (index = MiniGrid's action).
        no_transitions: MiniGrid ids whose transitions are not compared, with the reason.
    """

    name: str
    pairs: dict[str, str]
    make: Callable[[str, int], tuple[Any, Any]]
    layouts: Callable[[Any], dict[str, np.ndarray]]
    actions: tuple[int, ...]
    no_transitions: dict[str, str] = dataclasses.field(default_factory=dict)

    def ids(self) -> list[str]:
        """The rows the audit checks: the MiniGrid ids the peer has a port of (`pairs`).

        Returns:
            The ids.
        """
        return list(self.pairs)

    def audit(self, env_id: str, scale: float, seed: int) -> Any:
        """One stage of the audit of the peer's port of the MiniGrid id `env_id`.

        Args:
            env_id: one of `ids()`.
            scale: the run's size (`RESETS_AT_ONE` resets a side, `STATES_AT_ONE` states stepped
                at 1).
            seed: the seed of both sides' draws.

        Returns:
            The `ParityResult`, named `"<peer>/<peer id>"`.

        Raises:
            ValueError: `env_id` is not one of the peer's rows.
        """
        from jaxenvs.parity import Check, ParityResult
        from jaxenvs.parity.stats import mean_check
        from jaxenvs.parity.verdict import Timer

        if env_id not in self.pairs:
            raise ValueError(f"{self.name} has no audited port of {env_id!r}; audited: {list(self.pairs)}")
        peer_id = self.pairs[env_id]
        n = max(50, int(RESETS_AT_ONE * scale))
        n_states = max(20, int(STATES_AT_ONE * scale))
        result = ParityResult(f"{self.name}/{peer_id}", f"minigrid {env_id}")
        with Timer() as timer:
            ref = minigrid_resets(env_id, n, seed)
            max_steps = ref["max_steps"]
            env, params = self.make(peer_id, max_steps)
            mine, episodes, before, steps = peer_run(env, params, self, n, n_states, seed, max_steps)
            checks = layout_checks(mine, ref, seed)
            ref_episodes = minigrid_episodes(env_id, n, seed, len(self.actions))
            for key in ("length", "return", "success"):
                checks.append(mean_check(f"random-policy episode {key}", episodes[key], ref_episodes[key], seed))
            if env_id in self.no_transitions:
                why = self.no_transitions[env_id]
                result.set_aside.append(Check("transitions", 0, 0.0, 0.0, True, kind="not compared", detail=why))
            elif checks[0].passed:
                checks += transition_checks(env_id, before, steps, max_steps)
            result.checks = checks
        result.seconds = timer.seconds
        return result


# ---------------------------------------------------------------------------------------------
# minigrid's side


def _minigrid_env(env_id: str) -> Any:
    import gymnasium
    import minigrid  # noqa: F401  (registers the ids)

    return gymnasium.make(env_id).unwrapped


def minigrid_layout(env: Any) -> dict[str, Any]:
    """The layout of a `minigrid` env's current state, in the audit's form.

    Args:
        env: an unwrapped `MiniGridEnv`.

    Returns:
        `{"grid": uint8[H, W, 3], "agent": (row, col), "dir": int, "carrying": uint8[3],
        "step": int}`.
    """
    grid = np.transpose(env.grid.encode(), (1, 0, 2))
    carrying = np.zeros(3, np.uint8) if env.carrying is None else np.asarray(env.carrying.encode(), np.uint8)
    col, row = (int(v) for v in env.agent_pos)
    return {"grid": grid, "agent": (row, col), "dir": int(env.agent_dir), "carrying": carrying, "step": env.step_count}


def minigrid_resets(env_id: str, n: int, seed: int) -> dict[str, Any]:
    """`n` reset layouts of `minigrid`'s `env_id` (seeds `seed`, `seed + 1`, ...), cached.

    Args:
        env_id: a MiniGrid id.
        n: how many resets.
        seed: the first reset's seed.

    Returns:
        `{"grid": uint8[n, H, W, 3], "agent": int[n, 2], "dir": int[n], "max_steps": int}`.
    """
    import minigrid

    from jaxenvs.audit.cache import cached

    def draw() -> dict[str, Any]:
        env = _minigrid_env(env_id)
        out = collections.defaultdict(list)
        for i in range(n):
            env.reset(seed=seed + i)
            layout = minigrid_layout(env)
            for k in ("grid", "agent", "dir"):
                out[k].append(layout[k])
        return {**{k: np.asarray(v) for k, v in out.items()}, "max_steps": int(env.max_steps)}

    return cached(f"minigrid {minigrid.__version__} {env_id} resets n={n} seed={seed}", draw)


def minigrid_episodes(env_id: str, n: int, seed: int, num_actions: int) -> dict[str, np.ndarray]:
    """`n` episodes of `minigrid`'s `env_id` under uniform actions `0..num_actions-1`, cached.

    Args:
        env_id: a MiniGrid id.
        n: how many episodes.
        seed: the seed of the resets (`seed + 10_000 + i`) and of the policy.
        num_actions: the policy draws MiniGrid's actions below this.

    Returns:
        `{"length": int[n], "return": float[n], "success": bool[n]}`.
    """
    import minigrid

    from jaxenvs.audit.cache import cached

    def draw() -> dict[str, np.ndarray]:
        env = _minigrid_env(env_id)
        rng = np.random.default_rng(seed)
        lengths, returns, successes = [], [], []
        for i in range(n):
            env.reset(seed=seed + 10_000 + i)
            length, ret, done, success = 0, 0.0, False, False
            while not done:
                _, r, terminated, truncated, _ = env.step(int(rng.integers(num_actions)))
                length, ret = length + 1, ret + float(r)
                done, success = terminated or truncated, bool(terminated and r > 0)
            lengths.append(length)
            returns.append(ret)
            successes.append(success)
        return {"length": np.asarray(lengths), "return": np.asarray(returns), "success": np.asarray(successes)}

    key = f"minigrid {minigrid.__version__} {env_id} episodes n={n} seed={seed} actions={num_actions}"
    return cached(key, draw)


def minigrid_steps(env_id: str, layouts: dict[str, np.ndarray], max_steps: int) -> dict[str, np.ndarray]:
    """`minigrid`'s step from each given layout under each of its 7 actions.

    Args:
        env_id: a MiniGrid id (its env is reset, then its grid, agent, carried object and step
            count are replaced by the layout's).
        layouts: `{"grid", "agent", "dir", "carrying", "step"}` batched, as `Peer.layouts`.
        max_steps: the time limit (for the reward).

    Returns:
        `{"agent": int[n, 7, 2], "dir": int[n, 7], "carrying": uint8[n, 7, 3], "front":
        uint8[n, 7, 3], "reward": float[n, 7], "terminated": bool[n, 7]}`.
    """
    from minigrid.core.grid import Grid
    from minigrid.core.world_object import WorldObj

    env = _minigrid_env(env_id)
    env.reset(seed=0)
    out = collections.defaultdict(list)
    for i in range(len(layouts["dir"])):
        rows = collections.defaultdict(list)
        for action in range(len(ACTION_NAMES)):
            env.grid, _ = Grid.decode(np.transpose(layouts["grid"][i], (1, 0, 2)))
            row, col = (int(v) for v in layouts["agent"][i])
            env.agent_pos, env.agent_dir = (col, row), int(layouts["dir"][i])
            carrying = layouts["carrying"][i]
            env.carrying = WorldObj.decode(*(int(v) for v in carrying)) if carrying[0] > EMPTY else None
            if env.carrying is not None:
                env.carrying.cur_pos = np.array([-1, -1])
            env.step_count, env.max_steps = int(layouts["step"][i]), max_steps
            _, reward, terminated, _, _ = env.step(action)
            after = minigrid_layout(env)
            rows["agent"].append(after["agent"])
            rows["dir"].append(after["dir"])
            rows["carrying"].append(after["carrying"])
            rows["front"].append(_front(after))
            rows["reward"].append(float(reward))
            rows["terminated"].append(bool(terminated))
        for k, v in rows.items():
            out[k].append(v)
    return {k: np.asarray(v) for k, v in out.items()}


def _front(layout: dict[str, Any]) -> np.ndarray:
    """The encoding of the cell in front of the agent (zeros off the grid)."""
    row, col = layout["agent"]
    dr, dc = MOVES[int(layout["dir"]) % 4]
    grid = layout["grid"]
    r, c = row + dr, col + dc
    if 0 <= r < grid.shape[0] and 0 <= c < grid.shape[1]:
        return np.asarray(grid[r, c], np.uint8)
    return np.zeros(3, np.uint8)


# ---------------------------------------------------------------------------------------------
# layouts


def solvable(grid: np.ndarray, agent: tuple[int, int]) -> bool:
    """Whether the layout's task can be reached from `agent` by search.

    With a goal square: a goal square is reachable. Without one (the tasks of opening a
    door or picking an object up): every key, ball, box and door is reachable (the agent can
    stand next to it) and every locked door has a reachable key of its colour. Walls and lava
    block; open and closed doors pass; a locked door passes once a key of its colour lies in
    the reachable region; keys, balls and boxes can be carried away, so they pass.

    Args:
        grid: `uint8[H, W, 3]` in MiniGrid's encoding.
        agent: the agent's `(row, col)`.

    Returns:
        Whether it is solvable.
    """
    kind, colour, state = grid[..., 0], grid[..., 1], grid[..., 2]
    height, width = kind.shape
    keys: set[int] = set()
    while True:
        seen = np.zeros(kind.shape, bool)
        seen[agent] = True
        queue = collections.deque([agent])
        found = set()
        while queue:
            r, c = queue.popleft()
            if kind[r, c] == KEY:
                found.add(int(colour[r, c]))
            for dr, dc in MOVES:
                nr, nc = r + dr, c + dc
                if not (0 <= nr < height and 0 <= nc < width) or seen[nr, nc]:
                    continue
                k = kind[nr, nc]
                if k in (WALL, LAVA) or (k == DOOR and state[nr, nc] == LOCKED and int(colour[nr, nc]) not in keys):
                    continue
                seen[nr, nc] = True
                queue.append((nr, nc))
        if found <= keys:
            break
        keys |= found
    goals = kind == GOAL
    if goals.any():
        return bool((seen & goals).any())
    near = seen.copy()  # cells the agent can stand next to
    near[1:] |= seen[:-1]
    near[:-1] |= seen[1:]
    near[:, 1:] |= seen[:, :-1]
    near[:, :-1] |= seen[:, 1:]
    objects = np.isin(kind, (KEY, BALL, BOX, DOOR))
    locked = (kind == DOOR) & (state == LOCKED)
    return bool(np.all(near[objects])) and all(int(c) in keys for c in colour[locked])


def _cells(grid: np.ndarray, kind: int) -> tuple:
    """The sorted cells of one kind of object, with colour (and state for doors)."""
    rows, cols = np.nonzero(grid[..., 0] == kind)
    if kind == GOAL:
        return tuple(zip(rows.tolist(), cols.tolist()))
    extra = (grid[rows, cols, 1].tolist(),) + ((grid[rows, cols, 2].tolist(),) if kind == DOOR else ())
    return tuple(sorted(zip(rows.tolist(), cols.tolist(), *extra)))


def _obstacles(grid: np.ndarray) -> list[tuple[int, int]]:
    """The interior cells holding a wall or lava (the border excluded)."""
    inner = grid[1:-1, 1:-1, 0]
    rows, cols = np.nonzero((inner == WALL) | (inner == LAVA))
    return list(zip((rows + 1).tolist(), (cols + 1).tolist()))


def _features(layouts: dict[str, np.ndarray], seed: int) -> dict[str, list]:
    """Per-layout outcomes compared by chi-square: start, object cells, obstacles."""
    rng = np.random.default_rng(seed)
    out: dict[str, list] = collections.defaultdict(list)
    for grid, agent, direction in zip(layouts["grid"], layouts["agent"], layouts["dir"]):
        out["agent start (row, col, direction)"].append((int(agent[0]), int(agent[1]), int(direction)))
        for name, kind in KINDS.items():
            out[f"{name} cells"].append(_cells(grid, kind))
        obstacles = _obstacles(grid)
        out["interior obstacle count"].append(len(obstacles))
        out["one obstacle cell per layout"].append(obstacles[rng.integers(len(obstacles))] if obstacles else ())
        lava = np.nonzero(grid[..., 0] == LAVA)
        out["lava cell count"].append(len(lava[0]))
        out["object counts (goal, key, door, ball, box)"].append(
            tuple(int(np.sum(grid[..., 0] == kind)) for kind in KINDS.values())
        )
    return out


def layout_checks(peer: dict[str, np.ndarray], ref: dict[str, np.ndarray], seed: int) -> list[Any]:
    """Solvability and reset-distribution checks of the peer's layouts against `minigrid`'s.

    Args:
        peer: the peer's reset layouts (`Peer.layouts`).
        ref: `minigrid`'s (`minigrid_resets`).
        seed: the seed of the per-layout obstacle draw.

    Returns:
        The checks.
    """
    from jaxenvs.parity import Check
    from jaxenvs.parity.stats import chi_square_check, exact_check

    checks = []
    shape = exact_check("grid size", np.asarray([peer["grid"].shape[1:3]]), np.asarray([ref["grid"].shape[1:3]]))
    checks.append(shape)
    if not shape.passed:
        return checks
    verdicts = {}
    for side, layouts in (("peer", peer), ("ref", ref)):
        verdicts[side] = [solvable(g, (int(a[0]), int(a[1]))) for g, a in zip(layouts["grid"], layouts["agent"])]
    bad = [i for i, v in enumerate(verdicts["peer"]) if not v]
    bad_ref = sum(not v for v in verdicts["ref"])
    n, m = len(verdicts["peer"]), len(verdicts["ref"])
    allowed = bad_ref / m
    detail = (
        f"{len(bad)} of {n} peer layouts ({len(bad) / n:.1%}) cannot be solved (no path from the agent "
        f"to the goal, or to an object, or a locked door without its key); minigrid: {bad_ref} of {m}"
    )
    mismatch = ""
    if bad:
        mismatch = f"reset {bad[0]} cannot be solved:\n{render(peer['grid'][bad[0]], peer['agent'][bad[0]])}"
    checks.append(
        Check(
            "layout solvable",
            n,
            len(bad) / n,
            allowed,
            len(bad) / n <= allowed,
            kind="error",
            detail=detail,
            first=bad[0] if bad else None,
            mismatch=mismatch,
        )
    )
    # the agent starts on an empty cell
    starts = [int(g[a[0], a[1], 0]) for g, a in zip(peer["grid"], peer["agent"])]
    starts_ref = [int(g[a[0], a[1], 0]) for g, a in zip(ref["grid"], ref["agent"])]
    on_object = [i for i, k in enumerate(starts) if k not in (EMPTY, FLOOR)]
    checks.append(
        Check(
            "agent starts on an empty cell",
            len(starts),
            float(len(on_object)),
            float(sum(k not in (EMPTY, FLOOR) for k in starts_ref)),
            len(on_object) <= sum(k not in (EMPTY, FLOOR) for k in starts_ref),
            kind="mismatches",
            detail=f"peer layouts whose agent starts on an object: {len(on_object)}"
            + (f" (cell kinds {sorted(set(starts[i] for i in on_object))}, MiniGrid's encoding)" if on_object else ""),
            first=on_object[0] if on_object else None,
        )
    )
    a, b = _features(peer, seed), _features(ref, seed)
    for name in a:
        if len(set(a[name]) | set(b[name])) <= 1:
            continue  # the same constant on both sides (or absent): nothing to test
        checks += chi_square_check(f"reset {name}", a[name], b[name])
    return checks


def render(grid: np.ndarray, agent: Any) -> str:
    """A layout as text (`#` wall, `~` lava, `G` goal, `D`/`L`/`/` closed/locked/open door,
    `K` key, `B` ball, `X` box, `A` agent).

    Args:
        grid: `uint8[H, W, 3]` in MiniGrid's encoding.
        agent: the agent's `(row, col)`.

    Returns:
        The picture, one line per row.
    """
    chars = {EMPTY: ".", FLOOR: ".", WALL: "#", LAVA: "~", GOAL: "G", KEY: "K", BALL: "B", BOX: "X"}
    lines = []
    for r in range(grid.shape[0]):
        line = ""
        for c in range(grid.shape[1]):
            k = int(grid[r, c, 0])
            ch = {OPEN: "/", CLOSED: "D", LOCKED: "L"}[int(grid[r, c, 2])] if k == DOOR else chars.get(k, "?")
            line += "A" if (r, c) == (int(agent[0]), int(agent[1])) else ch
        lines.append(line)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# the peer's side


def peer_run(
    env: Any, params: Any, peer: Peer, n: int, n_states: int, seed: int, max_steps: int
) -> tuple[dict, dict, dict, dict]:
    """The peer's side: `n` resets, the first episode from each under uniform random MiniGrid
    actions (cut at `max_steps`), and from the state each of the first `n_states` episodes
    reached at a random step (0 to 30, before it ended) the step under every action.

    One compiled step serves the episodes and the probes (it is called from Python once per
    time step), so that each row compiles the peer's step once.

    Args:
        env: the adapter's env.
        params: its params.
        peer: the peer (`layouts`, `actions`).
        n: how many resets and episodes.
        n_states: how many of the episodes give a state to step from (at most `n`).
        seed: the seed.
        max_steps: MiniGrid's time limit.

    Returns:
        `(reset layouts, episodes {"length", "return", "success"}, layouts of the states
        stepped from, their steps {"agent", "dir", "carrying", "front", "reward",
        "terminated"} with a MiniGrid-action axis of len(peer.actions))`.
    """
    import jax
    import jax.numpy as jnp

    k = len(peer.actions)
    horizon = min(30, max_steps - 1)
    rng = np.random.default_rng(seed)
    keys = jax.random.split(jax.random.key(seed), n)
    stop = jnp.asarray(rng.integers(0, horizon + 1, n), jnp.int32)
    _, start = jax.jit(jax.vmap(lambda key: env.reset_env(key, params)))(keys)

    @jax.jit
    def body(carry, action):
        state, saved, done, length, ret, success = carry
        step = jax.vmap(lambda s, a: env.step_env(jax.random.key(0), s, a, params))
        _, state, reward, terminated, _ = step(state, action)
        live = ~done
        # the state to step from: the last one before `stop` steps from which the episode goes on
        keep = live & ~terminated & (length < stop)

        def pick(a, b):
            return jnp.where(keep.reshape(keep.shape + (1,) * (a.ndim - 1)), a, b)

        saved = jax.tree_util.tree_map(pick, state, saved)
        success = success | (live & terminated & (reward > 0))
        ret = ret + jnp.where(live, reward, 0.0)
        done = done | (live & terminated)
        return (state, saved, done, length + live, ret, success), (reward, terminated)

    table = np.asarray(peer.actions, np.int32)
    carry = (start, start, jnp.zeros(n, bool), jnp.zeros(n, jnp.int32), jnp.zeros(n, jnp.float32), jnp.zeros(n, bool))
    for _ in range(max_steps):
        carry, _ = body(carry, jnp.asarray(table[rng.integers(0, k, n)]))
    _, saved, _, length, ret, success = carry
    episodes = {"length": np.asarray(length), "return": np.asarray(ret), "success": np.asarray(success)}
    # the probes: every state stepped once under each action, through the same compiled step
    outs = []
    for a in range(k):
        probe, (reward, terminated) = body((saved,) + carry[1:], jnp.full(n, table[a]))
        outs.append((peer.layouts(probe[0]), np.asarray(reward, np.float64), np.asarray(terminated, bool)))
    before = peer.layouts(saved)
    before = {key: v[:n_states] for key, v in before.items()}
    steps: dict[str, Any] = {}
    for key in ("agent", "dir", "carrying"):
        steps[key] = np.stack([o[0][key][:n_states] for o in outs], 1)
    fronts = [[_front({key: o[0][key][i] for key in ("grid", "agent", "dir")}) for i in range(n_states)] for o in outs]
    steps["front"] = np.stack([np.asarray(f) for f in fronts], 1)
    steps["reward"] = np.stack([o[1][:n_states] for o in outs], 1)
    steps["terminated"] = np.stack([o[2][:n_states] for o in outs], 1)
    return peer.layouts(start), episodes, before, steps


def transition_checks(env_id: str, before: dict, steps: dict, max_steps: int) -> list[Any]:
    """Exact checks of the peer's step against `minigrid`'s from the same states, every action.

    Args:
        env_id: the MiniGrid id.
        before: the states' layouts.
        steps: the peer's steps from them (`peer_states_and_steps`).
        max_steps: the time limit (the reward's denominator).

    Returns:
        One check per compared field over every (state, action); the reward to 1e-6.
    """
    from jaxenvs.parity.stats import error_check, exact_check

    ref = minigrid_steps(env_id, before, max_steps)
    n, k = steps["dir"].shape
    checks = []
    fields = (
        ("agent cell", "agent"),
        ("direction", "dir"),
        ("carried object", "carrying"),
        ("cell in front", "front"),
        ("terminated", "terminated"),
        ("reward", "reward"),
    )
    for label, key in fields:
        mine = steps[key].reshape((n * k,) + steps[key].shape[2:])
        theirs = ref[key][:, :k].reshape((n * k,) + ref[key].shape[2:])
        if key == "reward":
            check = error_check(f"step {label}", mine, theirs, 1e-6)
        else:
            check = exact_check(f"step {label}", mine, theirs)
        gap = np.abs(np.asarray(mine, np.float64) - np.asarray(theirs, np.float64))
        bad = np.flatnonzero(np.any((gap > 1e-6).reshape(n * k, -1), axis=1))
        if len(bad):
            per_action = collections.Counter(ACTION_NAMES[i % k] for i in bad)
            check.detail = "mismatches by action: " + ", ".join(f"{a} {c}" for a, c in per_action.items())
            i, a = divmod(int(bad[0]), k)
            check.mismatch = (
                f"{ACTION_NAMES[a]} from state {i} (agent {tuple(int(v) for v in before['agent'][i])} facing "
                f"{int(before['dir'][i])}, carrying {before['carrying'][i].tolist()}, step {int(before['step'][i])})"
                f": {label} peer {np.asarray(mine[bad[0]]).tolist()}, minigrid {np.asarray(theirs[bad[0]]).tolist()}"
                f"\n{render(before['grid'][i], before['agent'][i])}"
            )
        checks.append(check)
    checks[0].transitions = n * k
    facing = collections.Counter(
        int(_front({key: before[key][i] for key in ("grid", "agent", "dir")})[0]) for i in range(n)
    )
    names = {DOOR: "a door", KEY: "a key", BALL: "a ball", BOX: "a box", GOAL: "the goal", LAVA: "lava", WALL: "a wall"}
    seen = [f"{facing[kind]} facing {name}" for kind, name in names.items() if facing[kind]]
    carrying = int(np.sum(before["carrying"][:, 0] > EMPTY))
    coverage = f"{n} states x {k} actions; {carrying} carrying an object, " + ", ".join(seen)
    checks[0].detail = coverage + (f"; {checks[0].detail}" if checks[0].detail else "")
    return checks
