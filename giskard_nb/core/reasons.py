"""Why a test case did not pass, in one line: the one place that decides which reason a result shows.

``case_reason(status, error=..., checks=...)`` is what ``ScenarioResult.reason`` and the Hub's
``EvaluationResult.reason`` return, and what the CLI, the JUnit writers, the CSV/Parquet exports and the
results DataFrames show:

- PASS: ``None``;
- ERROR: the step error (the agent raised, a timeout...) when there is one, else the first erroring
  check as ``"<check>: <message>"``;
- FAIL: the first failing check, ``"<check>: <message>"``;
- SKIP: ``"no checks"`` when the case has none, else the first skipped check's message.

More checks failing or erroring than the one shown add ``" (+N more failing or erroring checks)"``.
The text is bounded (``REASON_MAX_CHARS``, ending with ``…`` when cut) and safe to print anywhere:
runs of whitespace (line breaks included) become one space, other control characters (a terminal
escape sequence an agent put in its reply, which a check may quote) are written as ``\\x1b``-style
escapes. HTML renderers still escape it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from giskard_nb.core.testcase import NO_CHECKS

__all__ = ["REASON_MAX_CHARS", "case_reason", "one_line"]

#: The longest reason kept (characters), the ``…`` included.
REASON_MAX_CHARS = 500

_SPACES = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_FAILED = ("fail", "error")


def one_line(text: str, limit: int = REASON_MAX_CHARS) -> str:
    """``text`` on one line with no control character, at most ``limit`` characters (``…`` when cut)."""
    flat = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", _SPACES.sub(" ", text)).strip()
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"


def case_reason(
    status: str,
    *,
    error: str | None = None,
    checks: Iterable[tuple[str | None, str, str | None]] = (),
    limit: int = REASON_MAX_CHARS,
) -> str | None:
    """The reason a case with this ``status`` shows (see the module docstring); ``checks`` are its
    check results in order, as ``(check name, status, message)``."""
    status = str(status)
    if status == "pass":
        return None
    listed = [(name or "check", str(s), message) for name, s, message in checks]
    if status == "skip":
        if not listed:
            return NO_CHECKS
        skipped = next((c for c in listed if c[1] == "skip" and c[2]), None)
        return one_line(_label(skipped) if skipped else "every check was skipped", limit)
    if status == "error" and error:
        return one_line(error, limit)
    bad = [c for c in listed if c[1] == status] or [c for c in listed if c[1] in _FAILED]
    if not bad:
        return one_line(error or status, limit)
    more = len([c for c in listed if c[1] in _FAILED]) - 1
    suffix = f" (+{more} more failing or erroring check{'s' if more > 1 else ''})" if more else ""
    return one_line(_label(bad[0]), max(limit - len(suffix), 1)) + suffix


def _label(check: tuple[str, str, str | None]) -> str:
    name, status, message = check
    return f"{name}: {message}" if message and message.strip() else f"{name} {status.upper()}"
