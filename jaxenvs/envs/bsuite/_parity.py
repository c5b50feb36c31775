"""Parity of the bsuite envs against the `bsuite` package, through `DmEnvReference`.

bsuite's envs are dm_env environments keeping their state in private attributes; each is
read into (and written from) a dict with the JAX state's field names. Per env:

1. deterministic transitions by state injection under uniform random actions: next state,
   observation, reward, `terminated` (bsuite's `last()`) and `truncated` (bsuite ends its
   episodes itself: never). Continuous envs are compared in float32 and in float64
   (`jax_enable_x64`), and along whole episodes in float64; angles modulo 2 pi;
2. what the env is built from, exactly: the arm rewards, chain bonuses and deep-sea action
   mappings drawn from `mapping_seed` equal bsuite's for every seed its sweeps use;
3. random parts by distribution, sampled from both from the same injected state: reset
   states (chi-square or KS), stochastic deep sea's moves and reward noise, umbrella
   chain's coin-flip rewards and distractors, memory chain's contexts, and the
   reward-noise and reward-scale wrappers on the bandit;
4. random-policy episode length and return compared by a p-value (`mean_check`).

MNISTBandit runs on a small synthetic idx data set (its rules do not depend on the digits;
no data set can be fetched here), injected into bsuite's env in place of its download.
"""

from __future__ import annotations

import importlib
import tempfile
from collections.abc import Callable
from typing import Any
from unittest import mock

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.parity import checks as tolerances  # the stated ATOL_* of every family
from jaxenvs.parity.checks import (
    Check,
    Sizes,
    error_check,
    exact_check,
    rows,
)
from jaxenvs.parity.harness import (
    check_episode_statistics,
    check_episodes,
    check_resets,
    check_step_distribution,
    check_transitions,
    near_time_limit,
    sample_jax_resets,
)
from jaxenvs.parity.reference import DmEnvReference

# ---------------------------------------------------------------------------------------------
# the references


def _bsuite_env(module: str, cls: str):
    return getattr(importlib.import_module(f"bsuite.environments.{module}"), cls)


def _attrs(mapping: dict[str, str], time: Callable[[Any], int] | None = None, timestep: bool = False):
    """read/write of a bsuite env whose state is private attributes (`{jax field: attribute}`);
    `timestep`: the time is also written back to `_timestep`."""

    def read_state(env):
        out = {k: np.asarray(getattr(env, a)).copy() for k, a in mapping.items()}
        if time is not None:
            out["time"] = int(time(env))
        return out

    def write_state(env, state):
        for k, a in mapping.items():
            value = np.asarray(state[k]).copy()
            setattr(env, a, value if value.ndim else value.item())
        if timestep:
            env._timestep = int(state["time"])
        env._reset_next_step = False

    return read_state, write_state


def _reference(name: str, make: Callable[[int], Any], io: tuple, **kwargs: Any) -> DmEnvReference:
    # bsuite never truncates: every last step is a termination, and the JAX flag must stay false
    return DmEnvReference(
        make=make,
        read_state=io[0],
        write_state=io[1],
        discount_truncates=False,
        truncation_excludes_termination=False,
        name=name,
        **kwargs,
    )


def _ref_bandit(env_kwargs) -> DmEnvReference:
    # time: 1 once the pull is made
    io = _attrs({}, time=lambda env: int(env._reset_next_step))
    return _reference("bsuite SimpleBandit", lambda seed: _bsuite_env("bandit", "SimpleBandit")(**env_kwargs), io)


def _ref_catch(env_kwargs) -> DmEnvReference:
    io = _attrs(
        {"ball_x": "_ball_x", "ball_y": "_ball_y", "paddle_x": "_paddle_x", "paddle_y": "_paddle_y"},
        time=lambda env: env._ball_y,
    )
    return _reference(
        "bsuite Catch",
        lambda seed: _bsuite_env("catch", "Catch")(seed=seed, **env_kwargs),
        io,
        exact_fields=("time", "ball_x", "ball_y", "paddle_x", "paddle_y"),
    )


