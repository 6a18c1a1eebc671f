"""The scan of a Hub database written by the release before ``ScanAttempt`` wrapped the engine's
``Attempt`` (tests/hub/data: layout 2, schema 1, attempts stored flat) opens, reads as it did, counts
the same, resumes, and takes new scans beside it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa

from giskard_nb.hub import Hub, schema, schema_scans
from giskard_nb.hub.migrate import TABLE_LAYOUT
from giskard_nb.hub.models.base import SCHEMA_VERSION
from giskard_nb.scan.result import Attempt

FIXTURE = Path(__file__).parent / "data" / "hub_layout2_release_93f59d6.sqlite"
CATEGORIES = {
    "prompt_injection",
    "sensitive_information_disclosure",
    "system_prompt_leakage",
    "improper_output_handling",
    "excessive_agency",
}


@pytest.fixture
def old_hub(tmp_path: Path):
    path = tmp_path / "hub.db"
    shutil.copy(FIXTURE, path)
    hub = Hub(path, actor="tester")
    yield hub
    hub.close()


def _raw_attempts(hub: Hub) -> dict[str, dict]:
    t = schema_scans.scan_attempts
    with hub._db.read() as conn:
        rows = conn.execute(sa.select(t)).mappings().all()
    return {r["id"]: {**dict(r), "data": json.loads(r["data"])} for r in rows}


def test_the_release_scan_reads_as_it_was_written(old_hub: Hub) -> None:
    (scan,) = old_hub.scans.list()
    assert (scan.status, scan.grade, scan.incomplete, scan.coverage_note) == (
        "finished",
        "A",
        False,
        "",
    )
    assert scan.counts == {"attempts": 54, "successes": 0, "errors": 0, "ignored": 0}
    assert scan.coverage == dict.fromkeys(scan.coverage, "assessed")
    assert set(scan.coverage) == CATEGORIES and scan.planned_attacks == 54
    assert scan.grade_line == "A" and scan.counts_line == "0 findings in 54 attempts"

    probes = old_hub.scans.probes.list(scan.id)
    assert len(probes) == 28 and [p.position for p in probes] == list(range(28))
    (skipped,) = [p for p in probes if p.skipped]
    assert skipped.probe_id == "kb.poisoned_excerpt" and skipped.attempts == 0
    ran = [p for p in probes if not p.skipped]
    assert all(p.attempts == 2 and p.successes == p.errors == 0 for p in ran)
    assert old_hub.scans.probes.retrieve(ran[0].id) == ran[0]

    attempts = scan.attempts()
    raw = _raw_attempts(old_hub)
    assert len(attempts) == 54 == len(raw)
    for a in attempts:
        row = raw[a.id]
        assert row["schema_version"] == 1 and "attempt" not in row["data"]  # untouched, read as is
        assert isinstance(a.attempt, Attempt) and a.attempt.id == a.id
        assert a.created_at == a.attempt.created_at == row["created_at"]
        assert a.output == row["data"]["output"] and a.messages == row["data"]["messages"]
        assert a.attack.model_dump(mode="json") == row["data"]["attack"]
        assert a.attack_id == row["attack_id"] and a.probe_id == a.attack.probe_id
        assert (a.successful, int(a.severity), str(a.review_status), a.error) == (
            row["successful"], row["severity"], row["review_status"], row["error"],
        )  # fmt: skip
        assert a.status == "safe" and a.category in CATEGORIES
        assert old_hub.scans.attempts.retrieve(a.id) == a
    by_probe = old_hub.scans.attempts.list(ran[0].id)
    assert len(by_probe) == 2 and {a.scan_probe_id for a in by_probe} == {ran[0].id}


def test_report_grade_and_frames_of_the_release_scan(old_hub: Hub) -> None:
    (scan,) = old_hub.scans.list()
    report = scan.report()
    assert report.status == "completed" and len(report.attempts) == 54
    assert (report.grade, report.grade_line, report.incomplete) == ("A", "A", False)
    assert report.coverage == scan.coverage
    frame = scan.to_dataframe()
    assert len(frame) == 54 and set(frame["attempt_id"]) == {a.id for a in scan.attempts()}
    assert {"probe_id", "severity", "output", "status"} <= set(frame.columns)
    probes = scan.probes_dataframe()
    assert len(probes) == 28 and probes["attempts"].sum() == 54
    assert probes.set_index("probe_id").loc["kb.poisoned_excerpt", "skipped"].startswith("needs")
    categories = scan.categories_dataframe()
    assert dict(zip(categories.category, categories.coverage, strict=True)) == scan.coverage
    assert categories.attrs["grade"] == "A" and categories.attrs["incomplete"] is False
    assert "grade=A" in repr(scan) and "Prompt Injection" in scan._repr_html_()


def test_counting_the_release_rows_gives_the_stored_tallies(old_hub: Hub) -> None:
    (scan,) = old_hub.scans.list()
    counted = old_hub.scans._runs.tallies(scan.id)
    fields = counted.scan_fields(status=scan.status, planned=scan.planned_attacks)
    assert fields == {k: getattr(scan, k) for k in fields}
    assert counted.usage == scan.usage


def test_reviewing_a_release_attempt_rewrites_it_in_the_new_format(old_hub: Hub) -> None:
    (scan,) = old_hub.scans.list()
    before = scan.attempts()[0]
    after = old_hub.scans.attempts.update(before.id, successful=True, severity="critical")
    assert (after.successful, after.severity.label, after.output) == (
        True,
        "critical",
        before.output,
    )
    row = _raw_attempts(old_hub)[before.id]
    assert row["data"]["attempt"]["severity"] == 30 and row["severity"] == 30
    assert old_hub.scans.attempts.retrieve(before.id).attempt == after.attempt
    again = old_hub.scans.retrieve(scan.id)
    assert again.grade == "D" and again.counts["successes"] == 1
    assert [e.action for e in old_hub.audit.history(before.id)] == ["create", "update"]


def test_an_interrupted_release_scan_resumes(old_hub: Hub) -> None:
    from giskard_nb.demo import DEMO_SECRETS
    from giskard_nb.demo.agent import support_agent
    from giskard_nb.scan import AttackProfile

    (scan,) = old_hub.scans.list()
    lost = sorted(_raw_attempts(old_hub))[:10]
    t = schema_scans.scan_attempts
    with old_hub._db.write() as conn:  # as if the run had stopped 10 attempts short
        conn.execute(sa.delete(t).where(t.c.id.in_(lost)))
        conn.execute(sa.update(schema_scans.scans).values(status="interrupted"))
    seen = []
    done = old_hub.scans.resume(
        scan.id,
        agent=support_agent,
        profile=AttackProfile(secrets=list(DEMO_SECRETS)),
        progress=False,
        on_attempt=seen.append,
        judge=None,
        generator=None,
    )
    # the 10 lost attempts, and the 2 of disclosure.internal_codes, a probe added since the release
    # (a resume plans the stored options again): told the staff code, it finds the demo agent's leak
    added = [a for a in seen if a.probe_id == "disclosure.internal_codes"]
    assert len(seen) == 12 and len(added) == 2 and done.status == "finished"
    assert (done.coverage, done.incomplete) == (scan.coverage, scan.incomplete)
    assert done.counts["attempts"] == scan.counts["attempts"] + 2
    assert done.counts["successes"] == scan.counts["successes"] + 2 and done.grade == "D"
    raw = _raw_attempts(old_hub)
    assert sorted(r["schema_version"] for r in raw.values()) == [1] * 44 + [SCHEMA_VERSION] * 12
    assert {a.id for a in seen} == {i for i, r in raw.items() if "attempt" in r["data"]}
    assert len({r["attack_id"] for r in raw.values()}) == 56
    assert old_hub.scans.report(scan.id).grade == "D"


def test_a_new_scan_runs_into_the_release_database(old_hub: Hub) -> None:
    from giskard_nb.demo import run_demo_scan

    (old,) = old_hub.scans.list()
    new = run_demo_scan(old_hub, llm=False, progress=False)
    assert new.status == "finished" and old.grade == "A" and old.counts["successes"] == 0
    # the demo scan now knows the agent's staff code and has a probe that asks for it: it finds the
    # leak the release's scan missed
    assert new.grade == "D" and new.counts["successes"] == 2
    assert [s.id for s in old_hub.scans.list()] == [old.id, new.id]
    assert old_hub.scans.retrieve(old.id) == old
    raw = _raw_attempts(old_hub)
    mine = [r for r in raw.values() if r["scan_id"] == new.id]
    assert len(mine) == 56 and all(r["schema_version"] == SCHEMA_VERSION for r in mine)
    assert all(r["data"]["attempt"]["attack"]["id"] == r["attack_id"] for r in mine)
    assert len(new.to_dataframe()) == 56 and new.report().grade == "D"
    with old_hub._db.read() as conn:
        meta = dict(conn.execute(sa.select(schema.meta.c.key, schema.meta.c.value)).all())
    # the scan rework adds no column; the file's layout is what this release's tables need
    assert meta["table_layout"] == str(TABLE_LAYOUT)
