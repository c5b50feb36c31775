import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs.envs.misc import swimmer

ID = "Swimmer-misc"


def _state(xy, goal, urchins, vel=(0.0, 0.0)):
    return swimmer.SwimmerState(
        time=jnp.int32(0),
        urchin_xys=jnp.asarray(urchins, jnp.float32),
        xy=jnp.asarray(xy, jnp.float32),
        xy_vel=jnp.asarray(vel, jnp.float32),
        goal_xy=jnp.asarray(goal, jnp.float32),
    )


def test_step_and_rewards():
    env, params = jaxenvs.make(ID, autoreset=False)
    far = [[5.0, 5.0]] * 5
    obs, nxt, reward, terminated, *_ = jax.jit(env.step)(
        jax.random.key(0), _state((0.0, 0.0), (0.0025, 0.0), far), jnp.asarray([1.0, 0.0]), params
    )
    np.testing.assert_allclose(nxt.xy_vel, [0.05, 0.0])
    np.testing.assert_allclose(nxt.xy, [0.0025, 0.0])
    assert abs(float(reward) - 1.0) < 1e-5  # on the goal, urchins far away
    assert obs.shape == (16,) and not bool(terminated)
    # on an urchin the reward vanishes
    on_urchin = _state((0.3, 0.3), (0.3, 0.3), [[0.3, 0.3]] + far[1:])
    _, _, reward, *_ = jax.jit(env.step)(jax.random.key(0), on_urchin, jnp.zeros(2), params)
    assert float(reward) == 0.0


def test_reset_ranges():
    env, params = jaxenvs.make(ID)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(jax.random.key(0), 200), params)
    for f in ("urchin_xys", "xy", "goal_xy"):
        x = np.asarray(getattr(states, f))
        assert x.min() >= -1.0 and x.max() <= 1.0 and x.std() > 0.4
    assert np.all(np.asarray(states.xy_vel) == 0.0)
    assert params.max_steps_in_episode == 500
