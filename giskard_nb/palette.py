"""The plain data every view draws from: the status order, colours and labels, the grade colours, and
the catalogue of scan categories (ids, titles, descriptions, OWASP ids, in display order).

Why a module of its own: text reports (``core.render``), DataFrames (``frames``), charts (``charts``),
scan views (``scan.render``) and widgets all show the same statuses, grades and categories, and must
agree on their order and colours. They sit in different layers, so the values live here, at the bottom
of the house: this module imports nothing (not even the rest of giskard_nb), and every layer may read
it. ``giskard_nb.scan.catalogue`` builds its ``Category`` models from ``SCAN_CATEGORIES``.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "GRADE_COLORS",
    "INCOMPLETE_COLOR",
    "NO_GRADE_COLOR",
    "SCAN_CATEGORIES",
    "STATUSES",
    "STATUS_COLORS",
    "STATUS_LABELS",
    "ScanCategoryInfo",
    "owasp_short_id",
]

#: Every status of a check, scenario or result, in display order (the categories of ``status`` columns).
STATUSES = ("pass", "fail", "error", "skip")

#: One colour per status, shared by reports, HTML views, widgets and charts.
STATUS_COLORS = {"pass": "#2e7d32", "fail": "#c62828", "error": "#ef6c00", "skip": "#757575"}

#: A status as a past participle, for legends ("3 passed").
STATUS_LABELS = {"pass": "passed", "fail": "failed", "error": "errored", "skip": "skipped"}

#: A scan grade's colour: A (nothing found) to D (a critical finding).
GRADE_COLORS = {"A": "#2e7d32", "B": "#9e9d24", "C": "#ef6c00", "D": "#c62828"}

#: The colour of a scan with no grade (nothing was judged), and of the "incomplete" badge.
NO_GRADE_COLOR = "#616161"
INCOMPLETE_COLOR = "#6a1b9a"


class ScanCategoryInfo(NamedTuple):
    """A vulnerability category as plain data: ``id``, ``title``, ``description``, OWASP id or None."""

    id: str
    title: str
    description: str
    owasp_id: str | None = None


#: The scan categories in display order: OWASP LLM Top 10 (2025 numbering) first, then the others.
SCAN_CATEGORIES: tuple[ScanCategoryInfo, ...] = (
    ScanCategoryInfo(
        "prompt_injection",
        "Prompt Injection",
        "Input, typed or embedded in processed content, that overrides the agent's instructions.",
        "LLM01:2025",
    ),
    ScanCategoryInfo(
        "sensitive_information_disclosure",
        "Sensitive Information Disclosure",
        "The agent reveals credentials, secrets or other people's personal data.",
        "LLM02:2025",
    ),
    ScanCategoryInfo(
        "improper_output_handling",
        "Improper Output Handling",
        "Markup, links or commands pass through the agent unescaped to a browser, database or shell.",
        "LLM05:2025",
    ),
    ScanCategoryInfo(
        "excessive_agency",
        "Excessive Agency",
        "The agent takes consequential actions nobody legitimately asked for.",
        "LLM06:2025",
    ),
    ScanCategoryInfo(
        "system_prompt_leakage",
        "System Prompt Leakage",
        "The agent discloses its hidden instructions and configuration.",
        "LLM07:2025",
    ),
    ScanCategoryInfo(
        "misinformation",
        "Misinformation",
        "The agent states falsehoods, accepts false premises or invents facts, including about its "
        "knowledge base.",
        "LLM09:2025",
    ),
    ScanCategoryInfo(
        "unbounded_consumption",
        "Unbounded Consumption",
        "The agent can be made to produce enormous or endless output.",
        "LLM10:2025",
    ),
    ScanCategoryInfo(
        "harmful_content",
        "Harmful Content Generation",
        "The agent produces dangerous, hateful, violent or self-harm content.",
    ),
    ScanCategoryInfo(
        "brand_damage",
        "Brand Damaging & Reputation",
        "The agent says things that embarrass or damage the organisation deploying it.",
    ),
    ScanCategoryInfo(
        "legal_financial_risk",
        "Legal & Financial Risk",
        "The agent makes unauthorised commitments, defames, or assists fraud.",
    ),
    ScanCategoryInfo(
        "unauthorized_advice",
        "Misguidance & Unauthorized Advice",
        "The agent gives medical, financial or legal advice without caution or referral.",
    ),
    ScanCategoryInfo(
        "bias",
        "Bias & Discrimination",
        "The agent treats people differently, or states stereotypes, because of a protected "
        "attribute.",
    ),
)


def owasp_short_id(owasp_id: str | None) -> str | None:
    """``"LLM01:2025"`` → ``"LLM01"`` (the label charts show); None stays None."""
    return owasp_id.split(":")[0] if owasp_id else None
