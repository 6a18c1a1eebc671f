"""Secrets in the Hub: agent headers, URL credentials, keys in check params never leave in clear text.

What a secret is and how it is masked is decided once, in ``giskard_nb.secrets``. The Hub adds:

- **storage** (``giskard_nb.hub.secret_store``): secret values are kept in the Hub's secrets file, the
  database holds ``${secret:<id>}`` references;
- **environment references**: a value may be ``"${MY_TOKEN}"`` or ``"Bearer ${MY_TOKEN}"``, resolved
  only when the agent is called (or the check built), so no copy of the token is kept at all.

Header values are masked in every repr, log line, export, DataFrame and audit entry; an error echoed back
by an agent is masked for every configured value and its bare forms (the token of a ``Bearer`` header,
the password of URL credentials).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from giskard_nb.errors import ConfigError
from giskard_nb.hub.secret_store import resolve_secret_refs
from giskard_nb.secrets import MASK, is_secret_name, mask_url
from giskard_nb.secrets import mask_text as _mask_text

__all__ = [
    "MASK",
    "mask_mapping",
    "mask_text",
    "mask_url",
    "resolve_env_refs",
    "resolve_quietly",
    "resolve_refs",
    "resolve_secret_params",
]

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def mask_mapping(values: Mapping[str, Any] | None) -> dict[str, str]:
    """The same keys with every value replaced by ``MASK``."""
    return dict.fromkeys(values or {}, MASK)


def mask_text(text: str, secrets: Mapping[str, str] | Iterable[str] | None) -> str:
    """``text`` with every secret value (as stored, resolved, and in its bare forms) masked."""
    values = list(secrets.values()) if isinstance(secrets, Mapping) else list(secrets or ())
    resolved = [resolve_quietly(v) for v in values if isinstance(v, str)]
    return _mask_text(text, [*values, *resolved])


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


def resolve_refs(value: str, *, what: str = "a header") -> str:
    """``value`` with Hub secret references and environment references resolved (for a call)."""
    return resolve_env_refs(resolve_secret_refs(value, what=what), what=what)


def resolve_secret_params(data: Any, *, what: str = "a check") -> Any:
    """Check params with the references under secret-named keys resolved (an unset environment
    variable is left as written: the provider then rejects the key, and says so)."""
    if isinstance(data, dict):
        return {
            k: (
                _resolve_leaf(v, what) if is_secret_name(k) else resolve_secret_params(v, what=what)
            )
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [resolve_secret_params(v, what=what) for v in data]
    return data


def _resolve_leaf(value: Any, what: str) -> Any:
    if isinstance(value, str):
        return resolve_quietly(resolve_secret_refs(value, what=what))
    if isinstance(value, dict | list):
        return resolve_secret_refs(value, what=what)
    return value


def resolve_quietly(value: str) -> str:
    """``value`` with its references resolved, or as written when one cannot be (for masking)."""
    try:
        return resolve_refs(value)
    except ConfigError:
        return value
