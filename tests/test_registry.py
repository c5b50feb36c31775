import dataclasses
import importlib.util
import subprocess
import sys

import jax
import pytest

import jaxenvs
from jaxenvs import registry
from jaxenvs.environment import Environment


def test_unknown_id_names_closest():
    with pytest.raises(jaxenvs.UnknownEnvError) as info:
        jaxenvs.make("CartPol-v1")
    assert isinstance(info.value, KeyError)
    assert "CartPole-v1" in str(info.value)
    assert info.value.env_id == "CartPol-v1" and info.value.closest[0] == "CartPole-v1"
    assert jaxenvs.UnknownEnvError("only a message").closest == ()  # the old call keeps working


def test_unknown_override_lists_valid_names():
    with pytest.raises(TypeError) as info:
        jaxenvs.make("CartPole-v1", gravty=1.0)
    message = str(info.value)
    assert "gravty" in message and "gravity" in message and "max_steps_in_episode" in message


def test_overrides_become_defaults():
    env, params = jaxenvs.make("CartPole-v1", max_steps_in_episode=3, autoreset=False)
    assert params.max_steps_in_episode == 3
    assert env.default_params.max_steps_in_episode == 3
    _, state = env.reset(jax.random.key(0))
    for _ in range(3):
        _, state, _, terminated, truncated, _ = env.step(jax.random.key(1), state, 0)
    assert bool(truncated)


def test_out_of_range_action_raises_eagerly():
    env, params = jaxenvs.make("CartPole-v1")
    _, state = env.reset(jax.random.key(0), params)
    with pytest.raises(ValueError) as info:
        env.step(jax.random.key(0), state, 2, params)
    assert "CartPole" in str(info.value) and "2" in str(info.value) and "[0, 1]" in str(info.value)


def test_register_user_env_and_duplicate(monkeypatch):
    from jaxenvs.envs.classic.cartpole import CartPole

    jaxenvs.registered_envs()  # the built-in families first, then a copy the test may change
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    jaxenvs.register("MyCartPole-v0", lambda: CartPole(), params={"max_steps_in_episode": 7}, overwrite=True)
    assert "MyCartPole-v0" in jaxenvs.registered_envs()
    env, params = jaxenvs.make("MyCartPole-v0")
    assert params.max_steps_in_episode == 7
    with pytest.raises(ValueError):
        jaxenvs.register("MyCartPole-v0", lambda: CartPole())
    with pytest.raises(ValueError):
        jaxenvs.register("Bad-v0", "no_colon_here")


def test_missing_optional_library_names_the_extra(monkeypatch):
    from jaxenvs import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    jaxenvs.register("NeedsLib-v0", "jaxenvs_fake_missing_library_xyz:Env", extra="fakeextra")
    available = registry.availability("NeedsLib-v0")  # asked before anything is imported
    assert (available.runnable, available.kind) == (False, registry.MISSING_EXTRA)
    assert available.install == 'pip install "jaxenvs[fakeextra]"'
    with pytest.raises(ImportError) as info:
        jaxenvs.make("NeedsLib-v0")
    assert available.install in str(info.value)  # the same line, built once


def test_availability_reads_the_installed_libraries_and_the_notes(monkeypatch):
    import importlib.util

    from jaxenvs import registry

    assert registry.availability("CartPole-v1") == registry.Availability("CartPole-v1", True)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "brax" else real(name, *a))
    brax = registry.availability("brax/fast")
    assert (brax.runnable, brax.kind, brax.reason) == (False, registry.MISSING_EXTRA, "'brax' is not installed")
    assert brax.install == 'pip install "jaxenvs[brax]"'
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    notes = {"needs_download": "downloads its levels", "broken_upstream": "fails inside its library"}
    jaxenvs.register("user/Both-v0", "jaxenvs.envs.misc.grid_world:GridWorld", notes=notes)
    # a download is named first (nothing is fetched unless asked), then the failure upstream
    assert registry.availability("user/Both-v0").kind == registry.NEEDS_DOWNLOAD
    asked = registry.availability("user/Both-v0", download=True)
    assert (asked.runnable, asked.kind, asked.reason) == (False, registry.BROKEN_UPSTREAM, notes["broken_upstream"])
    with pytest.raises(jaxenvs.UnknownEnvError, match="CartPole-v1"):
        registry.availability("CartPol-v1")
    with pytest.raises(ValueError, match="extra must be the name of a pip extra such as 'brax', got 'my extra'"):
        jaxenvs.register("user/Extra-v0", "m:a", extra="my extra")


