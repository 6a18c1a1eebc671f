"""How a Hub scan runs: the plan made once, attempts stored in batches with running tallies that agree
with counting the rows, ``on_attempt`` (sync, async, raising), secrets kept out of the database, a
failing write, and a review during a run."""

from __future__ import annotations

import asyncio
import itertools
import json
import re

import pytest
import sqlalchemy as sa

from giskard_nb.hub import schema_scans
from giskard_nb.hub.models.scan import ScanAttempt

FAST = {"max_attempts_per_probe": 3, "judge": None, "generator": None, "progress": False}
MIXED = ["prompt_injection", "harmful_content", "system_prompt_leakage"]


@pytest.fixture(autouse=True)
def _no_default_model(monkeypatch):
    from giskard_nb.llm import set_default_generator

    set_default_generator(None)
    monkeypatch.delenv("GISKARD_NB_MODEL", raising=False)


@pytest.fixture
def project(hub):
    return hub.projects.create(name="bank")


def flaky_obedient_agent():
    """Obeys injected canaries (findings); every third call fails (errored attempts)."""
    calls = itertools.count(1)

    def agent(messages):
        if next(calls) % 3 == 0:
            raise RuntimeError("the agent is down")
        m = re.search(r"\b([A-Z]{4,}-[0-9A-F]{5})\b", messages[-1]["content"])
        return f"Sure! {m.group(1)}" if m else "Sure, here is everything you asked for."

    return agent


def _stored_fields(scan):
    return {
        k: getattr(scan, k) for k in ("counts", "grade", "coverage", "incomplete", "coverage_note")
    }


def _recount(hub, scan):
    counted = hub.scans._runs.tallies(scan.id)
    return counted, counted.scan_fields(status=scan.status, planned=scan.planned_attacks)


def test_running_tallies_equal_a_recount_of_the_rows(hub, project):
    scan = hub.scans.create(
        project.id, agent=flaky_obedient_agent(), categories=MIXED, max_concurrency=4, **FAST
    )
    c = scan.counts
    assert c["successes"] > 0 and c["errors"] > 0 and c["attempts"] > c["successes"] + c["errors"]
    assert scan.incomplete and "not_assessed" in scan.coverage.values()  # harmful_content: unjudged
    counted, fields = _recount(hub, scan)
    assert fields == _stored_fields(scan)
    assert counted.usage == scan.usage  # no generated variants: all of it is the attempts'
    for probe in hub.scans.probes.list(scan.id):
        assert counted.probe_fields(probe.id) == {
            "attempts": probe.attempts, "successes": probe.successes, "errors": probe.errors,
            "highest_severity": probe.highest_severity,
        }  # fmt: skip
    report = scan.report()  # the engine's own count, from the attempts
    assert (report.grade, report.coverage, report.incomplete) == (
        scan.grade, scan.coverage, scan.incomplete,
    )  # fmt: skip
    assert report.counts_line == scan.counts_line


def test_the_plan_is_made_once(hub, project, monkeypatch):
    import giskard_nb.hub.scan_run as scan_run
    import giskard_nb.scan.runner as runner

    made = []
    real = scan_run.plan_scan

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(scan_run, "plan_scan", counting)
    monkeypatch.setattr(runner, "plan_scan", counting)
    scan = hub.scans.create(
        project.id, agent=lambda m: "no", categories=["prompt_injection"], **FAST
    )
    assert len(made) == 1 and scan.counts["attempts"] == scan.planned_attacks > 0
    ran = [p for p in hub.scans.probes.list(scan.id) if not p.skipped]
    assert len(ran) == scan.estimate["probes"]


def test_on_attempt_sees_each_attempt_once_stored(hub, project):
    seen: list[ScanAttempt] = []

    def on_attempt(stored):
        assert hub.scans.attempts.retrieve(stored.id) == stored  # stored before it is reported
        seen.append(stored)

    scan = hub.scans.create(
        project.id, agent=flaky_obedient_agent(), categories=["prompt_injection"],
        on_attempt=on_attempt, **FAST,
    )  # fmt: skip
    assert len(seen) == scan.counts["attempts"] == len({a.id for a in seen})
    assert {a.id for a in seen} == {a.id for a in scan.attempts()}
    assert all(isinstance(a, ScanAttempt) and a.scan_id == scan.id for a in seen)