def _ref_deep_sea(env_kwargs) -> DmEnvReference:
    io = _attrs({"row": "_row", "column": "_column", "bad_episode": "_bad_episode"}, time=lambda env: env._row)
    stochastic = not env_kwargs.get("deterministic", True)
    size = env_kwargs["size"]

    def noisy_reward(before, after, reward):
        return before["row"] == size - 1 and before["column"] in (0, size - 1)

    return _reference(
        "bsuite DeepSea" + (" (stochastic)" if stochastic else ""),
        lambda seed: _bsuite_env("deep_sea", "DeepSea")(seed=seed, **env_kwargs),
        io,
        exact_fields=("time", "row", "column", "bad_episode"),
        random_fields=("column",) if stochastic else (),
        obs_mask=(lambda o: o.reshape(len(o), size, size).sum(axis=2)) if stochastic else None,  # the row
        random_step=noisy_reward if stochastic else None,
        random_step_fields=("reward",),
    )


def _ref_discounting_chain(env_kwargs) -> DmEnvReference:
    io = _attrs({"context": "_context"}, time=lambda env: env._timestep, timestep=True)
    return _reference(
        "bsuite DiscountingChain",
        lambda seed: _bsuite_env("discounting_chain", "DiscountingChain")(**env_kwargs),
        io,
        exact_fields=("time", "context"),
    )


def _ref_memory_chain(env_kwargs) -> DmEnvReference:
    read_state, write = _attrs(
        {"context": "_context", "query": "_query"}, time=lambda env: env._timestep, timestep=True
    )

    def write_state(env, state):
        write(env, state)
        env._context = np.asarray(state["context"]).astype(np.int64)

    return _reference(
        "bsuite MemoryChain",
        lambda seed: _bsuite_env("memory_chain", "MemoryChain")(seed=seed, **env_kwargs),
        (read_state, write_state),
        exact_fields=("time", "context", "query"),
    )


def _ref_umbrella_chain(env_kwargs) -> DmEnvReference:
    io = _attrs(
        {"need_umbrella": "_need_umbrella", "has_umbrella": "_has_umbrella"},
        time=lambda env: env._timestep,
        timestep=True,
    )
    chain_length = env_kwargs["chain_length"]
    return _reference(
        "bsuite UmbrellaChain",
        lambda seed: _bsuite_env("umbrella_chain", "UmbrellaChain")(seed=seed, **env_kwargs),
        io,
        exact_fields=("time", "need_umbrella", "has_umbrella"),
        obs_mask=lambda o: o.reshape(len(o), -1)[:, :3],  # distractors are fresh coins
        random_step=lambda before, after, reward: int(after["time"]) != chain_length,
        random_step_fields=("reward",),
    )


def _cartpole_io(timescale: float):
    from bsuite.environments.cartpole import CartpoleState

    fields = ("x", "x_dot", "theta", "theta_dot", "time_elapsed")

    def read_state(env):
        out = {k: float(getattr(env._state, k)) for k in fields}
        out["time"] = int(round(out["time_elapsed"] / timescale))
        return out

    def write_state(env, state):
        env._state = CartpoleState(**{k: float(state[k]) for k in fields})
        env._reset_next_step = False

    return read_state, write_state


def _ref_cartpole(env_kwargs) -> DmEnvReference:
    return _reference(
        "bsuite Cartpole",
        lambda seed: _bsuite_env("cartpole", "Cartpole")(seed=seed, **env_kwargs),
        _cartpole_io(env_kwargs.get("timescale", 0.01)),
        angle_fields=("theta",),
    )


def _ref_cartpole_swingup(env_kwargs) -> DmEnvReference:
    def make(seed):
        from bsuite.experiments.cartpole_swingup.cartpole_swingup import CartpoleSwingup

        return CartpoleSwingup(seed=seed, **env_kwargs)

    return _reference(
        "bsuite CartpoleSwingup", make, _cartpole_io(env_kwargs.get("timescale", 0.01)), angle_fields=("theta",)
    )


def _ref_mountain_car(env_kwargs) -> DmEnvReference:
    read_state, write = _attrs({}, time=lambda env: env._timestep, timestep=True)

    def read(env):
        return dict(read_state(env), position=float(env._position), velocity=float(env._velocity))

    def write_state(env, state):
        write(env, state)
        env._position, env._velocity = float(state["position"]), float(state["velocity"])

    return _reference(
        "bsuite MountainCar",
        lambda seed: _bsuite_env("mountain_car", "MountainCar")(seed=seed, **env_kwargs),
        (read, write_state),
    )


