"""Sending run reports by e-mail (``smtplib``), with SMTP settings from the environment.

========================== ===========================================================
``GISKARD_NB_SMTP_HOST``   the SMTP server (no host: no e-mail is sent)
``GISKARD_NB_SMTP_PORT``   its port (default 587 with STARTTLS, 465 with SSL, else 25)
``GISKARD_NB_SMTP_USER``   login (optional)
``GISKARD_NB_SMTP_PASSWORD`` password (optional; never logged, printed or stored)
``GISKARD_NB_SMTP_FROM``   the sender address (default: the user, else ``giskard-nb@localhost``)
``GISKARD_NB_SMTP_TO``     recipients, separated by commas
``GISKARD_NB_SMTP_STARTTLS`` ``true``/``false`` (default ``true`` when a user is set)
``GISKARD_NB_SMTP_SSL``    ``true`` for implicit TLS (port 465)
========================== ===========================================================

A schedule can list its own recipients; they replace ``GISKARD_NB_SMTP_TO`` for that schedule.
"""

from __future__ import annotations

import logging
import os
import smtplib
import ssl
from collections.abc import Mapping, Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from giskard_nb.errors import ConfigError
from giskard_nb.schedule.report import RunReport

__all__ = ["ENV_PREFIX", "EmailNotifier", "SmtpSettings"]

ENV_PREFIX = "GISKARD_NB_SMTP_"
logger = logging.getLogger("giskard_nb.schedule")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class SmtpSettings(BaseModel):
    """How to reach the SMTP server. ``password`` is a secret (masked in repr and dumps)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = Field(min_length=1)
    port: int = Field(default=25, ge=1, le=65535)
    user: str | None = None
    password: SecretStr | None = None
    sender: str = "giskard-nb@localhost"
    recipients: list[str] = Field(default_factory=list)
    starttls: bool = False
    ssl: bool = False
    timeout: float = 30.0

    @field_validator("recipients")
    @classmethod
    def _addresses(cls, values: list[str]) -> list[str]:
        cleaned = [v.strip() for v in values if v.strip()]
        bad = [v for v in cleaned if "@" not in v]
        if bad:
            raise ConfigError(f"not an e-mail address: {', '.join(bad)}")
        return cleaned

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SmtpSettings | None:
        """The settings from ``GISKARD_NB_SMTP_*`` variables, or ``None`` when no host is set."""
        env = os.environ if environ is None else environ

        def get(name: str) -> str:
            return (env.get(ENV_PREFIX + name) or "").strip()

        host = get("HOST")
        if not host:
            return None
        user = get("USER") or None
        use_ssl = _flag(get("SSL"), "SSL", default=False)
        starttls = _flag(get("STARTTLS"), "STARTTLS", default=bool(user) and not use_ssl)
        port_text = get("PORT")
        try:
            port = int(port_text) if port_text else (465 if use_ssl else 587 if starttls else 25)
        except ValueError:
            raise ConfigError(f"{ENV_PREFIX}PORT must be a number, got {port_text!r}") from None
        password = env.get(ENV_PREFIX + "PASSWORD") or None
        return cls(
            host=host,
            port=port,
            user=user,
            password=SecretStr(password) if password else None,
            sender=get("FROM") or user or "giskard-nb@localhost",
            recipients=[r for r in get("TO").split(",") if r.strip()],
            starttls=starttls,
            ssl=use_ssl,
        )

    def __repr__(self) -> str:
        secret = ", password=***" if self.password else ""
        return (
            f"SmtpSettings(host={self.host!r}, port={self.port}, user={self.user!r}{secret}, "
            f"starttls={self.starttls}, ssl={self.ssl}, recipients={self.recipients!r})"
        )

    __str__ = __repr__


def _flag(text: str, name: str, *, default: bool) -> bool:
    lowered = text.lower()
    if not text:
        return default
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(f"{ENV_PREFIX}{name} is true or false, got {text!r}")


class EmailNotifier:
    """Sends ``RunReport``s as multipart (text + HTML) e-mails."""

    def __init__(self, settings: SmtpSettings):
        self.settings = settings

    @classmethod
    def from_env(cls) -> EmailNotifier | None:
        settings = SmtpSettings.from_env()
        return cls(settings) if settings is not None else None

    def message(self, report: RunReport, recipients: Sequence[str]) -> EmailMessage:
        msg = EmailMessage()
        msg["Subject"] = report.subject()
        msg["From"] = self.settings.sender
        msg["To"] = ", ".join(recipients)
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = make_msgid(domain="giskard-nb.local")
        msg.set_content(report.text())
        msg.add_alternative(report.html(), subtype="html")
        return msg

    def send(self, report: RunReport, *, recipients: Sequence[str] | None = None) -> list[str]:
        """Send the report; returns the recipients. Raises ``ConfigError`` when there is none and
        ``OSError``/``smtplib.SMTPException`` when the server refuses (the caller records it)."""
        to = list(recipients) if recipients else list(self.settings.recipients)
        if not to:
            raise ConfigError(
                f"no e-mail recipient: set {ENV_PREFIX}TO or give the schedule notify= addresses"
            )
        s = self.settings
        message = self.message(report, to)
        context = ssl.create_default_context()
        if s.ssl:
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                s.host, s.port, timeout=s.timeout, context=context
            )
        else:
            client = smtplib.SMTP(s.host, s.port, timeout=s.timeout)
        with client:
            if s.starttls and not s.ssl:
                client.starttls(context=context)
            if s.user:
                client.login(s.user, s.password.get_secret_value() if s.password else "")
            client.send_message(message, from_addr=s.sender, to_addrs=to)
        logger.info(
            "sent %r to %d recipient(s) via %s:%d", report.subject(), len(to), s.host, s.port
        )
        return to

    def __repr__(self) -> str:
        return f"EmailNotifier({self.settings!r})"
