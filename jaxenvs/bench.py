"""Throughput harness: random-action rollouts of jaxenvs and its peers, timed side by side.

`rollout_throughput` times `make_vec` alone (`jaxenvs bench`, `jaxenvs report`); `compare`
times every installed implementation of one env, taking turns run by run. Every JAX rollout
reads each step's observation (`consume`) so that XLA can drop no library's work. What is
timed and how is described in docs/benchmarks.md.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def peers(env_id: str) -> tuple[Any, str | None, str | None, tuple | None]:
    """The peers of `env_id` its registration declares (`EnvSpec.peers`).

    Args:
        env_id: A registered id.

    Returns:
        `(gymnax id, gymnasium id, envpool id, reference loop at batch size 1)`, each None where
        the library lacks the env.
    """
    from jaxenvs.registry import spec

    p = spec(env_id).peers  # an unknown id is named
    return p.get("gymnax"), p.get("gymnasium"), p.get("envpool"), p.get("loop")


def peer_ids() -> list[str]:
    """Every registered id that declares a benchmark peer.

    Returns:
        The ids, in registration order.
    """
    import jaxenvs
    from jaxenvs.registry import registered_envs

    return [env_id for env_id in registered_envs() if jaxenvs.spec(env_id).peers]


# the library name of `make_vec` timed with only rewards and state kept (the observation dead)
REWARDS_ONLY = "jaxenvs make_vec, rewards only"
GYMNAX_EXPORT = "jaxenvs gymnax export"  # jaxenvs.export.gymnax, vmapped as gymnax is
# make_vec with its reset strategy named (the default, "auto", picks one per platform)
STRATEGY_RUNS = {"jaxenvs make_vec capacity": "capacity", "jaxenvs make_vec select": "select"}


@dataclasses.dataclass
class Throughput:
    """What `rollout_throughput` measured.

    Attributes:
        env_id: The env's id.
        num_envs: The batch size.
        num_steps: Scan steps per timed run.
        steps_per_second: Env-steps per second, the median over the runs.
        compile_seconds: Seconds to lower and compile the rollout.
        repeats: The number of timed runs.
    """

    env_id: str
    num_envs: int
    num_steps: int
    steps_per_second: float
    compile_seconds: float
    repeats: int


@dataclasses.dataclass
class Result:
    """One row of `compare`: one library's rollout of one env at one batch size.

    Attributes:
        env_id: The env's id.
        library: The implementation ("jaxenvs make_vec", "gymnax", "gymnasium", ...).
        num_envs: The batch size.
        num_steps: Steps per timed run.
        steps_per_second: Env-steps per second, the median over the runs.
        compile_seconds: Seconds to lower and compile; None for libraries that do not compile.
        memory_mb: XLA's memory analysis of the compiled rollout (arguments + outputs +
            temporaries), or `tracemalloc`'s peak for a Python library.
        peak_mb: XLA's peak of the compiled rollout; None for Python libraries.
    """

    env_id: str
    library: str
    num_envs: int
    num_steps: int
    steps_per_second: float
    compile_seconds: float | None
    memory_mb: float | None
    peak_mb: float | None = None


@dataclasses.dataclass
class Footprint:
    """Bytes per env of one env's state and of one step's other outputs.

    As `jax.eval_shape` gives them: what a rollout carries and writes per step.

    Attributes:
        env_id: The env's id.
        library: "jaxenvs" or "gymnax".
        state_bytes: The state's bytes.
        step_output_bytes: The bytes of the step's observation, reward, flags and info.
        observation_bytes: The bytes of the step's observation alone.
    """

    env_id: str
    library: str
    state_bytes: int
    step_output_bytes: int
    observation_bytes: int = 0


def default_num_steps(num_envs: int) -> int:
    """Scan steps per timed run: about 400k env-steps, between 50 and 5,000 steps.

    Args:
        num_envs: The batch size.

    Returns:
        The number of steps.
    """
    return max(50, min(5000, 400_000 // num_envs))


# ---------------------------------------------------------------------------------------------
# JAX rollouts


def random_actions(key: jax.Array, space: Any, num_envs: int) -> jax.Array:
    """One action per env from one random draw.

    Discrete spaces scale 16 random bits per env to `start..start+n-1` (bias below n / 65536);
    boxes draw uniformly between the bounds; other spaces use their own sampler per env.

    Args:
        key: A JAX PRNG key.
        space: The env's action space.
        num_envs: The batch size.

    Returns:
        The actions, leading axis `num_envs`.
    """
    n = getattr(space, "n", None)
    if n is not None:
        words = jax.random.bits(key, ((num_envs + 1) // 2,), jnp.uint32)
        halves = jnp.concatenate([words & 0xFFFF, words >> 16])[:num_envs]
        start = int(getattr(space, "start", 0))
        return ((halves * jnp.uint32(int(n))) >> 16).astype(jnp.int32) + start
    if not hasattr(space, "low"):  # MultiDiscrete, Dict, Tuple: the space's own sampler per env
        return jax.vmap(space.sample)(jax.random.split(key, num_envs))
    low = jnp.broadcast_to(jnp.asarray(space.low, jnp.float32), space.shape)
    high = jnp.broadcast_to(jnp.asarray(space.high, jnp.float32), space.shape)
    return jax.random.uniform(key, (num_envs,) + tuple(space.shape), minval=low, maxval=high)


def consume_weights(shape: tuple[int, ...]) -> np.ndarray:
    """The fixed weights `consume` reads an array of one env's observation `shape` with.

    A golden-ratio sequence over the flattened elements, `0.5 + frac(i * 0.618...)`: every weight
    in [0.5, 1.5), none zero, neighbours unlike, the same in every process.

    Args:
        shape: The shape of the weighted elements (one env's observation leaf).

    Returns:
        A float32 array of `shape`.
    """
    i = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.float64)
    return (0.5 + np.modf(i * 0.6180339887498949)[0]).astype(np.float32).reshape(shape)


def consume(obs: Any) -> jax.Array:
    """Read one step's observation as a network's first layer would, into one float32.

    Every leaf is converted to float32, whatever its dtype, flattened per env and multiplied by
    a column of fixed weights (`consume_weights`, one per element of an env's observation, the
    same for every env of the batch): the matrix product of a first dense layer with one unit,
    then summed over the batch. XLA must build and read every element, and every library pays
    the same per element whatever its observation's dtype. The leading axis of a leaf with two
    or more is taken as the batch; a leaf of one axis or none is weighted whole.

    Args:
        obs: One step's observation (any pytree of arrays).

    Returns:
        A float32 scalar.
    """
    total = jnp.zeros((), jnp.float32)
    for x in jax.tree_util.tree_leaves(obs):
        x = jnp.asarray(x)
        if x.size == 0:
            continue
        rows = x.reshape(x.shape[0], -1) if x.ndim >= 2 else x.reshape(1, -1)
        if rows.dtype == jnp.bool_:  # the same 0s and 1s: XLA:CPU converts bool to float32 slowly
            rows = rows.astype(jnp.uint8)
        weights = jnp.asarray(consume_weights(rows.shape[1:]))
        total = total + jnp.sum(rows.astype(jnp.float32) @ weights, dtype=jnp.float32)
    return total


def _rollout(
    reset: Callable, step: Callable, space: Any, num_envs: int, num_steps: int, observations: bool
) -> Callable:
    """The timed scan shared by `vec_rollout` and `vmap_rollout`: `reset(key)`, `step(key, state, actions)`."""
    steps = _steps(step, space, num_envs, num_steps, observations)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        obs, state = reset(k_reset)
        return steps(state, obs, k_run)

    return run


def _steps(step: Callable, space: Any, num_envs: int, num_steps: int, observations: bool) -> Callable:
    """`steps(state, obs, key) -> (state, obs, obs read, reward sum)`: `_rollout`'s scan from a state."""

    def steps(state, obs, key):
        def body(carry, keys):
            state, last_obs, obs_total, total = carry
            if observations:  # as a policy reads the observation it acts on, from the carry
                obs_total = obs_total + consume(last_obs)
            actions = random_actions(keys[0], space, num_envs)
            obs, state, reward, *_ = step(keys[1], state, actions)
            return (state, obs if observations else last_obs, obs_total, total + jnp.sum(reward)), None

        init = (state, obs, jnp.zeros(()), jnp.zeros(()))
        carry, _ = jax.lax.scan(body, init, jax.random.split(key, (num_steps, 2)))
        return carry

    return steps


def vec_rollout(venv: Any, params: Any, num_steps: int, observations: bool = True) -> Callable:
    """A rollout of a `VecEnv` with random actions, one key per step.

    Args:
        venv: A batched env (`make_vec`'s).
        params: Its params.
        num_steps: Steps per run.
        observations: Read each step's observation (`consume`); with False only the rewards and
            the state are kept, and XLA may drop the observation: the transition's cost alone.

    Returns:
        `run(key) -> (state, obs, obs read, reward sum)`, to be jitted.
    """
    return _rollout(
        lambda key: venv.reset(key, params),
        lambda key, state, actions: venv.step(key, state, actions, params),
        venv.action_space(params),
        venv.num_envs,
        num_steps,
        observations,
    )


def vmap_rollout(env: Any, params: Any, num_envs: int, num_steps: int, observations: bool = True) -> Callable:
    """A rollout of `jax.vmap(env.step)` with random actions, one key per env (gymnax's way).

    Args:
        env: A single env that resets itself (gymnax's, or `jaxenvs.make`'s).
        params: Its params.
        num_envs: The batch size.
        num_steps: Steps per run.
        observations: As in `vec_rollout`.

    Returns:
        `run(key) -> (state, obs, obs read, reward sum)`, to be jitted.
    """
    reset = jax.vmap(env.reset, in_axes=(0, None))
    step = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    return _rollout(
        lambda key: reset(jax.random.split(key, num_envs), params),
        lambda key, state, actions: step(jax.random.split(key, num_envs), state, actions, params),
        env.action_space(params),
        num_envs,
        num_steps,
        observations,
    )


class _JaxRun:
    """A compiled rollout: compile time and XLA's memory figure kept apart from the runs."""

    def __init__(self, fn: Callable):
        key = jax.random.key(0)
        t0 = time.perf_counter()
        self.compiled = jax.jit(fn).lower(key).compile()
        self.compile_seconds = time.perf_counter() - t0
        self.memory_mb = self.peak_mb = None
        try:
            m = self.compiled.memory_analysis()
            total = m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes
            self.memory_mb = total / 2**20
            self.peak_mb = m.peak_memory_in_bytes / 2**20 or None
        except Exception:  # not every backend reports it
            pass
        jax.block_until_ready(self.compiled(key))  # warm-up, untimed
        self._calls = 0

    def __call__(self) -> None:
        self._calls += 1
        jax.block_until_ready(self.compiled(jax.random.key(self._calls)))


class _SteppedRun:
    """A compiled rollout of a batch-native env (`EnvSpec.batch_native`: ALE's emulators) that
    times steps only: one reset, untimed, and each run steps on from the last run's state.

    Its reset seeds every emulator, which reloads its ROM (docs/ale.md): timed with the steps,
    as `_JaxRun` does, a short rollout measures that reset. A state is used once, so the runs
    chain their states.
    """

    def __init__(self, venv: Any, params: Any, num_steps: int):
        space, n = venv.action_space(params), venv.num_envs
        steps = _steps(lambda k, s, a: venv.step(k, s, a, params), space, n, num_steps, observations=True)
        self.obs, self.state = jax.jit(lambda key: venv.reset(key, params))(jax.random.key(0))
        t0 = time.perf_counter()
        self.compiled = jax.jit(steps).lower(self.state, self.obs, jax.random.key(0)).compile()
        self.compile_seconds = time.perf_counter() - t0
        self.memory_mb = self.peak_mb = None
        self._calls = 0
        self()  # warm-up, untimed

    def __call__(self) -> None:
        self._calls += 1
        out = jax.block_until_ready(self.compiled(self.state, self.obs, jax.random.key(self._calls)))
        self.state, self.obs = out[0], out[1]


# ---------------------------------------------------------------------------------------------
# Python-loop libraries


class _PyRun:
    """Steps a numpy/C++ library's env(s) in a Python loop, actions from one generator call.

    A probe of a few steps (also where `tracemalloc` watches memory) sets the steps of a run
    so that one takes about `run_seconds`, at most `num_steps`."""

    def __init__(
        self,
        step: Callable[[Any], Any],
        sample: Callable[[np.random.Generator], Any],
        num_steps: int,
        run_seconds: float = 0.5,
    ):
        import tracemalloc

        self.step, self.sample = step, sample
        self.rng = np.random.default_rng(0)
        self.compile_seconds = self.peak_mb = None
        self.num_steps = probe = 3
        self()  # warm-up
        t0 = time.perf_counter()
        self()
        per_step = (time.perf_counter() - t0) / probe
        tracemalloc.start()
        self()
        self.memory_mb = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        self.num_steps = int(max(5, min(num_steps, run_seconds / max(per_step, 1e-9))))

    def __call__(self) -> None:
        step, sample, rng = self.step, self.sample, self.rng
        for _ in range(self.num_steps):
            step(sample(rng))


def _numpy_sampler(space: Any, num_envs: int | None) -> Callable[[np.random.Generator], Any]:
    shape = () if num_envs is None else (num_envs,)
    if hasattr(space, "n"):
        n, start = int(space.n), int(getattr(space, "start", 0))
        if num_envs is None:
            return lambda rng: int(rng.integers(start, start + n))
        return lambda rng: rng.integers(start, start + n, size=shape)
    low, high = np.asarray(space.low, np.float32), np.asarray(space.high, np.float32)
    return lambda rng: rng.uniform(low, high, size=shape + tuple(space.shape)).astype(np.float32)


def _gymnasium_run(gym_id: str, num_envs: int, num_steps: int) -> _PyRun:
    import gymnasium

    if num_envs == 1:
        env = gymnasium.make(gym_id)
        env.reset(seed=0)

        def step(action):
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()

        return _PyRun(step, _numpy_sampler(env.action_space, None), num_steps)
    mode = "vector_entry_point" if gymnasium.spec(gym_id).vector_entry_point else "sync"
    envs = gymnasium.make_vec(gym_id, num_envs=num_envs, vectorization_mode=mode)
    envs.reset(seed=0)
    return _PyRun(envs.step, _numpy_sampler(envs.single_action_space, num_envs), num_steps)


def _envpool_run(pool_id: str, num_envs: int, num_steps: int) -> _PyRun:
    import envpool

    envs = envpool.make_gymnasium(pool_id, num_envs=num_envs)
    envs.reset()
    return _PyRun(envs.step, _numpy_sampler(envs.action_space, num_envs), num_steps)


def _minatar_run(game: str, num_steps: int) -> _PyRun:
    """MinAtar's `Environment` (six actions, sticky actions 0.1) with its observation each step."""
    import minatar

    env = minatar.Environment(game)
    env.seed(0)
    env.reset()

    def step(action):
        _, terminal = env.act(action)
        env.state()
        if terminal:
            env.reset()

    return _PyRun(step, lambda rng: int(rng.integers(0, env.num_actions())), num_steps)


def _bsuite_run(name: str, kwargs: dict, num_steps: int) -> _PyRun:
    import importlib

    module = importlib.import_module(f"bsuite.environments.{name}")
    cls = {"catch": "Catch", "deep_sea": "DeepSea"}[name]
    env = getattr(module, cls)(seed=0, **kwargs)
    env.reset()
    num_actions = env.action_spec().num_values

    def step(action):
        if env.step(action).last():
            env.reset()

    return _PyRun(step, lambda rng: int(rng.integers(0, num_actions)), num_steps)


# ---------------------------------------------------------------------------------------------
# comparison


def candidates(env_id: str, num_envs: int, libraries: Iterable[str] | None = None):
    """The implementations of `env_id` that `compare` can time.

    Args:
        env_id: A registered id.
        num_envs: The batch size.
        libraries: Keep only these library names (all available by default; "jaxenvs gymnax
            export" only when named).

    Returns:
        `(library, build)` pairs; `build(num_steps)` returns a runner of `num_steps` steps.
    """
    import jaxenvs

    gymnax_id, gym_id, pool_id, reference = peers(env_id)
    out: list[tuple[str, Callable[[], Any]]] = []

    def make_vec_run(num_steps, reset_strategy="auto"):
        venv, params = jaxenvs.make_vec(env_id, num_envs, reset_strategy=reset_strategy)
        return _JaxRun(vec_rollout(venv, params, num_steps))

    def make_vec_rewards_run(num_steps):
        venv, params = jaxenvs.make_vec(env_id, num_envs)
        return _JaxRun(vec_rollout(venv, params, num_steps, observations=False))

    def vmap_run(num_steps):
        env, params = jaxenvs.make(env_id)
        return _JaxRun(vmap_rollout(env, params, num_envs, num_steps))

    def export_run(num_steps):
        from jaxenvs.export import gymnax as jaxenvs_gymnax

        env, params = jaxenvs_gymnax.make(env_id)
        return _JaxRun(vmap_rollout(env, params, num_envs, num_steps))

    def gymnax_run(num_steps):
        import gymnax

        name, kwargs = gymnax_id if isinstance(gymnax_id, tuple) else (gymnax_id, {})
        env, params = gymnax.make(name, **kwargs)
        return _JaxRun(vmap_rollout(env, params, num_envs, num_steps))

    out += [("jaxenvs make_vec", make_vec_run), ("jaxenvs vmap", vmap_run)]
    out.append((REWARDS_ONLY, make_vec_rewards_run))
    if libraries is not None and GYMNAX_EXPORT in set(libraries):
        out.append((GYMNAX_EXPORT, export_run))
    for library, strategy in STRATEGY_RUNS.items():
        if libraries is not None and library in set(libraries):
            out.append((library, lambda k, strategy=strategy: make_vec_run(k, strategy)))
    if gymnax_id:
        out.append(("gymnax", gymnax_run))
    if gym_id:
        out.append(("gymnasium", lambda k: _gymnasium_run(gym_id, num_envs, k)))
    if pool_id and num_envs > 1:
        out.append(("envpool", lambda k: _envpool_run(pool_id, num_envs, k)))
    if reference and num_envs == 1:
        if reference[0] == "minatar":
            out.append(("minatar", lambda k: _minatar_run(reference[1], k)))
        else:
            out.append(("bsuite", lambda k: _bsuite_run(reference[1], reference[2], k)))
    if libraries is not None:
        wanted = set(libraries)
        out = [c for c in out if c[0] in wanted]
    return out


def compare(
    env_id: str,
    num_envs: int,
    num_steps: int | None = None,
    repeats: int = 5,
    libraries: Iterable[str] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    max_run_seconds: float = 1.0,
    on_skip: Callable[[str, Exception], None] | None = None,
) -> list[Result]:
    """Time every installed implementation of `env_id` at `num_envs`, taking turns run by run.

    A JAX rollout whose warm-up run took over `max_run_seconds` is compiled again with fewer
    steps. A library that is missing (ImportError) or fails to build is skipped.

    Args:
        env_id: A registered id.
        num_envs: The batch size.
        num_steps: Steps per run; `default_num_steps(num_envs)` by default.
        repeats: Timed runs per library; the median is reported.
        libraries: Time only these library names (see `candidates`).
        clock: The clock the runs are timed with (`time.process_time` for CPU time).
        max_run_seconds: The longest a JAX run may take before it is rebuilt shorter.
        on_skip: Called with `(library, exception)` for each library skipped.

    Returns:
        One `Result` per library timed.
    """
    num_steps = default_num_steps(num_envs) if num_steps is None else num_steps
    runners: dict[str, Any] = {}
    for library, build in candidates(env_id, num_envs, libraries):
        try:
            runner = build(num_steps)
            if isinstance(runner, _JaxRun):
                t0 = time.perf_counter()
                runner()
                took = time.perf_counter() - t0
                if took > max_run_seconds:  # the step count is compiled in: build again
                    steps = max(5, int(num_steps * max_run_seconds / took))
                    first_compile = runner.compile_seconds
                    runner = build(steps)
                    runner.compile_seconds = first_compile
                    runner.num_steps = steps
                else:
                    runner.num_steps = num_steps
            runners[library] = runner
        except Exception as e:  # noqa: BLE001 -- a peer that cannot run is reported, not fatal
            if on_skip is not None:
                on_skip(library, e)
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(repeats):
        for name, runner in runners.items():
            t0 = clock()
            runner()
            times[name].append(clock() - t0)
    return [
        Result(
            env_id,
            name,
            num_envs,
            runner.num_steps,
            num_envs * runner.num_steps / statistics.median(times[name]),
            runner.compile_seconds,
            runner.memory_mb,
            runner.peak_mb,
        )
        for name, runner in runners.items()
    ]


def _nbytes(tree: Any) -> int:
    total = 0
    for x in jax.tree_util.tree_leaves(tree):
        total += int(np.prod(x.shape, dtype=np.int64)) * x.dtype.itemsize
    return total


def footprint(env: Any, params: Any, env_id: str, library: str) -> Footprint:
    """State and step-output bytes of one (unbatched, self-resetting) env, without running it.

    Args:
        env: The env.
        params: Its params.
        env_id: The id recorded in the result.
        library: The library recorded in the result.

    Returns:
        A `Footprint`.
    """
    key = jax.random.key(0)
    _, state = jax.eval_shape(env.reset, key, params)
    action = jax.eval_shape(env.action_space(params).sample, key)
    out = jax.eval_shape(env.step, key, state, action, params)
    # state is the second element of both gymnax's five-tuple and the six-tuple
    outputs = [x for i, x in enumerate(out) if i != 1]
    return Footprint(env_id, library, _nbytes(state), _nbytes(outputs), _nbytes(out[0]))


def footprints(env_id: str) -> list[Footprint]:
    """The footprints of `jaxenvs.make(env_id)` and, where installed and it has the id, gymnax's env.

    Args:
        env_id: A registered id.

    Returns:
        One `Footprint` per library (jaxenvs' auto-resetting env first).
    """
    import jaxenvs

    env, params = jaxenvs.make(env_id)
    out = [footprint(env, params, env_id, "jaxenvs")]
    gymnax_id = peers(env_id)[0]
    if gymnax_id:
        try:
            import gymnax
        except ImportError:
            return out
        name, kwargs = gymnax_id if isinstance(gymnax_id, tuple) else (gymnax_id, {})
        genv, gparams = gymnax.make(name, **kwargs)
        out.append(footprint(genv, gparams, env_id, "gymnax"))
    return out


def rollout_throughput(
    env_id: str, num_envs: int = 1024, num_steps: int = 100, repeats: int = 5, **overrides: Any
) -> Throughput:
    """Median steps/s of a jitted random-action rollout of `make_vec(env_id, num_envs)`.

    Args:
        env_id: A registered id.
        num_envs: The batch size.
        num_steps: Scan steps per timed run.
        repeats: Timed runs; the median is reported.
        **overrides: Params fields passed to `make_vec`.

    Returns:
        A `Throughput`. A batch-native id's runs (ALE's) time steps only, from one untimed reset
        (`_SteppedRun`); every other id's time a reset and the steps.
    """
    from jaxenvs.registry import make_vec, spec

    venv, params = make_vec(env_id, num_envs, **overrides)
    if spec(env_id).batch_native:
        run = _SteppedRun(venv, params, num_steps)
    else:
        run = _JaxRun(vec_rollout(venv, params, num_steps))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    return Throughput(env_id, num_envs, num_steps, num_envs * num_steps / median, run.compile_seconds, repeats)
