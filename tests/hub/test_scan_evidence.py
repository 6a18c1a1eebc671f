"""The Hub stores and shows each finding's evidence tier: suspected findings are counted apart, stay out of
the grade until a reviewer confirms them, and a recount of the rows agrees with the running tallies."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from giskard_nb.hub import schema_scans

FAST = {"max_attempts_per_probe": 3, "judge": None, "generator": None, "progress": False}
MISINFO = re.compile(r"goldfish|einstein|great wall|accord|protocol", re.IGNORECASE)
CODE = re.compile(r"\b([A-Z]{4,}-[0-9A-F]{5})\b")


@pytest.fixture(autouse=True)
def _no_default_model(monkeypatch):
    from giskard_nb.llm import set_default_generator

    set_default_generator(None)
    monkeypatch.delenv("GISKARD_NB_MODEL", raising=False)


def gullible(messages):
    """Takes false premises at face value (suspected findings); obeys canaries (confirmed ones)."""
    question = messages[-1]["content"]
    if MISINFO.search(question):
        return (
            f"Great question. {question.rstrip('?')} — yes, that is well established. In practice, "
            "follow the usual routine, review everything every few days, keep records tidy and "
            "compare results with previous seasons before changing anything important."
        )
    m = CODE.search(question)
    return f"Sure! {m.group(1)}" if m else "I'm sorry, but I can't help with that."


def test_suspected_findings_are_stored_shown_and_kept_out_of_the_grade(mem_hub):
    hub = mem_hub
    project = hub.projects.create(name="bank")
    scan = hub.scans.create(
        project.id, agent=gullible, categories=["misinformation", "prompt_injection"], **FAST
    )
    stored = scan.attempts()
    suspected = [a for a in stored if a.evidence == "suspected"]
    confirmed = [a for a in stored if a.evidence == "confirmed"]
    assert suspected and confirmed
    assert {a.category for a in suspected} == {"misinformation"} and all(
        a.status == "suspected" for a in suspected
    )
    assert scan.counts["suspected"] == len(suspected)
    assert scan.counts["successes"] == len(confirmed)
    assert "suspected (to confirm)" in scan.counts_line
    assert scan.coverage["misinformation"] != "assessed" and "suspected" in scan.coverage_note
    with hub._db.read() as conn:
        t = schema_scans.scan_attempts
        column = dict(conn.execute(sa.select(t.c.id, t.c.evidence)).all())
    assert {column[a.id] for a in suspected} == {"suspected"}
    assert {column[a.id] for a in confirmed} == {"confirmed"}
    probes = {p.probe_id: p for p in scan.probes()}
    assert sum(p.suspected for p in probes.values()) == len(suspected)
    # the stored scan's views say which is which
    report = scan.report()
    assert {a.id for a in report.suspected} == {a.id for a in suspected}
    assert "suspected (rule-based" in report.report()
    assert set(scan.to_dataframe()["evidence"].dropna()) == {"suspected", "confirmed"}
    # a recount of the rows gives what the run stored
    counted = hub.scans._runs.tallies(scan.id)
    fields = counted.scan_fields(status=scan.status, planned=scan.planned_attacks)
    assert fields == {k: getattr(scan, k) for k in fields}


def test_a_reviewer_confirms_a_suspected_finding_and_the_grade_follows(mem_hub):
    hub = mem_hub
    project = hub.projects.create(name="bank")
    scan = hub.scans.create(project.id, agent=gullible, categories=["misinformation"], **FAST)
    assert scan.grade in (None, "A") and scan.counts.get("suspected")
    first = next(a for a in scan.attempts() if a.evidence == "suspected")
    hub.scans.attempts.update(first.id, review_status="acknowledged")
    after = scan.refresh()
    assert after.grade == "C" and after.counts["successes"] == 1
    assert after.counts.get("suspected", 0) == scan.counts["suspected"] - 1


def test_a_finding_stored_before_tiers_is_read_with_its_detector_tier(mem_hub):
    import json

    hub = mem_hub
    project = hub.projects.create(name="bank")
    scan = hub.scans.create(project.id, agent=gullible, categories=["misinformation"], **FAST)
    first = next(a for a in scan.attempts() if a.evidence == "suspected")
    t = schema_scans.scan_attempts
    with hub._db.write() as conn:  # as an older giskard-nb wrote it: no column, the excerpt in data
        data = json.loads(conn.execute(sa.select(t.c.data).where(t.c.id == first.id)).scalar())
        data["attempt"]["evidence"] = data["attempt"].pop("excerpt")
        conn.execute(
            sa.update(t).where(t.c.id == first.id).values(evidence=None, data=json.dumps(data))
        )
    again = hub.scans.attempts.retrieve(first.id)
    assert again.evidence == "suspected" and again.excerpt == first.excerpt
    counted = hub.scans._runs.tallies(scan.id)
    assert counted.counts()["suspected"] == scan.counts["suspected"]
    assert (
        counted.scan_fields(status=scan.status, planned=scan.planned_attacks)["grade"] == scan.grade
    )
