"""Run reports and their e-mail, received by a local SMTP server."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from giskard_nb.errors import ConfigError
from giskard_nb.schedule import EmailNotifier, RunReport, SmtpSettings, report_changes
from giskard_nb.schedule.notify import SmtpLoginError


def case(tc: str, before: str | None, after: str | None, question: str | None = None):
    return SimpleNamespace(
        test_case_id=tc, question=question, before=before, after=after, category_after=None
    )


def make_report(**overrides) -> RunReport:
    changes = report_changes(
        [
            case("a", "pass", "pass", "Unchanged?"),
            case("b", "pass", "fail", "Opening <b>hours</b>?"),
            case("c", "fail", "pass", "Refund?"),
            case("d", "fail", "error", "Shipping?"),
            case("e", None, "pass", "New question?"),
            case("f", "pass", None),
        ]
    )
    fields = {
        "schedule_name": "nightly",
        "schedule_id": "s1",
        "evaluation_name": "nightly #2",
        "evaluation_id": "e2",
        "agent_name": "support bot",
        "dataset_name": "faq",
        "started_at": datetime(2025, 3, 11, 9, 30, tzinfo=UTC),
        "counts": {"pass": 3, "fail": 1, "error": 1, "skip": 0},
        "previous_pass_rate": 0.6,
        "first_run": False,
        "changes": changes,
        **overrides,
    }
    return RunReport(**fields)


def test_report_changes_and_rendering() -> None:
    report = make_report()
    assert [(c.kind, c.test_case_id) for c in report.changes] == [
        ("regressed", "b"),
        ("changed", "d"),
        ("new", "e"),
        ("fixed", "c"),
        ("removed", "f"),
    ]
    assert report.subject() == "[giskard-nb] nightly: 60% passed (1 errored), 1 regressed, 1 fixed"
    text = report.text()
    assert "REGRESSED Opening <b>hours</b>?: pass -> fail" in text
    assert "previous run 60.0%, +0.0 points" in text
    html = report.html()
    assert "<b>hours</b>" not in html and "&lt;b&gt;hours&lt;/b&gt;" in html
    first = make_report(first_run=True, changes=[])
    assert "First run" in first.text()
    failed = make_report(status="error", error="agent unreachable", counts={})
    assert "failed" in failed.subject() and "agent unreachable" in failed.text()


def test_settings_from_environment() -> None:
    assert SmtpSettings.from_env({}) is None
    env = {
        "GISKARD_NB_SMTP_HOST": "smtp.example.com",
        "GISKARD_NB_SMTP_USER": "bot@example.com",
        "GISKARD_NB_SMTP_PASSWORD": "hunter2",
        "GISKARD_NB_SMTP_TO": "a@example.com,b@example.com",
    }
    settings = SmtpSettings.from_env(env)
    assert settings is not None
    assert (settings.port, settings.starttls, settings.sender) == (587, True, "bot@example.com")
    assert settings.recipients == ["a@example.com", "b@example.com"]
    assert "hunter2" not in repr(settings) and "hunter2" not in str(settings)
    assert "hunter2" not in settings.model_dump_json()
    ssl = SmtpSettings.from_env({**env, "GISKARD_NB_SMTP_SSL": "yes"})
    assert ssl is not None and (ssl.port, ssl.starttls) == (465, False)
    with pytest.raises(ConfigError, match="PORT must be a number"):
        SmtpSettings.from_env({**env, "GISKARD_NB_SMTP_PORT": "abc"})
    with pytest.raises(ConfigError, match="true or false"):
        SmtpSettings.from_env({**env, "GISKARD_NB_SMTP_STARTTLS": "maybe"})
    with pytest.raises(ConfigError, match="takes plain e-mail addresses"):
        SmtpSettings.from_env({**env, "GISKARD_NB_SMTP_TO": "nobody"})


def test_email_is_received_by_the_local_smtp_server(smtp_env, caplog) -> None:
    notifier = EmailNotifier.from_env()
    assert notifier is not None
    with caplog.at_level(logging.DEBUG):
        sent = notifier.send(make_report())
    assert sent == ["team@example.com", "lead@example.com"]
    assert smtp_env.logins == [("bot@example.com", "s3cret-pass")]
    (message,) = smtp_env.messages
    assert (
        message["Subject"] == "[giskard-nb] nightly: 60% passed (1 errored), 1 regressed, 1 fixed"
    )
    assert message["From"] == "bot@example.com"
    assert smtp_env.envelopes[0] == ("bot@example.com", ["team@example.com", "lead@example.com"])
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    assert "REGRESSED" in text and "FIXED" in text
    assert "&lt;b&gt;hours" in html
    assert "s3cret-pass" not in caplog.text and "s3cret-pass" not in repr(notifier)
    # a schedule's own recipients replace the default ones
    notifier.send(make_report(), recipients=["owner@example.com"])
    assert smtp_env.envelopes[1][1] == ["owner@example.com"]


def test_wrong_password_and_missing_recipients_raise(smtp_env, monkeypatch) -> None:

    monkeypatch.setenv("GISKARD_NB_SMTP_PASSWORD", "wrong")
    notifier = EmailNotifier.from_env()
    assert notifier is not None
    with pytest.raises(SmtpLoginError, match="refused the login"):
        notifier.send(make_report())
    monkeypatch.delenv("GISKARD_NB_SMTP_TO")
    with pytest.raises(ConfigError, match="no e-mail recipient"):
        EmailNotifier.from_env().send(make_report())


def test_a_run_succeeds_only_when_the_evaluation_finished_and_something_was_judged():
    from giskard_nb.schedule import run_failure

    def ev(counts, status="finished", error=None):
        return SimpleNamespace(status=status, error=error, counts=counts)

    assert run_failure(ev({"pass": 2, "error": 1})) is None
    assert run_failure(ev({"skip": 3})) is None  # no checks: not judged, but nothing errored
    assert run_failure(ev({"error": 3}), "HTTP 500") == (
        "all results errored (3 of 3): nothing was judged; first error: HTTP 500"
    )
    assert "status 'interrupted'" in run_failure(ev({"pass": 1}, "interrupted"))
    assert run_failure(ev({}, "error", "boom")) == (
        "the evaluation did not finish (status 'error'): boom"
    )
    assert run_failure(ev({})) == "the evaluation stored no result"


def test_an_all_errored_report_says_so_and_has_no_pass_rate():
    report = RunReport(
        schedule_name="nightly",
        schedule_id="s1",
        started_at=datetime(2025, 3, 10, 9, 30, tzinfo=UTC),
        status="error",
        error="all results errored (4 of 4): nothing was judged",
        counts={"error": 4},
    )
    assert report.pass_rate is None
    assert report.subject() == (
        "[giskard-nb] nightly: the scheduled evaluation failed (all results errored (4 of 4))"
    )
    text = report.text()
    assert "Error: all results errored (4 of 4)" in text and "Results: 4 error" in text
    assert "all results errored" in report.html()
