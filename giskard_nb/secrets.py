"""The one place that decides what a secret is and how it is masked (used by the LLM layer and the Hub).

- **By name**: a value whose key is ``api_key``, ``x-api-key``, ``*secret*``, ``*password*``, ``*token``
  (``access_token``, ``x-auth-token``; not ``max_tokens``), ``authorization``, ``credentials``, ``cookie``
  (``is_secret_name``). ``mask_values`` masks them at any depth; ``without_secrets`` drops them.
- **URL userinfo**: ``https://user:pw@host`` shows as ``https://user:***@host`` (``mask_url``);
  ``split_url_credentials`` takes the credentials out of a URL.
- **Known values in text** (an error echoed back by a server, a log line): ``mask_text`` replaces every
  configured secret *and its bare forms* — ``"Bearer abc"`` also masks ``abc``; ``"Basic <b64>"`` also masks
  the decoded ``user:password`` and the password.
- **Named secrets in stored data** (an agent's reply echoing its ``X-Api-Key`` header, a scan reply
  revealing a profile secret): ``redact_secrets`` replaces each value, and its bare forms, in a string or
  JSON-like data by ``[secret:<name>]`` — the one function every reply, export and stored row goes through.
- **Query-string credentials** (``?api_key=``, ``token=``, ``key=``, ``sig=``...): ``is_secret_param``.
- **Errors from a provider** (a 401 echoing the key it got): ``mask_credentials`` masks the configured
  key, every secret-named environment variable's value (``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``:
  litellm sends them when no key is configured) and anything shaped like a key (``sk-…``, ``Bearer …``).
- **Logs**: ``quiet_http_logs()`` holds the ``httpx``/``httpcore`` loggers at WARNING while giskard-nb makes
  HTTP calls (httpx logs every request URL at INFO).

An environment reference (``"${MY_TOKEN}"``, ``"Bearer ${MY_TOKEN}"``) is not a secret: it is shown as written.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = [
    "MASK",
    "SECRET_NAME",
    "credential_masker",
    "has_key_like",
    "mask_credentials",
    "is_secret_name",
    "is_secret_param",
    "mask_text",
    "mask_url",
    "mask_values",
    "quiet_http_logs",
    "redact_secrets",
    "secret_forms",
    "split_url_credentials",
    "without_secrets",
]

#: What a secret looks like wherever it is shown.
MASK = "***"

#: Parameter, header or field names whose values are secrets.
SECRET_NAME = re.compile(
    r"secret|passw(?:or)?d|api[-_]?key|(?:access|private|client)[-_]?key|authori[sz]ation|credential"
    r"|cookie|(?:^|[-_])(?:token|auth|pwd)$",
    re.IGNORECASE,
)
_ENV_REF = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$\{secret:[0-9a-f]{32}\}")
_SCHEMES = ("bearer", "basic", "token", "apikey", "api-key")
_MIN_LENGTH = 4
#: Query-string parameter names that carry credentials besides secret-looking names (``api_key``,
#: ``access_token``...): signed-URL and cloud-function keys.
_QUERY_SECRETS = frozenset({"key", "sig", "signature", "code", "apikey", "x-amz-signature"})


def is_secret_name(name: Any) -> bool:
    """Whether a key names a secret (``api_key``, ``Authorization``, ``client_secret``...)."""
    return isinstance(name, str) and bool(SECRET_NAME.search(name))


def is_secret_param(name: Any) -> bool:
    """Whether a URL query parameter carries a credential (``api_key``, ``token``, ``key``, ``sig``...)."""
    return is_secret_name(name) or (isinstance(name, str) and name.lower() in _QUERY_SECRETS)


def is_reference(value: Any) -> bool:
    """A value that only refers to a secret (``"${VAR}"``, ``"Bearer ${VAR}"``): safe to show."""
    if not isinstance(value, str) or not _ENV_REF.search(value):
        return False
    rest = _ENV_REF.sub("", value).strip().lower()
    return rest in ("", *_SCHEMES)


def mask_values(value: Any, *, mask: str = MASK) -> Any:
    """``value`` with every secret-named entry (at any depth) replaced by ``mask`` and URL credentials
    masked (references such as ``"${MY_TOKEN}"`` are kept)."""
    if isinstance(value, dict):
        return {
            k: (_masked_leaf(v, mask) if is_secret_name(k) else mask_values(v, mask=mask))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(mask_values(v, mask=mask) for v in value)
    if isinstance(value, str) and "@" in value and "://" in value:
        return mask_url(value)
    return value


def _masked_leaf(value: Any, mask: str) -> Any:
    if value is None or value == "" or is_reference(value):
        return value
    if isinstance(value, dict):
        return dict.fromkeys(value, mask)
    return mask


def without_secrets(value: Any, mask: str | None = None) -> Any:
    """``value`` with every dict entry whose key looks secret removed (or replaced by ``mask``)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if is_secret_name(k):
                if mask is not None:
                    out[k] = mask
            else:
                out[k] = without_secrets(v, mask)
        return out
    if isinstance(value, list | tuple):
        return type(value)(without_secrets(v, mask) for v in value)
    return value


def mask_url(url: str) -> str:
    """A URL with its password (``user:password@host``) and query string values masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    if "@" not in parts.netloc and not parts.query:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{MASK}@{host}" if ":" in userinfo else f"{user}@{host}"
    query = "&".join(
        f"{pair.split('=', 1)[0]}={MASK}" if "=" in pair else pair
        for pair in parts.query.split("&")
        if pair
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def split_url_credentials(url: str) -> tuple[str, str | None, str | None]:
    """``(url without userinfo, user, password)``; user and password are None without userinfo."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, host = parts.netloc.rsplit("@", 1)
    user, _, password = userinfo.partition(":")
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return clean, unquote(user), unquote(password) if password else None