def test_import_is_lazy():
    code = (
        "import sys, jaxenvs; jaxenvs.registered_envs();"
        "heavy = [m for m in ('gymnasium', 'brax', 'jumanji', 'pgx', 'minatar', 'bsuite', 'gymnax', 'scipy',"
        " 'jaxenvs.envs.classic.cartpole', 'jaxenvs.parity.harness', 'torch') if m in sys.modules];"
        "print(heavy); assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_registered_envs_are_environments():
    for env_id in jaxenvs.registered_envs("classic"):
        env, params = jaxenvs.make(env_id, autoreset=False)
        assert isinstance(env.unwrapped, Environment)
        assert jaxenvs.spec(env_id).reference


def test_make_vec_shapes_and_autoreset():
    venv, params = jaxenvs.make_vec("CartPole-v1", 16, max_steps_in_episode=5)
    obs, state = venv.reset(jax.random.key(0), params)
    assert obs.shape == (16, 4)
    step = jax.jit(venv.step)
    for t in range(5):
        actions = venv.sample_actions(jax.random.key(t), params)
        obs, state, reward, terminated, truncated, info = step(jax.random.key(t), state, actions, params)
    assert reward.shape == (16,) and truncated.shape == (16,)
    done = terminated | truncated
    assert bool(done.all())  # every env hit the 5-step limit (or terminated) by now
    assert (state.time == 0).all()  # and was reset in the same step
    assert info["final_observation"].shape == (16, 4)


def test_bad_make_arguments_are_clear_errors():
    import pytest

    import jaxenvs

    for bad in (None, 123, ["CartPole-v1"]):
        with pytest.raises(TypeError, match="an env id must be a str"):
            jaxenvs.make(bad)
    with pytest.raises(TypeError, match="autoreset must be True or False, got 'no'"):
        jaxenvs.make("CartPole-v1", autoreset="no")
    for bad in (2.5, "4", True, None):
        with pytest.raises(TypeError, match=r"num_envs must be an int in \[1, 1073741824\]"):
            jaxenvs.make_vec("CartPole-v1", num_envs=bad)
    for bad in (0, -3, 2**31):
        with pytest.raises(ValueError, match=r"num_envs must be an int in \[1, 1073741824\]"):
            jaxenvs.make_vec("CartPole-v1", num_envs=bad)


def test_each_fact_is_declared_with_the_id():
    from jaxenvs import bench

    assert jaxenvs.spec("CartPole-v1").parity == "jaxenvs.envs.classic.cartpole.parity:SPEC"
    assert jaxenvs.spec("Breakout-MinAtar").parity == "jaxenvs.envs.minatar.breakout.parity:SPEC"
    assert jaxenvs.spec("Breakout-MinAtar-v1").parity is None  # checked through its base id
    assert bench.peers("CartPole-v1") == ("CartPole-v1", "CartPole-v1", "CartPole-v1", None)
    assert bench.peers("Breakout-MinAtar")[3] == ("minatar", "breakout")
    assert "needs_download" in jaxenvs.spec("jumanji/Sokoban-v0").notes
    assert "broken_upstream" in jaxenvs.spec("brax/swimmer").notes
    assert jaxenvs.spec("GridWorld-misc").parity is None and not jaxenvs.spec("GridWorld-misc").peers


def test_env_spec_holds_every_fact_of_an_id():
    """One entry per id: what make needs, and what parity and bench read (no side tables)."""
    assert [f.name for f in dataclasses.fields(jaxenvs.EnvSpec)] == [
        "id",
        "entry_point",
        "env_kwargs",
        "params",
        "family",
        "extra",
        "notes",
        "reference",
        "parity",
        "peers",
        "batch_native",
    ]
    s = jaxenvs.spec("CartPole-v1")
    assert s.reference == "gymnasium CartPole-v1 (classic_control)"
    assert s.parity == "jaxenvs.envs.classic.cartpole.parity:SPEC"
    assert s.peers["gymnax"] == "CartPole-v1"
    assert importlib.util.find_spec("jaxenvs.sidetables") is None


def test_register_rejects_unknown_notes_and_a_doubled_reference(monkeypatch):
    from jaxenvs import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    with pytest.raises(
        ValueError, match="valid: \\['needs_download', 'broken_upstream', 'slow_on_cpu', 'representative'\\]"
    ):
        jaxenvs.register("user/X-v0", "jaxenvs.envs.misc.grid_world:GridWorld", notes={"slow": "why"})
    with pytest.raises(ValueError, match="once"):
        jaxenvs.register("user/X-v0", "m:a", reference="pkg.refs:ref", parity="pkg.refs:other")
    jaxenvs.register("user/X-v0", "m:a", reference="pkg.refs:ref", peers={"gymnax": "X-v0"})
    assert jaxenvs.spec("user/X-v0").parity == "pkg.refs:ref" and jaxenvs.spec("user/X-v0").peers["gymnax"] == "X-v0"
    jaxenvs.register("user/X-v0", "m:a", reference="a reference in words", overwrite=True)
    s = jaxenvs.spec("user/X-v0")
    assert (s.reference, s.parity, s.peers) == ("a reference in words", None, {})


def test_register_checks_its_arguments_at_once():
    """Bad registrations are refused at `register`, naming what was wrong, not later elsewhere."""
    from jaxenvs.registry import register

    for bad_id in (123, "", None):
        with pytest.raises(TypeError, match="id must be a non-empty str"):
            register(bad_id, "jaxenvs.envs.classic.cartpole:CartPole")
    for malformed in ("nocolon", "a b:c", "a:b:c", "mod:"):
        with pytest.raises(ValueError, match="module:attribute"):
            register("mine/Malformed-v0", malformed)
    with pytest.raises(TypeError, match="callable"):
        register("mine/NotCallable-v0", 5)
    assert "mine/Malformed-v0" not in jaxenvs.registered_envs()


def test_a_user_registration_is_never_replaced_by_a_built_in(monkeypatch):
    """Registered before the built-in families are loaded, a user's id still wins (or, without
    overwrite=True, is refused as a duplicate); it used to be silently replaced."""
    from jaxenvs import registry

    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_FAMILIES_LOADED", False)
    with pytest.raises(ValueError, match="already registered"):
        registry.register("CartPole-v1", "jaxenvs.envs.classic.acrobot:Acrobot")
    registry.register("CartPole-v1", "jaxenvs.envs.classic.acrobot:Acrobot", overwrite=True)
    env, _ = jaxenvs.make("CartPole-v1", autoreset=False)
    assert type(env.unwrapped).__name__ == "Acrobot"


def test_make_names_the_id_when_its_entry_point_is_broken(monkeypatch):
    from jaxenvs import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register("mine/Missing-v0", "no_such_module_xyz.sub:Env")
    registry.register("mine/NoAttr-v0", "jaxenvs.envs.classic.cartpole:Nope")
    registry.register("mine/NotAnEnv-v0", lambda: 3)
    with pytest.raises(ImportError, match="mine/Missing-v0.*no_such_module_xyz"):
        jaxenvs.make("mine/Missing-v0")
    with pytest.raises(ImportError, match="mine/NoAttr-v0.*Nope"):
        jaxenvs.make("mine/NoAttr-v0")
    with pytest.raises(TypeError, match="mine/NotAnEnv-v0.*returned int, not an environment"):
        jaxenvs.make("mine/NotAnEnv-v0")


def test_make_vec_says_it_always_auto_resets():
    with pytest.raises(TypeError, match="make_vec always auto-resets"):
        jaxenvs.make_vec("CartPole-v1", 4, autoreset=True)


def test_unknown_env_error_docstring_example_runs():
    import doctest

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(verbose=False)
    (test,) = finder.find(jaxenvs.UnknownEnvError, "UnknownEnvError", globs={})
    outcome = runner.run(test, out=lambda s: None)
    assert outcome.attempted == 2 and outcome.failed == 0
