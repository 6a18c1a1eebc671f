"""Secrets in the Hub: agent headers and database passwords never leave in clear text.

An agent's header values are stored (the Hub needs them to call the agent) but masked in every repr,
log line, export, DataFrame and audit entry. A header value may also be a reference to an environment
variable, ``"${MY_TOKEN}"`` or ``"Bearer ${MY_TOKEN}"``, resolved only when the agent is called, so the
database never holds the token at all.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from giskard_nb.errors import ConfigError

__all__ = ["MASK", "mask_mapping", "mask_text", "mask_url", "resolve_env_refs"]

#: What a secret looks like wherever it is shown.
MASK = "***"

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def mask_mapping(values: Mapping[str, Any] | None) -> dict[str, str]:
    """The same keys with every value replaced by ``MASK``."""
    return dict.fromkeys(values or {}, MASK)


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


def mask_text(text: str, secrets: Mapping[str, str] | None) -> str:
    """``text`` with every secret value (longer than 3 characters) replaced by ``MASK``."""
    for value in (secrets or {}).values():
        resolved = _resolve_quietly(value)
        for candidate in {value, resolved}:
            if candidate and len(candidate) > 3:
                text = text.replace(candidate, MASK)
    return text


def resolve_env_refs(value: str, *, what: str = "a header") -> str:
    """Replace every ``${NAME}`` in ``value`` by the environment variable ``NAME``."""

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise ConfigError(
                f"{what} refers to the environment variable {name!r}, which is not set: export it "
                f"(for example `export {name}=...`) or store the value itself"
            )
        return os.environ[name]

    return _ENV_REF.sub(sub, value)


def _resolve_quietly(value: str) -> str:
    try:
        return resolve_env_refs(value)
    except ConfigError:
        return value
