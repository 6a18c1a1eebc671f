"""hub.scheduled_evaluations: a schedule becomes due on a controllable clock, runs, compares with the
previous run and e-mails the report to a local SMTP server; the scheduler command."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from giskard_nb.errors import GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.schedule import ManualClock

_path = Path(__file__).resolve().parents[1] / "schedule" / "smtp.py"
if "giskard_nb_test_smtp" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("giskard_nb_test_smtp", _path)
    assert _spec and _spec.loader
    sys.modules["giskard_nb_test_smtp"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["giskard_nb_test_smtp"])
smtp = sys.modules["giskard_nb_test_smtp"]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.fixture
def mail(monkeypatch: pytest.MonkeyPatch):
    with smtp.smtp_server() as sink:
        for key, value in sink.env().items():
            monkeypatch.setenv(key, value)
        yield sink


@pytest.fixture(autouse=True)
def _no_smtp_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in smtp.SmtpSink().env():
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def scheduled(hub: Hub, setup, agent_server):
    """A daily 09:30 schedule on every backend (the claim is a compare-and-set in SQL)."""
    mem_hub = hub
    project, dataset = setup(hub)
    agent = mem_hub.agents.create(
        project.id, name="bot", url=agent_server.url("/hub"), max_retries=0
    )
    clock = ManualClock(utc(2025, 3, 10, 12, 0))
    mem_hub.scheduled_evaluations.clock = clock
    schedule = mem_hub.scheduled_evaluations.create(
        project.id,
        name="nightly",
        agent_id=agent.id,
        dataset_id=dataset.id,
        frequency="daily",
        time="09:30",
    )
    return mem_hub, project, dataset, agent, clock, schedule


def test_schedule_becomes_due_runs_and_emails_the_changes(scheduled, mail, agent_server) -> None:
    hub, project, _dataset, agent, clock, schedule = scheduled
    resource = hub.scheduled_evaluations
    assert resource.run_due() == []  # created after today's 09:30
    assert resource.next_run_at(schedule.id) == utc(2025, 3, 11, 9, 30)

    clock.set(utc(2025, 3, 11, 9, 31))
    (first,) = resource.run_due()
    assert first.status == "success" and first.report.first_run
    assert first.notification == "sent to team@example.com, lead@example.com"
    stored = resource.retrieve(schedule.id)
    assert stored.last_execution_at == utc(2025, 3, 11, 9, 31)
    assert stored.last_execution_status.evaluation_id == first.evaluation_id
    assert resource.run_due() == []  # once per occurrence
    message = mail.messages[0]
    assert message["Subject"] == "[giskard-nb] nightly: 67% passed (0 errored)"
    assert "First run" in message.get_body(("plain",)).get_content()

    # the agent breaks: every result errors, so the run is an error (not a success) and the e-mail
    # says why, with the regressions
    hub.agents.update(agent.id, url=agent_server.url("/error500"))
    clock.advance(days=1)
    (second,) = resource.run_due()
    assert second.status == "error" and "all results errored (3 of 3)" in second.report.error
    assert second.report.count("regressed") == 2 and second.report.count("changed") == 1
    text = mail.messages[1].get_body(("plain",)).get_content()
    assert "Error: all results errored (3 of 3): nothing was judged; first error:" in text
    assert "REGRESSED What are your opening hours?: pass -> error" in text
    subject = mail.messages[1]["Subject"]
    assert "the scheduled evaluation failed (all results errored" in subject
    assert "2 regressed" in subject
    stored = resource.retrieve(schedule.id).last_execution_status
    assert stored.status == "error" and "all results errored" in stored.error_message
    assert [e.id for e in resource.list_evaluations(schedule.id)] == [
        first.evaluation_id,
        second.evaluation_id,
    ]
    assert smtp.PASSWORD not in repr(resource.retrieve(schedule.id))
    df = resource.to_dataframe(project.id)
    assert df.loc[0, "n_evaluations"] == 2 and df.loc[0, "last_status"] == "error"
    assert df.loc[0, "next_run_at"] == utc(2025, 3, 13, 9, 30)


def test_paused_failing_and_concurrent_schedules(scheduled, monkeypatch) -> None:
    hub, project, dataset, agent, clock, schedule = scheduled
    resource = hub.scheduled_evaluations
    resource.pause(schedule.id)
    clock.advance(days=2)
    assert resource.run_due() == []
    resource.resume(schedule.id)
    # another scheduler claimed the run first: ours must not run it again
    stale = resource.retrieve(schedule.id)
    assert resource._claim(stale, clock.now())
    assert not resource._claim(stale, clock.now())
    # a schedule whose dataset is gone records the error; no e-mail configured: noted, not raised
    broken = resource.create(
        project.id,
        name="broken",
        agent_id=agent.id,
        dataset_id=dataset.id,
        frequency="weekly",
        day_of_week="wednesday",
        time="08:00",
    )
    hub.datasets.delete(dataset.id)
    clock.set(utc(2025, 3, 19, 8, 0))
    runs = {r.name: r for r in resource.run_due()}
    assert runs["broken"].status == "error" and "NotFoundError" in runs["broken"].report.error
    assert runs["broken"].notification.startswith("not sent: no SMTP server")
    status = resource.retrieve(broken.id).last_execution_status
    assert status.status == "error" and "no dataset" in status.error_message


def test_update_validation_and_run_now(scheduled) -> None:
    hub, project, dataset, agent, _clock, schedule = scheduled
    resource = hub.scheduled_evaluations
    monthly = resource.update(schedule.id, frequency="monthly", day_of_month=31, time="06:00")
    assert (monthly.frequency, monthly.day_of_month, monthly.day_of_week) == ("monthly", 31, None)
    assert resource.next_run_at(schedule.id) == utc(2025, 3, 31, 6, 0)
    with pytest.raises(GiskardValidationError, match="needs day_of_week"):
        resource.update(schedule.id, frequency="weekly")
    with pytest.raises(GiskardValidationError, match="e-mail addresses"):
        resource.update(schedule.id, notify=["not-an-address"])
    with pytest.raises(GiskardValidationError, match="HH:MM"):
        resource.create(
            project.id, name="x", agent_id=agent.id, dataset_id=dataset.id,
            frequency="daily", time="9h",
        )  # fmt: skip
    run = resource.run_now(schedule.id)
    assert run.status == "success" and len(resource.list_evaluations(schedule.id)) == 1
    audit = [e.action for e in hub.audit.history(schedule.id)]
    assert audit[0] == "create" and "update" in audit


def test_scheduler_command_runs_due_schedules_once(tmp_path, setup, agent_server, capsys) -> None:
    from giskard_nb.cli import main

    url = str(tmp_path / "hub.db")
    hub = Hub(url, actor="tester")
    project, dataset = setup(hub)
    agent = hub.agents.create(project.id, name="bot", url=agent_server.url("/hub"), max_retries=0)
    hub.scheduled_evaluations.clock = ManualClock(utc(2020, 1, 1))
    schedule = hub.scheduled_evaluations.create(
        project.id, name="cli", agent_id=agent.id, dataset_id=dataset.id, frequency="daily"
    )
    hub.close()
    assert main(["scheduler", "--db", url, "--once"]) == 0
    out = capsys.readouterr().out
    assert "cli: success" in out and "1 scheduled evaluation(s) ran" in out
    assert main(["scheduler", "--db", url, "--once"]) == 0
    assert "nothing due" in capsys.readouterr().out
    with Hub(url) as again:
        assert len(again.scheduled_evaluations.list_evaluations(schedule.id)) == 1


def test_a_schedule_with_repeats_runs_each_case_k_times(scheduled) -> None:
    hub, _project, dataset, _agent, _clock, schedule = scheduled
    resource = hub.scheduled_evaluations
    assert schedule.repeats == 1
    with pytest.raises(GiskardValidationError, match="repeats must be a whole number >= 1"):
        resource.update(schedule.id, repeats=0)
    repeated = resource.update(schedule.id, repeats=2)
    assert repeated.repeats == 2 and resource.retrieve(schedule.id).repeats == 2
    first = resource.run_now(schedule.id)
    second = resource.run_now(schedule.id)
    assert first.status == second.status == "success"
    evaluations = resource.list_evaluations(schedule.id)
    n_cases = len(hub.test_cases.list(dataset.id))
    assert [e.repeats for e in evaluations] == [2, 2]
    assert all(len(e.results()) == 2 * n_cases for e in evaluations)
    assert second.report.changes == []  # the same deterministic agent: no case changed verdict
