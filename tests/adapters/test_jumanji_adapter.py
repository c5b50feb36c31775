"""jumanji adapter: conformance on a sample of cheap tasks, episode ends from step type and
discount, fresh resets, action masks (and their joint form), spec conversion, flat option."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("jumanji")

import jaxenvs  # noqa: E402
from jaxenvs import spaces  # noqa: E402
from jaxenvs.adapters import jumanji as jumanji_adapter  # noqa: E402
from jaxenvs.adapters.jumanji import JumanjiEnv, episode_end, spec_to_space  # noqa: E402
from jaxenvs.testing import check_env  # noqa: E402
from jaxenvs.wrappers import AutoReset  # noqa: E402

from .conftest import step_flags  # noqa: E402

# Cheap to compile; between them: Discrete and MultiDiscrete actions, nested observations,
# a per-agent reward. Sokoban-v0 is left out everywhere: it downloads its levels.
SAMPLE = ["jumanji/Snake-v1", "jumanji/Game2048-v1", "jumanji/Minesweeper-v0", "jumanji/Maze-v0"]


def test_conformance_raw_multi_agent_joint():
    raw, params = jaxenvs.make("jumanji/LevelBasedForaging-v0", autoreset=False)
    check_env(raw, params)
    env, params = jaxenvs.make("jumanji/Minesweeper-v0", joint_action=True, flat=True)
    check_env(env, params)


def test_episode_end_from_step_type_and_discount():
    cases = [  # (is_last, discount) -> (terminated, truncated)
        (False, 1.0, False, False),
        (True, 0.0, True, False),
        (True, 1.0, False, True),  # jumanji's truncation: LAST with discount 1
        (True, [0.0, 0.0], True, False),
        (True, [0.0, 1.0], False, True),  # an agent could go on: a truncation
        (False, [0.0, 1.0], False, False),
    ]
    for is_last, discount, term, trunc in cases:
        t, u = episode_end(jnp.asarray(is_last), jnp.asarray(discount, jnp.float32))
        assert (bool(t), bool(u)) == (term, trunc), (is_last, discount)


def test_time_limit_truncation_and_mine_termination():
    # LevelBasedForaging reports its time limit as a truncation
    raw = JumanjiEnv("LevelBasedForaging-v0", time_limit=3)
    params = raw.default_params
    flags, (_, state, _, _, _, info) = step_flags(raw, params, jnp.zeros(2, jnp.int32), 3)  # no-ops
    assert flags == [(False, False), (False, False), (False, True)]
    assert info["agent_rewards"].shape == (2,) and float(info["discount"]) == 1.0
    # the library's truncation travels in the state and arrives as `truncated`, not through info
    assert bool(state.library_truncated) and not any(k.startswith("_") for k in info)

    # Minesweeper: revealing a mine ends the game, a termination
    raw, params = jaxenvs.make("jumanji/Minesweeper-v0", autoreset=False)
    _, state = raw.reset(jax.random.key(0), params)
    mine = int(state.jumanji_state.flat_mine_locations[0])
    action = jnp.asarray(divmod(mine, 10), jnp.int32)
    _, _, reward, terminated, truncated, info = jax.jit(raw.step)(jax.random.key(1), state, action, params)
    assert bool(terminated) and not bool(truncated) and float(info["discount"]) == 0.0


def test_time_limit_truncates_option():
    # Maze ends its time limit with discount 0: a termination, unless asked otherwise
    raw = JumanjiEnv("Maze-v0", time_limit=2)
    flags = {}
    for option in (False, True):
        params = raw.default_params.replace(time_limit_truncates=option)
        _, state = raw.reset(jax.random.key(0), params)
        mask = raw.action_mask(state, params)
        for i in range(2):
            action = jnp.argmax(raw.action_mask(state, params)).astype(jnp.int32)
            _, state, _, terminated, truncated, _ = raw.step(jax.random.key(i), state, action, params)
        flags[option] = (bool(terminated), bool(truncated))
    assert mask.shape == (4,)
    assert flags == {False: (True, False), True: (False, True)}


def test_fresh_resets():
    raw = JumanjiEnv("Snake-v1", time_limit=2)
    params = raw.default_params
    obs_a, state = raw.reset(jax.random.key(0), params)
    obs_b, _ = raw.reset(jax.random.key(1), params)
    assert not np.array_equal(np.asarray(obs_a["grid"]), np.asarray(obs_b["grid"]))
    # under AutoReset, the next episodes start elsewhere (a fresh key each time)
    env = AutoReset(raw)
    step = jax.jit(env.step)
    starts = [np.asarray(obs_a["grid"])]
    for k in range(6):
        obs, state, _, terminated, truncated, info = step(jax.random.key(10 + k), state, 0, params)
        if bool(terminated) or bool(truncated):
            starts.append(np.asarray(obs["grid"]))
    assert len(starts) >= 3
    assert len({s.tobytes() for s in starts}) == len(starts)


def test_observation_is_a_dict_without_the_mask_and_the_mask_is_in_info():
    env, params = jaxenvs.make("jumanji/Minesweeper-v0")
    obs, state = env.reset(jax.random.key(0), params)
    assert set(obs) == {"board", "num_mines", "step_count"}
    assert isinstance(env.observation_space(params), spaces.Dict)
    assert env.action_space(params) == spaces.MultiDiscrete([10, 10])
    assert np.asarray(env.action_mask(state, params)).all()  # a fresh board: every cell
    action = jnp.asarray([2, 3], jnp.int32)
    obs, state, _, terminated, _, info = jax.jit(env.step)(jax.random.key(1), state, action, params)
    mask = np.asarray(info["action_mask"])
    assert mask.shape == (10, 10) and mask.dtype == bool
    if not bool(terminated):
        assert not mask[2, 3] and mask.sum() < 100
        np.testing.assert_array_equal(mask, env.action_mask(state, params))


def test_joint_action_view():
    env, params = jaxenvs.make("jumanji/Minesweeper-v0", autoreset=False, joint_action=True)
    assert env.action_space(params) == spaces.Discrete(100)
    obs, state = env.reset(jax.random.key(0), params)
    mines = set(np.asarray(state.jumanji_state.flat_mine_locations).tolist())
    safe = next(c for c in range(100) if c not in mines)
    _, state, _, terminated, _, info = jax.jit(env.step)(jax.random.key(1), state, safe, params)
    mask = np.asarray(info["action_mask"])
    assert mask.shape == (100,) and not mask[safe]  # cell (safe // 10, safe % 10) was revealed
    assert int(state.jumanji_state.board[safe // 10, safe % 10]) >= 0


def test_joint_mask_from_per_component_masks():
    env = JumanjiEnv("LevelBasedForaging-v0")  # 2 agents x 6 actions, mask of shape (2, 6)
    per_agent = jnp.asarray([[1, 0, 1, 0, 0, 0], [0, 1, 1, 0, 0, 1]], jnp.bool_)
    joint = np.asarray(env._joint_mask(per_agent)).reshape(6, 6)
    np.testing.assert_array_equal(joint, np.outer(per_agent[0], per_agent[1]))
    params = env.default_params.replace(joint_action=True)
    assert env.action_space(params) == spaces.Discrete(36)
    np.testing.assert_array_equal(env._to_jumanji_action(jnp.int32(6 * 2 + 5), params), [2, 5])
    with pytest.raises(ValueError, match="joint_action would give"):
        JumanjiEnv("Connector-v3").action_space(params)  # 5 ** 10 combinations


def test_flat_observation():
    env, params = jaxenvs.make("jumanji/Snake-v1", flat=True)
    obs, _ = env.reset(jax.random.key(0), params)
    space = env.observation_space(params)
    assert obs.dtype == jnp.float32 and obs.shape == (12 * 12 * 5 + 1,)
    assert bool(space.contains(obs))


def test_multi_agent_reward_is_the_team_sum():
    env, params = jaxenvs.make("jumanji/LevelBasedForaging-v0", autoreset=False)
    _, state = env.reset(jax.random.key(0), params)
    _, _, reward, _, _, info = jax.jit(env.step)(jax.random.key(1), state, jnp.zeros(2, jnp.int32), params)
    assert reward.shape == () and float(reward) == float(jnp.sum(info["agent_rewards"]))


def test_spec_conversion():
    from jumanji import specs

    assert spec_to_space(specs.DiscreteArray(5), specs) == spaces.Discrete(5)
    assert spec_to_space(specs.MultiDiscreteArray(jnp.asarray([2, 3])), specs) == spaces.MultiDiscrete([2, 3])
    box = spec_to_space(specs.BoundedArray((2,), jnp.float32, 0.0, [1.0, 2.0]), specs)
    assert box == spaces.Box(0.0, np.asarray([1.0, 2.0]), shape=(2,))
    free = spec_to_space(specs.Array((3,), jnp.int32), specs)
    assert free.dtype == jnp.int32 and np.isinf(free.low).all()
    flags = spec_to_space(specs.BoundedArray((2,), bool, False, True), specs)
    assert flags.dtype == jnp.bool_
    nested = specs.Spec(dict, "obs", b=specs.Array((), jnp.float32), a=specs.DiscreteArray(3))
    space = spec_to_space(nested, specs)
    assert isinstance(space, spaces.Dict) and list(space.spaces) == ["a", "b"]  # sorted, as jax sorts dicts


def test_specs_as_properties_or_methods():
    from jumanji import specs

    class Old:  # jumanji < 0.3: specs are methods
        def action_spec(self):
            return specs.DiscreteArray(4)

    class New:  # jumanji >= 0.3: properties
        action_spec = specs.DiscreteArray(4)

    assert jumanji_adapter._spec(Old(), "action_spec") == jumanji_adapter._spec(New(), "action_spec")


def test_vmap_autoreset_and_log(rollout, check_rollout):
    env, params = jaxenvs.make("jumanji/Minesweeper-v0")
    outs = rollout(env, params, num_envs=4, num_steps=40)
    done = check_rollout(outs)
    assert done.sum() >= 4  # random clicks hit mines


def test_tsp_spec_fix_is_still_needed():
    """jumanji's TSP spec says position in [0, 20) but reset gives -1; the adapter widens it."""
    from jumanji import specs

    env = JumanjiEnv("TSP-v1")
    _, timestep = env.jumanji_env.reset(jax.random.PRNGKey(0))
    spec_space = spec_to_space(env.jumanji_env.observation_spec, specs)["position"]
    assert not bool(spec_space.contains(timestep.observation.position)), "jumanji fixed TSP's spec: drop the fix"
    obs, _ = env.reset(jax.random.key(0), env.default_params)
    assert bool(env.observation_space()["position"].contains(obs["position"]))


def test_pickles():
    import pickle

    env, params = jaxenvs.make("jumanji/Snake-v1", autoreset=False)
    again = pickle.loads(pickle.dumps(env))
    assert again.name == "jumanji/Snake-v1" and again.action_space(params) == env.action_space(params)
