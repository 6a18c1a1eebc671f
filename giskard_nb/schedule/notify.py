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

import base64
import logging
import os
import re
import smtplib
import ssl
from collections.abc import Iterable, Mapping, Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from giskard_nb.errors import ConfigError
from giskard_nb.schedule.report import RunReport

__all__ = [
    "ENV_PREFIX",
    "EmailNotifier",
    "SmtpLoginError",
    "SmtpSettings",
    "describe_failure",
    "parse_addresses",
    "single_line",
]

ENV_PREFIX = "GISKARD_NB_SMTP_"
logger = logging.getLogger("giskard_nb.schedule")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")
#: A plain address (``local@domain``): no display name, spaces, line breaks or header syntax.
_ADDRESS = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[\w-]+(?:\.[\w-]+)*")
_LINE_BREAKS = re.compile(r"[\r\n\x00\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def parse_addresses(values: str | Iterable[str], *, what: str = "notify=") -> list[str]:
    """Plain e-mail addresses from ``values`` (entries may hold several, separated by commas or
    semicolons). Anything else (a line break, a display name, a space) is a ``ConfigError`` naming
    the entries: such a value would break the message headers, and every e-mail would fail."""
    entries = [values] if isinstance(values, str) else list(values)
    found, bad = [], []
    for entry in entries:
        for part in re.split(r"[,;]", str(entry or "")):
            part = part.strip(" \t")
            if not part:
                continue
            (found if _ADDRESS.fullmatch(part) else bad).append(part)
    if bad:
        raise ConfigError(
            f"{what} takes plain e-mail addresses (name@example.com, several separated by commas); "
            f"not one: {', '.join(repr(b) for b in bad)}"
        )
    return list(dict.fromkeys(found))


def single_line(text: str, *, what: str) -> str:
    """``text`` if it has no line break (it goes into an e-mail subject), else a ``ConfigError``."""
    if _LINE_BREAKS.search(text):
        raise ConfigError(f"{what} cannot contain line breaks: {text!r}")
    return text


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
        return parse_addresses(values, what=f"{ENV_PREFIX}TO")

    @field_validator("sender")
    @classmethod
    def _sender(cls, value: str) -> str:
        found = parse_addresses(value, what=f"{ENV_PREFIX}FROM")
        if len(found) != 1:
            raise ConfigError(f"{ENV_PREFIX}FROM is one e-mail address, got {value!r}")
        return found[0]

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
            recipients=parse_addresses(get("TO"), what=f"{ENV_PREFIX}TO"),
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


class SmtpLoginError(ConfigError):
    """The SMTP server refused the login (its reply, which may echo the credentials, is dropped)."""


def describe_failure(exc: BaseException, settings: SmtpSettings | None) -> str:
    """One line saying why an e-mail was not sent, with no SMTP dialogue in it: the server's text
    is kept only with the configured user and password (and their base64 forms) masked."""
    if isinstance(exc, smtplib.SMTPResponseException):
        text = f"{type(exc).__name__}: SMTP {exc.smtp_code}: " + (
            exc.smtp_error.decode("utf-8", "replace")
            if isinstance(exc.smtp_error, bytes)
            else str(exc.smtp_error)
        )
    elif isinstance(exc, smtplib.SMTPRecipientsRefused):
        text = f"SMTPRecipientsRefused: {', '.join(sorted(exc.recipients))}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    for secret in _credential_forms(settings):
        text = text.replace(secret, "***")
    return _LINE_BREAKS.sub(" ", text)[:300]


def _credential_forms(settings: SmtpSettings | None) -> list[str]:
    if settings is None:
        return []
    user = settings.user or ""
    password = settings.password.get_secret_value() if settings.password else ""
    plain = [password, f"\0{user}\0{password}", f"{user}\0{password}", user + " " + password]
    forms = [base64.b64encode(p.encode()).decode() for p in plain if p.strip("\0 ")]
    if password:
        forms.append(password)
    return sorted({f for f in forms if len(f) >= 4}, key=len, reverse=True)


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
        msg["Subject"] = _LINE_BREAKS.sub(" ", report.subject())
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
        to = parse_addresses(recipients) if recipients else list(self.settings.recipients)
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
                try:
                    client.login(s.user, s.password.get_secret_value() if s.password else "")
                except smtplib.SMTPException as exc:  # the reply may echo the credentials
                    code = getattr(exc, "smtp_code", None)
                    raise SmtpLoginError(
                        f"the SMTP server refused the login of {ENV_PREFIX}USER"
                        + (f" (code {code})" if code else "")
                        + f": check {ENV_PREFIX}USER and {ENV_PREFIX}PASSWORD"
                    ) from None
            client.send_message(message, from_addr=s.sender, to_addrs=to)
        logger.info(
            "sent %r to %d recipient(s) via %s:%d", report.subject(), len(to), s.host, s.port
        )
        return to

    def __repr__(self) -> str:
        return f"EmailNotifier({self.settings!r})"
