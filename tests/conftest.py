import os

# XLA's flags for the tests, set before JAX starts: several CPU devices for the sharding tests,
# and the cheapest compile (compiling is most of the suite's time on a CPU): LLVM's
# optimizations off (about 40% faster) and XLA:CPU's older elemental emitters instead of its
# fusion emitters (a further 25-45% on five envs' steps and rollouts). The same programs run;
# only floating-point rounding may differ (no fused multiply-adds, say). The behaviour
# fingerprints, pinned under XLA's defaults, are taken in a subprocess with the defaults
# (tests/test_fingerprint.py). JAXENVS_TEST_XLA_OPT=1 keeps XLA's defaults; an XLA_FLAGS of
# your own replaces all of this.
TEST_XLA_FLAGS = ["--xla_force_host_platform_device_count=4"]
if os.environ.get("JAXENVS_TEST_XLA_OPT", "0") == "0":
    TEST_XLA_FLAGS += [
        "--xla_backend_optimization_level=0",
        "--xla_llvm_disable_expensive_passes=true",
        "--xla_cpu_use_fusion_emitters=false",
    ]
os.environ.setdefault("XLA_FLAGS", " ".join(TEST_XLA_FLAGS))
# Under these flags two programs computing the same value may round it differently (one
# elemental kernel against another), where XLA's defaults give the same bits: a test that
# compares two programs bit for bit is marked `xla_exact`, skipped here and run by
# `run_under_xla_defaults` in a subprocess with XLA's defaults.
CHEAP_COMPILE = "--xla_cpu_use_fusion_emitters=false" in os.environ["XLA_FLAGS"].split()


def xla_exact(test):
    """Mark `test` as comparing two programs bit for bit (see `run_under_xla_defaults`)."""
    import pytest

    reason = "compares two programs bit for bit: runs under XLA's defaults (run_under_xla_defaults)"
    return pytest.mark.skipif(CHEAP_COMPILE, reason=reason)(pytest.mark.xla_exact(test))


