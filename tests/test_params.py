"""Params declare their valid values once (`jaxenvs.params`); make, make_vec and replace check them."""

import math

import numpy as np
import pytest

import jaxenvs
from jaxenvs.params import check_params, declared

# (id, field, bad values): the values issue 16 found accepted
ACCEPTED_BEFORE = [
    ("CartPole-v1", "max_steps_in_episode", [0, -1, 1.5, "abc", None, [10], 2**40]),
    ("CartPole-v1", "tau", [math.nan, math.inf]),
    ("CartPole-v1", "masscart", [0, -1.0]),
    ("Breakout-MinAtar", "sticky_action_prob", [1.5, -0.1]),
    ("Taxi-v4", "rainy_probability", [2.0]),
    ("FrozenLake-v1", "success_rate", [2.0]),
    ("FrozenLake-v1", "is_slippery", ["no", 1]),
    ("DeepSea-bsuite", "action_mapping", [np.zeros((3, 3), np.int32), np.full((10, 10), 2, np.int32)]),
]


@pytest.mark.parametrize(("env_id", "field", "values"), ACCEPTED_BEFORE)
def test_make_rejects_a_bad_value_naming_id_field_value_and_what_is_valid(env_id, field, values):
    for value in values:
        with pytest.raises(ValueError, match=rf"{env_id}: parameter {field}=.* is not valid; valid values: "):
            jaxenvs.make(env_id, **{field: value})
        with pytest.raises(ValueError, match=rf"{env_id}: parameter {field}="):
            jaxenvs.make_vec(env_id, 2, **{field: value})


def test_replace_checks_the_fields_it_changes():
    _, params = jaxenvs.make("CartPole-v1")
    with pytest.raises(ValueError, match=r"CartPoleParams: parameter max_steps_in_episode=0 is not valid"):
        params.replace(max_steps_in_episode=0)
    with pytest.raises(ValueError, match=r"masscart=0.* a finite real > 0"):
        params.replace(masscart=0.0)
    assert params.replace(max_steps_in_episode=7, masscart=2.0).max_steps_in_episode == 7
    # a batch of values (meta-RL) is checked elementwise
    assert params.replace(masscart=np.array([0.5, 2.0])).masscart.shape == (2,)
    with pytest.raises(ValueError, match="masscart"):
        params.replace(masscart=np.array([0.5, 0.0]))


def test_adapter_params_are_checked_against_the_env():
    pytest.importorskip("pgx")
    with pytest.raises(ValueError, match=r"pgx/tic_tac_toe: parameter agent_player=5 .* in \[0, 2\)"):
        jaxenvs.make("pgx/tic_tac_toe", agent_player=5)
    assert jaxenvs.make("pgx/tic_tac_toe", agent_player=1)[1].agent_player == 1


def test_a_bound_naming_another_field_reads_its_value():
    env, params = jaxenvs.make("MountainCar-v0")
    with pytest.raises(ValueError, match=r"min_position=0.7 .* < 0.6"):
        params.replace(min_position=0.7)
    check_params(params.replace(min_position=-2.0), env=env)


def test_under_jit_nothing_is_checked_and_nothing_breaks():
    import jax

    _, params = jaxenvs.make("CartPole-v1")
    out = jax.jit(lambda p: p.replace(max_steps_in_episode=p.max_steps_in_episode * 2))(params)
    assert int(out.max_steps_in_episode) == 1000


def test_a_subclass_that_only_changes_a_default_keeps_the_base_declaration():
    _, params = jaxenvs.make("CartPole-v1")
    assert declared(type(params), "max_steps_in_episode").low == 1
