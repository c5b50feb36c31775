"""Adapter ids, as data: `"module:attr"` strings, the libraries imported only by `make`.

The name lists are written out (generated once from brax 0.14.2, jumanji 1.1.2, pgx 2.6.0,
gymnax 1.0.1, craftax 1.6.1, xminigrid 0.9.3, navix 0.7.4, playground 0.2.0 and, for ALE,
gymnasium 1.3.0's `ALE/*-v5` ids with ale-py 0.12.1)
so that `import jaxenvs` and `registered_envs()` import none of the libraries;
tests/adapters/test_adapter_registration.py checks them against the installed libraries.
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

# gymnax.registered_envs
GYMNAX_IDS = (
    "CartPole-v1",
    "Pendulum-v1",
    "Acrobot-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Asterix-MinAtar",
    "Breakout-MinAtar",
    "Freeway-MinAtar",
    "Seaquest-MinAtar",
    "SpaceInvaders-MinAtar",
    "Catch-bsuite",
    "DeepSea-bsuite",
    "MemoryChain-bsuite",
    "UmbrellaChain-bsuite",
    "DiscountingChain-bsuite",
    "MNISTBandit-bsuite",
    "SimpleBandit-bsuite",
    "FourRooms-misc",
    "MetaMaze-misc",
    "PointRobot-misc",
    "BernoulliBandit-misc",
    "GaussianBandit-misc",
    "Reacher-misc",
    "Swimmer-misc",
    "Pong-misc",
    "FrozenLake-misc",
)

# craftax.craftax_env.make_craftax_env_from_name's names without auto-reset (the
# "-AutoReset-v1" names are the same envs with Craftax's own auto-reset)
CRAFTAX_IDS = (
    "Craftax-Classic-Symbolic-v1",
    "Craftax-Classic-Pixels-v1",
    "Craftax-Symbolic-v1",
    "Craftax-Pixels-v1",
)

# xminigrid.registered_environments()
XMINIGRID_IDS = (
    "XLand-MiniGrid-R1-9x9",
    "XLand-MiniGrid-R1-11x11",
    "XLand-MiniGrid-R1-13x13",
    "XLand-MiniGrid-R1-15x15",
    "XLand-MiniGrid-R1-17x17",
    "XLand-MiniGrid-R2-9x9",
    "XLand-MiniGrid-R2-11x11",
    "XLand-MiniGrid-R2-13x13",
    "XLand-MiniGrid-R2-15x15",
    "XLand-MiniGrid-R2-17x17",
    "XLand-MiniGrid-R4-9x9",
    "XLand-MiniGrid-R4-11x11",
    "XLand-MiniGrid-R4-13x13",
    "XLand-MiniGrid-R4-15x15",
    "XLand-MiniGrid-R4-17x17",
    "XLand-MiniGrid-R6-13x13",
    "XLand-MiniGrid-R6-17x17",
    "XLand-MiniGrid-R6-19x19",
    "XLand-MiniGrid-R9-16x16",
    "XLand-MiniGrid-R9-19x19",
    "XLand-MiniGrid-R9-25x25",
    "MiniGrid-BlockedUnlockPickUp",
    "MiniGrid-DoorKey-5x5",
    "MiniGrid-DoorKey-6x6",
    "MiniGrid-DoorKey-8x8",
    "MiniGrid-DoorKey-16x16",
    "MiniGrid-Empty-5x5",
    "MiniGrid-Empty-6x6",
    "MiniGrid-Empty-8x8",
    "MiniGrid-Empty-16x16",
    "MiniGrid-EmptyRandom-5x5",
    "MiniGrid-EmptyRandom-6x6",
    "MiniGrid-EmptyRandom-8x8",
    "MiniGrid-EmptyRandom-16x16",
    "MiniGrid-FourRooms",
    "MiniGrid-LockedRoom",
    "MiniGrid-MemoryS8",
    "MiniGrid-MemoryS16",
    "MiniGrid-MemoryS32",
    "MiniGrid-MemoryS64",
    "MiniGrid-MemoryS128",
    "MiniGrid-Playground",
    "MiniGrid-Unlock",
    "MiniGrid-UnlockPickUp",
)
# navix.registry()
NAVIX_IDS = (
    "Navix-Empty-5x5-v0",
    "Navix-Empty-6x6-v0",
    "Navix-Empty-8x8-v0",
    "Navix-Empty-16x16-v0",
    "Navix-Empty-Random-5x5-v0",
    "Navix-Empty-Random-6x6-v0",
    "Navix-Empty-Random-8x8-v0",
    "Navix-Empty-Random-16x16-v0",
    "Navix-DoorKey-5x5-v0",
    "Navix-DoorKey-6x6-v0",
    "Navix-DoorKey-8x8-v0",
    "Navix-DoorKey-16x16-v0",
    "Navix-DoorKey-Random-5x5-v0",
    "Navix-DoorKey-Random-6x6-v0",
    "Navix-DoorKey-Random-8x8-v0",
    "Navix-DoorKey-Random-16x16-v0",
    "Navix-FourRooms-v0",
    "Navix-KeyCorridorS3R1-v0",
    "Navix-KeyCorridorS3R2-v0",
    "Navix-KeyCorridorS3R3-v0",
    "Navix-KeyCorridorS4R3-v0",
    "Navix-KeyCorridorS5R3-v0",
    "Navix-KeyCorridorS6R3-v0",
    "Navix-LavaGapS5-v0",
    "Navix-LavaGapS6-v0",
    "Navix-LavaGapS7-v0",
    "Navix-SimpleCrossingS9N1-v0",
    "Navix-SimpleCrossingS9N2-v0",
    "Navix-SimpleCrossingS9N3-v0",
    "Navix-SimpleCrossingS11N5-v0",
    "Navix-Dynamic-Obstacles-5x5-v0",
    "Navix-Dynamic-Obstacles-5x5-Random-v0",
    "Navix-Dynamic-Obstacles-6x6-v0",
    "Navix-Dynamic-Obstacles-6x6-Random-v0",
    "Navix-Dynamic-Obstacles-8x8-v0",
    "Navix-Dynamic-Obstacles-16x16-v0",
    "Navix-DistShift1-v0",
    "Navix-DistShift2-v0",
    "Navix-GoToDoor-5x5-v0",
    "Navix-GoToDoor-6x6-v0",
    "Navix-GoToDoor-8x8-v0",
)
# mujoco_playground.registry.{dm_control_suite, locomotion, manipulation}.ALL_ENVS
PLAYGROUND_DM_CONTROL_SUITE = (
    "AcrobotSwingup",
    "AcrobotSwingupSparse",
    "BallInCup",
    "CartpoleBalance",
    "CartpoleBalanceSparse",
    "CartpoleSwingup",
    "CartpoleSwingupSparse",
    "CheetahRun",
    "FingerSpin",
    "FingerTurnEasy",
    "FingerTurnHard",
    "FishSwim",
    "HopperHop",
    "HopperStand",
    "HumanoidStand",
    "HumanoidWalk",
    "HumanoidRun",
    "PendulumSwingup",
    "PointMass",
    "ReacherEasy",
    "ReacherHard",
    "SwimmerSwimmer6",
    "WalkerRun",
    "WalkerStand",
    "WalkerWalk",
)
PLAYGROUND_LOCOMOTION = (
    "ApolloJoystickFlatTerrain",
    "BarkourJoystick",
    "BerkeleyHumanoidJoystickFlatTerrain",
    "BerkeleyHumanoidJoystickRoughTerrain",
    "G1JoystickFlatTerrain",
    "G1JoystickRoughTerrain",
    "Go1JoystickFlatTerrain",
    "Go1JoystickRoughTerrain",
    "Go1Getup",
    "Go1Handstand",
    "Go1Footstand",
    "H1InplaceGaitTracking",
    "H1JoystickGaitTracking",
    "Op3Joystick",
    "SpotFlatTerrainJoystick",
    "SpotGetup",
    "SpotJoystickGaitTracking",
    "T1JoystickFlatTerrain",
    "T1JoystickRoughTerrain",
)
PLAYGROUND_MANIPULATION = (
    "AlohaHandOver",
    "AlohaSinglePegInsertion",
    "PandaPickCube",
    "PandaPickCubeOrientation",
    "PandaPickCubeCartesian",
    "PandaOpenCabinet",
    "PandaRobotiqPushCube",
    "LeapCubeReorient",
    "LeapCubeRotateZAxis",
    "AeroCubeRotateZAxis",
)

# gymnasium's `ALE/<Name>-v5` ids (registered by ale-py) and the ROM each plays, `(Name, rom)`:
# `ale/<Name>-v5` is a batch of those emulators (`jaxenvs.adapters.ale`, make_vec only)
ALE_GAMES = (
    ("Adventure", "adventure"),
    ("AirRaid", "air_raid"),
    ("Alien", "alien"),
    ("Amidar", "amidar"),
    ("Assault", "assault"),
    ("Asterix", "asterix"),
    ("Asteroids", "asteroids"),
    ("Atlantis2", "atlantis2"),
    ("Atlantis", "atlantis"),
    ("Backgammon", "backgammon"),
    ("BankHeist", "bank_heist"),
    ("BasicMath", "basic_math"),
    ("BattleZone", "battle_zone"),
    ("BeamRider", "beam_rider"),
    ("Berzerk", "berzerk"),
    ("Blackjack", "blackjack"),
    ("Bowling", "bowling"),
    ("Boxing", "boxing"),
    ("Breakout", "breakout"),
    ("Carnival", "carnival"),
    ("Casino", "casino"),
    ("Centipede", "centipede"),
    ("ChopperCommand", "chopper_command"),
    ("CrazyClimber", "crazy_climber"),
    ("Crossbow", "crossbow"),
    ("Darkchambers", "darkchambers"),
    ("Defender", "defender"),
    ("DemonAttack", "demon_attack"),
    ("DonkeyKong", "donkey_kong"),
    ("DoubleDunk", "double_dunk"),
    ("Earthworld", "earthworld"),
    ("ElevatorAction", "elevator_action"),
    ("Enduro", "enduro"),
    ("Entombed", "entombed"),
    ("Et", "et"),
    ("FishingDerby", "fishing_derby"),
    ("FlagCapture", "flag_capture"),
    ("Freeway", "freeway"),
    ("Frogger", "frogger"),
    ("Frostbite", "frostbite"),
    ("Galaxian", "galaxian"),
    ("Gopher", "gopher"),
    ("Gravitar", "gravitar"),
    ("Hangman", "hangman"),
    ("HauntedHouse", "haunted_house"),
    ("Hero", "hero"),
    ("HumanCannonball", "human_cannonball"),
    ("IceHockey", "ice_hockey"),
    ("Jamesbond", "jamesbond"),
    ("JourneyEscape", "journey_escape"),
    ("Kaboom", "kaboom"),
    ("Kangaroo", "kangaroo"),
    ("KeystoneKapers", "keystone_kapers"),
    ("KingKong", "king_kong"),
    ("Klax", "klax"),
    ("Koolaid", "koolaid"),
    ("Krull", "krull"),
    ("KungFuMaster", "kung_fu_master"),
    ("LaserGates", "laser_gates"),
    ("LostLuggage", "lost_luggage"),
    ("MarioBros", "mario_bros"),
    ("MiniatureGolf", "miniature_golf"),
    ("MontezumaRevenge", "montezuma_revenge"),
    ("MrDo", "mr_do"),
    ("MsPacman", "ms_pacman"),
    ("NameThisGame", "name_this_game"),
    ("Othello", "othello"),
    ("Pacman", "pacman"),
    ("Phoenix", "phoenix"),
    ("Pitfall2", "pitfall2"),
    ("Pitfall", "pitfall"),
    ("Pong", "pong"),
    ("Pooyan", "pooyan"),
    ("PrivateEye", "private_eye"),
    ("Qbert", "qbert"),
    ("Riverraid", "riverraid"),
    ("RoadRunner", "road_runner"),
    ("Robotank", "robotank"),
    ("Seaquest", "seaquest"),
    ("SirLancelot", "sir_lancelot"),
    ("Skiing", "skiing"),
    ("Solaris", "solaris"),
    ("SpaceInvaders", "space_invaders"),
    ("SpaceWar", "space_war"),
    ("StarGunner", "star_gunner"),
    ("Superman", "superman"),
    ("Surround", "surround"),
    ("Tennis", "tennis"),
    ("Tetris", "tetris"),
    ("TicTacToe3D", "tic_tac_toe_3d"),
    ("TimePilot", "time_pilot"),
    ("Trondead", "trondead"),
    ("Turmoil", "turmoil"),
    ("Tutankham", "tutankham"),
    ("UpNDown", "up_n_down"),
    ("Venture", "venture"),
    ("VideoCheckers", "video_checkers"),
    ("VideoChess", "video_chess"),
    ("VideoCube", "video_cube"),
    ("VideoPinball", "video_pinball"),
    ("WizardOfWor", "wizard_of_wor"),
    ("WordZapper", "word_zapper"),
    ("YarsRevenge", "yars_revenge"),
    ("Zaxxon", "zaxxon"),
)

# The ids that stand for their family (`registry.representatives`): `jaxenvs report` rolls out
# only these of a family that declares some (its summary line names the command for the rest),
# and the tests sample them. The smallest of each family, plus, where the family's tasks are each
# their own code (jumanji, pgx), a few unlike ones; brax/inverted_pendulum is the cheapest brax
# physics task (`jaxenvs report --family brax --all` times them all).
_SAME_ADAPTER = "the family's smallest task; every id of the family runs the same adapter code"
REPRESENTATIVE = {
    "brax/fast": "brax's toy task (no physics): the adapter at its cheapest",
    "brax/inverted_pendulum": "brax's cheapest physics task: the adapter with physics",
    **{
        f"jumanji/{env_id}": "one of jumanji's cheaper tasks, each its own code"
        for env_id in ("Snake-v1", "Game2048-v1", "Minesweeper-v0", "Maze-v0", "LevelBasedForaging-v0", "Connector-v3")
    },
    **{
        f"pgx/{env_id}": "one of pgx's cheaper games, each its own code"
        for env_id in ("tic_tac_toe", "connect_four", "minatar-breakout", "2048", "kuhn_poker")
    },
    **{
        f"gymnax/{env_id}": "a cheap gymnax env; every id runs the same adapter code"
        for env_id in ("Catch-bsuite", "Pendulum-v1", "MetaMaze-misc")
    },
    "craftax/Craftax-Classic-Symbolic-v1": _SAME_ADAPTER,
    "playground/CartpoleBalance": _SAME_ADAPTER,
    "xminigrid/MiniGrid-Empty-5x5": _SAME_ADAPTER,
    "navix/Navix-Empty-5x5-v0": _SAME_ADAPTER,
    "ale/Pong-v5": "the game every Atari agent is first tried on; every ALE id runs the same adapter code",
    "ale/Breakout-v5": "lives, a FIRE to start, the PPO example's game",
}

# Ids whose construction downloads data: tests leave them out; `jaxenvs report` names them in
# their family's line and runs them only when given --all.
_MENAGERIE = "clones MuJoCo Menagerie's robot models from GitHub when constructed"
NEEDS_DOWNLOAD = {
    "jumanji/Sokoban-v0": "downloads its Boxoban levels from Hugging Face when constructed",
    "gymnax/MNISTBandit-bsuite": "downloads MNIST when constructed",
    **{f"playground/{name}": _MENAGERIE for name in PLAYGROUND_LOCOMOTION + PLAYGROUND_MANIPULATION},
}

# Ids that fail inside their library with the tested versions: `jaxenvs report` says so
# instead of running them; a test notices when they start to work.
BROKEN_UPSTREAM = {
    "brax/swimmer": "fails inside brax 0.14.2: its fluid model calls jnp.clip(a_min=...), "
    "which jax 0.10 no longer accepts",
}

# Ids whose compiling dominates `jaxenvs report`'s quick pass on a CPU (a random rollout of
# 1,024 envs x 100 steps, compile included): where the report rolls one out on a CPU (a
# representative, one named, or --all), it rolls out fewer envs and steps
# (`jaxenvs.cli.report.SMALL_ROLLOUT`) and prints the compile time it measured;
# `jaxenvs bench ID` times the full rollout. The reasons say what costs, never how long: the
# timings are the commands' to measure on the machine at hand.
_CRAFTAX = "Craftax's step is large: compiling it dominates on a CPU"
_MJX = "MJX physics: compiling the step dominates on a CPU"
_BRAX_PHYSICS = "brax physics: compiling the step dominates on a CPU"
_BOARD = "a large board game: compiling its step dominates on a CPU"
_PACKING = "a large packing task: compiling its step dominates on a CPU"
# every ALE id: its step is ALE's emulators on the host's CPU cores, whatever the platform
_ALE_EMULATORS = "each step emulates every env of the batch on the host's CPU cores"
SLOW_ON_CPU = {
    **{f"brax/{name}": _BRAX_PHYSICS for name in BRAX_ENVS if name not in ("fast", "swimmer")},
    **{f"pgx/{name}": _BOARD for name in ("chess", "gardner_chess", "go_19x19", "shogi")},
    **{f"jumanji/{env_id}": _PACKING for env_id in ("BinPack-v2", "FlatPack-v0")},
    **{f"craftax/{env_id}": _CRAFTAX for env_id in CRAFTAX_IDS},
    **{f"playground/{name}": _MJX for name in PLAYGROUND_DM_CONTROL_SUITE},
}

# One table of the adapted families: family (also its pip extra) -> (the adapter's entry point,
# the constructor keyword that names the task, the library's own call in words, its task names).
FAMILIES = {
    "brax": ("jaxenvs.adapters.brax:BraxEnv", "name", "brax.envs.get_environment({!r})", BRAX_ENVS),
    "jumanji": ("jaxenvs.adapters.jumanji:JumanjiEnv", "env_id", "jumanji.make({!r})", JUMANJI_IDS),
    "pgx": ("jaxenvs.adapters.pgx:PgxEnv", "env_id", "pgx.make({!r})", PGX_IDS),
    "gymnax": ("jaxenvs.adapters.gymnax:make_gymnax_env", "env_id", "gymnax.make({!r})", GYMNAX_IDS),
    "craftax": (
        "jaxenvs.adapters.craftax:make_craftax_env",
        "env_id",
        "craftax.craftax_env.make_craftax_env_from_name({!r}, auto_reset=False)",
        CRAFTAX_IDS,
    ),
    "playground": (
        "jaxenvs.adapters.playground:PlaygroundEnv",
        "name",
        "mujoco_playground.registry.load({!r})",
        PLAYGROUND_DM_CONTROL_SUITE + PLAYGROUND_LOCOMOTION + PLAYGROUND_MANIPULATION,
    ),
    "xminigrid": ("jaxenvs.adapters.xminigrid:XMiniGridEnv", "env_id", "xminigrid.make({!r})", XMINIGRID_IDS),
    "navix": ("jaxenvs.adapters.navix:NavixEnv", "env_id", "navix.make({!r})", NAVIX_IDS),
}
_NOTES = (
    ("needs_download", NEEDS_DOWNLOAD),
    ("broken_upstream", BROKEN_UPSTREAM),
    ("slow_on_cpu", SLOW_ON_CPU),
    ("representative", REPRESENTATIVE),
)


def _entry(family: str, entry_point: str, keyword: str, reference: str, name: str) -> dict:
    env_id = f"{family}/{name}"
    entry = dict(
        id=env_id,
        entry_point=entry_point,
        env_kwargs={keyword: name},
        reference=reference.format(name),
        family=family,
        extra=family,
    )
    notes = {kind: table[env_id] for kind, table in _NOTES if env_id in table}
    if notes:
        entry["notes"] = notes
    return entry


def _ale_entry(name: str, rom: str) -> dict:
    """`ale/<Name>-v5`: a batch-native id (`make_vec` only), `game` its ROM."""
    env_id = f"ale/{name}-v5"
    entry = dict(
        id=env_id,
        entry_point="jaxenvs.adapters.ale:AleVectorEnv",
        env_kwargs={"game": rom, "env_id": f"{name}-v5"},
        reference=f"gymnasium.make('ALE/{name}-v5')'s settings on ale_py.AtariVectorEnv({rom!r}, num_envs)",
        family="ale",
        extra="ale",
        batch_native=True,
    )
    entry["notes"] = {"slow_on_cpu": _ALE_EMULATORS}
    if env_id in REPRESENTATIVE:
        entry["notes"]["representative"] = REPRESENTATIVE[env_id]
    return entry


REGISTRATIONS: list[dict] = [
    _entry(family, entry_point, keyword, reference, name)
    for family, (entry_point, keyword, reference, names) in FAMILIES.items()
    for name in names
] + [_ale_entry(name, rom) for name, rom in ALE_GAMES]
