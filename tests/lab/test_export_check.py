"""lab/export_check.py: the ids it checks by default, and one id through gymnasium's check_env."""

import pytest

from lab import export_check


def test_default_ids_take_one_id_per_bsuite_sweep():
    ids = export_check.default_ids()
    assert "CartPole-v1" in ids and "bsuite/catch/0" in ids and "bsuite/catch/1" not in ids


@pytest.mark.slow
def test_an_id_that_exports_cleanly_passes():
    pytest.importorskip("gymnasium")
    verdict, detail = export_check.check_id("Catch-bsuite")
    assert verdict in ("ok", "warn"), detail
