"""A local SMTP server on 127.0.0.1 (aiosmtpd) that keeps the messages it receives."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest


class SmtpSink:
    """Received messages (parsed), with the envelope and the login used."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.logins: list[tuple[str, str]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp_server() -> Iterator[tuple[SmtpSink, Any]]:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    sink = SmtpSink()

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
        login = data.login.decode() if isinstance(data.login, bytes) else data.login
        password = data.password.decode() if isinstance(data.password, bytes) else data.password
        sink.logins.append((login, password))
        ok = password == "s3cret-pass"
        return AuthResult(success=ok, handled=ok)

    controller = Controller(
        sink,
        hostname="127.0.0.1",
        port=_free_port(),
        authenticator=authenticate,
        auth_require_tls=False,
    )
    controller.start()
    try:
        yield sink, controller
    finally:
        controller.stop()


@pytest.fixture
def smtp_env(smtp_server, monkeypatch: pytest.MonkeyPatch) -> SmtpSink:
    """GISKARD_NB_SMTP_* pointing at the local server (no TLS, with a login)."""
    sink, controller = smtp_server
    monkeypatch.setenv("GISKARD_NB_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("GISKARD_NB_SMTP_PORT", str(controller.port))
    monkeypatch.setenv("GISKARD_NB_SMTP_USER", "bot@example.com")
    monkeypatch.setenv("GISKARD_NB_SMTP_PASSWORD", "s3cret-pass")
    monkeypatch.setenv("GISKARD_NB_SMTP_STARTTLS", "false")
    monkeypatch.setenv("GISKARD_NB_SMTP_TO", "team@example.com, lead@example.com")
    return sink
