import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
pytest.importorskip("torch")

from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

from jaxenvs.export.sb3 import JaxSB3VecEnv  # noqa: E402

X_LIMIT, THETA_LIMIT = 2.4, 12 * 2 * np.pi / 360


def test_is_an_sb3_vec_env_with_numpy_batches():
    venv = JaxSB3VecEnv("CartPole-v1", num_envs=4, seed=0)
    assert isinstance(venv, VecEnv) and venv.num_envs == 4
    obs = venv.reset()
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    obs, rewards, dones, infos = venv.step(np.array([0, 1, 0, 1]))
    assert rewards.dtype == np.float32 and dones.dtype == np.bool_ and len(infos) == 4
    assert venv.env_is_wrapped(object) == [False] * 4 and venv.get_attr("render_mode") == [None] * 4


def test_terminal_observation_and_time_limit_flag():
    venv = JaxSB3VecEnv("CartPole-v1", num_envs=4, seed=1, max_steps_in_episode=25)
    venv.reset()
    rng = np.random.default_rng(0)
    terminated_seen = truncated_seen = 0
    for _ in range(100):
        obs, _, dones, infos = venv.step(rng.integers(0, 2, size=4))
        for i, info in enumerate(infos):
            assert "TimeLimit.truncated" in info
            if not dones[i]:
                assert "terminal_observation" not in info and not info["TimeLimit.truncated"]
                continue
            final = info["terminal_observation"]
            ended = abs(final[0]) > X_LIMIT or abs(final[2]) > THETA_LIMIT
            # truncated only if it did not also terminate, as SB3 bootstraps on this flag
            assert info["TimeLimit.truncated"] == (not ended)
            terminated_seen += ended
            truncated_seen += not ended
            assert np.all(np.abs(obs[i]) <= 0.05)  # the next episode's first observation
    assert terminated_seen > 0 and truncated_seen > 0


def test_seed_gives_the_same_batch():
    def first_obs(seed):
        venv = JaxSB3VecEnv("CartPole-v1", num_envs=4)
        venv.seed(seed)
        return venv.reset()

    np.testing.assert_array_equal(first_obs(3), first_obs(3))
    assert not np.array_equal(first_obs(3), first_obs(4))
    venv = JaxSB3VecEnv("CartPole-v1", num_envs=4)
    for bad in (1.5, "12", True, -2):
        with pytest.raises((TypeError, ValueError), match="seed must be a non-negative integer"):
            venv.seed(bad)


@pytest.fixture
def one_torch_thread():
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: more threads only contend with JAX's
    yield
    torch.set_num_threads(threads)


@pytest.mark.slow
def test_ppo_trains_on_cartpole_through_it(one_torch_thread, tmp_path, monkeypatch):
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3's logger folder, else a new one in /tmp per run
    venv = VecMonitor(JaxSB3VecEnv("CartPole-v1", num_envs=8, seed=0))
    model = PPO("MlpPolicy", venv, n_steps=128, batch_size=256, n_epochs=4, learning_rate=1e-3, seed=0, device="cpu")
    model.learn(total_timesteps=8 * 128 * 5)
    episodes = list(model.ep_info_buffer)
    assert len(episodes) > 50
    # a random policy averages about 22 steps; PPO improves on it within these few updates
    lengths = [e["l"] for e in episodes]
    assert np.mean(lengths[-20:]) > 30, lengths


def test_importing_without_sb3_names_the_extra(monkeypatch):
    import importlib
    import sys

    # stable_baselines3 and its submodules hidden, the export module imported afresh (in this
    # process: no new interpreter to start); monkeypatch puts every entry back afterwards
    for name in [m for m in sys.modules if m == "stable_baselines3" or m.startswith("stable_baselines3.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    monkeypatch.delitem(sys.modules, "jaxenvs.export.sb3", raising=False)
    with pytest.raises(ImportError, match=r'pip install "jaxenvs\[sb3\]"') as caught:
        importlib.import_module("jaxenvs.export.sb3")
    assert "stable_baselines3" in str(caught.value)
