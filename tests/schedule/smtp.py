"""A local SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives; shared by the schedule and
Hub tests (load it by path: test folders are not packages)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

PASSWORD = "s3cret-pass"


class SmtpSink:
    """Received messages (parsed), with the envelope and the logins tried."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.logins: list[tuple[str, str]] = []
        self.port = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 OK"

    def env(self) -> dict[str, str]:
        """``GISKARD_NB_SMTP_*`` settings pointing at this server (no TLS, with a login)."""
        return {
            "GISKARD_NB_SMTP_HOST": "127.0.0.1",
            "GISKARD_NB_SMTP_PORT": str(self.port),
            "GISKARD_NB_SMTP_USER": "bot@example.com",
            "GISKARD_NB_SMTP_PASSWORD": PASSWORD,
            "GISKARD_NB_SMTP_STARTTLS": "false",
            "GISKARD_NB_SMTP_TO": "team@example.com, lead@example.com",
        }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def smtp_server() -> Iterator[SmtpSink]:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    sink = SmtpSink()

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
        login = data.login.decode() if isinstance(data.login, bytes) else data.login
        password = data.password.decode() if isinstance(data.password, bytes) else data.password
        sink.logins.append((login, password))
        ok = password == PASSWORD
        return AuthResult(success=ok, handled=ok)

    controller = Controller(
        sink,
        hostname="127.0.0.1",
        port=_free_port(),
        authenticator=authenticate,
        auth_require_tls=False,
    )
    controller.start()
    sink.port = controller.port
    try:
        yield sink
    finally:
        controller.stop()
