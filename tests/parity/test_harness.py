"""The harness can fail: a perturbed built-in env, a shifted distribution, different means."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.envs.classic.acrobot.parity import SPEC as ACROBOT
from jaxenvs.envs.classic.cartpole.parity import SPEC as CARTPOLE
from jaxenvs.parity import FieldPolicy, harness, stats, verdict
from jaxenvs.parity.reference import episode_seeds

pytest.importorskip("gymnasium")
pytest.importorskip("scipy")


def test_perturbed_cartpole_fails_state_injection():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, gravity=9.9)
    result = harness.check_transitions(env, params, CARTPOLE.reference("CartPole-v1"), num_steps=100, atol=1e-5)
    failed = {c.name: c for c in result if not c.passed}
    assert "step theta_dot" in failed
    assert "step x" not in failed  # position integrates the old velocity: unchanged by gravity
    assert "field 'theta_dot' at transition 0" in failed["step theta_dot"].mismatch


def test_wrong_time_limit_fails_truncation():
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, max_steps_in_episode=5)
    result = harness.check_transitions(env, params, CARTPOLE.reference("CartPole-v1"), num_steps=60, atol=1e-5)
    assert any(c.name == "step truncated" and not c.passed for c in result)


def test_distribution_checks_detect_differences():
    rng = np.random.default_rng(0)
    same = stats.ks_check("x", rng.uniform(size=(2000, 2)), rng.uniform(size=(2000, 2)))
    assert all(c.passed for c in same)
    shifted = stats.ks_check("x", rng.uniform(size=(2000, 2)) * 1.1, rng.uniform(size=(2000, 2)))
    assert not all(c.passed for c in shifted)

    a = rng.choice(4, size=3000, p=[0.25] * 4)
    b = rng.choice(4, size=3000, p=[0.25] * 4)
    assert all(c.passed for c in stats.chi_square_check("arm", a, b))
    c = rng.choice(4, size=3000, p=[0.3, 0.2, 0.25, 0.25])
    freq = stats.chi_square_check("arm", c, b)[1]
    assert not freq.passed and freq.value < verdict.ALPHA_ENV
    # one JAX sample in an outcome the reference's sample missed is chance; forty are not
    assert stats.chi_square_check("arm", np.append(a, 7), b)[0].passed
    outside = stats.chi_square_check("arm", np.append(a, [7] * 40), b)[0]
    assert not outside.passed and outside.kind == "p-value"
    declared = stats.chi_square_check("arm", a, b, support={0, 1, 2})[0]  # 3 happens: outside it
    assert not declared.passed


def test_stratified_chi_square_detects_one_shifted_case():
    rng = np.random.default_rng(1)
    cases = np.repeat([0, 1, 2], 1000)
    ref = rng.integers(0, 3, 3000)
    same = rng.integers(0, 3, 3000)
    assert stats.stratified_chi_square_check("s", cases, same, cases, ref).passed
    shifted = same.copy()
    shifted[2000:] = rng.choice(3, 1000, p=[0.5, 0.25, 0.25])
    assert not stats.stratified_chi_square_check("s", cases, shifted, cases, ref).passed


def test_mean_check():
    rng = np.random.default_rng(0)
    same = stats.mean_check("m", rng.normal(0, 1, 1000), rng.normal(0, 1, 1000))
    assert same.passed and "Welch" in same.detail
    assert not stats.mean_check("m", rng.normal(0.3, 1, 1000), rng.normal(0, 1, 1000)).passed


def test_mean_check_of_a_sparse_reward_is_a_permutation_test():
    """Most episodes return 0: the mean is far from normal at 125 episodes (Cochran's rule), so
    the p-value is a permutation test's, which is exact; a real difference still fails."""
    rng = np.random.default_rng(3)
    sparse = stats.mean_check("r", (rng.random(125) < 0.06) * 1.0, (rng.random(125) < 0.06) * 1.0)
    assert "permutation" in sparse.detail and sparse.passed
    assert not stats.mean_check("r", (rng.random(2000) < 0.12) * 1.0, (rng.random(2000) < 0.06) * 1.0).passed
    assert stats.mean_check("c", np.full(50, 3.0), np.full(50, 4.0)).value == 0.0  # two different constants


def test_permutation_p_values_are_uniform_under_the_null(monkeypatch):
    """The false-alarm rate of the permutation test is what it states: over 300 pairs of
    samples of one skewed distribution, the share of p-values below 0.05 is near 0.05 (fewer
    resamples than the harness draws: the test is valid at any number)."""
    monkeypatch.setattr(stats, "PERMUTATIONS", 400)
    rng = np.random.default_rng(4)
    ps = [stats.mean_check("r", rng.exponential(size=40) ** 3, rng.exponential(size=40) ** 3) for _ in range(300)]
    assert all("permutation" in c.detail for c in ps)
    assert 0.02 <= np.mean([c.value < 0.05 for c in ps]) <= 0.09


def test_tail_check_counts_samples_beyond_the_reference_range():
    rng = np.random.default_rng(5)
    same = stats.tail_check("reset", rng.uniform(-0.05, 0.05, (500, 2)), rng.uniform(-0.05, 0.05, (500, 2)))
    wider = stats.tail_check("reset", rng.uniform(-0.055, 0.055, (500, 2)), rng.uniform(-0.05, 0.05, (500, 2)))
    assert same.passed and not wider.passed and wider.value < 1e-6
    # a float32 copy of a constant float64 coordinate is not beyond it
    const = np.full((100, 1), 0.1)
    assert stats.tail_check("c", const.astype(np.float32), const).value == 1.0


def test_holm_rejects_step_down():
    rejected, thresholds = verdict.holm([0.01, 0.04, 0.03, 0.005], 0.05)
    assert rejected == [True, False, False, True]
    assert thresholds == pytest.approx([0.05 / 3, 0.05, 0.05 / 2, 0.05 / 4])


def test_result_decides_its_p_values_together():
    """Twenty p-values of 0.002 each pass alone at 0.01 but not at Holm's first threshold."""
    result = verdict.ParityResult("x", "ref", [stats.p_value_check(f"t{i}", 10, 0.002, "") for i in range(20)])
    assert result.decide(0.01).passed
    result = verdict.ParityResult("x", "ref", [stats.p_value_check("t", 10, 1e-4, "")] * 1)
    assert not result.decide(0.01).passed and result.num_tests == 1


def test_runs_at_consecutive_seeds_draw_other_reference_episodes():
    """A run at seed 1 resets the reference at other seeds than a run at seed 0 (not seed 0's
    shifted by one), so runs at several seeds compare independent reference samples."""
    first, second = episode_seeds(0, 50), episode_seeds(1, 50)
    assert not set(first) & set(second)
    assert episode_seeds(0, 20) == first[:20]
    assert all(0 <= s < 2**31 for s in first + second)
    ref = CARTPOLE.reference("CartPole-v1")
    run_0, run_1 = (ref.sample_resets(20, seed)[1] for seed in (0, 1))
    assert not {tuple(x) for x in run_0} & {tuple(x) for x in run_1}
    np.testing.assert_array_equal(ref.sample_resets(20, 0)[1], run_0)


def test_two_stage_draws_more_only_when_borderline():
    calls = []

    def run(p):
        def stage(factor, seed):
            calls.append((factor, seed))
            value = p if factor == 1 else 0.5
            return verdict.ParityResult("x", "ref", [stats.p_value_check("t", 10 * factor, value, "")])

        return stage

    clear = verdict.two_stage(run(0.3), seed=0)
    assert clear.passed and calls == [(1, 0)] and clear.first_stage is None
    calls.clear()
    borderline = verdict.two_stage(run(verdict.CONTINUE_BELOW / 2), seed=7)
    assert borderline.passed and len(calls) == 2 and calls[1][0] == verdict.STAGE_TWO_SIZE and calls[1][1] != 7
    assert borderline.first_stage is not None and "two stages" in borderline.stages
    calls.clear()
    decisive = verdict.two_stage(run(1e-9), seed=0)
    assert not decisive.passed and calls == [(1, 0)]


def test_float32_bound_follows_the_arithmetic():
    """A float32 value may differ from a float64 reference by its own rounding (the float64 run
    of the same step) and a few ulps; a real deviation, or a float32 path that rounds far more
    than float32 can, fails."""
    ref = np.array([1.0, 20.0, -3.0])
    f32 = ref.astype(np.float32)
    ok, rounding = stats.bounded_check("x", f32, ref, ref)
    assert ok.passed and rounding.passed
    bug = np.array([0, 1e-4, 0])  # a real deviation: the float64 twin makes it too
    assert not stats.bounded_check("x", f32 + bug.astype(np.float32), ref, ref + bug)[0].passed
    rounded = stats.bounded_check("x", f32 + bug.astype(np.float32), ref, ref)  # float32 alone rounds so
    assert rounded[0].passed and rounded[1].passed
    alone = f32 + np.array([0, 1e-2, 0], np.float32)  # only the float32 path is off
    hidden, lost = stats.bounded_check("x", alone, ref, ref)
    assert hidden.passed and not lost.passed  # within its own "rounding", but no float32 step rounds that much


def test_acrobot_float32_step_is_bounded_by_its_float64_twin():
    env, params = jaxenvs.make("Acrobot-v1", autoreset=False)
    result = harness.check_transitions(
        env, params, ACROBOT.reference("Acrobot-v1"), num_steps=200, seed=3, fields=FieldPolicy(float32_bound=True)
    )
    assert all(c.passed for c in result), [c.describe() for c in result if not c.passed]
    assert any(c.name.endswith("float32 rounding") for c in result)


def test_error_check_points_at_the_first_bad_row():
    check = stats.error_check("x", [0.0, 1.0, 5.0, 9.0], [0.0, 1.0, 2.0, 3.0], atol=0.5)
    assert not check.passed and check.first == 2 and check.value == 6.0
    assert stats.exact_check("f", [True, False, True], [True, True, False]).first == 1


def test_an_env_without_a_float64_path_is_compared_to_a_tolerance_not_its_own_rounding():
    """A step that computes in float32 even under x64 has no rounding of its own to measure: its
    values are compared to atol plus the bound's relative cap, and the check says so."""
    from jaxenvs.envs.classic.cartpole import CartPole

    class Float32CartPole(CartPole):
        def step_env(self, key, state, action, params):
            obs, state, reward, terminated, info = super().step_env(key, state, action, params)
            state = jax.tree_util.tree_map(lambda x: x.astype(jnp.float32) if x.dtype == jnp.float64 else x, state)
            return obs, state, reward, terminated, info

    env, params = Float32CartPole(), jaxenvs.make("CartPole-v1", autoreset=False)[1]
    fields = FieldPolicy(float32_bound=True)
    checks = harness.check_transitions(
        env, params, CARTPOLE.reference("CartPole-v1"), num_steps=60, seed=1, label="f32 step", fields=fields
    )
    assert all(c.passed for c in checks), [c.describe() for c in checks]
    assert "no float64 path" in checks[0].detail


def test_rows_in_distribution_are_compared_as_samples_and_the_rest_to_tolerance():
    """`FieldPolicy.in_distribution` splits one batch: its rows by a two-sample test of what each
    step changed, the others to the tolerance, and both halves count their transitions."""
    ref = CARTPOLE.reference("CartPole-v1")
    far_right = lambda _, data: data.states["x"] > 0  # noqa: E731 (any split of the rows)
    env, params = jaxenvs.make("CartPole-v1", autoreset=False)
    fields = FieldPolicy(atol=1e-5, in_distribution=far_right)
    checks = harness.check_transitions(env, params, ref, num_steps=400, seed=2, fields=fields)
    assert all(c.passed for c in checks), [c.describe() for c in checks if not c.passed]
    names = {c.name for c in checks}
    assert {"step in contact step distribution", "step in contact step direction"} <= names
    assert "step in contact flags frequencies" in names
    assert "step in free flight theta_dot" in names
    assert sum(c.transitions for c in checks) == 400

    # a push ten times too strong moves the steps' velocity changes far out of the reference's
    # distribution, and the steps compared to tolerance fail as before
    env, params = jaxenvs.make("CartPole-v1", autoreset=False, force_mag=100.0)
    checks = harness.check_transitions(env, params, ref, num_steps=400, seed=2, fields=fields)
    failed = {c.name for c in checks if not c.passed}
    assert {"step in contact step distribution", "step in free flight theta_dot"} <= failed


def test_sign_check_finds_a_direction_and_ignores_differences_within_tolerance():
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 1e-4, size=(200, 3))  # no direction; some beyond the tolerance, 2e-4
    assert stats.sign_check("x", noise, 2e-4).passed
    pushed = noise.copy()
    pushed[:40, 1] += 1e-2  # 40 rows pushed one way in one coordinate
    check = stats.sign_check("x", pushed, 2e-4)
    assert not check.passed and check.value < 1e-6 and "2 down" in check.detail
    # a push within the tolerance is not counted
    assert stats.sign_check("x", np.full((200, 3), 1e-4), 2e-4).value == 1.0


def test_injected_batches_of_other_sizes_share_one_compile():
    """`collect.bucketed`: a batch run `ROW_BUCKET` rows at a time gives each row what the
    vmapped function gives it on the whole batch, and every size reuses one compile."""
    from jaxenvs.parity.collect import ROW_BUCKET, bucketed

    def f(x, k, p):
        return x * p + jax.random.uniform(k), {"y": -x}

    plain = jax.jit(jax.vmap(f, in_axes=(0, 0, None)))
    padded = jax.jit(jax.vmap(f, in_axes=(0, 0, None)))
    call = bucketed(padded, (0, 0, None))
    for n in (3, 7, 2 * ROW_BUCKET + 5):
        x = jnp.arange(n, dtype=jnp.float32)
        keys = jax.random.split(jax.random.key(n), n)
        got = call(x, keys, 2.0)
        chex.assert_trees_all_equal(got, plain(x, keys, 2.0))
        assert got[0].shape == (n,)
    assert plain._cache_size() == 3 and padded._cache_size() == 1
