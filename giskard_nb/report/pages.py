"""Whole pages from views: an evaluation, a scan, a comparison. A standalone file holds every case and
filters them in the page; the viewer (``live``) filters on the server and shows a page at a time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from giskard_nb.report.page import render_page
from giskard_nb.report.scan_views import ComparisonView, ScanView, finding_matches
from giskard_nb.report.views import EvaluationView, case_matches

__all__ = ["PAGE_SIZE", "comparison_page", "evaluation_page", "scan_page"]

#: Cases (or findings) per viewer page.
PAGE_SIZE = 100
EVIDENCE_OPTIONS = [
    ("confirmed", "confirmed"),
    ("suspected", "suspected"),
    ("reviewed", "reviewed (a suspicion a reviewer confirmed)"),
]


def _filters(given: Mapping[str, str] | None, names: Sequence[str]) -> dict[str, str]:
    given = given or {}
    return {name: str(given.get(name) or "").strip()[:200] for name in (*names, "q")}


def _page(items: list[Any], number: int, filters: dict[str, str]) -> tuple[list[Any], int, str]:
    """The items of page ``number`` (1-based), how many come after, the next page's query."""
    start = max(number - 1, 0) * PAGE_SIZE
    chosen = items[start : start + PAGE_SIZE]
    more = max(len(items) - start - PAGE_SIZE, 0)
    query = urlencode({**{k: v for k, v in filters.items() if v}, "page": number + 1})
    return chosen, more, query


def evaluation_page(
    view: EvaluationView,
    *,
    live: bool = False,
    filters: Mapping[str, str] | None = None,
    page: int = 1,
    crumbs: Sequence[tuple[str, str]] = (),
    compare_with: Sequence[tuple[str, str]] = (),
) -> tuple[str, str]:
    """The page of an evaluation (and its nonce)."""
    chosen = _filters(filters if live else None, ("status", "category"))
    cases, more, next_query = view.cases, 0, ""
    if live:
        cases = [
            c
            for c in view.cases
            if case_matches(
                c, status=chosen["status"], category=chosen["category"], query=chosen["q"]
            )
        ]
        shown = len(cases)
        cases, more, next_query = _page(cases, page, chosen)
    else:
        shown = len(cases)
    return render_page(
        "evaluation.html.j2",
        title=f"Evaluation {view.name} — giskard-nb",
        live=live,
        ev=view,
        cases=cases,
        shown=shown,
        filters=chosen,
        more=more,
        next_query=next_query,
        crumbs=list(crumbs),
        compare_with=list(compare_with),
    )


def scan_page(
    view: ScanView,
    *,
    live: bool = False,
    filters: Mapping[str, str] | None = None,
    page: int = 1,
    crumbs: Sequence[tuple[str, str]] = (),
) -> tuple[str, str]:
    """The page of a scan (and its nonce)."""
    chosen = _filters(filters if live else None, ("evidence", "category"))
    findings, more = view.findings, 0
    if live:
        findings = [
            f
            for f in view.findings
            if finding_matches(
                f, evidence=chosen["evidence"], category=chosen["category"], query=chosen["q"]
            )
        ]
    shown = len(findings)
    if live:
        findings, more, _ = _page(findings, page, chosen)
    return render_page(
        "scan.html.j2",
        title=f"Scan {view.name} — giskard-nb",
        live=live,
        scan=view,
        findings=findings,
        shown=shown,
        filters=chosen,
        more=more,
        crumbs=list(crumbs),
        category_options=[(c.id, c.title) for c in view.categories],
        EVIDENCE_OPTIONS=EVIDENCE_OPTIONS,
    )


def comparison_page(view: ComparisonView, *, live: bool = False) -> tuple[str, str]:
    """The page of a comparison of two evaluations (and its nonce)."""
    return render_page(
        "comparison.html.j2",
        title=f"{view.before_name} → {view.after_name} — giskard-nb",
        live=live,
        cmp=view,
    )
