import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.misc import point_robot

ID = "PointRobot-misc"


def _state(pos, goal=(0.0, 1.0), time=0):
    return point_robot.PointRobotState(
        time=jnp.int32(time),
        last_action=jnp.zeros(2),
        last_reward=jnp.float32(0.0),
        pos=jnp.asarray(pos, jnp.float32),
        goal=jnp.asarray(goal, jnp.float32),
        goals_reached=jnp.int32(0),
    )


def test_move_is_clipped_and_reported_as_given():
    """Out of the box (eagerly as under jit, as gymnax): clipped for the move, reported as given."""
    env, params = jaxenvs.make(ID, autoreset=False)
    obs, state, reward, terminated, truncated, _ = jax.jit(env.step)(
        jax.random.key(0), _state((0.0, 0.0), time=49), jnp.asarray([0.5, -0.05]), params
    )
    np.testing.assert_allclose(state.pos, [0.1, -0.05], atol=1e-7)
    np.testing.assert_allclose(obs, [0.1, -0.05, 0.0, 0.5, -0.05, 0.0], atol=1e-6)  # time 50 -> 0.0
    assert float(reward) == 0.0 and not bool(terminated) and not bool(truncated)


def test_goal_pays_and_respawns():
    env, params = jaxenvs.make(ID, autoreset=False)
    keys = jax.random.split(jax.random.key(0), 500)
    step = jax.jit(jax.vmap(env.step, in_axes=(0, None, None, None)))
    _, states, rewards, *_ = step(keys, _state((0.1, 0.9)), jnp.zeros(2), params)
    assert np.all(np.asarray(rewards) == 1.0) and np.all(np.asarray(states.goals_reached) == 1)
    radius = np.linalg.norm(np.asarray(states.pos), axis=1)
    assert np.all(radius <= 1.0 + 1e-6) and np.all(np.asarray(states.pos)[:, 1] >= -1e-6)
    assert np.std(np.asarray(states.pos)[:, 0]) > 0.2  # spread over the half-disc


def test_dense_reward_is_minus_the_distance_before_the_move():
    env, params = jaxenvs.make(ID, autoreset=False, dense_reward=True)
    _, _, reward, *_ = jax.jit(env.step)(jax.random.key(0), _state((0.0, 0.0)), jnp.asarray([0.1, 0.1]), params)
    assert abs(float(reward) + 1.0) < 1e-6


def test_reset_goal_on_the_semicircle():
    env, params = jaxenvs.make(ID)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(0), 200), params)
    np.testing.assert_allclose(np.linalg.norm(np.asarray(states.goal), axis=1), 1.0, atol=1e-6)
    assert np.all(np.asarray(states.goal)[:, 1] >= 0)
    _, centred = jax.jit(env.reset)(jax.random.key(0), params.replace(center_init=True))
    assert centred.pos.tolist() == [0.0, 0.0]
