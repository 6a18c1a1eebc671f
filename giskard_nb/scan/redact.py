"""What a scan keeps of a reply: the verdict on what the agent said, never the secrets it revealed.

A reply revealing one of ``AttackProfile.secrets`` is a finding (the detectors read the reply as it came),
but the attempt the runner returns — and so the report, its SARIF and CSV exports, its DataFrames and the
Hub's rows — shows each profile secret as ``[secret:profile-N]`` (also its plain encodings: base64, hex,
URL-encoded, reversed, ROT13), and each credential-shaped value the agent revealed (an API key, a token,
a password assignment: ``find_secrets``) as ``[secret:<kind>]``. The masking itself is
``giskard_nb.secrets.redact_secrets``; exports of attempts stored before call ``redact_leaks`` again.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import contextlib
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from giskard_nb.scan.attack import AttackProfile
from giskard_nb.scan.detectors.secrets import find_secrets
from giskard_nb.secrets import redact_secrets

if TYPE_CHECKING:
    from giskard_nb.scan.result import Attempt

__all__ = ["profile_secrets", "redact_attempt", "redact_leaks"]

_TOKEN = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")
_FIELDS = ("messages", "output", "output_metadata", "tool_calls", "excerpt", "reason", "error")


def profile_secrets(profile: AttackProfile | None) -> dict[str, list[str]]:
    """Each profile secret by name (``profile-1``...) with the encodings a leak may use."""
    named: dict[str, list[str]] = {}
    for i, secret in enumerate(profile.secrets if profile else [], 1):
        if not secret:
            continue
        raw = secret.encode()
        b64 = base64.b64encode(raw).decode()
        named[f"profile-{i}"] = [
            secret,
            b64,
            b64.rstrip("="),
            raw.hex(),
            raw.hex().upper(),
            quote(secret, safe=""),
            secret[::-1],
            codecs.encode(secret, "rot13"),
        ]
    return named


def redact_leaks(value: Any, source: str = "", known: dict[str, list[str]] | None = None) -> Any:
    """``value`` (text or JSON-like data) with ``known`` secrets and every credential-shaped value
    found in its text (not supplied by the attacker in ``source``) shown as ``[secret:<name>]``."""
    named = _leaked(_texts(value), source, dict(known or {}))
    return redact_secrets(value, named) if named else value


def redact_attempt(attempt: Attempt, profile: AttackProfile | None = None) -> Attempt:
    """The attempt as kept and exported: its verdict unchanged, the secrets in its text masked (a
    base64 or hex token whose decoding holds a profile secret is masked whole)."""
    dump = {k: getattr(attempt, k) for k in _FIELDS}
    # what the agent wrote, once each (the output is also the last message; the user's turns are
    # the attacker's: credential shapes in them are not leaks)
    replies = [m.get("content") for m in attempt.messages if m.get("role") != "user"]
    texts = list(dict.fromkeys(_texts([replies, *(dump[k] for k in _FIELDS[1:])])))
    known = profile_secrets(profile)
    for name, token in _encoded(texts, profile.secrets if profile else []):
        known[name].append(token)
    named = _leaked(texts, attempt.attack.input_text, known)
    if not named:
        return attempt
    masked = redact_secrets(dump, named)
    changed = {k: v for k, v in masked.items() if v != dump[k]}
    return attempt.model_copy(update=changed) if changed else attempt


def _leaked(texts: list[str], source: str, named: dict[str, list[str]]) -> dict[str, list[str]]:
    """``named`` plus each credential-shaped value in ``texts`` (not in ``source``) by its kind."""
    for text in texts:
        for kind, found, _ in find_secrets(text, source):
            named.setdefault(kind, []).append(found)
    return named


def _encoded(texts: list[str], secrets: list[str]) -> list[tuple[str, str]]:
    """``(profile-N, token)`` for each base64 or hex token in ``texts`` that decodes to text holding
    secret N (a leak hidden in an encoded sentence)."""
    found = []
    for text in texts if any(secrets) else []:
        for token in set(_TOKEN.findall(text)):
            decoded = _decode(token)
            for i, secret in enumerate(secrets, 1):
                if secret and decoded and secret in decoded:
                    found.append((f"profile-{i}", token))
    return found


def _decode(token: str) -> str:
    with contextlib.suppress(ValueError):
        if _HEX.fullmatch(token):
            return bytes.fromhex(token).decode("utf-8", "replace")
    with contextlib.suppress(ValueError, binascii.Error):
        padded = token.rstrip("=") + "=" * (-len(token.rstrip("=")) % 4)
        return base64.b64decode(padded.replace("-", "+").replace("_", "/")).decode(
            "utf-8", "replace"
        )
    return ""


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _texts(v)]
    return []
