"""Scheduled e-mail (security review item 12): addresses and names that would break the headers are
refused when the schedule is made, several recipients in one entry all receive it, and an SMTP server
that echoes the login puts no credential into the stored notification or the log."""

from __future__ import annotations

import base64
import importlib.util
import logging
import socket
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from giskard_nb.errors import ConfigError, GiskardValidationError
from giskard_nb.hub import Hub
from giskard_nb.schedule import EmailNotifier, RunReport, SmtpSettings
from giskard_nb.schedule.notify import SmtpLoginError, describe_failure, parse_addresses

_path = Path(__file__).resolve().parents[1] / "schedule" / "smtp.py"
if "giskard_nb_test_smtp" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("giskard_nb_test_smtp", _path)
    assert _spec and _spec.loader
    sys.modules["giskard_nb_test_smtp"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["giskard_nb_test_smtp"])
smtp = sys.modules["giskard_nb_test_smtp"]

USER, PASSWORD = "bot@example.com", "hunter2-very-secret"


def report() -> RunReport:
    return RunReport(
        schedule_name="nightly",
        schedule_id="s1",
        evaluation_name="nightly #1",
        evaluation_id="e1",
        agent_name="bot",
        dataset_name="faq",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        counts={"pass": 1, "fail": 0, "error": 0, "skip": 0},
        changes=[],
    )


@pytest.mark.parametrize(
    "bad",
    [
        "team@example.com\r\nBcc: attacker@evil.test",
        "team@example.com\nX-Injected: 1",
        "Team <team@example.com>",
        "not an address",
        "nobody",
    ],
)
def test_addresses_that_would_break_the_headers_are_refused(bad: str) -> None:
    with pytest.raises(ConfigError, match="plain e-mail addresses"):
        parse_addresses([bad])
    with pytest.raises(ConfigError):
        SmtpSettings(host="127.0.0.1", recipients=[bad])


def test_several_recipients_in_one_entry_are_split() -> None:
    assert parse_addresses(["a@x.test, b@y.test", "c@z.test; a@x.test"]) == [
        "a@x.test",
        "b@y.test",
        "c@z.test",
    ]


def test_a_schedule_name_or_recipient_with_a_line_break_is_refused_at_creation(tmp_path) -> None:
    hub = Hub(":memory:")
    project = hub.projects.create("p")
    agent = hub.agents.create(project.id, name="bot", url="http://127.0.0.1:9/chat")
    dataset = hub.datasets.upload(project.id, [{"messages": "hi", "checks": []}], name="d")
    common = {"agent_id": agent.id, "dataset_id": dataset.id, "frequency": "daily"}
    resource = hub.scheduled_evaluations
    with pytest.raises(GiskardValidationError, match="line breaks"):
        resource.create(project.id, name="nightly\r\nBcc: attacker@evil.test", **common)
    with pytest.raises(GiskardValidationError, match="plain e-mail addresses"):
        resource.create(project.id, name="n", notify=["a@x.test\r\nBcc: b@evil.test"], **common)
    schedule = resource.create(project.id, name="n", notify=["a@x.test, b@y.test"], **common)
    assert schedule.notify == ["a@x.test", "b@y.test"]
    with pytest.raises(GiskardValidationError, match="line breaks"):
        resource.update(schedule.id, name="x\ny")
    hub.close()


def test_every_listed_recipient_receives_the_report() -> None:
    with smtp.smtp_server() as sink:
        settings = SmtpSettings(
            host="127.0.0.1",
            port=sink.port,
            user="bot@example.com",
            password=smtp.PASSWORD,
            recipients=parse_addresses("a@x.test, b@y.test"),
        )
        assert EmailNotifier(settings).send(report()) == ["a@x.test", "b@y.test"]
        assert sink.envelopes[0][1] == ["a@x.test", "b@y.test"]


@pytest.fixture
def echoing_smtp() -> Iterator[int]:
    """A hostile SMTP server on 127.0.0.1 that repeats the AUTH line it received in its refusal."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(10)
            with conn, conn.makefile("rb") as lines:
                conn.sendall(b"220 echo ESMTP\r\n")
                for raw in lines:
                    line = raw.decode(errors="replace").strip()
                    verb = line.split(" ", 1)[0].upper()
                    if verb == "EHLO":
                        conn.sendall(b"250-echo\r\n250 AUTH PLAIN LOGIN\r\n")
                    elif verb == "AUTH":
                        conn.sendall(f"535 5.7.8 rejected: {line}\r\n".encode())
                    elif verb == "QUIT":
                        conn.sendall(b"221 bye\r\n")
                        break
                    else:
                        conn.sendall(b"250 ok\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    thread.join(5)


def test_an_echoed_smtp_login_never_reaches_the_notification_or_the_log(
    echoing_smtp: int, caplog: pytest.LogCaptureFixture
) -> None:
    settings = SmtpSettings(
        host="127.0.0.1", port=echoing_smtp, user=USER, password=PASSWORD, recipients=["a@x.test"]
    )
    notifier = EmailNotifier(settings)
    with pytest.raises(SmtpLoginError) as raised:
        notifier.send(report())
    forbidden = [PASSWORD, base64.b64encode(f"\0{USER}\0{PASSWORD}".encode()).decode()]
    assert not any(f in str(raised.value) for f in forbidden)

    hub = Hub(":memory:")
    resource = hub.scheduled_evaluations
    resource.notifier = notifier
    schedule = SimpleNamespace(name="nightly", notify=["a@x.test"])
    with caplog.at_level(logging.DEBUG, logger="giskard_nb"):
        note = resource._notify(schedule, report())
    assert note.startswith("not sent:") and "refused the login" in note
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for secret in forbidden:
        assert secret not in note and secret not in logged
    hub.close()


def test_describe_failure_masks_the_credentials_in_any_smtp_reply() -> None:
    import smtplib

    settings = SmtpSettings(host="h", user=USER, password=PASSWORD)
    echoed = base64.b64encode(f"\0{USER}\0{PASSWORD}".encode()).decode()
    exc = smtplib.SMTPDataError(554, f"no: AUTH PLAIN {echoed} {PASSWORD}\r\nmore".encode())
    text = describe_failure(exc, settings)
    assert PASSWORD not in text and echoed not in text and "\n" not in text
    assert "SMTP 554" in text