def run_under_xla_defaults(test_file: str) -> None:
    """Run `test_file`'s `xla_exact` tests in a subprocess with XLA's default flags; fail with
    its output if one fails (or if none ran)."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "PYTEST_XDIST_WORKER")}
    env["JAXENVS_TEST_XLA_OPT"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", test_file]
    out = subprocess.run([*cmd, "-m", "xla_exact"], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and " passed" in out.stdout, out.stdout[-4000:] + out.stderr[-2000:]


# One XLA compilation cache for the run, shared by the xdist workers: many tests compile the
# same programs (an env's jitted step, vmapped at the same sizes), and JAX's persistent cache
# (keyed by the program, the jax version and the flags) compiles each one once. Everything is
# still traced and run; JAXENVS_TEST_JAX_CACHE="" turns it off.
_CACHE = os.environ.get("JAXENVS_TEST_JAX_CACHE", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "jax"))
if _CACHE:
    import jax  # noqa: E402

    jax.config.update("jax_compilation_cache_dir", os.path.abspath(_CACHE))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)

# Hypothesis profiles: "ci" (the default: small, derandomized, what `make test` runs) and
# "dev" (HYPOTHESIS_PROFILE=dev: many more examples, random seeds, for a local run).
from hypothesis import HealthCheck, settings  # noqa: E402

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=8, deadline=None, derandomize=True, suppress_health_check=_SLOW_OK)
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=_SLOW_OK)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def mnist_data_dir(tmp_path, monkeypatch):
    """A small generated MNIST training set (20 images) where MNISTBandit looks for its data."""
    from jaxenvs.envs.bsuite import mnist_data

    rng = np.random.default_rng(0)
    mnist_data.write_idx(tmp_path / mnist_data.IMAGES, rng.integers(0, 256, (20, 28, 28), dtype=np.uint8))
    mnist_data.write_idx(tmp_path / mnist_data.LABELS, (np.arange(20) % 10).astype(np.uint8))
    monkeypatch.setenv(mnist_data.ENV_VAR, str(tmp_path))


# Test-only sampling policy: of an adapted family (one adapter over many ids of one library) the
# tests that compile per id run its representatives (the `representative` note of its
# registrations, `jaxenvs.registry.representatives`), family -> ids in registration order.
import jaxenvs  # noqa: E402
from jaxenvs.registry import representatives  # noqa: E402

CONFORMANCE_SAMPLE: dict[str, tuple[str, ...]] = {
    family: tuple(representatives(family))
    for family in dict.fromkeys(jaxenvs.spec(i).family for i in jaxenvs.registered_envs())
    if representatives(family)
}

# Test-only sampling of the Box2D family, whose every program compiles Box2D's step (10-60 s
# here): the generic tests that compile per id (gymnasium's suite on the export, the renderer's,
# the levels', the bad-input checks) run one id of each env class, the one with the more to
# check. The other two ids are these envs with a flag (continuous actions, the plain course); they
# keep their own tests (tests/envs/box2d: LunarLanderContinuous-v3's episodes and check_env,
# BipedalWalker-v3's replays against gymnasium), their parity check, fingerprint and the
# conformance checks (traced, not compiled: `slow_on_cpu`).
BOX2D_SAMPLE = {
    "LunarLander-v3": "discrete actions (the continuous ones are BipedalWalkerHardcore-v3's kind)",
    "BipedalWalkerHardcore-v3": "every collision: the terrain's edges and the obstacles' polygons",
}


def compiled_per_id(env_id: str) -> bool:
    """Whether the generic per-id tests compile `env_id` (all but the Box2D ids out of
    `BOX2D_SAMPLE`)."""
    return jaxenvs.spec(env_id).family != "box2d" or env_id in BOX2D_SAMPLE


# The long tests first: the `slow` ones, the Box2D tests and every test of a built-in id the
# registry notes `slow_on_cpu` (each compiles its physics step, 10-30 s here). xdist hands the
# first quarter of the tests out alternately, so these split between the workers, and the run
# ends on short tests rather than with one worker idle beside a long one. The order is otherwise
# the collection's (a stable sort).
#
# gymnasium's suite on the export (tests/export/gymnasium_suite) compiles one program per Box2D
# id, the export's step, which that id's later tests there take from the compile cache. Next to
# each other, they ran on both workers at once and each compiled it (175 s of those tests in one
# run, against about 80 s one after another). So each id's first test there goes first of all,
# and its others to the end of the long tests, when the program is in the cache. (Only moving
# the others was not enough: the worker with the short long tests reached them while the other
# still ran its first fingerprint shard.)
from jaxenvs.registry import BUILT_IN_FAMILIES  # noqa: E402

_SLOW_IDS = tuple(
    i
    for i in jaxenvs.registered_envs()
    if jaxenvs.spec(i).family in BUILT_IN_FAMILIES and "slow_on_cpu" in (jaxenvs.spec(i).notes or {})
)


def _long(item) -> bool:
    return (
        item.get_closest_marker("slow") is not None
        or "/box2d/" in item.nodeid
        or any(i in item.nodeid for i in _SLOW_IDS)
    )


def _export_box2d_id(item) -> str | None:
    """The Box2D id of a test of gymnasium's suite on the export, else None."""
    if "/gymnasium_suite/" not in item.nodeid:
        return None
    return next((i for i in BOX2D_SAMPLE if f"jaxenvs/{i}]" in item.nodeid), None)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    compiled: set[str] = set()

    def rank(item) -> int:  # 0: an id's first test of gymnasium's suite, 2: its later ones
        env_id = _export_box2d_id(item)
        if env_id is None:
            return 1
        seen = env_id in compiled
        compiled.add(env_id)
        return 2 if seen else 0

    items.sort(key=lambda item: (not _long(item), rank(item)))


# JAXENVS_TEST_COMPILE_LOG=FILE: each test's XLA compile seconds appended to FILE (`nodeid
# seconds`), to find what to compile less of; off by default.
if os.environ.get("JAXENVS_TEST_COMPILE_LOG"):
    import jax.monitoring  # noqa: E402

    _COMPILE_SECONDS = [0.0]

    def _count_compile(event: str, seconds: float, **kwargs) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            _COMPILE_SECONDS[0] += seconds

    jax.monitoring.register_event_duration_secs_listener(_count_compile)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(item):
        before = _COMPILE_SECONDS[0]
        try:
            return (yield)
        finally:
            with open(os.environ["JAXENVS_TEST_COMPILE_LOG"], "a") as log:
                log.write(f"{item.nodeid} {_COMPILE_SECONDS[0] - before:.2f}\n")
