"""Parity of the bsuite envs against the `bsuite` package (dm_env environments).

bsuite's envs are dm_env, not gymnasium, so this module drives them with its own loop and
returns the harness's `Check`s. Per env:

1. deterministic transitions by state injection: bsuite runs under uniform random actions;
   before each step its state (private attributes) is read and injected into the JAX env,
   both take the same action, and next state, observation, reward and `terminated`
   (bsuite's `last()`) are compared; `truncated` must stay false (bsuite ends its episodes
   itself). Continuous envs are compared in float32 and in float64 (`jax_enable_x64`), and
   along whole episodes in float64; angles are compared modulo 2 pi;
2. what the env is built from, exactly: the arm rewards, chain bonuses and deep-sea action
   mappings drawn from `mapping_seed` equal bsuite's for every seed its sweeps use;
3. random parts by distribution, sampled from both from the same injected state: reset
   states (chi-square or KS), stochastic deep sea's moves and reward noise, umbrella
   chain's coin-flip rewards and distractors, memory chain's contexts, and the
   reward-noise and reward-scale wrappers on the bandit;
4. random-policy episode length and return within 3 standard errors.

MNISTBandit runs on a small synthetic idx data set (its rules do not depend on the digits;
no data set can be fetched here), injected into bsuite's env in place of its download.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Sequence
from typing import Any
from unittest import mock

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.environment import float_dtype
from jaxenvs.parity.harness import (
    Check,
    ParityResult,
    Timer,
    chi_square_check,
    error_check,
    exact_check,
    jax_episode_statistics,
    ks_check,
    mean_check,
)

ATOL_F64_STEP = 1e-9
ATOL_F64_EPISODE = 1e-6
ATOL_F32_STEP = 1e-5
ATOL_F32_OBS = 1e-6  # observations are float32 in both


# ---------------------------------------------------------------------------------------------
# driving a bsuite env


@dataclasses.dataclass
class DmReference:
    """How to build a bsuite env and move its state in and out.

    make: `seed -> bsuite env`.
    get_state / set_state: the env's state as `{JAX field name: value}` (with `time`).
    state_cls: the JAX state dataclass; `to_jax` builds it from such a dict.
    exact: fields compared exactly; the others with a tolerance (`angles` modulo 2 pi).
    random_fields: fields the JAX step draws at random (left out of the exact comparison).
    obs_mask: which observation entries are deterministic (None: all).
    reward_is_random: `(state before, next state) -> bool`, steps whose reward is drawn.
    num_actions: actions are drawn uniformly from `0..num_actions-1`.
    """

    name: str
    make: Callable[[int], Any]
    get_state: Callable[[Any], dict[str, Any]]
    set_state: Callable[[Any, dict[str, Any]], None]
    state_cls: Any
    num_actions: int
    exact: Sequence[str] = ("time",)
    angles: Sequence[str] = ()
    random_fields: Sequence[str] = ()
    obs_mask: Callable[[np.ndarray], np.ndarray] | None = None
    reward_is_random: Callable[[dict, dict], bool] | None = None

    def to_jax(self, state: dict[str, Any]) -> Any:
        values = {}
        for f in dataclasses.fields(self.state_cls):
            v = np.asarray(state[f.name])
            if f.name in self.exact:
                values[f.name] = jnp.asarray(v, jnp.bool_ if v.dtype == np.bool_ else jnp.int32)
            else:
                values[f.name] = jnp.asarray(v, float_dtype())
        return self.state_cls(**values)


def _step_ref(env: Any, action: int):
    ts = env.step(action)
    return np.asarray(ts.observation, np.float32), float(ts.reward), bool(ts.last())


def collect_transitions(ref: DmReference, num_steps: int, seed: int) -> dict[str, Any]:
    """bsuite under uniform random actions: (state, action, next state, obs, reward, last)."""
    env = ref.make(seed)
    rng = np.random.default_rng(seed)
    env.reset()
    out: dict[str, list] = {k: [] for k in ("states", "actions", "next_states", "obs", "rewards", "last")}
    for _ in range(num_steps):
        out["states"].append(dict(ref.get_state(env)))
        action = int(rng.integers(ref.num_actions))
        obs, reward, last = _step_ref(env, action)
        out["actions"].append(action)
        out["next_states"].append(dict(ref.get_state(env)))
        out["obs"].append(obs)
        out["rewards"].append(reward)
        out["last"].append(last)
        if last:
            env.reset()
    return out


def _stack(dicts: Sequence[dict]) -> dict[str, np.ndarray]:
    return {k: np.stack([np.asarray(d[k]) for d in dicts]) for k in dicts[0]}


def _angle_error(name: str, a: np.ndarray, b: np.ndarray, atol: float) -> Check:
    d = np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)) % (2 * np.pi)
    worst = float(np.max(np.minimum(d, 2 * np.pi - d))) if d.size else 0.0
    return Check(name, len(a), worst, atol, worst <= atol, detail="modulo 2 pi")


def check_dm_transitions(
    env: Any, params: Any, ref: DmReference, num_steps: int, atol: float, seed: int = 0, label: str = "step"
) -> list[Check]:
    """Per-step parity by state injection (`env` is the raw env), one vmapped JAX call."""
    data = collect_transitions(ref, num_steps, seed)
    batch = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *[ref.to_jax(s) for s in data["states"]])
    keys = jax.random.split(jax.random.key(seed), num_steps)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    obs, nxt, reward, terminated, truncated, _ = step(keys, batch, jnp.asarray(data["actions"], jnp.int32), params)
    want = _stack(data["next_states"])
    checks = []
    for f in dataclasses.fields(ref.state_cls):
        k = f.name
        if k in ref.random_fields:
            continue
        mine = np.asarray(getattr(nxt, k))
        if k in ref.exact:
            checks.append(exact_check(f"{label} {k}", mine, want[k]))
        elif k in ref.angles:
            checks.append(_angle_error(f"{label} {k}", mine, want[k], atol))
        else:
            checks.append(error_check(f"{label} {k}", mine, want[k], atol))
    ref_obs, my_obs = np.stack(data["obs"]), np.asarray(obs)
    if ref.obs_mask is not None:
        ref_obs, my_obs = ref.obs_mask(ref_obs), ref.obs_mask(my_obs)
    checks.append(error_check(f"{label} observation", my_obs, ref_obs, max(atol, ATOL_F32_OBS)))
    rewards, my_rewards = np.asarray(data["rewards"]), np.asarray(reward, np.float64)
    if ref.reward_is_random is not None:
        keep = np.array([not ref.reward_is_random(s, n) for s, n in zip(data["states"], data["next_states"])])
        rewards, my_rewards = rewards[keep], my_rewards[keep]
    checks.append(error_check(f"{label} reward", my_rewards, rewards, ATOL_F32_OBS))
    checks.append(exact_check(f"{label} terminated", np.asarray(terminated), np.asarray(data["last"])))
    checks.append(exact_check(f"{label} truncated", np.asarray(truncated), np.zeros(num_steps, bool)))
    return checks


def check_dm_episodes(
    env: Any, params: Any, ref: DmReference, num_episodes: int, atol: float, seed: int = 0
) -> list[Check]:
    """Whole episodes: JAX runs from bsuite's reset state under bsuite's actions, never
    re-injected; the state error over every step of every episode is compared."""
    step = jax.jit(env.step)
    worst: dict[str, float] = {}
    mismatches, total = 0, 0
    rng = np.random.default_rng(seed)
    for episode in range(num_episodes):
        ref_env = ref.make(seed + episode)
        ref_env.reset()
        state = ref.to_jax(ref.get_state(ref_env))
        key = jax.random.key(seed + episode)
        last = False
        while not last:
            action = int(rng.integers(ref.num_actions))
            _, r_ref, last = _step_ref(ref_env, action)
            key, sub = jax.random.split(key)
            _, state, r, te, tr, _ = step(sub, state, action, params)
            got = ref.get_state(ref_env)
            for k in got:
                if k in ref.exact:
                    continue
                d = abs(float(getattr(state, k)) - float(got[k]))
                if k in ref.angles:
                    d = min(d % (2 * np.pi), 2 * np.pi - d % (2 * np.pi))
                worst[k] = max(worst.get(k, 0.0), d)
            mismatches += int(bool(te) != last or bool(tr) or abs(float(r) - r_ref) > 1e-6)
            total += 1
    checks = [Check(f"episode {k}", total, v, atol, v <= atol) for k, v in worst.items()]
    checks.append(Check("episode rewards and flags", total, float(mismatches), 0.0, mismatches == 0, kind="mismatches"))
    return checks


def reference_episode_statistics(make: Callable[[int], Any], num_actions: int, num_episodes: int, seed: int = 0):
    """Lengths and returns of bsuite episodes under uniform random actions."""
    env = make(seed)
    rng = np.random.default_rng(seed)
    lengths, returns = [], []
    for _ in range(num_episodes):
        env.reset()
        last, length, ret = False, 0, 0.0
        while not last:
            _, r, last = _step_ref(env, int(rng.integers(num_actions)))
            length += 1
            ret += r
        lengths.append(length)
        returns.append(ret)
    return np.asarray(lengths), np.asarray(returns)


def check_dm_episode_statistics(
    env: Any, params: Any, make: Callable[[int], Any], num_actions: int, num_episodes: int, longest: int, seed: int = 0
) -> list[Check]:
    """Random-policy episode length and return within 3 standard errors. `longest` bounds an
    episode's length; the JAX rollout runs that many steps (truncation never fires)."""
    ref_len, ref_ret = reference_episode_statistics(make, num_actions, num_episodes, seed)
    params = params.replace(max_steps_in_episode=longest + 1)
    len_, ret = jax_episode_statistics(env, params, num_episodes, seed, max_steps=longest + 1)
    return [
        mean_check("random-policy episode length", len_, ref_len),
        mean_check("random-policy episode return", ret, ref_ret),
    ]


