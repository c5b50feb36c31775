"""Short runs of the examples: finite losses, better than a random policy."""

import importlib.util
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_ppo_learns_cartpole_a_little(capsys):
    pytest.importorskip("optax")
    ppo = _load("ppo")
    metrics = ppo.main(
        ["--env", "CartPole-v1", "--total-timesteps", "40960", "--num-envs", "8", "--num-steps", "128", "--quiet"]
    )
    loss = np.asarray(metrics["loss"])
    returns = np.asarray(metrics["mean_return"])[0]
    assert np.isfinite(loss).all()
    # a uniformly random CartPole policy averages about 22 steps
    assert np.nanmean(returns[-5:]) > 40.0, returns
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("mean_return=")


def test_ppo_continuous_runs_purejaxrls_stack_and_saves_its_normalization(tmp_path, capsys):
    """A few updates of `--continuous` (PureJaxRL's wrappers and defaults, smaller): finite
    losses, and the logged returns are Pendulum's own (one 200-step episode per env: between
    -16.3 * 200 and 0), not the normalized rewards. `--save` keeps the observation
    normalization at the end of training, and the loaded greedy policy reads observations
    through it: its actions are the network's means on the normalized observations, clipped,
    and lab/transfer.py plays it on both sides."""
    pytest.importorskip("optax")
    import jax.numpy as jnp

    import jaxenvs
    from lab import transfer

    ppo = _load("ppo")
    path = str(tmp_path / "pendulum.msgpack")
    args = ["--continuous", "--total-timesteps", "12800", "--num-envs", "16", "--num-steps", "200"]
    metrics = ppo.main(args + ["--num-minibatches", "4", "--hidden", "32", "--quiet", "--save", path])
    assert np.isfinite(np.asarray(metrics["loss"])).all()
    returns = np.asarray(metrics["mean_return"])[0]
    assert returns.shape == (4,)
    assert np.isfinite(returns).all() and (returns > -16.3 * 200).all() and (returns < -100).all(), returns
    assert "env=Pendulum-v1" in capsys.readouterr().out

    network, weights, settings = ppo.load(path)
    mean, scale = np.asarray(settings["observation_mean"]), np.asarray(settings["observation_scale"])
    # 12,800 observations of (cos, sin, angular velocity): not the wrapper's start (0, 1)
    assert mean.shape == scale.shape == (3,) and abs(mean).max() > 0.01 and abs(scale - 1).max() > 0.05
    env, params = jaxenvs.make("Pendulum-v1")
    act = ppo.greedy_policy(network, weights, settings, env.action_space(params))
    obs = np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 8.0], [0.0, 1.0, -8.0]], np.float32)
    (expected, _), _ = network.apply(weights, jnp.asarray((obs - mean) / scale, jnp.float32))
    np.testing.assert_allclose(np.asarray(act(obs)), np.clip(np.asarray(expected), -2.0, 2.0), rtol=1e-5, atol=1e-6)

    ours = transfer.jax_returns(act, "Pendulum-v1", 4, 0)
    theirs = transfer.reference_returns(act, "Pendulum-v1", 4, 0)
    for r in (ours, theirs):  # four whole 200-step episodes a side
        assert r.shape == (4,) and ((r > -16.3 * 200) & (r <= 0)).all(), r


def test_q_learning_solves_gridworld():
    q_learning = _load("q_learning")
    q, returns, success, steps_per_s = q_learning.main(
        ["--env", "GridWorld-misc", "--num-agents", "64", "--num-steps", "15000"]
    )
    assert np.isfinite(np.asarray(q)).all()
    # random walks on the 5x5 grid rarely reach the corner in 100 steps with return -8;
    # the learned greedy policy takes the shortest path
    assert float(np.mean(success)) >= 0.9
    assert float(np.median(returns)) == -8.0
    assert steps_per_s > 0


def test_epsilon_greedy_breaks_ties_uniformly():
    q_learning = _load("q_learning")
    words = q_learning.random_words(jax.random.key(0), (20000,), 4)
    q_rows = np.tile(np.array([[1.0, 0.0, 1.0, 1.0]]), (20000, 1))
    actions = np.asarray(q_learning.epsilon_greedy(words, q_rows, 0.0))
    counts = np.bincount(actions, minlength=4) / len(actions)
    assert counts[1] == 0.0
    np.testing.assert_allclose(counts[[0, 2, 3]], 1 / 3, atol=0.02)
    explore = np.asarray(q_learning.epsilon_greedy(words, q_rows, 1.0))
    np.testing.assert_allclose(np.bincount(explore, minlength=4) / len(explore), 0.25, atol=0.02)


