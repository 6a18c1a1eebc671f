"""Turning untrusted values (what an agent returned) into JSON-safe data, once, where they enter.

``to_safe_data(value)`` returns plain JSON data (``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
``float``, ``bool``, ``None``) for any Python value, and never raises:

- strings are made valid Unicode (a lone surrogate such as ``"\\ud800"`` becomes U+FFFD);
- tuples and sets become lists (sets sorted when they can be), dict keys become strings;
- ``datetime``/``date``/``time`` become ISO strings; ``Decimal``, ``UUID``, paths and enums their string;
- ``NaN``/``inf`` become the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``; integers too long
  for JSON readers (over 4,000 digits) become ``"<int of N bits>"``;
- bytes become ``{"$bytes_base64": "...", "length": N}``;
- pydantic models and dataclasses become their fields; any other object its ``repr`` (a ``repr`` that
  raises gives ``"<unrepresentable TypeName>"``);
- a container met again inside itself becomes ``"<cycle: dict>"``, nesting deeper than ``max_depth``
  becomes ``"<truncated: deeper than N levels>"``;
- sizes are capped with a visible marker: a string longer than ``max_string`` characters keeps its
  start and ends with ``"…<truncated: N more characters>"``; a list (or dict) of more than
  ``max_items`` keeps its first items and a last ``"<truncated: N more items>"`` item (a dict: key
  ``"<truncated>"``); once ``max_total`` characters (strings, keys and one per item) have been kept,
  every further value is ``"<truncated: total size limit reached>"``.

The caps have defaults (``LIMITS``) that the environment can change: ``GISKARD_NB_MAX_DEPTH``,
``GISKARD_NB_MAX_STRING``, ``GISKARD_NB_MAX_ITEMS``, ``GISKARD_NB_MAX_TOTAL``; a keyword argument wins
over both. ``valid_unicode(text)`` is the string part alone (no caps), for user-written text, and
``valid_unicode_data(value)`` applies it to every string (and key) inside dicts and lists.

``terminal_text(text)`` is untrusted text made safe to print to a terminal: terminal escape sequences
(CSI, OSC, DCS... in their 7- and 8-bit forms), control characters other than newline and tab, and the
bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) removed; ``one_line=True`` also
folds every run of whitespace into one space.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime as dt
import enum
import functools
import json
import math
import os
import re
import uuid
from dataclasses import dataclass
from decimal import Decimal
from pathlib import PurePath
from typing import Any

__all__ = [
    "LIMITS",
    "SafeDataLimits",
    "limit_from_env",
    "limits_from_env",
    "terminal_text",
    "to_safe_data",
    "valid_unicode",
    "valid_unicode_data",
]

_ENV = {
    "max_depth": "GISKARD_NB_MAX_DEPTH",
    "max_string": "GISKARD_NB_MAX_STRING",
    "max_items": "GISKARD_NB_MAX_ITEMS",
    "max_total": "GISKARD_NB_MAX_TOTAL",
}
_MAX_INT_BITS = 13_000  # about 3,900 decimal digits: under Python's 4,300-digit str() limit


@dataclass(frozen=True)
class SafeDataLimits:
    """The caps ``to_safe_data`` applies (see the module docstring for what each one cuts)."""

    max_depth: int = 64
    max_string: int = 1_000_000
    max_items: int = 10_000
    max_total: int = 5_000_000


#: The default caps (before the environment variables are applied).
LIMITS = SafeDataLimits()


def limit_from_env(name: str) -> int:
    """One cap of ``limits_from_env()`` (``"max_string"``...), reading its one environment variable
    (what a check made on every reply needs)."""
    text = os.environ.get(_ENV[name])
    if not text:
        return getattr(LIMITS, name)
    return getattr(_env_limits(tuple(text if f == name else None for f in _ENV)), name)


def limits_from_env(**overrides: int | None) -> SafeDataLimits:
    """``LIMITS`` with the ``GISKARD_NB_MAX_*`` environment variables and then ``overrides`` applied."""
    environ = os.environ
    raw = tuple(environ.get(var) for var in _ENV.values())
    limits = _env_limits(raw) if any(raw) else LIMITS
    given = {k: max(int(v), 1) for k, v in overrides.items() if v is not None}
    return dataclasses.replace(limits, **given) if given else limits


@functools.lru_cache(maxsize=8)
def _env_limits(raw: tuple[str | None, ...]) -> SafeDataLimits:
    values: dict[str, int] = {}
    for field, text in zip(_ENV, raw, strict=True):
        if text:
            # an unreadable cap keeps its default rather than breaking every reply
            with contextlib.suppress(ValueError):
                values[field] = max(int(text), 1)
    return dataclasses.replace(LIMITS, **values)


def valid_unicode(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the same string when it is valid)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # surrogatepass keeps the pairs (joined back into one character); lone halves become U+FFFD
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def valid_unicode_data(value: Any) -> Any:
    """``value`` with ``valid_unicode`` applied to every string and dict key inside dicts, lists and
    tuples (other values are kept as they are; no caps)."""
    try:  # checked at C speed: in the common case there is nothing to replace
        _CHECKER.encode(value).encode()
    except UnicodeEncodeError:  # a surrogate somewhere
        return _fix_unicode(value)
    except (ValueError, TypeError, RecursionError):
        return value  # not plain data (a cycle...): left to the model's own validation
    return value


# a control string (OSC, DCS, SOS, PM, APC) up to its terminator (BEL or ST), a CSI sequence, then
# any other escape sequence: what is left of an unterminated string is removed as control characters
_TERMINAL_SEQUENCE = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|\x1b[ -/]*[0-~]"
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: str, *, one_line: bool = False) -> str:
    """``text`` safe to print to a terminal (see the module docstring): nothing in it can move the
    cursor, recolour or hide text, set the window title, open a hyperlink, or reorder what is shown."""
    text = valid_unicode(text)
    if not text.isprintable():
        text = _CONTROL.sub("", _TERMINAL_SEQUENCE.sub("", text))
    return " ".join(text.split()) if one_line else text


def _skip(_value: Any) -> None:
    return None


_CHECKER = json.JSONEncoder(ensure_ascii=False, default=_skip)


def _fix_unicode(value: Any) -> Any:
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, dict):
        return {
            valid_unicode(k) if isinstance(k, str) else k: _fix_unicode(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_fix_unicode(v) for v in value]
    return value


def to_safe_data(
    value: Any,
    *,
    max_depth: int | None = None,
    max_string: int | None = None,
    max_items: int | None = None,
    max_total: int | None = None,
) -> Any:
    """``value`` as JSON-safe data with the caps applied (defaults: ``limits_from_env()``)."""
    limits = limits_from_env(
        max_depth=max_depth, max_string=max_string, max_items=max_items, max_total=max_total
    )
    if type(value) is str and len(value) <= min(limits.max_string, limits.max_total):
        return valid_unicode(value)  # the common case: a reply's text
    return _Walker(limits).walk(value, 0)


class _Walker:
    def __init__(self, limits: SafeDataLimits):
        self.limits = limits
        self.budget = limits.max_total
        self.path: set[int] = (
            set()
        )  # ids of the containers being walked (a cycle comes back to one)

    def walk(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind is str:
            return self.text(value)
        if value is None or kind is bool:
            return value
        if kind is int:
            return self.integer(value)
        if kind is float:
            return self.number(value)
        if self.budget <= 0:
            return "<truncated: total size limit reached>"
        if kind is dict or kind is list or kind is tuple:
            return self.container(value, depth)
        return self.other(value, depth)

    def text(self, value: str) -> str:
        if self.budget <= 0:
            return "<truncated: total size limit reached>"
        cap = min(self.limits.max_string, max(self.budget, 0))
        if len(value) > cap:
            value = f"{value[:cap]}…<truncated: {len(value) - cap} more characters>"
        self.budget -= len(value)
        return valid_unicode(value)

    @staticmethod
    def integer(value: int) -> int | str:
        return (
            value if value.bit_length() <= _MAX_INT_BITS else f"<int of {value.bit_length()} bits>"
        )

    @staticmethod
    def number(value: float) -> float | str:
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")

    def container(self, value: Any, depth: int) -> Any:
        if depth >= self.limits.max_depth:
            return f"<truncated: deeper than {self.limits.max_depth} levels>"
        key = id(value)
        if key in self.path:
            return f"<cycle: {type(value).__name__}>"
        self.path.add(key)
        try:
            if isinstance(value, dict):
                return self.mapping(value, depth)
            return self.sequence(value, depth)
        finally:
            self.path.discard(key)

    def mapping(self, value: dict[Any, Any], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        cap = self.limits.max_items
        short = min(self.limits.max_string, 4096)
        for n, (k, v) in enumerate(list(value.items())):
            if n >= cap or self.budget <= 0:
                out["<truncated>"] = f"{len(value) - n} more items"
                break
            if type(k) is str and len(k) < short and k.isascii():  # the common case, inline
                name = k
                self.budget -= len(k) + 1
            else:
                name = self.text(k) if type(k) is str else self.text(self.key(k))
                self.budget -= 1
            if type(v) is str and len(v) < short and v.isascii() and self.budget > len(v):
                self.budget -= len(v)
                out[name] = v
            else:
                out[name] = self.walk(v, depth + 1)
        return out

    def sequence(self, value: Any, depth: int) -> list[Any]:
        items = list(value)
        cap = self.limits.max_items
        out = []
        for n, item in enumerate(items):
            if n >= cap or self.budget <= 0:
                out.append(f"<truncated: {len(items) - n} more items>")
                break
            self.budget -= 1
            out.append(self.walk(item, depth + 1))
        return out

    def key(self, key: Any) -> str:
        if key is None or isinstance(key, bool | int | float | enum.Enum):
            safe = self.walk(key.value if isinstance(key, enum.Enum) else key, 0)
            return safe if isinstance(safe, str) else str(safe)
        if isinstance(key, str):
            return str.__str__(key)
        return _repr(key)

    def other(self, value: Any, depth: int) -> Any:
        if isinstance(value, str):  # str subclasses (StrEnum members included)
            return self.text(str.__str__(value))
        if isinstance(value, enum.Enum):
            inner = value.value
            if inner is None or isinstance(inner, str | int | float):
                return self.walk(inner, depth)
            return self.text(_repr(value))
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, int):
            return self.integer(int(value))
        if isinstance(value, float):
            return self.number(float(value))
        if isinstance(value, dict | list | tuple):
            return self.container(value, depth)
        if isinstance(value, set | frozenset):
            return self.container(_sorted(value), depth)
        if isinstance(value, bytes | bytearray | memoryview):
            return self.binary(bytes(value))
        if isinstance(value, dt.datetime | dt.date | dt.time):
            return self.text(value.isoformat())
        if isinstance(value, Decimal | uuid.UUID | PurePath):
            return self.text(str(value))
        fields = _fields(value)
        if fields is not None:
            return self.walk(fields, depth)
        return self.text(_repr(value))

    def binary(self, data: bytes) -> dict[str, Any]:
        # base64 takes 4 characters per 3 bytes: keep what max_string allows
        keep = max((self.limits.max_string // 4) * 3, 0)
        encoded = base64.b64encode(data[:keep]).decode("ascii")
        out: dict[str, Any] = {"$bytes_base64": self.text(encoded), "length": len(data)}
        if len(data) > keep:
            out["truncated"] = f"{len(data) - keep} more bytes"
        return out


def _sorted(value: set[Any] | frozenset[Any]) -> list[Any]:
    try:
        return sorted(value)
    except Exception:  # mixed types
        return list(value)


def _fields(value: Any) -> dict[str, Any] | None:
    """The fields of a pydantic model or a dataclass instance (``None`` for other objects)."""
    try:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
        dump = getattr(type(value), "model_dump", None)
        if callable(dump) and hasattr(type(value), "model_fields"):
            return {name: getattr(value, name, None) for name in type(value).model_fields}
    except Exception:
        return None
    return None


def _repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:
        return f"<unrepresentable {_type_name(value)}>"
    return text if isinstance(text, str) else f"<unrepresentable {_type_name(value)}>"


def _type_name(value: Any) -> str:
    try:
        return type(value).__name__
    except Exception:  # pragma: no cover - a type whose name cannot be read
        return "object"
