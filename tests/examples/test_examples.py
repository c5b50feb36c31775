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


def test_ppo_continuous_runs_purejaxrls_stack(capsys):
    """A few updates of `--continuous` (PureJaxRL's wrappers and defaults, smaller): finite
    losses, and the logged returns are Pendulum's own (one 200-step episode per env: between
    -16.3 * 200 and 0), not the normalized rewards."""
    pytest.importorskip("optax")
    ppo = _load("ppo")
    args = ["--continuous", "--total-timesteps", "12800", "--num-envs", "16", "--num-steps", "200"]
    metrics = ppo.main(args + ["--num-minibatches", "4", "--hidden", "32", "--quiet"])
    assert np.isfinite(np.asarray(metrics["loss"])).all()
    returns = np.asarray(metrics["mean_return"])[0]
    assert returns.shape == (4,)
    assert np.isfinite(returns).all() and (returns > -16.3 * 200).all() and (returns < -100).all(), returns
    assert "env=Pendulum-v1" in capsys.readouterr().out


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
