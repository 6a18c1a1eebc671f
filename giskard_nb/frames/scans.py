"""DataFrames of vulnerability scans (the tables behind ``ScanReport.to_dataframe()``,
``probes_dataframe()`` and ``categories_dataframe()``; pandas is imported inside the functions).

``attempts_frame(attempts)`` — one row per attempt, columns ``ATTEMPT_COLUMNS``: ids (``attempt_id``,
``probe_id``, ``attack_id``), ``probe_name``, ``category``, the attack's ``variant`` and ``source``,
``status``, ``successful``, ``severity`` (an ordered Categorical of the severity labels),
``review_status``, ``counts`` (whether it counts toward the grade), ``evidence`` (a finding's tier:
``confirmed``, or ``suspected`` — rule-based, never in the grade alone; ``None`` for no finding), the
detector's ``reason`` and name,
``input`` (the last user turn), ``output``, ``turns``, ``error``, ``agent_calls``, the usage columns
``llm_calls``, ``total_tokens``, ``cost_usd``, then ``duration_ms`` and ``created_at``.
``summaries_frame(summaries)`` — one row per probe or category summary (``ProbeSummary`` /
``CategorySummary`` fields), ``highest_severity`` as its label.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from giskard_nb.scan.grading import Severity
from giskard_nb.scan.redact import redact_leaks

if TYPE_CHECKING:
    import pandas as pd

    from giskard_nb.scan.result import Attempt

__all__ = ["ATTEMPT_COLUMNS", "attempts_frame", "summaries_frame"]

ATTEMPT_COLUMNS = [
    "attempt_id", "probe_id", "probe_name", "category", "variant", "source", "status", "successful",
    "severity", "review_status", "counts", "evidence", "reason", "detector", "input", "output", "turns", "error",
    "agent_calls", "llm_calls", "total_tokens", "cost_usd", "duration_ms", "created_at", "attack_id",
]  # fmt: skip


def _row(a: Attempt) -> dict[str, Any]:
    turns = [m.get("content", "") for m in a.input_messages if m.get("role") == "user"]
    return {
        "attempt_id": a.id,
        "probe_id": a.probe_id,
        "probe_name": a.probe_name,
        "category": a.category,
        "variant": a.attack.variant,
        "source": a.attack.source,
        "status": a.status,
        "successful": a.successful,
        "severity": Severity(a.severity).label,
        "review_status": str(a.review_status),
        "counts": a.counts,
        "evidence": a.evidence,
        "reason": a.reason,
        "detector": a.detector,
        "input": turns[-1] if turns else "",
        "output": redact_leaks(a.output) if a.successful else a.output,  # older reports' leaks
        "turns": len(turns),
        "error": a.error,
        "agent_calls": a.agent_calls,
        "llm_calls": a.usage.llm_calls,
        "total_tokens": a.usage.total_tokens,
        "cost_usd": a.usage.cost_usd,
        "duration_ms": a.duration_ms,
        "created_at": a.created_at,
        "attack_id": a.attack.id,
    }


def attempts_frame(attempts: Iterable[Attempt]) -> pd.DataFrame:
    """One row per attempt (columns ``ATTEMPT_COLUMNS``, severity as ordered labels)."""
    import pandas as pd

    df = pd.DataFrame([_row(a) for a in attempts], columns=ATTEMPT_COLUMNS)
    df["severity"] = pd.Categorical(
        df["severity"], categories=[s.label for s in Severity], ordered=True
    )
    return df


def summaries_frame(summaries: Iterable[Any]) -> pd.DataFrame:
    """One row per probe or category summary (``highest_severity`` as its label)."""
    import pandas as pd

    rows = []
    for s in summaries:
        row = s.model_dump()
        row["highest_severity"] = Severity(row["highest_severity"]).label
        rows.append(row)
    return pd.DataFrame(rows)
