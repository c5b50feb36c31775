"""brax under our harness: its MuJoCo tasks against gymnasium's MuJoCo envs of the same name.

brax's env (through our adapter, on its `mjx` pipeline: MuJoCo's own physics in JAX, the one
brax backend that claims MuJoCo's dynamics) is compared with gymnasium's `-v5` env in three
ways: the model each is built from (integrator, time step, frame skip, solver iterations,
masses, damping, gears, control ranges, observation size), the transitions from the same
injected `qpos` / `qvel` under the same action (only where the models match: elsewhere the
step would measure the model's difference, not the port's), and the episodes of a uniform
random policy (length and return) and the reset distribution, which are compared whatever the
models are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LIBRARY = "brax"
REFERENCES = ("gymnasium", "mujoco")
# gymnasium id -> brax env name
PAIRS = {
    "InvertedPendulum-v5": "inverted_pendulum",
    "HalfCheetah-v5": "halfcheetah",
    "Hopper-v5": "hopper",
    "Walker2d-v5": "walker2d",
}
NUMERICAL = ("solver iterations", "line-search iterations", "observation size")
EPISODES_AT_ONE = 200  # random-policy episodes a side at scale 1
STEPS_AT_ONE = 2000  # injected transitions at scale 1
LIMIT = 1000  # gymnasium's and brax's time limit


def ids() -> list[str]:
    """The gymnasium MuJoCo ids brax has a task of that the audit checks.

    Returns:
        The ids.
    """
    return list(PAIRS)


def _model_constants(model: Any, frame_skip: int, obs_size: int) -> dict[str, np.ndarray]:
    """The constants of a compiled MuJoCo model that decide its dynamics, by name."""
    return {
        "integrator": np.asarray([model.opt.integrator]),
        "time step": np.asarray([model.opt.timestep]),
        "frame skip": np.asarray([frame_skip]),
        "solver": np.asarray([model.opt.solver]),
        "solver iterations": np.asarray([model.opt.iterations]),
        "line-search iterations": np.asarray([model.opt.ls_iterations]),
        "body masses": np.asarray(model.body_mass),
        "joint damping": np.asarray(model.dof_damping),
        "armature": np.asarray(model.dof_armature),
        "friction": np.asarray(model.geom_friction),
        "actuator gears": np.asarray(model.actuator_gear[:, 0]),
        "control range": np.asarray(model.actuator_ctrlrange),
        "observation size": np.asarray([obs_size]),
    }


def model_checks(env_id: str, benv: Any = None) -> list:
    """The model constants of brax's task of `env_id` against gymnasium's, one check each.

    Args:
        env_id: one of `ids()`.
        benv: brax's env on its `mjx` pipeline (built here if not given).

    Returns:
        The checks, named `model <constant>` (exact for counts and enums, 1e-6 otherwise).
    """
    from jaxenvs.parity.stats import error_check, exact_check

    if benv is None:
        from jaxenvs.adapters.brax import BraxEnv

        benv = BraxEnv(PAIRS[env_id]).brax_env("mjx")
    gym = _gym_env(env_id)
    raw = gym.unwrapped
    theirs = _model_constants(raw.model, raw.frame_skip, int(np.prod(gym.observation_space.shape)))
    gym.close()
    import jax

    # the observation's size by tracing reset (brax's `observation_size` runs it)
    obs_size = int(np.prod(jax.eval_shape(benv.reset, jax.random.PRNGKey(0)).obs.shape))
    mine = _model_constants(benv.sys.mj_model, benv._n_frames, obs_size)
    checks = []
    for key, value in mine.items():
        if value.dtype.kind in "iu" or key in ("integrator", "solver"):
            checks.append(exact_check(f"model {key}", value[None], theirs[key][None]))
        else:
            checks.append(error_check(f"model {key}", value[None], theirs[key][None], 1e-6, rtol=1e-6))
    return checks


def _gym_env(gym_id: str) -> Any:
    import gymnasium

    return gymnasium.make(gym_id, max_episode_steps=LIMIT)


def _reference_side(gym_id: str, num_steps: int, num_episodes: int, seed: int) -> dict[str, Any]:
    """gymnasium's samples: injected transitions (each also from its float32-rounded inputs),
    resets and random-policy episodes; drawn once per (id, sizes, seed) and cached."""
    import gymnasium

    from jaxenvs.audit.cache import cached

    def draw() -> dict[str, Any]:
        env = _gym_env(gym_id)
        raw = env.unwrapped
        space = env.action_space
        space.seed(seed)
        # states from random-policy play
        states, obs = [], None
        obs, _ = env.reset(seed=seed)
        while len(states) < num_steps:
            states.append((raw.data.qpos.copy(), raw.data.qvel.copy()))
            obs, _, te, tr, _ = env.step(space.sample())
            if te or tr:
                env.reset()
        actions = np.stack([space.sample() for _ in range(num_steps)])
        out: dict[str, list] = {k: [] for k in ("next_q", "next_qd", "reward", "terminated", "obs")}
        for (q, qd), a in zip(states, actions):
            env.reset()
            raw.set_state(q, qd)
            o, r, te, _, _ = env.step(a)
            for k, v in zip(out, (raw.data.qpos.copy(), raw.data.qvel.copy(), r, te, o)):
                out[k].append(v)
        resets = []
        for i in range(max(200, num_episodes)):
            env.reset(seed=seed + 1 + i)
            resets.append(np.concatenate([raw.data.qpos, raw.data.qvel]))
        lengths, returns = [], []
        for i in range(num_episodes):
            env.reset(seed=seed + 10_000 + i)
            done, length, ret = False, 0, 0.0
            while not done:
                _, r, te, tr, _ = env.step(space.sample())
                length, ret, done = length + 1, ret + float(r), bool(te or tr)
            lengths.append(length)
            returns.append(ret)
        env.close()
        return {
            "q": np.stack([s[0] for s in states]),
            "qd": np.stack([s[1] for s in states]),
            "action": actions,
            **{k: np.asarray(v) for k, v in out.items()},
            "resets": np.stack(resets),
            "lengths": np.asarray(lengths),
            "returns": np.asarray(returns),
        }

    key = f"gymnasium {gymnasium.__version__} {gym_id} brax-audit steps={num_steps} episodes={num_episodes} seed={seed}"
    return cached(key, draw)


def _brax_steps(benv: Any, q: np.ndarray, qd: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
    """One brax step from each injected `(q, qd)` under each action (at the current precision)."""
    import jax
    import jax.numpy as jnp

    def one(q, qd, a):
        state = benv.reset(jax.random.PRNGKey(0))
        state = state.replace(pipeline_state=benv.pipeline_init(q, qd))
        nxt = benv.step(state, a)
        return nxt.pipeline_state.q, nxt.pipeline_state.qd, nxt.reward, nxt.done, nxt.obs

    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    out = jax.jit(jax.vmap(one))(*(jnp.asarray(x, dtype) for x in (q, qd, action)))
    return dict(zip(("next_q", "next_qd", "reward", "terminated", "obs"), (np.asarray(x) for x in out)))


def audit(env_id: str, scale: float, seed: int) -> Any:
    """One stage of the audit of brax's task of the gymnasium id `env_id`.

    Args:
        env_id: a gymnasium MuJoCo id, one of `ids()`.
        scale: the run's size (`STEPS_AT_ONE` transitions, `EPISODES_AT_ONE` episodes a side at 1).
        seed: the seed of both sides' draws.

    Returns:
        The `ParityResult`, named `"brax/<brax's name>"`.
    """
    import jax

    from jaxenvs.adapters.brax import RESCALES_ACTIONS, BraxEnv
    from jaxenvs.parity import Check, ParityResult
    from jaxenvs.parity.collect import jax_episode_statistics
    from jaxenvs.parity.stats import bounded_check, error_check, exact_check, ks_check, mean_check
    from jaxenvs.parity.verdict import Timer

    name = PAIRS[env_id]
    num_steps = max(50, int(STEPS_AT_ONE * scale))
    num_episodes = max(20, int(EPISODES_AT_ONE * scale))
    result = ParityResult(f"brax/{name}", f"gymnasium {env_id} (MuJoCo)")
    with Timer() as timer:
        ref = _reference_side(env_id, num_steps, num_episodes, seed)
        env = BraxEnv(name)
        params = env.default_params.replace(backend="mjx", max_steps_in_episode=LIMIT)
        benv = env.brax_env("mjx")
        checks = model_checks(env_id, benv)
        # the step is compared where the models define the same dynamics (the solver's iteration
        # counts are numerical settings: a difference there is measured by the step)
        models_match = all(c.passed for c in checks if c.name.removeprefix("model ") not in NUMERICAL)
        # brax's own action scale: envs that rescale map [-1, 1] onto the control range
        low, high = np.asarray(benv.sys.mj_model.actuator_ctrlrange).T
        action = ref["action"]
        if name in RESCALES_ACTIONS:
            action = (action - (low + high) / 2) / ((high - low) / 2)
        steps = []
        if models_match:
            f32 = _brax_steps(benv, ref["q"], ref["qd"], action)
            with jax.enable_x64(True):
                f64 = _brax_steps(benv, ref["q"], ref["qd"], action)
            for key in ("next_q", "next_qd", "reward"):
                steps += bounded_check(f"f32 step {key}", f32[key], ref[key], f64[key])
                steps.append(error_check(f"f64 step {key}", f64[key], ref[key], 1e-6, rtol=1e-6))
            steps.append(exact_check("f32 step terminated", f32["terminated"] > 0, ref["terminated"]))
            if f32["obs"].shape == ref["obs"].shape:
                steps += bounded_check("f32 step observation", f32["obs"], ref["obs"], f64["obs"])
            checks += steps
        else:
            differ = ", ".join(
                c.name.removeprefix("model ") for c in checks if not c.passed and c.name[6:] not in NUMERICAL
            )
            why = f"the models differ in {differ}: a step would measure the model, not the port"
            result.set_aside.append(Check("transitions", 0, 0.0, 0.0, True, kind="not compared", detail=why))
        # resets: qpos and qvel, coordinate by coordinate
        keys = jax.random.split(jax.random.key(seed), len(ref["resets"]))
        _, states = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
        pipeline = states.brax_state.pipeline_state
        resets = np.concatenate([np.asarray(pipeline.q), np.asarray(pipeline.qd)], axis=1)
        checks += ks_check("reset qpos, qvel", resets, ref["resets"], support="unbounded")
        lengths, returns = jax_episode_statistics(env, params, num_episodes, seed, LIMIT)
        checks.append(mean_check("random-policy episode length", lengths, ref["lengths"], seed))
        checks.append(mean_check("random-policy episode return", returns, ref["returns"], seed + 1))
        result.checks = checks
    result.seconds = timer.seconds
    return result
