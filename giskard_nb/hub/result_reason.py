"""Why a stored result did not pass, in one bounded line, read from its stored check results.

``result_reason(result)``: for an ERROR, what stopped the test case (the agent, a timeout...) or the
first erroring check's message; for a FAIL, the first failing (or erroring) check's name and message;
for a SKIP, why it was skipped; ``""`` for a PASS. At most ``limit`` characters (the cut is marked with
``…``). The text is the stored one: agent output may be quoted in it, so a terminal prints it through
``core.sanitize.terminal_text``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REASON_LIMIT", "result_reason"]

#: The default bound of a reason, in characters.
REASON_LIMIT = 300


def result_reason(result: Any, *, limit: int = REASON_LIMIT) -> str:
    """The reason of one ``EvaluationResult`` (see the module docstring)."""
    status = result.status
    if status == "pass":
        return ""
    if status == "skip":
        text = result.scenario_result.skip_reason or "skipped"
    else:
        bad = ("error",) if status == "error" else ("fail", "error")
        check = next((c for c in result.checks if c.status in bad), None)
        if status == "error" and result.error:
            text = result.error
        elif check is not None:
            text = f"{check.name}: {check.message}" if check.message else f"{check.name}: {status}"
        else:
            text = result.error or result.failure_category_reason or status
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
