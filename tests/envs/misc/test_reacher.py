import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.misc import reacher

ID = "Reacher-misc"


def test_semi_implicit_euler_step():
    env, params = jaxenvs.make(ID, autoreset=False)
    state = reacher.ReacherState(
        time=jnp.int32(0),
        angles=jnp.asarray([0.0, 1.0]),
        angle_vels=jnp.asarray([1.0, -1.0]),
        goal_xy=jnp.asarray([1.0, 1.0]),
    )
    action = jnp.asarray([1.0, -0.5])
    obs, nxt, reward, terminated, truncated, _ = jax.jit(env.step)(jax.random.key(0), state, action, params)
    np.testing.assert_allclose(nxt.angle_vels, [1.05, -1.025], rtol=1e-6)
    np.testing.assert_allclose(nxt.angles, [0.0525, 1.0 - 0.05125], rtol=1e-6)
    tip = np.array([np.cos(0.0525) + np.cos(0.94875), np.sin(0.0525) + np.sin(0.94875)])
    assert abs(float(reward) - np.exp(-np.sum((tip - 1.0) ** 2))) < 1e-6
    assert obs.shape == (8,) and not bool(terminated)


def test_reward_is_one_at_the_goal():
    tip = reacher.tip_position(jnp.asarray([0.3, -0.4]))
    assert float(reacher.reach_reward(jnp.asarray([0.3, -0.4]), tip)) == 1.0
    # a stretched arm reaches distance num_joints
    assert np.allclose(reacher.tip_position(jnp.zeros(3)), [3.0, 0.0])


def test_more_joints():
    env3 = reacher.Reacher(num_joints=3)
    obs, state = jax.jit(env3.reset)(jax.random.key(0))
    assert obs.shape == (11,) and env3.action_space().shape == (3,)
    assert np.all(np.abs(np.asarray(state.goal_xy)) <= 3.0)
