"""docs/audit.md: its findings are prose about audited rows of peers that are `Peer`s, and
lab/audit_page.py writes the measured rows between its markers, leaving the prose alone."""

import math

import pytest

from jaxenvs import audit
from lab import audit_page

PAGE = audit_page.PAGE.read_text()


@pytest.mark.parametrize("peer", list(audit.PEERS))
def test_each_peer_is_a_peer_and_its_findings_name_its_rows(peer):
    module = audit.peer_module(peer)
    assert isinstance(module, audit.Peer)
    found = audit_page.findings(peer)
    assert found and set(found) <= set(module.ids()), set(found) - set(module.ids())
    # each finding is listed in the summary, which links to it
    summary = PAGE.split("\n## Summary\n", 1)[1].split("\n## ", 1)[0]
    assert all(f"[{row_id}](#" in summary for row_id in found)


def test_a_module_that_is_not_a_peer_is_refused(monkeypatch):
    monkeypatch.setitem(audit.PEERS, "nothing", "jaxenvs.tree")
    with pytest.raises(TypeError, match="lacks \\['LIBRARY', 'REFERENCES', 'ids', 'audit'\\]"):
        audit.peer_module("nothing")


def test_the_measured_rows_replace_only_the_text_between_the_markers():
    row = audit.AuditRow(
        "gymnax", "Pendulum-v1", "FAIL", 1000, 4, 0.5, math.nan, ("f32 step theta: error 0.5",), (), "python -c ..."
    )
    page = audit_page.with_measured(PAGE, [row])
    head, tail = PAGE.split(audit_page.BEGIN)[0], PAGE.split(audit_page.END)[1]
    assert page.startswith(head) and page.endswith(tail)
    assert "| Pendulum-v1 | gymnax | FAIL | 1,000 | 4 | 0.5 | - |" in page
    assert "### gymnax: Pendulum-v1 (FAIL)" in page and "- `f32 step theta: error 0.5`" in page
    assert audit_page.findings("gymnax", page) == audit_page.findings("gymnax")
    with pytest.raises(ValueError, match="no '<!-- audit: measured rows -->'"):
        audit_page.with_measured("# a page without markers", [row])