def sample_ref_steps(ref: DmReference, state: dict, action: int, n: int, seed: int = 0):
    """`n` bsuite steps from the same injected state: (next states, rewards, observations)."""
    env = ref.make(seed)
    env.reset()
    states, rewards, obs = [], [], []
    for _ in range(n):
        ref.set_state(env, state)
        o, r, _ = _step_ref(env, action)
        states.append(dict(ref.get_state(env)))
        rewards.append(r)
        obs.append(o)
    return _stack(states), np.asarray(rewards), np.stack(obs)


def sample_jax_steps(env: Any, params: Any, ref: DmReference, state: dict, action: int, n: int, seed: int = 0):
    keys = jax.random.split(jax.random.key(seed + 7919), n)
    jstate = ref.to_jax(state)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))
    obs, nxt, reward, *_ = step(keys, jstate, jnp.int32(action), params)
    return nxt, np.asarray(reward, np.float64), np.asarray(obs)


def reset_samples(ref: DmReference, n: int, seed: int = 0):
    env = ref.make(seed)
    states, obs = [], []
    for _ in range(n):
        ts = env.reset()
        states.append(dict(ref.get_state(env)))
        obs.append(np.asarray(ts.observation, np.float32))
    return _stack(states), np.stack(obs)


def jax_reset_samples(env: Any, params: Any, n: int, seed: int = 0):
    keys = jax.random.split(jax.random.key(seed + 104729), n)
    obs, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)
    return states, np.asarray(obs)


