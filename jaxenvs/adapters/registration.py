"""Adapter ids, as data: `"module:attr"` strings, the libraries imported only by `make`.

The name lists are written out (generated once from brax 0.14.2, jumanji 1.1.2 and pgx 2.6.0)
so that `import jaxenvs` and `registered_envs()` import none of the libraries;
tests/adapters/test_registration.py checks them against the installed libraries.
"""

# brax.envs._envs keys
BRAX_ENVS = (
    "ant",
    "fast",
    "halfcheetah",
    "hopper",
    "humanoid",
    "humanoidstandup",
    "inverted_pendulum",
    "inverted_double_pendulum",
    "pusher",
    "reacher",
    "swimmer",
    "walker2d",
)

# jumanji.registered_environments()
JUMANJI_IDS = (
    "BinPack-v2",
    "CVRP-v1",
    "Cleaner-v0",
    "Connector-v3",
    "FlatPack-v0",
    "Game2048-v1",
    "GraphColoring-v1",
    "JobShop-v0",
    "Knapsack-v1",
    "LevelBasedForaging-v0",
    "MMST-v0",
    "Maze-v0",
    "Minesweeper-v0",
    "MultiCVRP-v0",
    "PacMan-v1",
    "RobotWarehouse-v0",
    "RubiksCube-partly-scrambled-v0",
    "RubiksCube-v0",
    "SearchAndRescue-v0",
    "SlidingTilePuzzle-v0",
    "Snake-v1",
    "Sokoban-v0",
    "Sudoku-v0",
    "Sudoku-very-easy-v0",
    "TSP-v1",
    "Tetris-v0",
)

# pgx.available_envs()
PGX_IDS = (
    "2048",
    "animal_shogi",
    "backgammon",
    "chess",
    "connect_four",
    "gardner_chess",
    "go_9x9",
    "go_19x19",
    "hex",
    "kuhn_poker",
    "leduc_holdem",
    "minatar-asterix",
    "minatar-breakout",
    "minatar-freeway",
    "minatar-seaquest",
    "minatar-space_invaders",
    "othello",
    "shogi",
    "sparrow_mahjong",
    "tic_tac_toe",
)

# Ids whose construction downloads data: tests leave them out, `jaxenvs report` skips them
# unless given --all.
NEEDS_DOWNLOAD = {
    "jumanji/Sokoban-v0": "downloads its Boxoban levels from Hugging Face when constructed",
}

# Ids that fail inside their library with the tested versions: `jaxenvs report` says so
# instead of running them; a test notices when they start to work.
BROKEN_UPSTREAM = {
    "brax/swimmer": "fails inside brax 0.14.2: its fluid model calls jnp.clip(a_min=...), "
    "which jax 0.10 no longer accepts",
}

# Ids too slow for `jaxenvs report`'s quick pass (a random rollout of 1,024 envs x 100 steps,
# compile included) on a CPU; `report --all` runs them, `jaxenvs bench ID` times them.
# Measured 2026-11 on the project's 2-core CPU machine (wall time, shared with other jobs):
# brax/inverted_pendulum 47 s (the cheapest physics task), brax/ant 85 s, brax/pusher 342 s;
# pgx/chess 80 s, pgx/gardner_chess 86 s, pgx/go_19x19 209 s, pgx/shogi 385 s; jumanji/BinPack-v2 87 s,
# jumanji/FlatPack-v0 over 400 s (stopped). Against 7 s for pgx/tic_tac_toe, 12 s for
# jumanji/Snake-v1.
_BRAX_PHYSICS = "brax physics on a CPU: the report's rollout takes from ~45 s to ~6 min here"
SLOW_ON_CPU = {
    **{f"brax/{name}": _BRAX_PHYSICS for name in BRAX_ENVS if name not in ("fast", "swimmer")},
    "pgx/chess": "its 1,024-env rollout took 80 s on a 2-core CPU",
    "pgx/gardner_chess": "its 1,024-env rollout took 86 s on a 2-core CPU",
    "pgx/go_19x19": "its 1,024-env rollout took 209 s on a 2-core CPU",
    "pgx/shogi": "its 1,024-env rollout took 385 s on a 2-core CPU",
    "jumanji/BinPack-v2": "its 1,024-env rollout took 87 s on a 2-core CPU",
    "jumanji/FlatPack-v0": "its 1,024-env rollout took over 400 s on a 2-core CPU",
}

REGISTRATIONS: list[dict] = (
    [
        dict(
            id=f"brax/{name}",
            entry_point="jaxenvs.adapters.brax:BraxEnv",
            env_kwargs={"name": name},
            reference=f"brax.envs.get_environment({name!r})",
            family="brax",
            extra="brax",
        )
        for name in BRAX_ENVS
    ]
    + [
        dict(
            id=f"jumanji/{env_id}",
            entry_point="jaxenvs.adapters.jumanji:JumanjiEnv",
            env_kwargs={"env_id": env_id},
            reference=f"jumanji.make({env_id!r})",
            family="jumanji",
            extra="jumanji",
        )
        for env_id in JUMANJI_IDS
    ]
    + [
        dict(
            id=f"pgx/{env_id}",
            entry_point="jaxenvs.adapters.pgx:PgxEnv",
            env_kwargs={"env_id": env_id},
            reference=f"pgx.make({env_id!r})",
            family="pgx",
            extra="pgx",
        )
        for env_id in PGX_IDS
    ]
)

# Each id's report notes (`EnvSpec.notes`), read by `jaxenvs report`.
for _entry in REGISTRATIONS:
    _notes = {
        kind: table[_entry["id"]]
        for kind, table in (
            ("needs_download", NEEDS_DOWNLOAD),
            ("broken_upstream", BROKEN_UPSTREAM),
            ("slow_on_cpu", SLOW_ON_CPU),
        )
        if _entry["id"] in table
    }
    if _notes:
        _entry["notes"] = _notes
