"""SARIF 2.1.0 export of a scan, so findings show up in code-scanning dashboards.

One ``run`` with the tool ``giskard-nb``; one rule per vulnerability category that has findings (its
id is the OWASP LLM Top 10 2025 id when the category has one, else ``giskard-nb/<category>``); one
``result`` per finding, with the probe, the attack's last user turn and the agent's reply (both
truncated) in the message and properties. Severity maps to SARIF levels: critical and major are
``error``, medium ``warning``, minor ``note``. Suspected findings (rule-based stand-ins for a judge,
not in the grade) are results too, always at level ``note``, and every result says its tier in the
property ``evidence`` (``confirmed`` or ``suspected``; the reply's excerpt is ``excerpt``). Findings
have no source location (an agent is not a
file), so each result carries a logical location naming the scanned agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from giskard_nb.scan.catalogue import CATEGORIES
from giskard_nb.scan.grading import Severity
from giskard_nb.scan.redact import redact_leaks

if TYPE_CHECKING:
    from giskard_nb.scan.result import Attempt, ScanReport

__all__ = ["SARIF_SCHEMA", "scan_to_sarif", "write_sarif"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"critical": "error", "major": "error", "medium": "warning", "minor": "note"}
_TEXT_LIMIT = 500


def _cut(text: str) -> str:
    return text if len(text) <= _TEXT_LIMIT else text[:_TEXT_LIMIT] + "…"


def _rule_id(category: str) -> str:
    for c in CATEGORIES:
        if c.id == category and c.owasp_id:
            return c.owasp_id
    return f"giskard-nb/{category}"


def _rule(category: str) -> dict[str, Any]:
    known = {c.id: c for c in CATEGORIES}.get(category)
    title = known.title if known else category.replace("_", " ").title()
    rule: dict[str, Any] = {
        "id": _rule_id(category),
        "name": title.replace(" ", ""),
        "shortDescription": {"text": title},
        "properties": {"category": category},
    }
    if known:
        rule["fullDescription"] = {"text": known.description}
        if known.owasp_id:
            rule["helpUri"] = "https://genai.owasp.org/llm-top-10/"
            rule["properties"]["owasp_id"] = known.owasp_id
    return rule


def _severity_name(attempt: Attempt) -> str:
    severity = attempt.severity
    return severity.name.lower() if isinstance(severity, Severity) else str(severity).lower()


def _result(attempt: Attempt, agent_name: str) -> dict[str, Any]:
    turns = attempt.attack.turns
    severity = _severity_name(attempt)
    suspected = attempt.suspected
    return {
        "ruleId": _rule_id(attempt.category),
        "level": "note" if suspected else _LEVELS.get(severity, "warning"),
        "message": {
            "text": f"{attempt.probe_name or attempt.probe_id}: {attempt.reason or 'attack succeeded'}"
        },
        "locations": [
            {"logicalLocations": [{"name": agent_name, "kind": "module"}]},
        ],
        "partialFingerprints": {"giskardAttempt/v1": attempt.id},
        "properties": {
            "attempt_id": attempt.id,
            "probe_id": attempt.probe_id,
            "category": attempt.category,
            "severity": severity,
            "detector": attempt.detector,
            "attack": _cut(turns[-1] if turns else ""),
            "reply": _cut(redact_leaks(attempt.output)),
            "evidence": "suspected" if suspected else "confirmed",
            "excerpt": _cut(redact_leaks(attempt.excerpt or "")),
        },
    }


def scan_to_sarif(report: ScanReport, *, agent_name: str = "agent") -> dict[str, Any]:
    """The SARIF 2.1.0 log of ``report`` as a dict (one result per finding, suspected ones too)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        tool_version = version("giskard-nb")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        tool_version = "0"
    findings = [*report.findings, *report.suspected]
    categories = sorted({a.category for a in findings})
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "giskard-nb",
                        "version": tool_version,
                        "informationUri": "https://github.com/giskard-nb/giskard-nb",
                        "rules": [_rule(c) for c in categories],
                    }
                },
                "automationDetails": {"id": f"giskard-nb-scan/{report.id}"},
                "results": [_result(a, agent_name) for a in findings],
                "properties": {
                    "scan_name": report.name,
                    "grade": str(report.grade),
                    "attempts": len(report.attempts),
                    "errored_attempts": len(report.errors),
                    "suspected_findings": len(report.suspected),
                },
            }
        ],
    }


def write_sarif(report: ScanReport, path: str | Path, *, agent_name: str = "agent") -> Path:
    """Write the SARIF log of ``report`` to ``path`` (UTF-8 JSON, replaced atomically); the path."""
    from giskard_nb.core.files import write_text_atomic

    return write_text_atomic(
        path,
        json.dumps(scan_to_sarif(report, agent_name=agent_name), ensure_ascii=False, indent=2),
    )