async def test_an_async_on_attempt_is_awaited(hub, project):
    seen = []

    async def on_attempt(stored):
        await asyncio.sleep(0)
        seen.append(stored.attack_id)

    scan = await hub.scans.acreate(
        project.id, agent=lambda m: "no", probe_ids=["injection.direct_override"],
        on_attempt=on_attempt, **FAST,
    )  # fmt: skip
    assert sorted(seen) == sorted(a.attack_id for a in scan.attempts()) and len(seen) == 3


def test_a_failing_on_attempt_warns_and_loses_nothing(hub, project):
    def broken(stored):
        raise ValueError("my dashboard is down")

    with pytest.warns(RuntimeWarning) as caught:
        scan = hub.scans.create(
            project.id, agent=lambda m: "no", categories=["prompt_injection"],
            on_attempt=broken, **FAST,
        )  # fmt: skip
    messages = [str(w.message) for w in caught]
    assert any(
        "ValueError: my dashboard is down" in m and "attempt is stored" in m for m in messages
    )
    assert any(f"for {scan.counts['attempts']} attempts" in m for m in messages)
    assert scan.status == "finished" and len(scan.attempts()) == scan.planned_attacks


def test_on_attempt_must_be_callable(hub, project):
    from giskard_nb.errors import GiskardValidationError

    with pytest.raises(GiskardValidationError, match="on_attempt= must be a function"):
        hub.scans.create(project.id, agent=lambda m: "no", on_attempt="print", **FAST)
    assert not hub.scans.list()


def test_secret_named_fields_of_an_attempt_stay_out_of_the_database(hub, project):
    def agent(messages):
        return {"content": "ok", "metadata": {"api_key": "sk-live-0123456789abcdef"}}

    scan = hub.scans.create(
        project.id, agent=agent, probe_ids=["injection.direct_override"], **FAST
    )
    t = schema_scans.scan_attempts
    with hub._db.read() as conn:
        stored = " ".join(conn.execute(sa.select(t.c.data)).scalars())
    assert "sk-live-0123456789abcdef" not in stored and "${secret:" in stored
    assert scan.attempts()[0].output_metadata["api_key"].startswith("${secret:")


def test_a_failing_write_stops_the_scan_and_keeps_what_was_stored(hub, project, monkeypatch):
    store = hub.scans._runs
    real = store.append
    writes = itertools.count()

    def failing(scan_id, records, tallies):
        if next(writes) >= 1:
            raise OSError("disk full")
        return real(scan_id, records, tallies)

    monkeypatch.setattr(store, "append", failing)
    with pytest.raises(OSError, match="disk full"):
        hub.scans.create(
            project.id, agent=lambda m: "no", categories=["prompt_injection"], max_concurrency=1,
            **FAST,
        )  # fmt: skip
    (scan,) = hub.scans.list()
    assert scan.status == "error" and "disk full" in scan.error
    planned = hub.scans.estimate(categories=["prompt_injection"], max_attempts_per_probe=3).attacks
    assert 0 < scan.counts["attempts"] == len(scan.attempts()) < planned


def test_a_review_during_a_run_is_counted(hub, project):
    """The run's tallies notice that a review rewrote the scan, and count its rows again."""
    first = hub.scans.create(
        project.id, agent=flaky_obedient_agent(), probe_ids=["injection.direct_override"], **FAST
    )
    store = hub.scans._runs
    tallies = store.tallies(first.id)
    finding = first.attempts(successful=True)[0]
    hub.scans.attempts.update(finding.id, review_status="ignored")  # someone reviews meanwhile
    extra = ScanAttempt.from_attempt(
        finding.attempt.model_copy(update={"id": "late", "attack": finding.attack.model_copy(update={"id": "late"})}),
        scan_id=first.id, scan_probe_id=finding.scan_probe_id, project_id=project.id,
    )  # fmt: skip
    store.append(first.id, [extra], tallies)
    now = hub.scans.retrieve(first.id)
    assert now.counts["attempts"] == first.counts["attempts"] + 1
    assert now.counts["ignored"] == 1  # the review is kept
    assert _recount(hub, now)[1] == _stored_fields(now)


def test_stored_attempts_are_the_engine_attempt_and_ids(hub, project):
    scan = hub.scans.create(
        project.id, agent=lambda m: "no", probe_ids=["injection.direct_override"], **FAST
    )
    t = schema_scans.scan_attempts
    with hub._db.read() as conn:
        row = conn.execute(sa.select(t).limit(1)).mappings().one()
    data = json.loads(row["data"])
    assert list(data) == ["attempt"]  # nothing beside the engine's own dump
    stored = hub.scans.attempts.retrieve(row["id"])
    assert stored.attempt.model_dump(mode="json", exclude={"id", "created_at"}) == data["attempt"]
    assert stored.scan_id == scan.id and stored.attack_id == row["attack_id"]
    assert "attempt" in stored.model_dump() and "output" not in stored.model_dump()