def test_ppo_levels_trains_and_evaluates_held_out_levels(capsys):
    """A few updates under `--levels` (domain randomisation over pole length and mass): finite
    losses, and one greedy evaluation per seed and level, a CartPole return in [1, 500]."""
    pytest.importorskip("optax")
    ppo = _load("ppo")
    args = ["--total-timesteps", "2048", "--num-envs", "8", "--num-steps", "64", "--num-seeds", "2", "--quiet"]
    args += ["--levels", "length=0.25:1.0", "masspole=0.05:0.5"]
    args += ["--eval-levels", "default", "length=1.5,masspole=1.0", "--eval-episodes", "4"]
    metrics = ppo.main(args)
    assert np.isfinite(np.asarray(metrics["loss"])).all()
    held_out = np.asarray(metrics["eval_return"])
    assert held_out.shape == (2, 2)
    assert ((held_out >= 1) & (held_out <= 500)).all(), held_out
    out = capsys.readouterr().out
    assert "eval[default]" in out and "eval[length=1.5,masspole=1.0]" in out


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--levels", "x_threshold=1:2"], "cannot vary per episode"),
        (["--levels", "length=1.0:0.5"], "LOW <= HIGH"),
        (["--levels", "length=-1:0.5"], "is not valid"),
        (["--eval-levels", "length=big"], "FIELD=VALUE"),
    ],
)
def test_ppo_levels_refuses_bad_ranges(flags, message, capsys):
    pytest.importorskip("optax")
    ppo = _load("ppo")
    with pytest.raises(SystemExit):
        ppo.main(flags + ["--total-timesteps", "512", "--num-envs", "4", "--num-steps", "128"])
    assert message in capsys.readouterr().err


def test_ppo_patches_are_a_valid_convolution():
    """The Nature CNN's convolutions are dense layers over `patches`: the same as a VALID
    convolution with the kernel flattened (row, column, channel)."""
    ppo = _load("ppo")
    x = jax.random.normal(jax.random.key(0), (2, 20, 20, 3))
    kernel = jax.random.normal(jax.random.key(1), (4, 4, 3, 5))
    conv = jax.lax.conv_general_dilated(x, kernel, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    dense = ppo.patches(x, 4, 2) @ kernel.reshape(-1, 5)
    np.testing.assert_allclose(np.asarray(dense), np.asarray(conv), rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore:Mean of empty slice")  # no episode ends in 32 steps
@pytest.mark.parametrize(
    "random_policy, life_loss", [(False, False), (True, False), (False, True)], ids=["ppo", "random", "life-loss"]
)
def test_ppo_runs_on_breakout_with_the_nature_cnn(random_policy, life_loss, capsys):
    """A batch-native id (ALE): make_vec's batch, one seed under jit, the CNN chosen for its
    uint8 frames; two tiny updates end to end (and the random-play baseline, which learns
    nothing, and `--life-loss`)."""
    pytest.importorskip("optax")
    pytest.importorskip("ale_py")
    ppo = _load("ppo")
    args = ["--env", "ale/Breakout-v5", "--ale-training-settings", "--num-envs", "2", "--num-steps", "16"]
    args += ["--total-timesteps", "64", "--num-minibatches", "2", "--update-epochs", "1", "--quiet"]
    args += ["--random-policy"] * random_policy + ["--life-loss"] * life_loss
    metrics = ppo.main(args)
    loss = np.asarray(metrics["loss"])
    assert loss.shape == (1, 2) and np.isfinite(loss).all(), loss
    assert (loss == 0).all() == random_policy
    out = capsys.readouterr().out.strip().splitlines()
    assert "env=ale/Breakout-v5 seeds=1 steps=64 updates=2" in out[-2]
    assert out[-1].startswith("mean_return=")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--num-seeds", "2"], "run one process per seed"),
        (["--continuous"], "--continuous is not supported"),
        (["--levels", "length=0.5:1.0"], "--levels is not supported"),
    ],
)
def test_ppo_refuses_what_a_batch_of_emulators_cannot_do(flags, message, capsys):
    pytest.importorskip("optax")
    ppo = _load("ppo")
    with pytest.raises(SystemExit):
        ppo.main(["--env", "ale/Breakout-v5"] + flags)
    assert message in capsys.readouterr().err


def test_ppo_batch_native_defaults_and_life_loss_flag(capsys):
    """An ALE id takes CleanRL's Atari defaults (8 envs x 128 steps: 1,000 steps are less than
    one update), and `--life-loss` is refused for an env without lives."""
    pytest.importorskip("optax")
    pytest.importorskip("ale_py")
    ppo = _load("ppo")
    with pytest.raises(SystemExit):
        ppo.main(["--env", "ale/Breakout-v5", "--total-timesteps", "1000"])
    assert "must cover at least one update" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ppo.main(["--env", "CartPole-v1", "--life-loss"])
    assert "--life-loss needs an env whose step reports info['lives']" in capsys.readouterr().err


def test_ppo_env_settings_reach_the_params(capsys):
    """`--env-settings KEY=VALUE` sets params fields for any id (here CartPole's time limit)."""
    pytest.importorskip("optax")
    ppo = _load("ppo")
    with pytest.raises(SystemExit):
        ppo.main(["--env-settings", "no_such_field=1", "--total-timesteps", "512"])
    assert "no_such_field" in capsys.readouterr().err
    args = ["--env-settings", "max_steps_in_episode=20", "--total-timesteps", "1024", "--num-envs", "4"]
    metrics = ppo.main(args + ["--num-steps", "128", "--quiet"])
    returns = np.asarray(metrics["mean_return"])
    assert np.nanmax(returns) <= 20.0, returns