def unbounded_ks_check(name: str, jax_samples: Any, ref_samples: Any) -> list[Check]:
    """KS test alone, for unbounded outcomes (normal noise), where the harness's range check
    would flag the tails that one sample reaches and the other does not."""
    return [c for c in ks_check(name, jax_samples, ref_samples) if not c.name.endswith(" support")]


def _rows(*columns) -> list[tuple]:
    cols = [np.asarray(c).reshape(len(c), -1) for c in columns]
    return [tuple(np.concatenate([c[i] for c in cols]).tolist()) for i in range(len(cols[0]))]


# ---------------------------------------------------------------------------------------------
# the references


def _bsuite_env(module: str, cls: str):
    import importlib

    return getattr(importlib.import_module(f"bsuite.environments.{module}"), cls)


def _attrs(mapping: dict[str, str], time: Callable[[Any], int] | None = None):
    """get/set of a bsuite env whose state is private attributes (`{jax field: attribute}`)."""

    def get_state(env):
        out = {k: np.asarray(getattr(env, a)).copy() for k, a in mapping.items()}
        if time is not None:
            out["time"] = int(time(env))
        return out

    def set_state(env, state):
        for k, a in mapping.items():
            value = np.asarray(state[k]).copy()
            setattr(env, a, value if value.ndim else value.item())
        env._reset_next_step = False

    return get_state, set_state