def secret_forms(value: str) -> set[str]:
    """A secret and the forms it may be echoed in: without its auth scheme (``Bearer abc`` -> ``abc``),
    and for Basic credentials the decoded ``user:password`` and the password (forms under 4 characters
    are left out: masking them would garble ordinary text)."""
    forms = {value}
    scheme, _, rest = value.strip().partition(" ")
    if rest and scheme.lower() in _SCHEMES:
        forms.add(rest.strip())
        if scheme.lower() == "basic":
            with contextlib.suppress(binascii.Error, UnicodeDecodeError, ValueError):
                decoded = base64.b64decode(rest.strip(), validate=True).decode()
                forms.add(decoded)
                forms.add(decoded.partition(":")[2])
    return {f for f in forms if f and len(f) >= _MIN_LENGTH and not is_reference(f)}


def mask_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret, and every bare form of it (``secret_forms``), replaced by ``MASK``."""
    return _replaced(text, _forms((MASK, value) for value in secrets))


def redact_secrets(value: Any, secrets: Mapping[str, str | Iterable[str]]) -> Any:
    """``value`` (a string, or JSON-like data: dict values and list items at any depth) with every
    configured secret, and its bare forms (``secret_forms``), replaced by ``[secret:<name>]``.

    ``secrets`` maps a name (a header, a query parameter, ``profile-1``) to its value, or to several
    values standing for it (as stored and as resolved). Dict keys are kept as they are."""
    forms = _forms(
        (f"[secret:{name}]", v)
        for name, values in secrets.items()
        for v in ([values] if isinstance(values, str) else values)
    )
    return _redacted(value, forms) if forms else value


def _forms(pairs: Iterable[tuple[str, Any]]) -> list[tuple[str, str]]:
    """``(form, replacement)``, longest form first ("Bearer x" before "x")."""
    found: dict[str, str] = {}
    for replacement, value in pairs:
        if isinstance(value, str):
            for form in secret_forms(value):
                found.setdefault(form, replacement)
    return sorted(found.items(), key=lambda item: len(item[0]), reverse=True)


def _replaced(text: str, forms: list[tuple[str, str]]) -> str:
    for form, replacement in forms:
        if form in text:
            text = text.replace(form, replacement)
    return text


def _redacted(value: Any, forms: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        return _replaced(value, forms)
    if isinstance(value, dict):
        return {k: _redacted(v, forms) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_redacted(v, forms) for v in value)
    return value


# Key-shaped tokens: "sk-…"/"pk-…"/"rk-…" keys, "sk_live_…" keys, and the credential of a Bearer header.
# Each is a literal prefix then one possessive run (linear time on any text).
_KEY_LIKE = re.compile(
    r"\b(?:sk|pk|rk)[-_][A-Za-z0-9_\-]{8,}+"
    r"|(?P<scheme>(?i:\bbearer)\s++)(?=[^\s\d]*+\d)[A-Za-z0-9._~+/\-]{8,}+=*+"
)
_MIN_ENV_SECRET = 8  # shorter values would garble ordinary text


def environment_secrets() -> list[str]:
    """Values of the secret-named environment variables (``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``...)."""
    return [v for k, v in os.environ.items() if is_secret_name(k) and len(v) >= _MIN_ENV_SECRET]


def mask_credentials(text: str, known: Iterable[str | None] = ()) -> str:
    """``text`` (an error a provider sent back) with the ``known`` secrets, the secret-named environment
    variables' values and key-shaped tokens (``sk-…``, ``Bearer …``) masked."""
    return credential_masker(known)(text)


def credential_masker(known: Iterable[str | None] = ()) -> Callable[[str], str]:
    """``mask_credentials`` with the secrets read once: for masking many texts in one go (an export)."""
    forms = _forms((MASK, value) for value in [k for k in known if k] + environment_secrets())

    def mask(text: str) -> str:
        return _KEY_LIKE.sub(_mask_key, _replaced(text, forms))

    return mask


def has_key_like(text: str) -> bool:
    """Whether ``text`` holds a key-shaped token (``sk-…``, ``sk_live_…``, ``Bearer …``)."""
    return _KEY_LIKE.search(text) is not None


def _mask_key(match: re.Match[str]) -> str:
    return (match.group("scheme") or "") + MASK


_quiet_lock = threading.Lock()
_quiet = {"depth": 0, "levels": {}}
_HTTP_LOGGERS = ("httpx", "httpcore")


@contextlib.contextmanager
def quiet_http_logs() -> Iterator[None]:
    """Hold the httpx/httpcore loggers at WARNING or above inside the block (nested and concurrent
    blocks share one setting; the previous levels come back when the last one ends)."""
    with _quiet_lock:
        if _quiet["depth"] == 0:
            for name in _HTTP_LOGGERS:
                logger = logging.getLogger(name)
                _quiet["levels"][name] = logger.level
                if logger.getEffectiveLevel() < logging.WARNING:
                    logger.setLevel(logging.WARNING)
        _quiet["depth"] += 1
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet["depth"] -= 1
            if _quiet["depth"] == 0:
                for name, level in _quiet["levels"].items():
                    logging.getLogger(name).setLevel(level)