# ---------------------------------------------------------------------------------------------
# per-env suites


def _registered(env_id: str, env: Any, params: Any):
    """The env under test and its params, and the id's registered bsuite settings (the reference's)."""
    from jaxenvs.parity import env_under_test

    env, params = env_under_test(env_id, env, params)
    return env, params, dict(jaxenvs.spec(env_id).env_kwargs)


def _stats(env, params, ref: DmEnvReference, sizes: Sizes, longest: int, seed: int) -> list[Check]:
    """Random-policy statistics; `longest` bounds an episode, so the JAX time limit is set
    past it (bsuite ends its episodes itself)."""
    params = params.replace(max_steps_in_episode=longest + 1)
    return check_episode_statistics(env, params, ref, sizes.episodes, seed, max_steps=longest + 1)


def _resets(env, params, ref, sizes: Sizes, seed: int, outcome: Callable, label: str) -> list[Check]:
    """A discrete reset distribution, as `outcome(states, observations)` rows."""
    return check_resets(env, params, ref, sizes.samples, seed, outcome=outcome, discrete=True, label=label)


def _transitions(env, params, ref, sizes: Sizes, seed: int, atol: float = 0.0, **kwargs) -> list[Check]:
    return check_transitions(env, params, ref, sizes.steps, atol, seed, reward_atol=tolerances.ATOL_F32_OBS, **kwargs)