def _ref_bandit(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.bandit import SimpleBanditState

    get, set_ = _attrs({}, time=lambda env: int(env._reset_next_step))  # 1 once the pull is made
    return DmReference(
        "bsuite SimpleBandit",
        lambda seed: _bsuite_env("bandit", "SimpleBandit")(**env_kwargs),
        get,
        set_,
        SimpleBanditState,
        num_actions=11,
    )


def _ref_catch(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.catch import CatchState

    get, set_ = _attrs(
        {"ball_x": "_ball_x", "ball_y": "_ball_y", "paddle_x": "_paddle_x", "paddle_y": "_paddle_y"},
        time=lambda env: env._ball_y,
    )
    return DmReference(
        "bsuite Catch",
        lambda seed: _bsuite_env("catch", "Catch")(seed=seed, **env_kwargs),
        get,
        set_,
        CatchState,
        num_actions=3,
        exact=("time", "ball_x", "ball_y", "paddle_x", "paddle_y"),
    )


def _ref_deep_sea(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.deep_sea import DeepSeaState

    get, set_ = _attrs({"row": "_row", "column": "_column", "bad_episode": "_bad_episode"}, time=lambda env: env._row)
    stochastic = not env_kwargs.get("deterministic", True)
    size = env_kwargs["size"]

    def noisy_reward(before, after):
        return before["row"] == size - 1 and before["column"] in (0, size - 1)

    return DmReference(
        "bsuite DeepSea" + (" (stochastic)" if stochastic else ""),
        lambda seed: _bsuite_env("deep_sea", "DeepSea")(seed=seed, **env_kwargs),
        get,
        set_,
        DeepSeaState,
        num_actions=2,
        exact=("time", "row", "column", "bad_episode"),
        random_fields=("column",) if stochastic else (),
        obs_mask=(lambda o: o.reshape(len(o), size, size).sum(axis=2)) if stochastic else None,  # the row
        reward_is_random=noisy_reward if stochastic else None,
    )


def _ref_discounting_chain(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.discounting_chain import DiscountingChainState

    get, set_ = _attrs({"context": "_context"}, time=lambda env: env._timestep)

    def set_state(env, state):
        set_(env, state)
        env._timestep = int(state["time"])

    return DmReference(
        "bsuite DiscountingChain",
        lambda seed: _bsuite_env("discounting_chain", "DiscountingChain")(**env_kwargs),
        get,
        set_state,
        DiscountingChainState,
        num_actions=5,
        exact=("time", "context"),
    )


def _ref_memory_chain(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.memory_chain import MemoryChainState

    get, set_ = _attrs({"context": "_context", "query": "_query"}, time=lambda env: env._timestep)

    def set_state(env, state):
        set_(env, state)
        env._context = np.asarray(state["context"]).astype(np.int64)
        env._timestep = int(state["time"])

    return DmReference(
        "bsuite MemoryChain",
        lambda seed: _bsuite_env("memory_chain", "MemoryChain")(seed=seed, **env_kwargs),
        get,
        set_state,
        MemoryChainState,
        num_actions=2,
        exact=("time", "context", "query"),
    )


def _ref_umbrella_chain(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.umbrella_chain import UmbrellaChainState

    get, set_ = _attrs(
        {"need_umbrella": "_need_umbrella", "has_umbrella": "_has_umbrella"}, time=lambda env: env._timestep
    )
    chain_length = env_kwargs["chain_length"]

    def set_state(env, state):
        set_(env, state)
        env._timestep = int(state["time"])

    return DmReference(
        "bsuite UmbrellaChain",
        lambda seed: _bsuite_env("umbrella_chain", "UmbrellaChain")(seed=seed, **env_kwargs),
        get,
        set_state,
        UmbrellaChainState,
        num_actions=2,
        exact=("time", "need_umbrella", "has_umbrella"),
        obs_mask=lambda o: o.reshape(len(o), -1)[:, :3],  # distractors are fresh coins
        reward_is_random=lambda before, after: int(after["time"]) != chain_length,
    )


def _continuous(mapping: dict[str, str], time: Callable[[Any], int]):
    def get_state(env):
        out = {k: float(getattr(env, a)) for k, a in mapping.items()}
        out["time"] = int(time(env))
        return out

    def set_state(env, state):
        for k, a in mapping.items():
            setattr(env, a, float(state[k]))
        env._reset_next_step = False

    return get_state, set_state


def _cartpole_state_io(timescale: float):
    from bsuite.environments.cartpole import CartpoleState

    fields = ("x", "x_dot", "theta", "theta_dot", "time_elapsed")

    def get_state(env):
        out = {k: float(getattr(env._state, k)) for k in fields}
        out["time"] = int(round(out["time_elapsed"] / timescale))
        return out

    def set_state(env, state):
        env._state = CartpoleState(**{k: float(state[k]) for k in fields})
        env._reset_next_step = False

    return get_state, set_state


def _ref_cartpole(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.cartpole import CartPoleState

    get, set_ = _cartpole_state_io(env_kwargs.get("timescale", 0.01))
    return DmReference(
        "bsuite Cartpole",
        lambda seed: _bsuite_env("cartpole", "Cartpole")(seed=seed, **env_kwargs),
        get,
        set_,
        CartPoleState,
        num_actions=3,
        angles=("theta",),
    )


def _ref_cartpole_swingup(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.cartpole import CartPoleState

    def make(seed):
        from bsuite.experiments.cartpole_swingup.cartpole_swingup import CartpoleSwingup

        return CartpoleSwingup(seed=seed, **env_kwargs)

    get, set_ = _cartpole_state_io(env_kwargs.get("timescale", 0.01))
    return DmReference("bsuite CartpoleSwingup", make, get, set_, CartPoleState, num_actions=3, angles=("theta",))


def _ref_mountain_car(env_kwargs) -> DmReference:
    from jaxenvs.envs.bsuite.mountain_car import MountainCarState

    get, set_ = _continuous({"position": "_position", "velocity": "_velocity"}, time=lambda env: env._timestep)

    def set_state(env, state):
        set_(env, state)
        env._timestep = int(state["time"])

    return DmReference(
        "bsuite MountainCar",
        lambda seed: _bsuite_env("mountain_car", "MountainCar")(seed=seed, **env_kwargs),
        get,
        set_state,
        MountainCarState,
        num_actions=3,
    )


# ---------------------------------------------------------------------------------------------
# per-env suites


@dataclasses.dataclass
class Sizes:
    steps: int
    samples: int
    episodes: int


def _registered(env_id: str):
    from jaxenvs.registry import spec

    env, params = jaxenvs.make(env_id, autoreset=False)
    return env, params, dict(spec(env_id).env_kwargs)


def _stats(env, params, ref: DmReference, sizes: Sizes, longest: int, seed: int) -> list[Check]:
    return check_dm_episode_statistics(env, params, ref.make, ref.num_actions, sizes.episodes, longest, seed)


def _suite_bandit(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
    from jaxenvs.envs.bsuite.bandit import SimpleBandit, arm_rewards
    from jaxenvs.envs.bsuite.wrappers import RewardNoise, RewardScale

    env, params, kwargs = _registered(env_id)
    ref = _ref_bandit(kwargs)
    Bandit = _bsuite_env("bandit", "SimpleBandit")
    seeds = range(20)  # every mapping_seed of bsuite's bandit sweeps
    checks = [
        error_check(
            "arm rewards (mapping_seed 0..19)",
            np.stack([arm_rewards(11, s) for s in seeds]),
            np.stack([Bandit(mapping_seed=s)._rewards for s in seeds]),
            1e-7,
        )
    ]
    checks += check_dm_transitions(env, params, ref, sizes.steps, ATOL_F32_STEP, seed)
    # reward noise: one arm's rewards, bsuite's RewardNoise against ours (noise_scale 1)
    from bsuite.utils import wrappers as bsuite_wrappers

    arm = int(np.argmax(arm_rewards(11, kwargs["mapping_seed"])))
    ref_noisy = bsuite_wrappers.RewardNoise(Bandit(**kwargs), noise_scale=1.0, seed=seed)
    ref_rewards = []
    for _ in range(sizes.samples):
        ref_noisy.reset()
        ref_rewards.append(ref_noisy.step(arm).reward)
    noisy = RewardNoise(SimpleBandit(**kwargs), noise_scale=1.0)
    _, st = noisy.reset(jax.random.key(seed))
    keys = jax.random.split(jax.random.key(seed + 1), sizes.samples)
    mine = jax.jit(jax.vmap(lambda k: noisy.step(k, st, arm)[2]))(keys)
    checks += unbounded_ks_check("reward noise (noise_scale 1, best arm)", np.asarray(mine), np.asarray(ref_rewards))
    # reward scale: every arm, exactly
    scaled_ref = bsuite_wrappers.RewardScale(Bandit(**kwargs), reward_scale=30.0, seed=seed)
    want = []
    for a in range(11):
        scaled_ref.reset()
        want.append(scaled_ref.step(a).reward)
    scaled = RewardScale(SimpleBandit(**kwargs), reward_scale=30.0)
    got = [float(scaled.step(jax.random.key(0), st, a)[2]) for a in range(11)]
    checks.append(error_check("reward scale (reward_scale 30, every arm)", got, want, 1e-5))
    checks += _stats(env, params, ref, sizes, 1, seed)
    return checks


def _suite_catch(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
    env, params, kwargs = _registered(env_id)
    ref = _ref_catch(kwargs)
    checks = check_dm_transitions(env, params, ref, sizes.steps, 0.0, seed)
    ref_states, ref_obs = reset_samples(ref, sizes.samples, seed)
    states, obs = jax_reset_samples(env, params, sizes.samples, seed)
    checks += chi_square_check("reset ball column", np.asarray(states.ball_x), ref_states["ball_x"])
    ref_board = {int(bx): o for bx, o in zip(ref_states["ball_x"], ref_obs)}
    seen = [i for i, bx in enumerate(np.asarray(states.ball_x)) if int(bx) in ref_board]
    checks.append(
        error_check("reset board", obs[seen], np.stack([ref_board[int(states.ball_x[i])] for i in seen]), 0.0)
    )
    checks += _stats(env, params, ref, sizes, env.rows, seed)
    return checks


def _suite_deep_sea(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
    from jaxenvs.envs.bsuite.deep_sea import action_mapping

    env, params, kwargs = _registered(env_id)
    ref = _ref_deep_sea(kwargs)
    size = kwargs["size"]
    DeepSea = _bsuite_env("deep_sea", "DeepSea")
    sizes_swept = range(10, 51, 2)  # every deep_sea sweep size, mapping_seed 42
    checks = [
        exact_check(
            "action mapping (sizes 10..50, mapping_seed 42)",
            np.concatenate([action_mapping(n, 42).ravel() for n in sizes_swept]),
            np.concatenate([DeepSea(size=n, mapping_seed=42)._action_mapping.ravel() for n in sizes_swept]),
        )
    ]
    checks.append(
        exact_check("action mapping (this env)", np.asarray(params.action_mapping), DeepSea(**kwargs)._action_mapping)
    )
    checks += check_dm_transitions(env, params, ref, sizes.steps, 0.0, seed)
    if not params.deterministic:
        mapping = np.asarray(params.action_mapping)
        n = sizes.samples
        # a move right from the middle: succeeds with probability 1 - 1/size
        start = {"row": 3, "column": 2, "bad_episode": False, "time": 3}
        right = int(mapping[3, 2])
        ref_next, _, _ = sample_ref_steps(ref, start, right, n, seed)
        my_next, _, _ = sample_jax_steps(env, params, ref, start, right, n, seed)
        checks += chi_square_check("stochastic move right", np.asarray(my_next.column), ref_next["column"])
        # the bottom corners: reward noise N(0, 1) (right from the right corner also pays 1 - cost)
        for column, action, label in (
            (size - 1, int(mapping[size - 1, size - 1]), "right corner, right"),
            (0, 1 - int(mapping[size - 1, 0]), "left corner, left"),
        ):
            start = {"row": size - 1, "column": column, "bad_episode": True, "time": size - 1}
            _, ref_r, _ = sample_ref_steps(ref, start, action, n, seed + 1)
            _, my_r, _ = sample_jax_steps(env, params, ref, start, action, n, seed + 1)
            checks += unbounded_ks_check(f"stochastic reward ({label})", my_r, ref_r)
    checks += _stats(env, params, ref, sizes, size, seed)
    return checks


def _suite_discounting_chain(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
    from jaxenvs.envs.bsuite.discounting_chain import chain_rewards

    env, params, kwargs = _registered(env_id)
    ref = _ref_discounting_chain(kwargs)
    Chain = _bsuite_env("discounting_chain", "DiscountingChain")
    checks = [
        error_check(
            "chain rewards (mapping_seed 0..19)",
            np.stack([chain_rewards(s) for s in range(20)]),
            np.stack([Chain(mapping_seed=s)._rewards for s in range(20)]),
            1e-7,
        )
    ]
    checks += check_dm_transitions(env, params, ref, sizes.steps, 0.0, seed)
    checks += _stats(env, params, ref, sizes, 100, seed)
    return checks


def _suite_memory_chain(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
    from jaxenvs.envs.bsuite.memory_chain import MemoryChain

    env, params, kwargs = _registered(env_id)
    ref = _ref_memory_chain(kwargs)
    checks = check_dm_transitions(env, params, ref, sizes.steps, 0.0, seed)
    ref_states, ref_obs = reset_samples(ref, sizes.samples, seed)
    states, obs = jax_reset_samples(env, params, sizes.samples, seed)
    checks += chi_square_check(
        "reset context and query",
        _rows(states.context, states.query),
        _rows(ref_states["context"], ref_states["query"]),
    )
    # several bits (memory_size's setting): the context bits and the query
    three = {"memory_length": 2, "num_bits": 3}
    ref3 = _ref_memory_chain(three)
    ref_states, _ = reset_samples(ref3, sizes.samples, seed)
    env3 = MemoryChain(**three)
    states, _ = jax_reset_samples(env3, env3.default_params, sizes.samples, seed)
    checks += chi_square_check(
        "reset context and query (3 bits)",
        _rows(states.context, states.query),
        _rows(ref_states["context"], ref_states["query"]),
    )
    checks += check_dm_transitions(
        env3, env3.default_params, ref3, max(50, sizes.steps // 4), 0.0, seed, label="3-bit step"
    )
    checks += _stats(env, params, ref, sizes, kwargs["memory_length"] + 1, seed)
    return checks


def _suite_umbrella_chain(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
    env, params, kwargs = _registered(env_id)
    ref = _ref_umbrella_chain(kwargs)
    checks = check_dm_transitions(env, params, ref, sizes.steps, 0.0, seed)
    n = sizes.samples
    # a step in the middle: the coin-flip reward and the distractors
    start = {"need_umbrella": 1, "has_umbrella": 0, "time": 3}
    _, ref_r, ref_obs = sample_ref_steps(ref, start, 0, n, seed)
    _, my_r, my_obs = sample_jax_steps(env, params, ref, start, 0, n, seed)
    checks += chi_square_check("intermediate reward", my_r, ref_r)
    if env.n_distractor:
        distractors = lambda o: o.reshape(len(o), -1)[:, 3:]  # noqa: E731
        not_coins = int(np.sum((distractors(my_obs) != 0) & (distractors(my_obs) != 1)))
        checks.append(Check("distractors are 0 or 1", n, float(not_coins), 0.0, not_coins == 0, kind="mismatches"))
        # ones per step are binomial(n_distractor, 1/2): frequencies only (its tails are rarely sampled)
        checks += [
            c
            for c in chi_square_check(
                "distractors (ones per step)", distractors(my_obs).sum(axis=1), distractors(ref_obs).sum(axis=1)
            )
            if "frequencies" in c.name
        ]
        first = lambda o: [tuple(r) for r in o.reshape(len(o), -1)[:, 3:6].astype(int)]  # noqa: E731
        checks += chi_square_check("distractors (first three jointly)", first(my_obs), first(ref_obs))
    ref_states, _ = reset_samples(ref, n, seed)
    states, _ = jax_reset_samples(env, params, n, seed)
    checks += chi_square_check(
        "reset need and have",
        _rows(states.need_umbrella, states.has_umbrella),
        _rows(ref_states["need_umbrella"], ref_states["has_umbrella"]),
    )
    checks += _stats(env, params, ref, sizes, kwargs["chain_length"], seed)
    return checks


def _synthetic_mnist(directory: str, num: int = 16, seed: int = 0):
    from jaxenvs.envs.bsuite.mnist_data import IMAGES, LABELS, write_idx

    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(num, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=num).astype(np.uint8)
    write_idx(f"{directory}/{IMAGES}.gz", images)
    write_idx(f"{directory}/{LABELS}", labels)
    return images, labels


def _bsuite_mnist(images: np.ndarray, labels: np.ndarray, seed: int):
    """bsuite's MNISTBandit on the given arrays (its `datasets.load_mnist` downloads)."""
    from bsuite.utils import datasets

    with mock.patch.object(datasets, "load_mnist", lambda *a, **k: ((images, labels), (None, None))):
        return _bsuite_env("mnist", "MNISTBandit")(seed=seed)


def _suite_mnist(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
    from jaxenvs.envs.bsuite.mnist import MNISTBandit, MNISTBanditState

    with tempfile.TemporaryDirectory() as tmp:
        images, labels = _synthetic_mnist(tmp, seed=seed)
        env = MNISTBandit(data_dir=tmp)
        env_int8 = MNISTBandit(data_dir=tmp, int8_pixels=True)
    params = env.default_params
    checks = [
        exact_check(
            "images and labels read from idx",
            np.concatenate([np.asarray(params.images).ravel(), np.asarray(params.labels)]),
            np.concatenate([images.ravel(), labels]),
        )
    ]
    n = sizes.samples
    # reset: bsuite's image draw, identified by matching the observation to the data set
    ref_env = _bsuite_mnist(images, labels, seed)
    flat = images.reshape(len(images), -1).astype(np.float32) / 255
    ref_index = [int(np.argmin(np.abs(flat - ref_env.reset().observation.ravel()).sum(axis=1))) for _ in range(n)]
    states, obs = jax_reset_samples(env, params, n, seed)
    checks += chi_square_check("reset image", np.asarray(states.image_index), ref_index)
    checks.append(error_check("reset observation", obs.reshape(n, -1), flat[np.asarray(states.image_index)], 0.0))
    checks.append(exact_check("reset label", np.asarray(states.correct_label), labels[np.asarray(states.image_index)]))
    # bsuite's own loader reads pixels as int8: int8_pixels=True reproduces its observations
    from jaxenvs.envs.bsuite.mnist import pixels

    flat8 = images.astype(np.int8).reshape(len(images), -1).astype(np.float32) / 255
    ref_int8 = _bsuite_mnist(images.astype(np.int8), labels, seed)
    int8_obs = np.stack([ref_int8.reset().observation.ravel() for _ in range(min(n, 200))])
    int8_index = jnp.asarray([int(np.argmin(np.abs(flat8 - o).sum(axis=1))) for o in int8_obs])
    params8 = env_int8.default_params
    mine8 = jax.vmap(lambda i: pixels(params8.images[i], params8.int8_pixels))(int8_index)
    checks.append(
        error_check("int8 pixels (bsuite's loader)", np.asarray(mine8).reshape(len(int8_obs), -1), int8_obs, 0.0)
    )
    # transitions: inject the label bsuite drew, compare reward, observation and flags
    ref_env = _bsuite_mnist(images, labels, seed + 1)
    rng = np.random.default_rng(seed)
    want_r, want_last, want_obs, label_list, actions = [], [], [], [], []
    for _ in range(sizes.steps):
        ref_env.reset()
        label_list.append(int(ref_env._correct_label))
        actions.append(int(rng.integers(10)))
        o, r, last = _step_ref(ref_env, actions[-1])
        want_r.append(r)
        want_last.append(last)
        want_obs.append(o)
    first_with = {int(lab): int(np.flatnonzero(labels == lab)[0]) for lab in set(label_list)}
    batch = MNISTBanditState(
        time=jnp.zeros(len(actions), jnp.int32),
        image_index=jnp.asarray([first_with[lab] for lab in label_list], jnp.int32),
        correct_label=jnp.asarray(label_list, jnp.int32),
    )
    keys = jax.random.split(jax.random.key(seed), len(actions))
    o, _, r, te, tr, _ = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))(keys, batch, jnp.asarray(actions), params)
    checks.append(error_check("step reward", np.asarray(r), want_r, 0.0))
    checks.append(error_check("step observation", np.asarray(o), np.stack(want_obs), 0.0))
    checks.append(exact_check("step terminated", np.asarray(te), np.asarray(want_last)))
    checks.append(exact_check("step truncated", np.asarray(tr), np.zeros(len(actions), bool)))
    ref_make = lambda s: _bsuite_mnist(images, labels, s)  # noqa: E731
    ref_len, ref_ret = reference_episode_statistics(ref_make, 10, sizes.episodes, seed)
    len_, ret = jax_episode_statistics(env, params.replace(max_steps_in_episode=2), sizes.episodes, seed, max_steps=2)
    checks += [
        mean_check("random-policy episode length", len_, ref_len),
        mean_check("random-policy episode return", ret, ref_ret),
    ]
    return checks


def _suite_continuous(make_ref: Callable[[dict], DmReference], longest: int, whole_episodes: bool):
    def suite(env_id: str, sizes: Sizes, seed: int) -> list[Check]:
        env, params, kwargs = _registered(env_id)
        ref = make_ref(kwargs)
        checks = check_dm_transitions(env, params, ref, sizes.steps, ATOL_F32_STEP, seed, label="f32 step")
        with jax.enable_x64(True):
            env64, params64, _ = _registered(env_id)
            checks += check_dm_transitions(env64, params64, ref, sizes.steps, ATOL_F64_STEP, seed + 1, label="f64 step")
            if whole_episodes:
                checks += check_dm_episodes(env64, params64, ref, max(3, sizes.episodes // 20), ATOL_F64_EPISODE, seed)
        ref_states, _ = reset_samples(ref, sizes.samples, seed)
        states, _ = jax_reset_samples(env, params, sizes.samples, seed)
        fields = [k for k in ref_states if k != "time" and np.ptp(ref_states[k]) > 0]
        checks += ks_check(
            "reset",
            np.stack([np.asarray(getattr(states, k)) for k in fields], axis=1),
            np.stack([ref_states[k] for k in fields], axis=1),
        )
        checks += _stats(env, params, ref, sizes, longest, seed)
        return checks

    return suite


SUITES: dict[str, Callable[[str, Sizes, int], list[Check]]] = {
    "SimpleBandit-bsuite": _suite_bandit,
    "Catch-bsuite": _suite_catch,
    "DeepSea-bsuite": _suite_deep_sea,
    "DeepSeaStochastic-bsuite": _suite_deep_sea,
    "DiscountingChain-bsuite": _suite_discounting_chain,
    "MemoryChain-bsuite": _suite_memory_chain,
    "UmbrellaChain-bsuite": _suite_umbrella_chain,
    "MNISTBandit-bsuite": _suite_mnist,
    "CartPole-bsuite": _suite_continuous(_ref_cartpole, longest=1002, whole_episodes=True),
    "CartPoleSwingup-bsuite": _suite_continuous(_ref_cartpole_swingup, longest=1002, whole_episodes=False),
    "MountainCar-bsuite": _suite_continuous(_ref_mountain_car, longest=1000, whole_episodes=True),
}

IDS = tuple(SUITES)

_REFERENCE_NAMES = {
    "SimpleBandit-bsuite": "bsuite SimpleBandit (+ RewardNoise, RewardScale)",
    "Catch-bsuite": "bsuite Catch",
    "DeepSea-bsuite": "bsuite DeepSea",
    "DeepSeaStochastic-bsuite": "bsuite DeepSea (stochastic)",
    "DiscountingChain-bsuite": "bsuite DiscountingChain",
    "MemoryChain-bsuite": "bsuite MemoryChain",
    "UmbrellaChain-bsuite": "bsuite UmbrellaChain",
    "MNISTBandit-bsuite": "bsuite MNISTBandit (synthetic idx data)",
    "CartPole-bsuite": "bsuite Cartpole",
    "CartPoleSwingup-bsuite": "bsuite CartpoleSwingup",
    "MountainCar-bsuite": "bsuite MountainCar",
}


def run(env_id: str, scale: float = 1.0, seed: int = 0) -> ParityResult:
    import bsuite  # noqa: F401  (an ImportError here marks the result skipped)

    result = ParityResult(env_id, _REFERENCE_NAMES[env_id])
    sizes = Sizes(
        steps=max(50, int(2000 * scale)), samples=max(200, int(2000 * scale)), episodes=max(20, int(200 * scale))
    )
    with Timer() as timer:
        result.checks += SUITES[env_id](env_id, sizes, seed)
    result.seconds = timer.seconds
    return result