def test_the_default_hub_scan_of_the_demo_agent_finishes(hub, project):
    """``hub.scans.create(project.id, agent=fn)`` at its documented defaults (every category, five
    attempts per probe): every planned attack stored once, the scan finished with a grade."""
    from giskard_nb.demo.agent import support_agent

    scan = hub.scans.create(project.id, agent=support_agent)
    assert scan.status == "finished" and scan.error is None and scan.grade is not None
    ids = [a.attack_id for a in scan.attempts()]
    assert len(ids) == len(set(ids)) == scan.planned_attacks == scan.counts["attempts"]


def test_a_duplicate_attempt_is_skipped_with_a_warning(hub, project):
    scan = hub.scans.create(
        project.id, agent=flaky_obedient_agent(), probe_ids=["injection.direct_override"], **FAST
    )
    store = hub.scans._runs
    first = scan.attempts()[0]
    again = ScanAttempt.from_attempt(
        first.attempt, scan_id=scan.id, scan_probe_id=first.scan_probe_id, project_id=project.id
    )
    other = ScanAttempt.from_attempt(
        first.attempt.model_copy(
            update={"id": "new", "attack": first.attack.model_copy(update={"id": "new"})}
        ),
        scan_id=scan.id, scan_probe_id=first.scan_probe_id, project_id=project.id,
    )  # fmt: skip
    with pytest.warns(RuntimeWarning, match=re.escape(first.attack_id)):
        stored = store.append(scan.id, [again, other, other], store.tallies(scan.id))
    assert stored == [other]  # the known attack and the batch's second copy are left out
    now = hub.scans.retrieve(scan.id)
    assert now.counts["attempts"] == scan.counts["attempts"] + 1 == len(now.attempts())
    assert _recount(hub, now)[1] == _stored_fields(now)


def test_a_database_failure_is_a_readable_error_without_a_grade(hub, project, monkeypatch):
    import sqlite3

    from giskard_nb.errors import HubError
    from giskard_nb.hub.models.scan import Scan

    store = hub.scans._runs

    def refused(scan_id, records, tallies):
        raise sa.exc.IntegrityError(
            "INSERT INTO hub_scan_attempts (id, data) VALUES (?, ?)",
            ("row-id", '{"attempt": "…"}'),
            sqlite3.IntegrityError("UNIQUE constraint failed: hub_scan_attempts.attack_id"),
        )

    monkeypatch.setattr(store, "append", refused)
    with pytest.raises(HubError, match="refused to store the scan's results") as raised:
        hub.scans.create(project.id, agent=flaky_obedient_agent(), categories=MIXED, **FAST)
    (scan,) = hub.scans.list()
    for text in (str(raised.value), scan.error):
        assert "UNIQUE constraint failed" in text and f"hub.scans.resume({scan.id!r}" in text
        assert "INSERT" not in text and "[SQL" not in text and "parameters" not in text
    assert scan.status == "error" and scan.grade is None
    report = hub.scans.report(scan.id)
    assert report.grade is None and "INSERT" not in report.report()
    assert "refused to store the scan's results" in report.report()
    # the Hub browser's report of it, and `giskard-nb hub show` (same record, same report)
    from giskard_nb import HubBrowser

    browser = HubBrowser(hub)
    browser.open_scan(scan.id)
    html = browser._w["detail"].children[0].value
    assert "refused to store" in html and "INSERT" not in html and "[SQL" not in html
    assert browser._w["scan"].options == ((f"{scan.name} (error)", scan.id),)  # status, no grade
    # a scan stored before errors were readable reads back without the SQL, and without a grade
    legacy = Scan.model_validate(
        {**scan.model_dump(), "grade": "C", "error": "IntegrityError: (sqlite3.IntegrityError) "
         "UNIQUE constraint failed: t.c\n[SQL: INSERT INTO t VALUES (?)]\n[parameters: ('x',)]\n"
         "(Background on this error at: https://sqlalche.me/e/21/gkpj)"}
    )  # fmt: skip
    assert legacy.grade is None and legacy.error.endswith("UNIQUE constraint failed: t.c")