def _suite_bandit(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
    from bsuite.utils import wrappers as bsuite_wrappers

    from jaxenvs.envs.bsuite.bandit import SimpleBandit, arm_rewards
    from jaxenvs.envs.bsuite.wrappers import RewardNoise, RewardScale

    env, params, kwargs = _registered(env_id, env, params)
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
    checks += _transitions(env, params, ref, sizes, seed, tolerances.ATOL_F32_STEP)
    # reward noise (noise_scale 1) on the best arm, and reward scale (30) on every arm: the
    # wrapped envs as references of their own
    arm = int(np.argmax(arm_rewards(11, kwargs["mapping_seed"])))
    inner = (lambda env: ref.read_state(env._env), lambda env, s: ref.write_state(env._env, s))
    noisy_ref = _reference(
        "bsuite RewardNoise(SimpleBandit)",
        lambda s: bsuite_wrappers.RewardNoise(Bandit(**kwargs), noise_scale=1.0, seed=s),
        inner,
    )
    noisy = RewardNoise(SimpleBandit(**kwargs), noise_scale=1.0)
    checks += check_step_distribution(
        noisy,
        noisy.default_params,
        noisy_ref,
        [({"time": 0}, arm)],
        sizes.samples,
        lambda t: t.rewards,
        seed,
        label="reward noise (noise_scale 1, best arm)",
        continuous="unbounded",
    )
    scaled_ref = _reference(
        "bsuite RewardScale(SimpleBandit)",
        lambda s: bsuite_wrappers.RewardScale(Bandit(**kwargs), reward_scale=30.0, seed=s),
        inner,
    )
    scaled = RewardScale(SimpleBandit(**kwargs), reward_scale=30.0)
    cases = scaled_ref.step_cases([({"time": 0}, a) for a in range(11)])
    checks += check_transitions(
        scaled, scaled.default_params, scaled_ref, data=cases, reward_atol=1e-5, label="reward scale (30, every arm)"
    )
    checks += _stats(env, params, ref, sizes, 1, seed)
    return checks


def _suite_catch(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
    env, params, kwargs = _registered(env_id, env, params)
    ref = _ref_catch(kwargs)
    checks = _transitions(env, params, ref, sizes, seed)
    checks += _resets(env, params, ref, sizes, seed, lambda s, o: s["ball_x"], "reset ball column")
    # the board is a function of the ball's column: equal for every column both drew
    ref_states, ref_obs = ref.sample_resets(sizes.samples, seed)
    states, obs = sample_jax_resets(env, params, ref, sizes.samples, seed)
    ref_board = {int(bx): o for bx, o in zip(ref_states["ball_x"], np.asarray(ref_obs))}
    seen = [i for i, bx in enumerate(states["ball_x"]) if int(bx) in ref_board]
    want = np.stack([ref_board[int(states["ball_x"][i])] for i in seen])
    checks.append(error_check("reset board", np.asarray(obs)[seen], want, 0.0))
    checks += _stats(env, params, ref, sizes, env.rows, seed)
    return checks


def _suite_deep_sea(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
    from jaxenvs.envs.bsuite.deep_sea import action_mapping

    env, params, kwargs = _registered(env_id, env, params)
    ref = _ref_deep_sea(kwargs)
    size = kwargs["size"]
    DeepSea = _bsuite_env("deep_sea", "DeepSea")
    sizes_swept = range(10, 51, 2)  # every deep_sea sweep size, mapping_seed 42
    checks = [
        exact_check(
            "action mapping (sizes 10..50, mapping_seed 42)",
            np.concatenate([action_mapping(n, 42).ravel() for n in sizes_swept]),
            np.concatenate([DeepSea(size=n, mapping_seed=42)._action_mapping.ravel() for n in sizes_swept]),
        ),
        exact_check("action mapping (this env)", np.asarray(params.action_mapping), DeepSea(**kwargs)._action_mapping),
    ]
    checks += _transitions(env, params, ref, sizes, seed)
    if not params.deterministic:
        mapping = np.asarray(params.action_mapping)
        # a move right from the middle: succeeds with probability 1 - 1/size
        start = {"row": 3, "column": 2, "bad_episode": False, "time": 3}
        checks += check_step_distribution(
            env,
            params,
            ref,
            [(start, int(mapping[3, 2]))],
            sizes.samples,
            lambda t: t.next_states["column"],
            seed,
            label="stochastic move right",
        )
        # the bottom corners: reward noise N(0, 1) (right from the right corner also pays 1 - cost)
        for column, action, label in (
            (size - 1, int(mapping[size - 1, size - 1]), "right corner, right"),
            (0, 1 - int(mapping[size - 1, 0]), "left corner, left"),
        ):
            start = {"row": size - 1, "column": column, "bad_episode": True, "time": size - 1}
            checks += check_step_distribution(
                env,
                params,
                ref,
                [(start, action)],
                sizes.samples,
                lambda t: t.rewards,
                seed + 1,
                label=f"stochastic reward ({label})",
                continuous="unbounded",
            )
    checks += _stats(env, params, ref, sizes, size, seed)
    return checks


def _suite_discounting_chain(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
    from jaxenvs.envs.bsuite.discounting_chain import chain_rewards

    env, params, kwargs = _registered(env_id, env, params)
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
    checks += _transitions(env, params, ref, sizes, seed)
    checks += _stats(env, params, ref, sizes, 100, seed)
    return checks


def _context_and_query(states: dict, obs: Any) -> list[tuple]:
    return rows(states["context"], states["query"])


def _suite_memory_chain(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
    from jaxenvs.envs.bsuite.memory_chain import MemoryChain

    env, params, kwargs = _registered(env_id, env, params)
    ref = _ref_memory_chain(kwargs)
    checks = _transitions(env, params, ref, sizes, seed)
    checks += _resets(env, params, ref, sizes, seed, _context_and_query, "reset context and query")
    # several bits (memory_size's setting): the context bits and the query
    three = {"memory_length": 2, "num_bits": 3}
    ref3 = _ref_memory_chain(three)
    env3 = MemoryChain(**three)
    checks += _resets(
        env3, env3.default_params, ref3, sizes, seed, _context_and_query, "reset context and query (3 bits)"
    )
    checks += check_transitions(
        env3, env3.default_params, ref3, max(50, sizes.steps // 4), 0.0, seed, label="3-bit step", reward_atol=1e-6
    )
    checks += _stats(env, params, ref, sizes, kwargs["memory_length"] + 1, seed)
    return checks


def _suite_umbrella_chain(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
    env, params, kwargs = _registered(env_id, env, params)
    ref = _ref_umbrella_chain(kwargs)
    checks = _transitions(env, params, ref, sizes, seed)
    # a step in the middle: the coin-flip reward and the distractors
    case = [({"need_umbrella": 1, "has_umbrella": 0, "time": 3}, 0)]

    def sample(label, outcome, **kw):
        return check_step_distribution(env, params, ref, case, sizes.samples, outcome, seed, label=label, **kw)

    checks += sample("intermediate reward", lambda t: t.rewards)
    n = env.n_distractor
    if n:
        distractors = lambda t: np.asarray(t.obs).reshape(len(t), -1)[:, 3:]  # noqa: E731
        checks += sample(
            "distractor values (min, max)",
            lambda t: rows(distractors(t).min(axis=1), distractors(t).max(axis=1)),
            support=lambda s, a: {(0.0, 0.0), (0.0, 1.0), (1.0, 1.0)},
        )
        # ones per step are binomial(n_distractor, 1/2): the support is 0..n, from bsuite's definition
        checks += sample(
            "distractors (ones per step)",
            lambda t: distractors(t).sum(axis=1),
            support=lambda s, a: {float(k) for k in range(n + 1)},
        )
        checks += sample("distractors (first three jointly)", lambda t: rows(distractors(t)[:, :3].astype(int)))
    checks += _resets(
        env, params, ref, sizes, seed, lambda s, o: rows(s["need_umbrella"], s["has_umbrella"]), "reset need and have"
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


class _LastDraw:
    """bsuite's MNIST `RandomState`, remembering its last `randint` (the image drawn)."""

    def __init__(self, rng: np.random.RandomState):
        self._rng, self.last = rng, 0

    def randint(self, *args: Any) -> int:
        self.last = int(self._rng.randint(*args))
        return self.last


def _bsuite_mnist(images: np.ndarray, labels: np.ndarray, seed: int):
    """bsuite's MNISTBandit on the given arrays (its `datasets.load_mnist` downloads)."""
    from bsuite.utils import datasets

    with mock.patch.object(datasets, "load_mnist", lambda *a, **k: ((images, labels), (None, None))):
        env = _bsuite_env("mnist", "MNISTBandit")(seed=seed)
    env._rng = _LastDraw(env._rng)
    return env


def _ref_mnist(images: np.ndarray, labels: np.ndarray) -> DmEnvReference:
    def read_state(env):
        return {
            "time": int(env._reset_next_step),
            "image_index": env._rng.last,
            "correct_label": int(labels[env._rng.last]),
        }

    def write_state(env, state):
        env._rng.last = int(state["image_index"])
        env._correct_label = int(state["correct_label"])
        env._reset_next_step = False

    return _reference(
        "bsuite MNISTBandit (synthetic idx data)",
        lambda seed: _bsuite_mnist(images, labels, seed),
        (read_state, write_state),
        exact_fields=("time", "image_index", "correct_label"),
    )


def _suite_mnist(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
    from jaxenvs.envs.bsuite.mnist import MNISTBandit, pixels
    from jaxenvs.parity import env_under_test

    with tempfile.TemporaryDirectory() as tmp:
        images, labels = _synthetic_mnist(tmp, seed=seed)
        # the built-in id reads MNIST itself (a download): by default, the env on synthetic data;
        # an env given is checked on its own data, which bsuite's env is then given too
        given = env is not None
        env, params = env_under_test(env_id, env or MNISTBandit(data_dir=tmp), params)
        env_int8 = MNISTBandit(data_dir=tmp, int8_pixels=True)
    if given:
        images, labels = np.asarray(params.images, np.uint8), np.asarray(params.labels, np.uint8)
    checks = [
        exact_check(
            "images and labels read from idx",
            np.concatenate([np.asarray(params.images).ravel(), np.asarray(params.labels)]),
            np.concatenate([images.ravel(), labels]),
        )
    ]
    ref = _ref_mnist(images, labels)
    n = sizes.samples
    checks += check_resets(
        env, params, ref, n, seed, outcome=lambda s, o: s["image_index"], discrete=True, label="reset image"
    )
    # the observation and label of every image drawn, against the data set
    states, obs = sample_jax_resets(env, params, ref, n, seed)
    flat = images.reshape(len(images), -1).astype(np.float32) / 255
    checks.append(error_check("reset observation", np.asarray(obs).reshape(n, -1), flat[states["image_index"]], 0.0))
    checks.append(exact_check("reset label", states["correct_label"], labels[states["image_index"]]))
    ref_states, ref_obs = ref.sample_resets(min(n, 200), seed)
    checks.append(
        error_check(
            "reset observation (reference)",
            np.asarray(ref_obs).reshape(len(ref_obs), -1),
            flat[ref_states["image_index"]],
            0.0,
        )
    )
    # bsuite's own loader reads pixels as int8: int8_pixels=True reproduces its observations
    ref8 = _ref_mnist(images.astype(np.int8), labels)
    ref8_states, ref8_obs = ref8.sample_resets(min(n, 200), seed)
    params8 = env_int8.default_params
    mine8 = jax.vmap(lambda i: pixels(params8.images[i], params8.int8_pixels))(jnp.asarray(ref8_states["image_index"]))
    checks.append(
        error_check(
            "int8 pixels (bsuite's loader)",
            np.asarray(mine8).reshape(len(ref8_obs), -1),
            np.asarray(ref8_obs).reshape(len(ref8_obs), -1),
            0.0,
        )
    )
    checks += check_transitions(env, params, ref, sizes.steps, 0.0, seed + 1)
    checks += _stats(env, params, ref, sizes, 1, seed)
    return checks


def _suite_continuous(make_ref: Callable[[dict], DmEnvReference], longest: int, whole_episodes: bool):
    def suite(env_id: str, sizes: Sizes, seed: int, env: Any, params: Any) -> list[Check]:
        env, params, kwargs = _registered(env_id, env, params)
        ref = make_ref(kwargs)
        checks = _transitions(env, params, ref, sizes, seed, label="f32 step", float32_bound=True)
        ref.reset(seed)
        limit = getattr(ref.env, "_max_steps", None)
        if limit is not None:
            # bsuite's MountainCar ends itself at `max_steps`: the steps that end it, from states
            # one and two steps before (a random walk reaches it, from afar)
            data = ref.transitions(max(50, sizes.steps // 20), seed, scramble=near_time_limit(int(limit)))
            checks += check_transitions(env, params, ref, seed=seed, data=data, label="time limit", float32_bound=True)
        with jax.enable_x64(True):
            checks += _transitions(env, params, ref, sizes, seed + 1, tolerances.ATOL_F64_STEP, label="f64 step")
            if whole_episodes:
                checks += check_episodes(
                    env,
                    params,
                    ref,
                    num_episodes=max(3, sizes.episodes // 20),
                    atol=tolerances.ATOL_F64_EPISODE,
                    seed=seed,
                )
        ref_states, _ = ref.sample_resets(sizes.samples, seed)
        fields = [k for k in ref_states if k not in ("time", "time_elapsed") and np.ptp(ref_states[k]) > 0]
        checks += check_resets(
            env, params, ref, sizes.samples, seed, outcome=lambda s, o: np.stack([s[k] for k in fields], axis=1)
        )
        checks += _stats(env, params, ref, sizes, longest, seed)
        return checks

    return suite


def suite_checks(suite: Callable[[str, Sizes, int, Any, Any], list[Check]]) -> Callable[[Any], list[Check]]:
    """A per-env suite `(env_id, sizes, seed, env, params) -> checks` as a `ParitySpec` check.

    Args:
        suite: One of this module's suites.

    Returns:
        A function `Context -> list[Check]` (the sizes are `Sizes.at(ctx.scale)`).
    """

    def check(ctx: Any) -> list[Check]:
        return suite(ctx.env_id, Sizes.at(ctx.scale), ctx.seed, ctx.env, ctx.params)

    return check


def spec(suite: Callable[[str, Sizes, int, Any, Any], list[Check]], builds_env: bool = False) -> Any:
    """The `ParitySpec` of a bsuite env, with bsuite as its library.

    Args:
        suite: The env's suite of checks, `(env_id, sizes, seed, env, params) -> checks`.
        builds_env: Whether the checks build the env under test themselves when none is given
            (as in `ParitySpec`; MNISTBandit's do, on synthetic data).

    Returns:
        A `jaxenvs.parity.spec.ParitySpec`.
    """
    from jaxenvs.parity.spec import ParitySpec

    return ParitySpec(checks=suite_checks(suite), library="bsuite", builds_env=builds_env)
